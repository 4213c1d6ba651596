"""Shrink a failing program to a small one that fails the same way.

Greedy passes over the program's ``ast`` until none makes progress (or the budget is spent):
drop a statement (a helper, a class, a line of ``f``), replace a loop or a branch by its body,
replace an expression by one of its operands or by a constant, drop an unused parameter, make
the sizes smaller.  A candidate is kept when ``oracle.check`` on it, repeating only the failed
check, gives the same status and kind as the original failure; a candidate the tool refuses, or
that is no longer a valid program, is not.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import time
from collections.abc import Callable, Iterator

from .gen import Program
from .oracle import Outcome, check


def _bodies(tree: ast.AST) -> Iterator[list]:
    for node in ast.walk(tree):
        for name in ("body", "orelse"):
            stmts = getattr(node, name, None)
            if isinstance(stmts, list) and stmts and isinstance(stmts[0], ast.stmt):
                yield stmts


def _nth(tree: ast.AST, k: int):
    for i, node in enumerate(ast.walk(tree)):
        if i == k:
            return node
    return None


def _statement_edits(tree: ast.Module) -> Iterator[Callable[[ast.Module], None]]:
    """Edits that remove statements, biggest first (a helper, a loop, then single lines)."""
    sites = []
    for b, stmts in enumerate(_bodies(tree)):
        for i, s in enumerate(stmts):
            sites.append((b, i, s))
    sites.sort(key=lambda t: -(t[2].end_lineno - t[2].lineno))

    for b, i, s in sites:
        if isinstance(s, ast.Return) or (isinstance(s, ast.FunctionDef) and s.name == "f"):
            continue

        def drop(t, b=b, i=i):
            stmts = list(_bodies(t))[b]
            del stmts[i]
            if not stmts:
                stmts.append(ast.Pass())

        yield drop
        if isinstance(s, (ast.If, ast.For, ast.While)):
            for part in ("body", "orelse"):
                if not getattr(s, part):
                    continue

                def inline(t, b=b, i=i, part=part):
                    stmts = list(_bodies(t))[b]
                    node = stmts[i]
                    new = list(getattr(node, part))
                    if isinstance(node, ast.For) and part == "body":
                        first = ast.Constant(0) if _is_range(node.iter) else ast.Subscript(node.iter, ast.Constant(0))
                        new.insert(0, ast.Assign([node.target], first, lineno=0))
                    new = [x for x in new if not isinstance(x, (ast.Break, ast.Continue))] or [ast.Pass()]
                    stmts[i : i + 1] = new

                yield inline


def _is_range(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range"


def _expression_edits(tree: ast.Module) -> Iterator[Callable[[ast.Module], None]]:
    """Edits that replace an expression in a function's body by an operand of it or by a constant."""
    f = next((d for d in tree.body if isinstance(d, ast.FunctionDef) and d.name == "f"), None)
    params = [ast.Name(a.arg, ast.Load()) for a in f.args.args] if f else []
    stored = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    inside = {id(n) for d in ast.walk(tree) if isinstance(d, ast.FunctionDef) for s in d.body for n in ast.walk(s)}
    for k, node in enumerate(ast.walk(tree)):
        if id(node) not in inside or not isinstance(node, ast.expr) or isinstance(node, ast.Constant):
            continue
        if isinstance(node, ast.Name):
            if not isinstance(node.ctx, ast.Load) or node.id not in stored:
                continue
            for rep in params:
                if rep.id != node.id:

                    def rename(t, k=k, rep=rep):
                        _swap(t, _nth(t, k), ast.Name(rep.id, ast.Load()))

                    yield rename
            continue
        if isinstance(getattr(node, "ctx", None), ast.Store):
            continue
        children = [
            c for c in ast.iter_child_nodes(node) if isinstance(c, ast.expr) and not isinstance(c, ast.Attribute)
        ]
        if isinstance(node, ast.Call):
            children = list(node.args)
        elif isinstance(node, ast.Subscript):
            children = [node.value]
        replacements = [*children, ast.Constant(0.5), *params]
        for rep in replacements:

            def replace(t, k=k, rep=rep):
                _swap(t, _nth(t, k), copy.deepcopy(rep))

            yield replace


def _swap(tree: ast.AST, old: ast.AST, new: ast.AST) -> None:
    for parent in ast.walk(tree):
        for name, value in ast.iter_fields(parent):
            if value is old:
                setattr(parent, name, new)
                return
            if isinstance(value, list):
                for i, item in enumerate(value):
                    if item is old:
                        value[i] = new
                        return


def _rename_edits(tree: ast.Module) -> Iterator[Callable[[ast.Module], None]]:
    """Edits that give a local name a plain one (``_skip1`` -> ``v1``): is the name part of the failure?"""
    names = sorted({n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)})
    taken = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    plain = (f"v{k}" for k in range(1000) if f"v{k}" not in taken)
    for name in names:
        if name.startswith("v") and name[1:].isdigit():
            continue
        new = next(plain)

        def rename(t, name=name, new=new):
            for n in ast.walk(t):
                if isinstance(n, ast.Name) and n.id == name:
                    n.id = new

        yield rename


def _unparse(tree: ast.Module) -> str:
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"


def _program_edits(p: Program) -> Iterator[Program]:
    """Smaller parameters: unused ones dropped, smaller sizes and counts."""
    tree = ast.parse(p.source)
    f = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "f")
    used = {n.id for n in ast.walk(f) if isinstance(n, ast.Name)}
    for k, spec in enumerate(p.params):
        if spec[1] not in used:
            t = copy.deepcopy(tree)
            g = next(n for n in t.body if isinstance(n, ast.FunctionDef) and n.name == "f")
            g.args.args = [a for a in g.args.args if a.arg != spec[1]]
            yield dataclasses.replace(p, source=_unparse(t), params=p.params[:k] + p.params[k + 1 :])
    for name, size in p.dims:
        for smaller in range(1, size):
            dims = tuple((n, smaller if n == name else s) for n, s in p.dims)
            yield dataclasses.replace(p, dims=dims)
    for k, spec in enumerate(p.params):
        if spec[0] == "int":
            for smaller in range(spec[2]):
                yield dataclasses.replace(p, params=p.params[:k] + (("int", spec[1], smaller),) + p.params[k + 1 :])
        if spec[0] == "array" and len(spec[2]) > 0:
            for shape in [spec[2][1:], tuple(1 for _ in spec[2])]:
                if shape != spec[2]:
                    yield dataclasses.replace(p, params=p.params[:k] + (("array", spec[1], shape),) + p.params[k + 1 :])


def shrink(program: Program, failure: Outcome, seed: int = 0, budget_s: float = 60.0, timeout: float = 10.0) -> Program:
    """The smallest program found that fails as ``failure`` did (``program`` if none)."""
    start = time.perf_counter()
    want = failure.signature
    only = failure.kind if failure.kind not in ("internal", "timeout") else None

    def fails(p: Program) -> bool:
        try:
            compile(p.source, "<shrink>", "exec")
        except SyntaxError:
            return False
        return check(p, seed, timeout=timeout, only=only).signature == want

    current = dataclasses.replace(program, source=_unparse(ast.parse(program.source)))
    if not fails(current):
        current = program
    progress = True
    while progress and time.perf_counter() - start < budget_s:
        progress = False
        for edits in (_statement_edits, _expression_edits, _rename_edits):
            tree = ast.parse(current.source)
            for edit in edits(tree):
                if time.perf_counter() - start > budget_s:
                    break
                t = copy.deepcopy(tree)
                try:
                    edit(t)
                    source = _unparse(t)
                except Exception:  # noqa: BLE001, S112 - an edit that does not apply here
                    continue
                if source == current.source:
                    continue
                candidate = dataclasses.replace(current, source=source)
                if fails(candidate):
                    current, progress = candidate, True
                    break
            if progress:
                break
        if progress:
            continue
        for candidate in _program_edits(current):
            if time.perf_counter() - start > budget_s:
                break
            if fails(candidate):
                current, progress = candidate, True
                break
    return current
