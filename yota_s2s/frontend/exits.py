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
    return list(seen)


def loaded_outside(fn: ast.AST, inside: ast.AST) -> set[str]:
    """Names read anywhere in ``fn`` but inside ``inside`` (``z -= 1`` reads ``z``: its target's
    context is Store, its value is read all the same)."""
    skip = {id(n) for n in ast.walk(inside)}
    outside = [n for n in ast.walk(fn) if id(n) not in skip]
    loaded = {n.id for n in outside if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return loaded | {n.target.id for n in outside if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name)}


def _returns(stmts: list[ast.stmt]) -> bool:
    """A block has a ``return`` somewhere (not counting nested functions, which fence refuses)."""
    return any(isinstance(n, ast.Return) for s in stmts for n in ast.walk(s))


def _always_returns(stmts: list[ast.stmt]) -> bool:
    """Every path through the block ends in ``return``."""
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, ast.Return):
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
                    self.set(self.value, stmt.value, stmt),
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
