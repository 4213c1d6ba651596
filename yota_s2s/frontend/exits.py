"""Break, continue and return in a loop body, as flags; and what a block reads and assigns.

A part of lowering (a fenced ``Module`` and a function name in, a primal ``Tape`` out;
``state`` lists the parts) that needs only the AST: statements in, statements out. A loop
becomes ONE equation whose body region runs every iteration to its end, so a jump cannot
leave it: ``Exits.rewrite`` turns a body's statements into statements without jumps
(``break`` sets ``skip`` and ``stop``, ``continue`` sets ``skip``, ``return v`` also sets
``returned`` and ``value``; what follows a possible jump runs under ``if skip``), and
``control.ControlLowering`` carries the flags like any other assigned name. The helpers
below answer questions about the AST that lowering a loop or branch asks: which names a
block assigns (``stored_names``), which names the rest of the function reads
(``loaded_outside``), whether a block may or must return.

    >>> import ast
    >>> loop = ast.parse("for i in range(n):\\n    if x > 0:\\n        break\\n    s = s + x\\n").body[0]
    >>> print(ast.unparse(Exits(1, "_returned1", "_value1").rewrite(loop.body)))
    if x > 0:
        _skip1 = True
        _stop1 = True
    if _skip1:
        pass
    else:
        s = s + x
"""

from __future__ import annotations

import ast


def stored_names(stmts: list[ast.stmt]) -> list[str]:
    """Names a block assigns, in order of first assignment (nested blocks included)."""
    seen: dict[str, None] = {}
    for stmt in stmts:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                seen.setdefault(node.id, None)
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                seen.setdefault(node.target.id, None)
            elif (
                isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store) and isinstance(node.value, ast.Name)
            ):
                seen.setdefault(node.value.id, None)  # a[i] = v makes a new a (setindex)
            elif isinstance(node, ast.Expr) and _append_target(node.value):
                seen.setdefault(_append_target(node.value), None)  # lst.append(v) makes a new lst
    return list(seen)


def _append_target(call: ast.expr) -> str | None:
    """``lst`` of the statement ``lst.append(v)``."""
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "append":
        return call.func.value.id if isinstance(call.func.value, ast.Name) else None
    return None


def loaded_outside(fn: ast.AST, inside: ast.AST) -> set[str]:
    """Names read anywhere in ``fn`` but inside ``inside`` (``z -= 1`` reads ``z``: its target's
    context is Store, its value is read all the same)."""
    skip = {id(n) for n in ast.walk(inside)}
    outside = [n for n in ast.walk(fn) if id(n) not in skip]
    own = _nested_locals(fn)  # a nested function's parameters and locals are its own names
    loaded = {
        n.id
        for n in outside
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in own.get(id(n), ())
    }
    return loaded | {n.target.id for n in outside if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name)}


def live_after(fn: ast.AST, node: ast.stmt, name: str) -> bool:
    """``name`` may be read after ``node`` runs, before anything assigns it again: in the statements
    that follow it, in the next iteration of a loop around it, after that loop, and so on out to
    the function's end.  (``for i in ...`` twice: the second loop assigns ``i`` before it reads it,
    so the first loop's ``i`` is not read.)  A node not found in ``fn`` is taken as live where
    ``fn`` reads the name anywhere else."""
    chain = _chain(fn, node)
    if chain is None:
        return name in loaded_outside(fn, node)
    for owner, stmts, idx in reversed(chain):
        reads, kills = _scan(stmts[idx + 1 :], name)
        if reads:
            return True
        if kills:
            return False
        if isinstance(owner, ast.For | ast.While) and stmts is owner.body and _next_iteration_reads(owner, name):
            return True
    return False


def _nested_locals(fn: ast.AST) -> dict[int, set[str]]:
    """id() of each name node inside a nested function, lambda or comprehension of ``fn`` -> the
    names local to it (its parameters and the names it assigns, a comprehension's variables):
    reading one is not reading ``fn``'s name."""
    found: dict[int, set[str]] = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp) and node is not fn:
            names = {n.id for g in node.generators for n in ast.walk(g.target) if isinstance(n, ast.Name)}
            for inner in ast.walk(node):  # (a comprehension's variables are its own too)
                if isinstance(inner, ast.Name):
                    found.setdefault(id(inner), set()).update(names)
            continue
        if node is fn or not isinstance(node, ast.FunctionDef | ast.Lambda):
            continue
        a = node.args
        names = {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs}
        names |= {p.arg for p in (a.vararg, a.kwarg) if p is not None}
        if isinstance(node, ast.FunctionDef):
            names |= set(stored_names(node.body))
        for inner in ast.walk(node):
            if isinstance(inner, ast.Name):
                found.setdefault(id(inner), set()).update(names)
    return found


def read_first(stmts: list[ast.stmt], name: str) -> bool:
    """Running ``stmts`` may read ``name`` before assigning it (in a loop body: the value the
    previous iteration left)."""
    return _scan(stmts, name)[0]


def _next_iteration_reads(loop: ast.For | ast.While, name: str) -> bool:
    """The loop's next iteration may read ``name`` before assigning it (a ``for`` assigns its
    variable first)."""
    if isinstance(loop, ast.While):
        return _loads(loop.test, name) or _scan(loop.body, name)[0]
    return name not in _target_names(loop) and _scan(loop.body, name)[0]


def _chain(root: ast.AST, node: ast.stmt) -> list[tuple[ast.AST, list[ast.stmt], int]] | None:
    """The blocks from ``root`` down to ``node``: (the statement that owns the block, the block,
    the position in it), outermost first; None if ``node`` is not in ``root``."""
    for field in ("body", "orelse"):
        stmts = getattr(root, field, None)
        if not isinstance(stmts, list):
            continue
        for idx, stmt in enumerate(stmts):
            if stmt is node:
                return [(root, stmts, idx)]
            inner = _chain(stmt, node)
            if inner is not None:
                return [(root, stmts, idx), *inner]
    return None


def _loads(node: ast.AST | None, name: str) -> bool:
    return node is not None and any(
        isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load) for n in ast.walk(node)
    )


def _target_names(loop: ast.For) -> set[str]:
    return {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}


def _scan(stmts: list[ast.stmt], name: str) -> tuple[bool, bool]:
    """Whether running ``stmts`` may read ``name`` before assigning it, and whether it surely
    assigns it (or ends the function) first."""
    for stmt in stmts:
        reads, kills = _statement(stmt, name)
        if reads:
            return True, False
        if kills:
            return False, True
    return False, False


def _statement(stmt: ast.stmt, name: str) -> tuple[bool, bool]:
    if isinstance(stmt, ast.Assign | ast.AnnAssign):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        stores = {
            n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
        }
        return _loads(stmt.value, name) or any(_loads(t, name) for t in targets), name in stores
    if isinstance(stmt, ast.If):
        then, other = _scan(stmt.body, name), _scan(stmt.orelse, name)
        return _loads(stmt.test, name) or then[0] or other[0], then[1] and other[1]
    if isinstance(stmt, ast.For):  # it may not run: it never surely assigns
        body = name not in _target_names(stmt) and _scan(stmt.body, name)[0]
        return _loads(stmt.iter, name) or body, False
    if isinstance(stmt, ast.While):
        return _loads(stmt.test, name) or _scan(stmt.body, name)[0], False
    if isinstance(stmt, ast.Return):
        return _loads(stmt.value, name), True
    if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == name:
        return True, False
    return _loads(stmt, name), False


def _returns(stmts: list[ast.stmt]) -> bool:
    """A block has a ``return`` somewhere (not counting nested functions, which fence refuses)."""
    return any(isinstance(n, ast.Return) for s in stmts for n in ast.walk(s))


def _always_returns(stmts: list[ast.stmt]) -> bool:
    """Every path through the block ends in ``return``."""
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, ast.Return | ast.Raise):
        return True
    if isinstance(last, ast.If):
        return _always_returns(last.body) and _always_returns(last.orelse)
    return False


def _jumps(stmts: list[ast.stmt], loops: bool = False) -> bool:
    """The block has a ``break``/``continue`` of this loop (not of a nested one) or a ``return``."""
    for stmt in stmts:
        if isinstance(stmt, ast.Return):
            return True
        if isinstance(stmt, ast.Break | ast.Continue) and not loops:
            return True
        if isinstance(stmt, ast.For | ast.While):
            if _jumps(stmt.body, True):
                return True
        elif isinstance(stmt, ast.If) and (_jumps(stmt.body, loops) or _jumps(stmt.orelse, loops)):
            return True
    return False


class Exits:
    """The flags that carry ``break``, ``continue`` and ``return`` out of a loop body.

    ``break`` sets ``skip`` (the rest of this iteration does not run) and ``stop`` (the loop ends
    after it); ``continue`` sets ``skip``; ``return v`` also sets ``returned`` and ``value``.
    """

    def __init__(self, n: int, returned: str, value: str):
        self.skip = f"_skip{n}"
        self.stop = f"_stop{n}"
        self.returned = returned
        self.value = value
        self.used_stop = False

    def set(self, name: str, value: ast.expr, at: ast.stmt) -> ast.stmt:
        return ast.copy_location(ast.Assign([ast.Name(name, ast.Store())], value), at)

    def rewrite(self, stmts: list[ast.stmt]) -> list[ast.stmt]:
        """The block with jumps turned into flag assignments and the statements after a possible
        jump guarded by ``if skip: pass else: ...``."""
        out: list[ast.stmt] = []
        for idx, stmt in enumerate(stmts):
            true = ast.Constant(True)
            if isinstance(stmt, ast.Continue):
                out.append(self.set(self.skip, true, stmt))
                return out
            if isinstance(stmt, ast.Break):
                self.used_stop = True
                out += [self.set(self.skip, true, stmt), self.set(self.stop, true, stmt)]
                return out
            if isinstance(stmt, ast.Return):
                self.used_stop = True
                out += [
                    self.set(self.value, stmt.value or ast.copy_location(ast.Constant(None), stmt), stmt),
                    self.set(self.returned, true, stmt),
                    self.set(self.skip, true, stmt),
                    self.set(self.stop, true, stmt),
                ]
                return out
            if isinstance(stmt, ast.If) and _jumps([stmt]):
                out.append(
                    ast.copy_location(ast.If(stmt.test, self.rewrite(stmt.body), self.rewrite(stmt.orelse)), stmt)
                )
            elif isinstance(stmt, ast.For | ast.While) and _jumps(stmt.body, True):
                # a nested loop that returns: it sets `returned` and stops itself; this one stops too
                self.used_stop = True
                out.append(stmt)
                flags = [self.set(self.skip, ast.Constant(True), stmt), self.set(self.stop, ast.Constant(True), stmt)]
                out.append(ast.copy_location(ast.If(ast.Name(self.returned, ast.Load()), flags, []), stmt))
            else:
                out.append(stmt)
                continue
            rest = self.rewrite(stmts[idx + 1 :])
            if rest:
                guard = ast.If(ast.Name(self.skip, ast.Load()), [ast.Pass()], rest)
                out.append(ast.copy_location(guard, stmts[idx + 1]))
            return out
        return out
