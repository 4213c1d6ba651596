"""A loop over a dict parameter's keys that reads its entries, as the loop over its items it means.

A part of parsing (``fence.parse_module``), like ``desugar``: ``for k in params: ... params[k]
...`` (and a comprehension ``... params[k] ... for k in params``) of a parameter ``params`` is
``for k, _params_k in params.items(): ... _params_k ...``: its value at its own key, which is what
``params[k]`` reads where ``params`` is a dict.  The front end serves ``params.items()`` of a dict
parameter (an input tree, ``dicts.input_tree``), where ``params[k]`` of a key known only at run
time is not.  Rewritten only where the loop's name and the parameter are never assigned (in the
loop, in the function) and every ``params[k]`` of the loop is read, not written: what the rewrite
reads is then what the source reads.  A loop that uses the key as a number (``x[k]``, ``k + 1``)
is left alone: its parameter is an array of indices (``for i in perm: perm[i]``).

    >>> tree = ast.parse("def f(p):\\n    return sum(np.sum(p[k] ** 2) for k in p)\\n")
    >>> keyed_loops(tree, "for k in p")
    >>> print(ast.unparse(tree))
    def f(p):
        return sum((np.sum(_p_k ** 2) for k, _p_k in p.items()))
"""

from __future__ import annotations

import ast

from .generated import HEADER

_COMPREHENSIONS = ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp


def keyed_loops(tree: ast.Module, source: str) -> None:
    """Rewrite, in place, each function's loops over a parameter's keys that read its entries."""
    if "for " not in source or source.startswith(HEADER):
        return
    for fn in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)):
        a = fn.args
        params = {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs}
        stored = _stored(fn)
        names = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)}
        for node in ast.walk(fn):
            if isinstance(node, ast.For) and not node.orelse:
                _rewrite(node, node.target, node, node.body, params - stored, names)
            elif isinstance(node, _COMPREHENSIONS):
                for k, gen in enumerate(node.generators):
                    parts = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
                    parts += list(gen.ifs) + [p for g in node.generators[k + 1 :] for p in (g.target, g.iter, *g.ifs)]
                    _rewrite(gen, gen.target, node, parts, params - stored, names)


def _rewrite(loop: ast.For | ast.comprehension, target, at: ast.AST, parts: list, params: set, names: set) -> None:
    """``loop`` (a ``for``, or a ``for`` of the comprehension ``at``) over a parameter of ``params``,
    with ``parts`` the code that runs in it: ``params[k]`` read there becomes a second loop name."""
    it = loop.iter
    if not (isinstance(target, ast.Name) and isinstance(it, ast.Name) and it.id in params):
        return
    key, owner = target.id, it.id
    reads = [
        n
        for part in parts
        for n in ast.walk(part)
        if isinstance(n, ast.Subscript) and _is(n.value, owner) and _is(n.slice, key)
    ]
    if not reads or any(not isinstance(n.ctx, ast.Load) for n in reads) or _numeric(key, owner, parts):
        return
    if any(key in _stored(part) or owner in _stored(part) for part in parts):
        return
    value = next(f"_{owner}_{key}{s}" for s in ("", *range(1, 100)) if f"_{owner}_{key}{s}" not in names)
    names.add(value)
    found = {id(n) for n in reads}

    class Replace(ast.NodeTransformer):
        def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
            if id(node) in found:
                return ast.copy_location(ast.Name(value, ast.Load()), node)
            return self.generic_visit(node)

    Replace().visit(at)  # (the loop, or the comprehension: only the reads found are replaced)
    loop.target = ast.copy_location(ast.Tuple([target, ast.Name(value, ast.Store())], ast.Store()), target)
    method = ast.copy_location(ast.Attribute(ast.Name(owner, ast.Load()), "items", ast.Load()), it)
    loop.iter = ast.copy_location(ast.Call(method, [], []), it)
    ast.fix_missing_locations(at)


def _is(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _stored(node: ast.AST) -> set[str]:
    """The names ``node`` assigns (a loop's or a comprehension's names included)."""
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store | ast.Del)}


def _numeric(key: str, owner: str, parts: list) -> bool:
    """``key`` is used as a number in ``parts``: an index of another sequence than ``owner`` (``x[k]``)
    or an operand of arithmetic (``k + 1``): ``owner`` is then an array of indices (``for i in perm:
    perm[i]``), not a dict."""
    for node in (n for part in parts for n in ast.walk(part)):
        if isinstance(node, ast.Subscript) and not _is(node.value, owner) and _is(node.slice, key):
            return True
        if isinstance(node, ast.BinOp) and (_is(node.left, key) or _is(node.right, key)):
            return True
    return False
