"""Runtime helpers: the functions that generated modules carry, found in ``yota_s2s/runtime/``.

A helper is a top-level ``_name`` function (or ``_NAME = ...`` constant) of a module of the
``runtime`` package, written against ``xp`` (the array module).  A generated module gets the
source of the helpers it calls, and of those they call, with ``xp`` renamed to the target's
module alias; it never imports ``yota_s2s``.

    >>> helper_for("unbroadcast"), helper_for("add")
    ('_unbroadcast', None)
    >>> helper_closure({"_matmul_dx"})
    ['_matmul_dx', '_unbroadcast']
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Iterator, Mapping
from pathlib import Path

#: The folder of the runtime package, and its modules that define helpers: core, linalg, shape, ...
RUNTIME = Path(__file__).resolve().parent.parent / "runtime"
RUNTIME_MODULES = sorted(p.stem for p in RUNTIME.glob("*.py") if p.stem != "__init__")


@functools.cache
def _runtime_functions(variant: str = "") -> Mapping[str, tuple[ast.stmt, str]]:
    """Every helper ``_name`` of the runtime modules (a function, or a constant ``_NAME = ...``),
    with its module's source text; of the subpackage ``variant`` when one is named.  The names are
    found by a scan of the texts; a module is parsed when one of its helpers is first asked for (a
    command that writes five helpers, examples/poly.py's, parses one of the fifteen modules)."""
    folder = RUNTIME / variant if variant else RUNTIME
    stems = sorted(p.stem for p in folder.glob("*.py") if p.stem != "__init__") if variant else RUNTIME_MODULES
    return _Helpers({stem: (folder / f"{stem}.py").read_text(encoding="utf-8") for stem in stems})


#: A top-level ``def _name(`` or ``_NAME = ...`` of a runtime module (``_Helpers.parsed``'s nodes, by name).
_DEFINED = re.compile(r"^(?:def[ \t]+(_\w+)[ \t]*\(|(_\w+)[ \t]*=(?!=))", re.MULTILINE)


class _Helpers(Mapping):
    """Helper name -> (its definition, its module's text), the modules parsed on demand."""

    def __init__(self, texts: dict[str, str]):
        self.texts = texts
        self.where: dict[str, str] = {}  # name -> the module that defines it (the last one)
        for stem, text in texts.items():
            for match in _DEFINED.finditer(text):
                name = match.group(1) or match.group(2)
                self.where[name] = stem
        self.modules: dict[str, dict[str, tuple[ast.stmt, str]]] = {}

    def parsed(self, stem: str) -> dict[str, tuple[ast.stmt, str]]:
        """The helpers of module ``stem``, by name (a name defined twice: its last definition)."""
        if stem not in self.modules:
            text = self.texts[stem]
            found: dict[str, tuple[ast.stmt, str]] = {}
            for node in ast.parse(text).body:
                target = node.targets[0] if isinstance(node, ast.Assign) else node
                name = getattr(target, "name", None) or getattr(target, "id", "")
                if isinstance(node, (ast.FunctionDef, ast.Assign)) and name.startswith("_"):
                    found[name] = (node, text)
            self.modules[stem] = found
        return self.modules[stem]

    def __getitem__(self, name: str) -> tuple[ast.stmt, str]:
        return self.parsed(self.where[name])[name]

    def __contains__(self, name: object) -> bool:
        return name in self.where

    def __iter__(self) -> Iterator[str]:
        return iter(self.where)

    def __len__(self) -> int:
        return len(self.where)


def helper_names(variant: str = "") -> set[str]:
    """The names of all runtime helpers of a target (``variant``; "": NumPy's and CuPy's), reserved in its code."""
    return set(_runtime_functions(variant))


def variant_has(name: str, variant: str) -> bool:
    """The helper ``name`` exists for the target whose helpers are ``variant`` ("": NumPy's)."""
    return name in _runtime_functions(variant)


def helper_closure(names: set[str], variant: str = "") -> list[str]:
    """``names`` and the helpers they call, sorted."""
    funcs = _runtime_functions(variant)
    todo, seen = list(names), set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo.extend(n.id for n in ast.walk(funcs[name][0]) if isinstance(n, ast.Name) and n.id in funcs)
    return sorted(seen)


def helper_is_constant(name: str, variant: str = "") -> bool:
    """Helper ``name`` is a constant (``_FLOATS = ...``), written after the imports."""
    return isinstance(_runtime_functions(variant)[name][0], ast.Assign)


@functools.cache
def helper_source(name: str, alias: str, variant: str = "") -> str:
    """The source of helper ``name`` (as written in ``runtime``) against the module alias ``alias`` (``np``);
    a ``variant``'s as it is written (its ``xp`` is its own local name)."""
    node, source = _runtime_functions(variant)[name]
    text = _segment(_lines(source), node)
    return text if variant else re.sub(r"\bxp\.", alias + ".", text)


@functools.lru_cache(maxsize=64)
def _lines(source: str) -> list[str]:
    """``source`` split into lines as ``ast`` counts them (at ``\r\n``, ``\r`` and ``\n``), with their ends:
    once per runtime module (``ast.get_source_segment`` splits the whole module at each call)."""
    return re.findall(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$", source)


def _segment(lines: list[str], node: ast.stmt) -> str:
    """``ast.get_source_segment`` of ``node`` from its module's ``lines`` (columns are UTF-8 offsets)."""
    first, last = node.lineno - 1, node.end_lineno - 1
    start, end = node.col_offset, node.end_col_offset
    if first == last:
        return lines[first].encode()[start:end].decode()
    head = lines[first].encode()[start:].decode()
    return head + "".join(lines[first + 1 : last]) + lines[last].encode()[:end].decode()


def helper_node(name: str, variant: str = "") -> ast.stmt:
    """The definition of helper ``name`` as its runtime module has it (names read as written, ``xp``)."""
    return _runtime_functions(variant)[name][0]


def helper_for(prim: str) -> str | None:
    """The runtime helper that writes ``prim``: the function ``_<prim>`` of a ``runtime*`` module."""
    name = f"_{prim}"
    return name if name in _runtime_functions() else None
