"""Statements written as the plainer statements they mean, before the fence: ``match``, the walrus
(``:=``) and ``try``.

A part of parsing (``fence.parse_module``), like ``rewrites.generators_as_lists``: each rewrite
changes the module's tree in place, and runs only where the source can hold what it looks for
(a line that starts with ``match``, a ``:=``, a line that starts with ``try``), so a file without
them costs nothing.  Every new node is placed at the node it stands for: a diagnostic and the
generated ``# grad of:`` comments name the user's line.

- ``match`` of literal patterns (``case "l1":``, ``case 1 | 2:``, ``case None:``, ``case _:``,
  ``case other:`` binding the subject, a guard ``if cond``) is the ``if``/``elif``/``else`` chain of
  its cases (``kind == "l1"``; ``is`` for ``None``, ``True``, ``False``).  A subject that is not a
  name is assigned to one first.  A sequence, mapping or class pattern leaves the ``match`` to the
  fence, which refuses it, located.
- A walrus ``(n := expr)`` whose value every run of its statement computes (not in an ``and``/``or``
  after the first operand, a conditional expression's branch, a comprehension or a lambda, nor a
  ``while`` test, which runs again each iteration) is ``n = expr`` just before its statement, read
  as ``n``.  Others are left to the fence.
- ``try: body`` with its ``except`` handlers, ``else`` and ``finally``: the body, then ``else``, then
  ``finally``, which is what runs when nothing raises.  The handlers are not differentiated: where the
  body raises, the generated code raises the same exception (documented in supported-python.md).

    >>> tree = ast.parse("def f(x, kind):\\n    match kind:\\n        case 'a' | 'b':\\n            return x\\n"
    ...                  "        case _:\\n            return 2 * x\\n")
    >>> desugar(tree, "match kind")
    >>> print(ast.unparse(tree))
    def f(x, kind):
        if kind == 'a' or kind == 'b':
            return x
        else:
            return 2 * x
"""

from __future__ import annotations

import ast
import re

from .generated import HEADER

#: Where each rewrite may apply (a line starting with the keyword; the walrus anywhere).
_MATCH = re.compile(r"^\s*match\b", re.MULTILINE)
_TRY = re.compile(r"^\s*try\s*:", re.MULTILINE)
_LOCAL_CLASS = re.compile(r"^[ \t]+class\s", re.MULTILINE)


def desugar(tree: ast.Module, source: str) -> None:
    """Rewrite ``tree``'s functions in place: ``match``, walrus, ``try`` and ``np.fill_diagonal``
    where ``source`` has them; a class a function defines, that reads none of its names, moved
    before it (``hoist_classes``)."""
    match, walrus, try_ = bool(_MATCH.search(source)), ":=" in source, bool(_TRY.search(source))
    fill = "fill_diagonal" in source
    if source.startswith(HEADER):
        return  # (a module yota-s2s generated: its helpers are compared with the runtime's as written)
    if _LOCAL_CLASS.search(source):
        hoist_classes(tree)
    if not (match or walrus or try_ or fill):
        return
    rewrite = _Statements(match, walrus, try_, fill)
    for node in tree.body:  # the functions and methods, their nested functions by their blocks (not module code)
        for fn in [node] if isinstance(node, ast.FunctionDef) else getattr(node, "body", []):
            if isinstance(fn, ast.FunctionDef):
                rewrite.visit_body(fn.body)


def hoist_classes(tree: ast.Module) -> None:
    """A class defined in a function's body (at its top level), that reads none of the function's
    names, is the same class defined just before the function: the file's classes serve it
    (``instances.py``).  One whose name the file defines elsewhere, or that reads a name of the
    function (a closure), stays where it is, for the fence to refuse, located."""
    taken = {n.name for n in ast.walk(tree) if isinstance(n, ast.ClassDef)}
    counts = {name: sum(isinstance(n, ast.ClassDef) and n.name == name for n in ast.walk(tree)) for name in taken}
    module_names = {
        t.id for n in tree.body for t in ast.walk(n) if isinstance(t, ast.Name) and isinstance(t.ctx, ast.Store)
    } | {n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.ClassDef)}
    out: list[ast.stmt] = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            local = _function_names(node)
            for stmt in list(node.body):
                if not isinstance(stmt, ast.ClassDef) or counts[stmt.name] != 1 or stmt.name in module_names:
                    continue
                read = {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name)}
                if not read & (local - {stmt.name}):
                    node.body.remove(stmt)
                    out.append(stmt)
            if not node.body:
                node.body.append(ast.copy_location(ast.Pass(), node))
        out.append(node)
    tree.body[:] = out


def _function_names(fn: ast.FunctionDef) -> set[str]:
    """The names ``fn`` binds: its parameters, and what its body assigns or defines."""
    a = fn.args
    names = {p.arg for p in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg] if p is not None}
    todo: list[ast.AST] = list(fn.body)
    while todo:  # (not into a nested function's or class's body: its names are its own)
        n = todo.pop()
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(n.name)
            continue
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            names.add(n.id)
        todo.extend(ast.iter_child_nodes(n))
    return names


class _Statements:
    def __init__(self, match: bool, walrus: bool, try_: bool, fill: bool):
        self.match, self.walrus, self.try_, self.fill = match, walrus, try_, fill
        self.count = 0

    def visit_body(self, body: list[ast.stmt]) -> None:
        """Rewrite the statements of ``body`` (a list, in place), and those of their blocks."""
        out: list[ast.stmt] = []
        for stmt in body:
            out.extend(self.statement(stmt))
        body[:] = out

    def statement(self, stmt: ast.stmt) -> list[ast.stmt]:
        if self.match and isinstance(stmt, ast.Match):
            chain = self.match_chain(stmt)
            if chain is not None:
                return [s for new in chain for s in self.statement(new)]
        if self.try_ and isinstance(stmt, ast.Try):
            return [s for new in [*stmt.body, *stmt.orelse, *stmt.finalbody] for s in self.statement(new)]
        if self.fill and _fills_diagonal(stmt):
            return _diagonal_written(stmt)
        before = self.hoisted(stmt) if self.walrus else []
        for field in ("body", "orelse", "finalbody"):
            block = getattr(stmt, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                self.visit_body(block)
        for handler in getattr(stmt, "handlers", []):
            self.visit_body(handler.body)
        for case in getattr(stmt, "cases", []):
            self.visit_body(case.body)
        return [*before, stmt]

    # -- match
    def match_chain(self, stmt: ast.Match) -> list[ast.stmt] | None:
        """The ``if`` chain of ``stmt`` (with the subject's assignment first where it is not a name),
        or None where a pattern is not a literal, an alternative of them, a capture or ``_``."""
        before: list[ast.stmt] = []
        subject = stmt.subject
        if not isinstance(subject, ast.Name):
            self.count += 1
            name = f"_match_subject{self.count}"
            before.append(ast.copy_location(ast.Assign([ast.Name(name, ast.Store())], subject), stmt))
            subject = ast.Name(name, ast.Load())
        branches: list[tuple[ast.expr | None, list[ast.stmt]]] = []
        for case in stmt.cases:
            made = _pattern_test(case.pattern, subject)
            if made is None:
                return None
            test, binds = made
            if binds and case.guard is not None:
                return None  # (the guard reads the bound name: left to the fence)
            if case.guard is not None:
                test = case.guard if test is None else ast.BoolOp(ast.And(), [test, case.guard])
            body = [ast.copy_location(ast.Assign([ast.Name(binds, ast.Store())], _load(subject)), case.pattern)]
            body = (body if binds else []) + case.body
            branches.append((test, body))
            if test is None:
                break  # (an irrefutable case: the later ones never run)
        chain: list[ast.stmt] = []
        for test, body in reversed(branches):
            if test is None:
                chain = body
                continue
            node = ast.If(test, body, chain)
            chain = [ast.fix_missing_locations(ast.copy_location(node, body[0] if body else stmt))]
        for node in chain:
            _place(node, stmt)
        return before + chain

    # -- walrus
    def hoisted(self, stmt: ast.stmt) -> list[ast.stmt]:
        """``n = expr`` for each walrus of ``stmt``'s own expressions that always runs, each
        replaced by ``n`` in place."""
        if isinstance(stmt, ast.While | ast.FunctionDef | ast.ClassDef):
            return []
        out = self.named(stmt, skip=("body", "orelse", "finalbody", "handlers", "cases"))
        for field, value in ast.iter_fields(stmt):
            if field not in ("body", "orelse", "finalbody", "handlers", "cases"):
                for expr in value if isinstance(value, list) else [value]:
                    if isinstance(expr, ast.expr):
                        for parent in _always_run(expr):
                            out.extend(self.named(parent))
        return out

    def named(self, parent: ast.AST, skip: tuple = ()) -> list[ast.stmt]:
        """The assignments of the walruses that are children of ``parent``, each replaced by its name."""
        out: list[ast.stmt] = []
        for field, value in ast.iter_fields(parent):
            if field in skip:
                continue
            items = value if isinstance(value, list) else [value]
            for k, child in enumerate(items):
                if not (isinstance(child, ast.NamedExpr) and isinstance(child.target, ast.Name)):
                    continue
                if isinstance(parent, ast.expr) and not any(c is child for c in _always_children(parent)):
                    continue  # (after the first operand of `and`, in a branch of `a if c else b`)
                for inner in _always_run(child.value):  # (n := (m := f(x)) + 1)
                    out.extend(self.named(inner))
                if isinstance(child.value, ast.NamedExpr):
                    out.extend(self.named(child))
                out.append(ast.copy_location(ast.Assign([ast.Name(child.target.id, ast.Store())], child.value), child))
                name = ast.copy_location(ast.Name(child.target.id, ast.Load()), child)
                if isinstance(value, list):
                    value[k] = name
                else:
                    setattr(parent, field, name)
        return out


def _always_run(expr: ast.expr):
    """``expr`` and its sub-expressions that run whenever ``expr`` does (parents of a walrus)."""
    todo = [expr]
    while todo:
        node = todo.pop()
        yield node
        todo.extend(_always_children(node))


def _always_children(node: ast.AST) -> list[ast.expr]:
    """The sub-expressions of ``node`` that run whenever it does."""
    if isinstance(node, ast.Lambda | ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp):
        return []
    if isinstance(node, ast.BoolOp):
        return node.values[:1]
    if isinstance(node, ast.IfExp):
        return [node.test]
    return [c for c in ast.iter_child_nodes(node) if isinstance(c, ast.expr)]


def _pattern_test(pattern: ast.pattern, subject: ast.Name) -> tuple[ast.expr | None, str | None] | None:
    """(the test of ``pattern`` on ``subject``, None: always; the name it binds, or None)."""
    if isinstance(pattern, ast.MatchValue):
        return ast.Compare(_load(subject), [ast.Eq()], [pattern.value]), None
    if isinstance(pattern, ast.MatchSingleton):
        return ast.Compare(_load(subject), [ast.Is()], [ast.Constant(pattern.value)]), None
    if isinstance(pattern, ast.MatchOr):
        tests = [_pattern_test(p, subject) for p in pattern.patterns]
        if any(t is None or t[0] is None or t[1] for t in tests):
            return None
        return ast.BoolOp(ast.Or(), [t[0] for t in tests]), None
    if isinstance(pattern, ast.MatchAs):
        if pattern.pattern is None:
            return None, pattern.name
        inner = _pattern_test(pattern.pattern, subject)
        if inner is None or inner[1]:
            return None
        return inner[0], pattern.name
    return None


def _fills_diagonal(stmt: ast.stmt) -> bool:
    """``np.fill_diagonal(K, v)`` (``numpy.``, or ``fill_diagonal`` imported) of a name, as a statement."""
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    if not (isinstance(call, ast.Call) and len(call.args) == 2 and not call.keywords):
        return False
    func = call.func
    named = isinstance(func, ast.Name) and func.id == "fill_diagonal"
    library = (
        isinstance(func, ast.Attribute)
        and func.attr == "fill_diagonal"
        and getattr(func.value, "id", "") in ("np", "numpy")
    )
    return (named or library) and isinstance(call.args[0], ast.Name)


def _diagonal_written(stmt: ast.Expr) -> list[ast.stmt]:
    """``np.fill_diagonal(K, v)`` of a 2-D ``K`` as the item write ``K[r, r] = v`` (``r`` the
    ``min(K.shape)`` first indices), after a check that ``K`` is 2-D (NumPy fills ``K[i, i, i]`` of
    an array of more dimensions, which the write would not)."""
    target, value = stmt.value.args
    name = target.id
    text = (
        f"if len({name}.shape) != 2:\n"
        f"    raise ValueError('np.fill_diagonal: the generated code writes the diagonal of 2-D arrays only')\n"
        f"{name}[range(min({name}.shape)), range(min({name}.shape))] = 0.0\n"
    )
    check, write = ast.parse(text).body
    write.value = value
    for node in (check, write):
        for n in ast.walk(node):
            if "lineno" in n._attributes and n is not value and not _inside(n, value):
                ast.copy_location(n, stmt)
    return [check, write]


def _inside(node: ast.AST, tree: ast.AST) -> bool:
    return any(n is node for n in ast.walk(tree))


def _load(name: ast.Name) -> ast.Name:
    return ast.Name(name.id, ast.Load())


def _place(node: ast.AST, at: ast.AST) -> None:
    """Give every node of ``node`` without a location ``at``'s."""
    for n in ast.walk(node):
        if "lineno" in n._attributes and not hasattr(n, "lineno"):
            ast.copy_location(n, at)
