"""Statements written as the plainer statements they stand for, before lowering.

A part of lowering with no state of its own: each function takes a statement (and, where the
rewrite depends on what a name means, a predicate the ``Lowerer`` answers) and returns the
statements to lower in its place, or None where it has nothing to rewrite.  What comes out is
Python that means what the user wrote, so lowering, diagnostics and the generated comments treat
it as any other code:

- ``first, *rest, last = xs`` (``starred_assignment``): the sequence once, a length check as
  Python's, ``first = s[0]``, ``rest = list(s[1:-1])``, ``last = s[-1]``; ``rest`` is a list,
  of a length known when generating (a tuple of values) or only at run time (a list a loop
  builds, ``runtime_comprehensions``).
- ``functools.reduce(f, xs, init)`` (``reduce_loops``): ``acc = init``, ``for v in xs: acc =
  f(acc, v)`` written before the statement, which reads ``acc``; without ``init``, ``xs[0]`` then
  the loop over ``xs[1:]``.
- ``list(xs)`` of a length known at run time only (``lists_as_comprehensions``): ``[v for v in
  xs]``, a list a loop builds; ``list(f(v) for v in xs)`` is ``[f(v) for v in xs]``.
- ``reversed(xs)`` iterated (``for v in reversed(x)``, ``reversed(range(len(x)))``) is ``xs[::-1]``,
  and
  ``sum(xs, start)`` is ``start + sum(xs)`` (``builtin_forms``).
- ``enumerate(xs, start=k)`` (``enumerate_starts``): ``enumerate(xs)``, its count plus ``k`` (a
  ``for`` loop's first statement ``i = _enum + k``; in a comprehension, ``for i in (_enum + k,)``).

    >>> import ast
    >>> stmt = ast.parse("a, *b = x").body[0]
    >>> print("\\n".join(ast.unparse(s) for s in starred_assignment(stmt)))
    _star1_0 = x
    if len(_star1_0) < 1:
        raise ValueError('not enough values to unpack (expected at least 1, got ' + str(len(_star1_0)) + ')')
    a = _star1_0[0]
    b = list(_star1_0[1:])
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable

#: The library function ``reduce_loops`` writes as a loop.
_REDUCE = "functools.reduce"


def rewritten(stmt: ast.stmt, env: dict, lists) -> ast.stmt | list[ast.stmt]:
    """``stmt`` as the plainer Python it stands for: the statements to lower instead (starred
    unpacking, ``functools.reduce``), or the statement with ``list(xs)`` of a run-time length a
    comprehension and ``enumerate(xs, start=k)`` counted from 0.  ``lists``: the lowerer's part
    that answers what a name means (``names_function``, ``runtime_sequence``, ``is_builtin``)."""
    plainer = (
        starred_assignment(stmt)
        or reduce_loops(stmt, lambda f: lists.names_function(f, env, _REDUCE))
        or zip_star_assignment(stmt, lambda name: lists.is_builtin(name, env))
        or objects_after_branches(stmt, lambda name: name not in env and name in lists.lo.module.classes)
    )
    if plainer is not None:
        return plainer
    stmt = lists_as_comprehensions(stmt, lambda xs: lists.runtime_sequence(xs, env))
    stmt = enumerate_starts(stmt, lambda name: lists.is_builtin(name, env))
    return builtin_forms(stmt, lambda name: lists.is_builtin(name, env))


def _located(stmts: list[ast.stmt], where: ast.AST) -> list[ast.stmt]:
    for s in stmts:
        for n in ast.walk(s):
            if "lineno" in n._attributes:
                ast.copy_location(n, where)
    return stmts


def _name(name: str, store: bool = False) -> ast.Name:
    return ast.Name(name, ast.Store() if store else ast.Load())


def starred_assignment(stmt: ast.stmt) -> list[ast.stmt] | None:
    """``a, *rest, b = value`` as the statements it stands for (None: ``stmt`` has no starred target)."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
        return None
    target = stmt.targets[0]
    if not isinstance(target, ast.Tuple | ast.List):
        return None
    stars = [k for k, e in enumerate(target.elts) if isinstance(e, ast.Starred)]
    if len(stars) != 1:
        return None
    k = stars[0]
    before, after = target.elts[:k], target.elts[k + 1 :]
    seq = f"_star{stmt.lineno}_{stmt.col_offset}"
    n = len(before) + len(after)
    check = ast.parse(
        f"if len({seq}) < {n}:\n"
        f"    raise ValueError('not enough values to unpack (expected at least {n}, got ' + str(len({seq})) + ')')"
    ).body[0]
    out: list[ast.stmt] = [ast.Assign([_name(seq, True)], stmt.value), check]
    for j, elt in enumerate(before):
        out.append(ast.Assign([elt], ast.Subscript(_name(seq), ast.Constant(j), ast.Load())))
    stop = ast.UnaryOp(ast.USub(), ast.Constant(len(after))) if after else None
    middle = ast.Subscript(_name(seq), ast.Slice(ast.Constant(len(before)) if before else None, stop), ast.Load())
    out.append(ast.Assign([target.elts[k].value], ast.Call(_name("list"), [middle], [])))
    for j, elt in enumerate(after):
        index = ast.UnaryOp(ast.USub(), ast.Constant(len(after) - j))
        out.append(ast.Assign([elt], ast.Subscript(_name(seq), index, ast.Load())))
    return _located(out, stmt)


def zip_star_assignment(stmt: ast.stmt, builtin: Callable[[str], bool]) -> list[ast.stmt] | None:
    """``a, b = zip(*pairs)`` (the transpose of a list of pairs) as ``_zip = pairs``, ``a = [_p[0]
    for _p in _zip]``, ``b = [_p[1] for _p in _zip]``: lists where Python gives tuples, with the
    same items (None: ``stmt`` is not such an assignment).

        >>> stmt = ast.parse("a, b = zip(*pairs)").body[0]
        >>> print("\\n".join(ast.unparse(s) for s in zip_star_assignment(stmt, lambda name: True)))
        _zip1_0 = pairs
        a = [_p[0] for _p in _zip1_0]
        b = [_p[1] for _p in _zip1_0]
    """
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
        return None
    target, value = stmt.targets[0], stmt.value
    if not isinstance(target, ast.Tuple | ast.List) or any(isinstance(e, ast.Starred) for e in target.elts):
        return None
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "zip"):
        return None
    if value.keywords or len(value.args) != 1 or not isinstance(value.args[0], ast.Starred) or not builtin("zip"):
        return None
    seq = f"_zip{stmt.lineno}_{stmt.col_offset}"
    out: list[ast.stmt] = [ast.Assign([_name(seq, True)], value.args[0].value)]
    for k, elt in enumerate(target.elts):
        item = ast.Subscript(_name("_p"), ast.Constant(k), ast.Load())
        comp = ast.ListComp(item, [ast.comprehension(_name("_p", True), _name(seq), [], 0)])
        out.append(ast.Assign([elt], comp))
    return _located(out, stmt)


def objects_after_branches(stmt: ast.stmt, is_class: Callable[[str], bool]) -> list[ast.stmt] | None:
    """``if c: m = Model(a)`` / ``else: m = Model(b)`` (each branch ending by making an object of one
    class of the file into one name) as the branches choosing the arguments, then the object made
    once after them (``__init__`` changes nothing else, so when it runs cannot change a value);
    ``elif`` chains too.  None: ``stmt`` is not such an ``if``.

        >>> stmt = ast.parse("if c:\\n    m = M(1.0)\\nelse:\\n    m = M(2.0, k=x)").body[0]
        >>> objects_after_branches(stmt, lambda name: True) is None
        True
        >>> stmt = ast.parse("if c:\\n    m = M(1.0, k=y)\\nelse:\\n    m = M(2.0, k=x)").body[0]
        >>> print("\\n".join(ast.unparse(s) for s in objects_after_branches(stmt, lambda name: True)))
        _made1_0 = None
        _made1_1 = None
        if c:
            _made1_0 = 1.0
            _made1_1 = y
        else:
            _made1_0 = 2.0
            _made1_1 = x
        m = M(_made1_0, k=_made1_1)
    """
    if not isinstance(stmt, ast.If) or not stmt.orelse:
        return None
    orelse = stmt.orelse
    if len(orelse) == 1 and isinstance(orelse[0], ast.If):  # elif: the inner chain first
        inner = objects_after_branches(orelse[0], is_class)
        orelse = inner if inner is not None else orelse
    made = [_made_object(block, is_class) for block in (stmt.body, orelse)]
    if made[0] is None or made[1] is None:
        return None
    (name, call), (other, second) = made
    same = name == other and call.func.id == second.func.id and len(call.args) == len(second.args)
    if not same or [k.arg for k in call.keywords] != [k.arg for k in second.keywords]:
        return None
    temps = [f"_made{stmt.lineno}_{k}" for k in range(len(call.args) + len(call.keywords))]

    def chosen(block: list[ast.stmt], made_call: ast.Call) -> list[ast.stmt]:
        values = [*made_call.args, *(k.value for k in made_call.keywords)]
        return [*block[:-1], *_located([ast.Assign([_name(t, True)], v) for t, v in zip(temps, values)], block[-1])]

    branch = ast.If(stmt.test, chosen(stmt.body, call), chosen(orelse, second))
    positional = [_name(t) for t in temps[: len(call.args)]]
    keywords = [ast.keyword(k.arg, _name(t)) for k, t in zip(call.keywords, temps[len(call.args) :])]
    make = ast.Assign([_name(name, True)], ast.Call(call.func, positional, keywords))
    unset = [ast.Assign([_name(t, True)], ast.Constant(None)) for t in temps]  # (each branch sets them)
    branch = ast.fix_missing_locations(ast.copy_location(branch, stmt))
    return [*_located(unset, stmt), branch, *_located([make], stmt.body[-1])]


def _made_object(block: list[ast.stmt], is_class: Callable[[str], bool]) -> tuple[str, ast.Call] | None:
    """``(name, call)`` of a block ending by ``name = Cls(...)`` of a class of the file (no ``*``)."""
    last = block[-1] if block else None
    if not (isinstance(last, ast.Assign) and len(last.targets) == 1 and isinstance(last.targets[0], ast.Name)):
        return None
    call = last.value
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and is_class(call.func.id)):
        return None
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return None
    return last.targets[0].id, call


def _unconditional_calls(node: ast.AST | None, wanted: Callable[[ast.Call], bool]) -> list[ast.Call]:
    """The calls of ``node`` that ``wanted`` picks and that run whenever it does (not under
    ``if``/``else``, ``and``/``or``, in a lambda or a comprehension), innermost first."""
    found: list[ast.Call] = []
    todo = [node] if node is not None else []
    while todo:
        n = todo.pop(0)
        if isinstance(n, ast.IfExp | ast.BoolOp | ast.Lambda | ast.ListComp | ast.GeneratorExp):
            continue
        if isinstance(n, ast.SetComp | ast.DictComp):
            continue
        if isinstance(n, ast.Call) and wanted(n):
            found.append(n)
        todo.extend(ast.iter_child_nodes(n))
    return found[::-1]


class ReplaceNode(ast.NodeTransformer):
    """A copy of a tree with the node ``old`` replaced by ``new`` (the tree itself unchanged)."""

    def __init__(self, old: ast.AST, new: ast.expr):
        self.old, self.new = old, new

    def visit(self, node: ast.AST) -> ast.AST:
        if node is self.old:
            return ast.copy_location(self.new, node)
        return super().visit(node)

    def generic_visit(self, node: ast.AST) -> ast.AST:
        # (its lists copied too: generic_visit writes a list field's new items into that list)
        fields = {f: list(v) if isinstance(v, list) else v for f in node._fields for v in [getattr(node, f)]}
        return super().generic_visit(ast.copy_location(type(node)(**fields), node))


def _value_of(stmt: ast.stmt) -> ast.expr | None:
    if isinstance(stmt, ast.Assign | ast.AugAssign | ast.AnnAssign | ast.Return | ast.Expr):
        return stmt.value
    return None


def reduce_loops(stmt: ast.stmt, is_reduce: Callable[[ast.expr], bool]) -> list[ast.stmt] | None:
    """``stmt`` with its first ``functools.reduce(f, xs[, init])`` (``is_reduce`` of the callee says
    which calls are) written as the loop it runs, before ``stmt``; None where it has none."""

    def wanted(call: ast.Call) -> bool:
        return (
            2 <= len(call.args) <= 3
            and not call.keywords
            and not any(isinstance(a, ast.Starred) for a in call.args)
            and is_reduce(call.func)
        )

    calls = _unconditional_calls(_value_of(stmt), wanted)
    if not calls:
        return None
    call = calls[0]
    tag = f"{call.lineno}_{call.col_offset}"
    fn, seq, acc, item = f"_reduce_f{tag}", f"_reduce_xs{tag}", f"_reduce{tag}", f"_reduce_v{tag}"
    out: list[ast.stmt] = [
        ast.Assign([_name(fn, True)], call.args[0]),
        ast.Assign([_name(seq, True)], call.args[1]),
    ]
    if len(call.args) == 3:
        out.append(ast.Assign([_name(acc, True)], call.args[2]))
        over: ast.expr = _name(seq)
    else:  # reduce(f, xs): xs[0], then the others (a TypeError on an empty xs, as Python's)
        check = ast.parse(
            f"if len({seq}) == 0:\n    raise TypeError('reduce() of empty iterable with no initial value')"
        ).body[0]
        out += [check, ast.Assign([_name(acc, True)], ast.Subscript(_name(seq), ast.Constant(0), ast.Load()))]
        over = ast.Subscript(_name(seq), ast.Slice(ast.Constant(1), None), ast.Load())
    step = ast.Assign([_name(acc, True)], ast.Call(_name(fn), [_name(acc), _name(item)], []))
    out.append(ast.For(_name(item, True), over, [step], []))
    out.append(ReplaceNode(call, _name(acc)).visit(stmt))
    return _located(out[:-1], call) + [ast.fix_missing_locations(out[-1])]


def lists_as_comprehensions(stmt: ast.stmt, runtime: Callable[[ast.expr], bool]) -> ast.stmt:
    """``stmt`` with each unconditional ``list(xs)`` whose ``xs`` has a length known at run time only
    (``runtime`` says, and that ``list`` is the builtin) written ``[v for v in xs]`` (a copy; ``stmt``
    itself when it has none)."""

    def wanted(call: ast.Call) -> bool:
        return (
            isinstance(call.func, ast.Name)
            and call.func.id == "list"
            and len(call.args) == 1
            and not call.keywords
            and (isinstance(call.args[0], ast.GeneratorExp) or not isinstance(call.args[0], ast.Starred))
            and (isinstance(call.args[0], ast.GeneratorExp) or runtime(call.args[0]))
        )

    while calls := _unconditional_calls(_value_of(stmt), wanted):
        call = calls[0]  # (one at a time: the statement is a new tree after each)
        item = f"_list_v{call.lineno}_{call.col_offset}"
        arg = call.args[0]
        if isinstance(arg, ast.GeneratorExp):  # list(f(v) for v in xs): [f(v) for v in xs]
            comp = ast.ListComp(arg.elt, arg.generators)
        else:
            comp = ast.ListComp(_name(item), [ast.comprehension(_name(item, True), arg, [], 0)])
        for n in ast.walk(comp):
            if isinstance(n, ast.expr) and not hasattr(n, "lineno"):
                ast.copy_location(n, call)
        stmt = ReplaceNode(call, comp).visit(stmt)
    return stmt


def _enumerate_start(node: ast.expr, builtin: Callable[[str], bool]) -> tuple[ast.Call, ast.expr] | None:
    """``(enumerate(xs), k)`` for ``node`` = ``enumerate(xs, k)`` or ``enumerate(xs, start=k)``."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "enumerate"):
        return None
    starts = [kw.value for kw in node.keywords if kw.arg == "start"]
    if len(node.args) == 2 and not node.keywords:
        start = node.args[1]
    elif len(node.args) == 1 and len(node.keywords) == 1 and starts:
        start = starts[0]
    else:
        return None
    if not builtin("enumerate") or isinstance(node.args[0], ast.Starred):
        return None
    return ast.copy_location(ast.Call(node.func, [node.args[0]], []), node), start


def enumerate_starts(stmt: ast.stmt, builtin: Callable[[str], bool]) -> ast.stmt:
    """``stmt`` with each ``enumerate(xs, start=k)`` of a ``for`` loop or a comprehension whose count
    is a name (``for i, v in ...``) written as ``enumerate(xs)`` and that count plus ``k`` (a copy;
    ``stmt`` itself when it has none).  ``builtin("enumerate")``: the name is the builtin's."""

    def counted(target: ast.expr, it: ast.expr) -> tuple[ast.Name, ast.Call, ast.expr] | None:
        found = _enumerate_start(it, builtin)
        if found is None or not isinstance(target, ast.Tuple) or len(target.elts) != 2:
            return None
        if not isinstance(target.elts[0], ast.Name):
            return None
        return target.elts[0], *found

    class _Starts(ast.NodeTransformer):
        def visit_For(self, node: ast.For) -> ast.AST:
            self.generic_visit(node)
            found = counted(node.target, node.iter)
            if found is None:
                return node
            count, plain, start = found
            hidden = f"_enum{node.lineno}_{node.col_offset}"
            first = ast.Assign([_name(count.id, True)], ast.BinOp(_name(hidden), ast.Add(), start))
            target = ast.Tuple([_name(hidden, True), node.target.elts[1]], ast.Store())
            loop = ast.For(target, plain, [first, *node.body], node.orelse)
            return ast.fix_missing_locations(ast.copy_location(loop, node))

        def visit_comprehension(self, gen: ast.comprehension) -> object:
            found = counted(gen.target, gen.iter)
            if found is None:
                return gen
            count, plain, start = found
            hidden = f"_enum{plain.lineno}_{plain.col_offset}"
            target = ast.Tuple([_name(hidden, True), gen.target.elts[1]], ast.Store())
            shifted = ast.Tuple([ast.BinOp(_name(hidden), ast.Add(), start)], ast.Load())
            return [
                ast.comprehension(target, plain, [], 0),
                ast.comprehension(_name(count.id, True), shifted, gen.ifs, 0),
            ]

        def generic_visit(self, node: ast.AST) -> ast.AST:
            if isinstance(node, ast.ListComp | ast.GeneratorExp | ast.SetComp | ast.DictComp):
                gens = []
                for g in node.generators:
                    out = self.visit_comprehension(g)
                    gens += out if isinstance(out, list) else [out]
                node.generators = gens
            return super().generic_visit(node)

    if not any(_enumerate_start(n, lambda _: True) for n in ast.walk(stmt)):
        return stmt
    new = _Starts().visit(copy.deepcopy(stmt))
    return ast.fix_missing_locations(new)


def builtin_forms(stmt: ast.stmt, builtin: Callable[[str], bool]) -> ast.stmt:
    """``stmt`` with ``for v in reversed(xs)`` (a loop's or a comprehension's) iterating ``xs[::-1]``
    (``range(n)[::-1]`` is a range), and ``sum(xs, start)`` written ``start + sum(xs)`` (a copy;
    ``stmt`` itself when it has none).
    ``builtin(name)``: the name is the builtin's."""

    def call_of(node: ast.AST, name: str, nargs: int) -> bool:
        return (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == name
            and len(node.args) == nargs
            and not node.keywords
            and not any(isinstance(a, ast.Starred) for a in node.args)
            and builtin(name)
        )

    def reversed_of(it: ast.expr) -> ast.expr:
        """``it`` (iterated) with ``reversed(xs)`` as ``xs[::-1]``, also in ``zip(...)`` and ``enumerate(...)``."""
        if call_of(it, "reversed", 1):  # (a loop over reversed(...) itself read len() of an iterator)
            flipped = ast.Subscript(it.args[0], ast.Slice(None, None, ast.Constant(-1)), ast.Load())
            return ast.copy_location(flipped, it)
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id in ("zip", "enumerate"):
            args = [reversed_of(a) for a in it.args]
            if any(a is not b for a, b in zip(args, it.args)) and builtin(it.func.id):
                return ast.copy_location(ast.Call(it.func, args, it.keywords), it)
        return it

    class _Forms(ast.NodeTransformer):
        def visit_For(self, node: ast.For) -> ast.AST:
            self.generic_visit(node)
            node.iter = reversed_of(node.iter)
            return node

        def visit_comprehension(self, gen: ast.comprehension) -> ast.AST:
            self.generic_visit(gen)
            gen.iter = reversed_of(gen.iter)
            return gen

        def visit_Call(self, node: ast.Call) -> ast.AST:
            self.generic_visit(node)
            if call_of(node, "sum", 2):  # sum(xs, start): start + sum(xs)
                total = ast.copy_location(ast.Call(node.func, [node.args[0]], []), node)
                return ast.copy_location(ast.BinOp(node.args[1], ast.Add(), total), node)
            return node

    def wanted(n: ast.AST) -> bool:
        return (call_of(n, "sum", 2)) or (
            isinstance(n, ast.For | ast.comprehension) and reversed_of(n.iter) is not n.iter
        )

    if not any(wanted(n) for n in ast.walk(stmt)):
        return stmt
    return ast.fix_missing_locations(_Forms().visit(copy.deepcopy(stmt)))


#: The list a generator function written as a list-building function fills (``generators_as_lists``).
YIELDED = "_yielded"


def generators_as_lists(tree: ast.AST) -> dict[int, ast.AST]:
    """Every generator function of ``tree`` (in place) as the function that builds the list of what
    it yields: ``_yielded = []`` first, ``yield v`` as ``_yielded.append(v)``, ``yield from xs`` as a
    loop of appends, and every ``return`` (and the end) ``return _yielded``.  Iterating the list
    (``for``, ``sum``, ``list``, ``*``) gives what iterating the generator gives: the functions are
    pure, so when their statements run cannot change a value.  A ``yield`` read for a value (``x =
    yield v``) is left for the fence to refuse.  Returns the functions rewritten: id -> the first
    ``yield`` (a generator to differentiate is refused there: its value is an iterator).

        >>> tree = ast.parse("def g(xs):\\n    for v in xs:\\n        yield v * v\\n")
        >>> len(generators_as_lists(tree))
        1
        >>> print(ast.unparse(tree))
        def g(xs):
            _yielded = []
            for v in xs:
                _yielded.append(v * v)
            return _yielded
    """
    rewritten: dict[int, ast.AST] = {}
    for fn in [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]:
        own = list(_own_nodes(fn))
        yields = [n for n in own if isinstance(n, ast.Expr) and isinstance(n.value, ast.Yield | ast.YieldFrom)]
        if not yields or any(
            isinstance(n, ast.Yield | ast.YieldFrom) for n in own if not _is_statement_yield(n, yields)
        ):
            continue
        rewritten[id(fn)] = min(yields, key=lambda n: (n.lineno, n.col_offset)).value
        _AsList().visit(fn)
        start = ast.Assign([_name(YIELDED, True)], ast.List([], ast.Load()))
        first = 1 if fn.body and isinstance(fn.body[0], ast.Expr) and isinstance(fn.body[0].value, ast.Constant) else 0
        fn.body[first:first] = _located([start], fn.body[first])
        if not isinstance(fn.body[-1], ast.Return):
            fn.body.append(_located([ast.Return(_name(YIELDED))], fn.body[-1])[0])
        ast.fix_missing_locations(fn)
    return rewritten


def _own_nodes(fn: ast.FunctionDef):
    """The nodes of ``fn``'s own body (not those of a nested function, class or lambda)."""
    todo = list(fn.body)
    while todo:
        n = todo.pop()
        yield n
        if not isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            todo.extend(ast.iter_child_nodes(n))


def _is_statement_yield(node: ast.AST, statements: list[ast.Expr]) -> bool:
    return any(node is s.value for s in statements)


class _AsList(ast.NodeTransformer):
    """``yield v`` -> ``_yielded.append(v)``, ``yield from xs`` -> ``for _v in xs: _yielded.append(_v)``,
    ``return`` -> ``return _yielded``, in one function's own body."""

    def __init__(self):
        self.depth = 0

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        self.depth += 1
        if self.depth == 1:
            self.generic_visit(node)
        self.depth -= 1
        return node

    def visit_Lambda(self, node: ast.Lambda) -> ast.AST:
        return node

    visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda

    def visit_Expr(self, node: ast.Expr) -> ast.AST:
        value = node.value
        if isinstance(value, ast.Yield):
            item = value.value if value.value is not None else ast.Constant(None)
            return _located([ast.Expr(_append(item))], node)[0]
        if isinstance(value, ast.YieldFrom):
            loop = ast.For(_name("_yielded_v", True), value.value, [ast.Expr(_append(_name("_yielded_v")))], [])
            return _located([loop], node)[0]
        return node

    def visit_Return(self, node: ast.Return) -> ast.AST:
        return _located([ast.Return(_name(YIELDED))], node)[0]


def _append(item: ast.expr) -> ast.Call:
    return ast.Call(ast.Attribute(_name(YIELDED), "append", ast.Load()), [item], [])
