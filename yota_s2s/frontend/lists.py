"""Python lists built at run time: ``lst.append(v)`` in a loop, then ``np.array(lst)``.

A part of lowering (a fenced ``Module`` and a function name in, a primal ``Tape`` out;
``state`` lists the parts).  A list written in the source (``[a, b]``, ``[]`` then appends in
straight-line code) is a tuple of values, of a length known when generating.  A list a loop or
a branch appends to is a value of the tape, of the primitives of ``rules/python.py``:
``list_make`` (``[a, b]``, where it enters the loop), ``list_append`` and ``list_stack``
(``np.array(lst)``, ``np.stack(lst)``, and wherever a library function takes the list as an
array: ``np.sum(lst)``, ``sum(lst)``).  ``len(lst)``, ``lst[i]``, ``lst[-1]``, ``lst[1:]`` and
``for v in lst`` read it as Python does.  Its gradient is an array, the items' gradients
stacked: the items of a list a gradient flows through have one shape.

A comprehension of a length known when generating is unrolled (``expr_ListComp``: a tuple of
values, several ``for`` clauses nested).  A comprehension over a length known only at run time (``[x[i] * w for i in range(k, len(x))]``,
``sum(v ** 2 for v in vals)`` of such a list) whose items read the function's values is written
as the loop it stands for (``runtime_comprehensions``): an empty list, a ``for`` and an append.

    >>> from yota_s2s.dsl.load import load_rules
    >>> from yota_s2s.frontend.fence import fence
    >>> from yota_s2s.frontend.lower import lower
    >>> src = ("import numpy as np\\ndef f(x, n):\\n    xs = [x]\\n    for i in range(n):\\n"
    ...        "        xs.append(np.sin(xs[-1]))\\n    return np.sum(np.array(xs))\\n")
    >>> [e.prim for e in lower(fence(src, "f.py"), "f", load_rules()).eqns]
    ['list_make', 'for', 'list_stack', 'sum']
"""

from __future__ import annotations

import ast

from ..errors import UserError
from ..ir.core import Atom, Lit, Slice, Var
from ..ir.primitives import STATIC_OPERAND as OPERAND
from .rewrites import ReplaceNode
from .state import LoweringState
from .values import _Function

#: Primitives that take a list built at run time as it is (the others take ``np.array(lst)``).
_TAKE_LISTS = frozenset({"len", "getindex", "static", "effect", "list_append", "list_stack"})


class ListLowering:
    """Lists built at run time (a part of ``lower.Lowerer``)."""

    def __init__(self, lo: LoweringState):
        self.lo = lo
        #: Var.id of Python lists built at run time (``lst.append(v)`` in a loop: ``passthrough``).
        self.built: set[int] = set()

    def is_list(self, value: object) -> bool:
        return isinstance(value, Var) and value.id in self.built

    def as_list(self, value: object, node: ast.AST) -> Atom:
        if self.is_list(value):
            return value
        items = [self.lo.as_array(v, node) for v in value]
        out = self.lo.add("list_make", items, {}, node)
        self.built.add(out.id)
        return out

    def append_value(self, name: str, current: object, value: object, node: ast.Call) -> object:
        """The list ``name`` holds after ``name.append(value)``."""
        if isinstance(current, tuple):  # a list of known length: one more value
            return (*current, value)
        if not self.is_list(current):
            raise self.lo.error(
                "YS034", f"{name}.append(...) needs {name} to be a list (start it with {name} = [])", node
            )
        out = self.lo.add("list_append", [current, self.lo.as_array(value, node)], {}, node)
        self.built.add(out.id)
        return out

    def list_operands(self, prim: str, atoms: list[Atom], node: ast.AST) -> list[Atom]:
        if prim in _TAKE_LISTS or not any(self.is_list(a) for a in atoms):
            return atoms
        return [self.stacked(a, node) if self.is_list(a) else a for a in atoms]

    def stacked(self, value: Var, node: ast.AST) -> Atom:
        """``np.array(lst)`` of a list built at run time."""
        return self.lo.add("list_stack", [value], {}, node)

    def joined(self, prim: str, value: Var, axis: object, node: ast.AST) -> Atom:
        """``np.stack(lst, axis=k)`` and ``np.concatenate(lst, axis=k)`` of a list built at run
        time: its items stacked on a new axis 0, moved to ``k``; for ``concatenate``, that axis
        then merged with the next (the items have one shape, as ``np.array(lst)`` needs)."""
        if not isinstance(axis, int) or isinstance(axis, bool):
            raise self.lo.error("YS032", f"{prim}() of a list built at run time takes an integer axis=", node)
        stacked = self.stacked(value, node)
        if prim == "stack" or axis != 0:
            destination = axis if prim == "stack" or axis >= 0 else axis - 1
            stacked = self.lo.calls.bound_primitive(
                "moveaxis", [stacked], {"source": 0, "destination": destination}, node
            )
        if prim == "stack":
            return stacked
        at = axis if axis >= 0 else axis - 1  # the stacked axis, then the items' axis it joins
        shape = self.lo.calls.bound_primitive("shape", [stacked], {}, node)
        where = ("YS032", f"{prim}() of a list", getattr(node, "lineno", 0), getattr(node, "col_offset", 0), "")
        code = f"{OPERAND}0[:{at}] + (-1,) + {OPERAND}0[{at}:][2:]"
        params = {"code": code, "modules": (), "through": (), "refusal": where}
        merged = self.lo.add("static", [shape], params, node)
        return self.lo.calls.bound_primitive("reshape", [stacked, merged], {}, node)

    def mark_lists(self, sources: list[list[object]], outs: list[Var]) -> None:
        """Results of a loop or branch are lists where a value they may be is (``sources[k]``)."""
        for k, out in enumerate(outs):
            if any(self.is_list(v) for v in sources[k]):
                self.built.add(out.id)

    def list_slice(self, value: Atom, index: tuple, out: Atom) -> None:
        """``lst[1:]`` of a list is a list."""
        if self.is_list(value) and isinstance(out, Var) and any(isinstance(i, Slice) for i in index):
            self.built.add(out.id)

    def expr_ListComp(self, node: ast.ListComp | ast.GeneratorExp, env: dict) -> object:
        """``[w * x[i] for i in range(3)]``: unrolled, a tuple of values (a list in the source);
        several ``for`` clauses nest (``[x[i] * x[j] for i in range(3) for j in range(i)]``)."""
        out: list = []
        self.unrolled(node, 0, dict(env), out)  # one scope for all its clauses, as Python's
        return tuple(out)

    def unrolled(self, node: ast.ListComp | ast.GeneratorExp, k: int, scope: dict, out: list) -> None:
        """Append the items of ``node``'s ``for`` clauses from the ``k``-th on to ``out``.  ``scope``
        is the comprehension's own, one for all its items: a lambda an item makes reads the loop
        names as Python's does, when it is called (``[lambda v: v * k for k in range(3)]`` all read
        the last ``k``)."""
        if k == len(node.generators):
            out.append(self.lo.expr(node.elt, scope))
            return
        gen = node.generators[k]
        for item in self.lo.calls.static_sequence(gen.iter, scope):
            inner = scope
            self.lo.assign(gen.target, item, inner)
            keep = True
            for cond in gen.ifs:
                test = self.lo.expr(cond, inner)
                if not (isinstance(test, Lit) and isinstance(test.value, bool | int)):
                    raise self.lo.error(
                        "YS041", "a comprehension's condition must be known when generating (on the loop index)", cond
                    )
                keep = keep and bool(test.value)
            if keep:
                self.unrolled(node, k + 1, inner, out)

    expr_GeneratorExp = expr_ListComp

    def expr_DictComp(self, node: ast.DictComp, env: dict) -> dict:
        """``{k: 2.0 * v for k, v in p.items()}``: unrolled, a dict of values whose keys are known
        when generating."""
        pairs: list = []
        items = ast.copy_location(ast.ListComp(ast.Tuple([node.key, node.value], ast.Load()), node.generators), node)
        self.unrolled(items, 0, env, pairs)
        out = {}
        for key, value in pairs:
            if not (isinstance(key, Lit) and isinstance(key.value, str | int | float | bool | tuple)):
                raise self.lo.error("YS034", "a dict comprehension's keys must be known when generating", node.key)
            out[key.value] = value
        return out

    def maps_as_generators(self, stmt: ast.stmt, env: dict) -> ast.stmt:
        """``stmt`` with each ``map(f, xs)`` of the builtin map written ``(f(v) for v in xs)`` (a copy;
        ``stmt`` itself when it has none), so that a run-time length is a loop as a comprehension is."""
        shadowed = "map" in env or any("map" in t for t in (self.lo.module.functions, self.lo.module.constants))
        calls = [] if shadowed else [n for n in ast.walk(stmt) if _is_map(n)]
        if not calls:
            return stmt
        replaced = stmt
        for call in calls:
            names = [f"_map{call.lineno}_{call.col_offset}_{k}" for k in range(len(call.args) - 1)]
            targets = [ast.Name(n, ast.Store()) for n in names]
            target = targets[0] if len(targets) == 1 else ast.Tuple(targets, ast.Store())
            source = call.args[1] if len(call.args) == 2 else ast.Call(ast.Name("zip", ast.Load()), call.args[1:], [])
            elt = ast.Call(call.args[0], [ast.Name(n, ast.Load()) for n in names], [])
            gen = ast.GeneratorExp(elt, [ast.comprehension(target, source, [], 0)])
            for n in ast.walk(gen):
                if not hasattr(n, "lineno") and isinstance(n, ast.expr):
                    ast.copy_location(n, call)
            replaced = ReplaceNode(call, gen).visit(replaced)
        return replaced

    def runtime_comprehensions(self, stmt: ast.stmt, env: dict) -> list[ast.stmt] | None:
        """``stmt`` with each comprehension of a run-time length whose items read the function's
        values made a list built by a loop, written before it; None where it has none::

            vals = [np.sum(s * w) for s in states[k:]]    ->    vals = []
                                                                for s in states[k:]:
                                                                    vals.append(np.sum(s * w))

        Several ``for`` clauses are nested loops.  A comprehension that runs only under a
        condition (in ``a if c else b``, ``and``/``or``, a lambda) is left alone, except as
        an assignment's ``a if c else b``, which is made an ``if`` statement first.
        """
        if not isinstance(stmt, ast.Assign | ast.AugAssign | ast.AnnAssign | ast.Return | ast.Expr):
            return None
        hoisted = [n for n in _unconditional_comprehensions(stmt.value) if self.runtime_length(n, env)]
        if not hoisted:
            return self.conditional_assignment(stmt, env)
        comp = hoisted[0]  # the outermost; the loop's own statements hoist the inner ones
        direct = isinstance(stmt, ast.Assign) and stmt.value is comp and len(stmt.targets) == 1
        if direct and isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id not in _names(comp):
            name = stmt.targets[0].id  # vals = [...]: the loop builds vals
        else:
            name = f"_items{comp.lineno}_{comp.col_offset}"
        item: ast.stmt = ast.Expr(
            ast.Call(ast.Attribute(ast.Name(name, ast.Load()), "append", ast.Load()), [comp.elt], [])
        )
        for gen in reversed(comp.generators):
            if gen.ifs:
                item = ast.If(gen.ifs[0] if len(gen.ifs) == 1 else ast.BoolOp(ast.And(), gen.ifs), [item], [])
            item = ast.For(gen.target, gen.iter, [item], [])
        start = ast.Assign([ast.Name(name, ast.Store())], ast.List([], ast.Load()))
        rest = ReplaceNode(comp, ast.Name(name, ast.Load())).visit(stmt)
        return [ast.fix_missing_locations(ast.copy_location(s, comp)) for s in (start, item)] + [rest]

    def conditional_assignment(self, stmt: ast.stmt, env: dict) -> list[ast.stmt] | None:
        """``pairs = [...] if n <= 4 else []`` with a comprehension of a run-time length in a
        branch, as ``if n <= 4: pairs = [...]`` / ``else: pairs = []``; None for any other."""
        value = stmt.value if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else None
        if not isinstance(value, ast.IfExp):
            return None
        branches = (value.body, value.orelse)
        if not any(self.runtime_length(c, env) for b in branches for c in _unconditional_comprehensions(b)):
            return None
        body, orelse = ([ast.Assign([stmt.targets[0]], b)] for b in branches)
        return [ast.fix_missing_locations(ast.copy_location(ast.If(value.test, body, orelse), stmt))]

    def names_function(self, node: ast.expr, env: dict, name: str) -> bool:
        """``node`` names the library function ``name`` (``functools.reduce``, ``reduce`` imported from
        it), not a function of the user's; a look only, nothing lowered stays."""
        root = node
        while isinstance(root, ast.Attribute):
            root = root.value
        if not isinstance(root, ast.Name) or root.id in env or root.id not in self.lo.module.imports:
            return False  # (an import's name only: a parameter's attribute read would make it an object)
        tape, mark = self.lo.tape, len(self.lo.tape.eqns)
        try:
            value = self.lo.expr(node, env)
        except UserError:
            return False
        finally:
            self.lo.discard(tape, mark)
        return isinstance(value, _Function) and value.local is None and value.name == name

    def is_builtin(self, name: str, env: dict) -> bool:
        """``name`` is Python's builtin here (no name of the function or the file shadows it)."""
        m = self.lo.module
        return name not in env and not any(name in t for t in (m.functions, m.constants, m.imports, m.statics))

    def runtime_sequence(self, node: ast.expr, env: dict) -> bool:
        """``list(node)`` is a list of a length known at run time only (``list`` the builtin): the
        rows of an array parameter, a slice of a list a loop builds; a look only."""
        return self.is_builtin("list", env) and self.runtime_only(node, env)

    def runtime_only(self, node: ast.expr, env: dict) -> bool:
        """``node`` is a sequence whose length is known at run time only (a look only)."""
        tape, mark = self.lo.tape, len(self.lo.tape.eqns)
        try:
            self.lo.calls.static_sequence(node, env)
        except UserError as exc:
            return exc.code == "YS041"
        finally:
            self.lo.discard(tape, mark)
        return False

    def runtime_length(self, comp: ast.ListComp | ast.GeneratorExp, env: dict) -> bool:
        """``comp``'s first ``for`` runs over a length known at run time only (``range`` of a
        computed bound, the rows of an array, a list built at run time, ``zip`` of those) and its
        items are values of the function (``[2 * i for i in range(n)]`` is static code, passed
        through as written)."""
        if any(g.is_async for g in comp.generators):
            return False
        gen = comp.generators[0]
        bound = {n.id for g in comp.generators for n in ast.walk(g.target) if isinstance(n, ast.Name)}
        parts = (comp.elt, *(i for g in comp.generators for i in g.ifs), *(g.iter for g in comp.generators[1:]))
        reads = [n.id for part in parts for n in ast.walk(part) if isinstance(n, ast.Name)]
        values = any(n not in bound and n in env and not isinstance(env[n], Lit | _Function) for n in reads)
        over_range = (
            isinstance(gen.iter, ast.Call) and isinstance(gen.iter.func, ast.Name) and gen.iter.func.id == "range"
        )
        tape, mark = self.lo.tape, len(self.lo.tape.eqns)
        try:  # a look only: what it lowers is dropped (the loop, or the unrolled items, lower it again)
            if isinstance(gen.iter, ast.Name) and self.is_list(self.lo.expr(gen.iter, env)):
                return True
            self.lo.calls.static_sequence(gen.iter, env)
        except UserError as exc:  # YS041: a length known at run time; the rows of an array are values
            return exc.code == "YS041" and (values or not over_range)
        finally:
            self.lo.discard(tape, mark)
        return False


def _unconditional_comprehensions(node: ast.AST | None) -> list[ast.ListComp | ast.GeneratorExp]:
    """The comprehensions of ``node`` that run whenever it does (not under ``if``/``else``,
    ``and``/``or``, in a lambda or inside another comprehension), outermost first."""
    found: list = []
    todo = [node] if node is not None else []
    while todo:
        n = todo.pop(0)
        if isinstance(n, ast.ListComp | ast.GeneratorExp):
            found.append(n)
        elif not isinstance(n, ast.IfExp | ast.BoolOp | ast.Lambda | ast.SetComp | ast.DictComp):
            todo.extend(ast.iter_child_nodes(n))
    return found


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _is_map(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "map"
        and len(node.args) >= 2
        and not node.keywords
        and not any(isinstance(a, ast.Starred) for a in node.args)
    )
