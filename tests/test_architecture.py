"""The house rules of the code base (docs/design.md), checked on the source of ``yota_s2s``.

- every module says what it is for (a docstring) and fits on a screenful of screens: at most 600
  lines; a class at most 400, a function at most 150; and an object is not hidden in a tower of
  mixins: a class counted with its project bases at most 800 (compose parts instead);
- the modules import each other without a cycle, counting imports inside functions;
- the layers import downwards only: ``ir`` knows nothing of the front end or the code generator,
  the front end and the transforms nothing of the code generator, and no stage imports the
  command line or the Python API; the examples of the docstrings (doctests) too, except that an
  example outside ``ir`` may make its input from source text (``pipeline``, ``frontend``): ``ir``'s
  build their tapes by hand (``ir`` imports nothing from ``dsl``, not even in an example);
- every package is installed (listed in pyproject.toml).
"""

from __future__ import annotations

import ast
import doctest
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "yota_s2s"
MODULES = sorted(p for p in PACKAGE.rglob("*.py"))

#: The largest module, class and function, in lines.
MAX_MODULE, MAX_CLASS, MAX_FUNCTION = 600, 400, 150
#: The largest class counted with its project bases (each once), in lines.
MAX_OBJECT = 800
#: Classes known to be over it, each with what is to be done: a smell on record, not a target.
OVER_OBJECT: dict[str, str] = {}

#: Each layer and the layers it may import (besides itself, ``errors`` and ``version``).
LAYERS = {
    "ir": set(),  # (it reads rules through ir.primitives.Rules: dsl imports ir, never the reverse)
    "dsl": {"ir"},
    "runtime": set(),
    "frontend": {"ir", "dsl"},
    "transform": {"ir", "dsl"},
    "codegen": {"ir", "dsl"},
}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> set[str]:
    """The ``yota_s2s`` modules ``path`` imports, anywhere in it (inside functions too)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("yota_s2s"))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join([*base, *([node.module] if node.module else [])])
            elif node.module and node.module.startswith("yota_s2s"):
                target = node.module
            else:
                continue
            for alias in node.names:  # from . import cupy_api: a module; from .core import Var: a name
                sub = f"{target}.{alias.name}"
                found.add(sub if (ROOT / Path(*sub.split("."))).with_suffix(".py").exists() else target)
    return {m for m in found if m != name}


GRAPH = {module_name(p): imports(p) for p in MODULES}


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_module_has_a_docstring_and_its_sizes_are_bounded(path):
    text = path.read_text(encoding="utf-8")
    tree = ast.parse(text)
    assert ast.get_docstring(tree), f"{path.name}: no module docstring (its contract)"
    lines = text.count("\n")
    assert lines <= MAX_MODULE, f"{path.name}: {lines} lines (at most {MAX_MODULE})"
    for node in ast.walk(tree):
        size = getattr(node, "end_lineno", 0) - getattr(node, "lineno", 0) + 1
        if isinstance(node, ast.ClassDef):
            assert size <= MAX_CLASS, f"class {node.name}: {size} lines (at most {MAX_CLASS})"
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            assert size <= MAX_FUNCTION, f"{node.name}(): {size} lines (at most {MAX_FUNCTION})"


def _classes() -> dict[str, tuple[int, list[str]]]:
    """Every class of the package by name: its lines and the names of its bases."""
    found: dict[str, tuple[int, list[str]]] = {}
    for path in MODULES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                bases = [b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases]
                found.setdefault(node.name, (node.end_lineno - node.lineno + 1, bases))
    return found


def test_no_object_is_a_tower_of_mixins():
    classes = _classes()

    def size(name: str, seen: set[str]) -> int:
        if name in seen or name not in classes:
            return 0
        seen.add(name)
        lines, bases = classes[name]
        return lines + sum(size(b, seen) for b in bases)

    over = {name: size(name, set()) for name in classes if size(name, set()) > MAX_OBJECT}
    assert set(over) == set(OVER_OBJECT), f"classes over {MAX_OBJECT} lines with their bases: {over}"


def test_no_import_cycle():
    state: dict[str, int] = {}  # 1: on the path, 2: done
    path: list[str] = []

    def visit(module: str) -> None:
        state[module] = 1
        path.append(module)
        for other in sorted(GRAPH.get(module, ())):
            if state.get(other) == 1:
                cycle = path[path.index(other) :] + [other]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if other not in state:
                visit(other)
        path.pop()
        state[module] = 2

    for module in sorted(GRAPH):
        if module not in state:
            visit(module)


def test_layers_import_downwards():
    for module, targets in GRAPH.items():
        parts = module.split(".")
        layer = parts[1] if len(parts) > 2 else None
        if layer not in LAYERS:
            continue
        allowed = {layer, *LAYERS[layer], "errors", "version", "sources"}
        for target in targets:
            other = target.split(".")[1] if "." in target else target
            assert other in allowed, f"{module} imports {target}: {layer} may import {sorted(allowed)}"


#: What a doctest may import besides its layer's imports: source text made into its input (not in ``ir``).
DOCTEST_INPUTS = {"pipeline", "frontend"}


def doctest_imports(path: Path) -> set[str]:
    """The ``yota_s2s`` modules the examples of ``path``'s docstrings import."""
    parser = doctest.DocTestParser()
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for example in parser.get_examples(ast.get_docstring(node) or ""):
            for stmt in ast.walk(ast.parse(example.source)):
                if isinstance(stmt, ast.ImportFrom) and stmt.module and stmt.module.startswith("yota_s2s"):
                    found.add(stmt.module)
                elif isinstance(stmt, ast.Import):
                    found.update(a.name for a in stmt.names if a.name.startswith("yota_s2s"))
    return found


def test_doctests_import_downwards():
    seen = 0
    for path in MODULES:
        parts = module_name(path).split(".")
        layer = parts[1] if len(parts) > 2 else None
        if layer not in LAYERS:
            continue
        allowed = {layer, *LAYERS[layer], "errors", "version", "sources"}
        if layer != "ir":
            allowed |= DOCTEST_INPUTS
        for target in doctest_imports(path):
            seen += 1
            other = target.split(".")[1] if "." in target else target
            assert other in allowed, (
                f"a doctest of {module_name(path)} imports {target}: {layer} may import {sorted(allowed)}"
            )
    assert seen > 50  # (the examples were found)


def test_every_package_is_installed():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(config["tool"]["setuptools"]["packages"])
    packages = {module_name(p) for p in PACKAGE.rglob("__init__.py")}
    assert packages <= listed, f"not in pyproject.toml's packages: {sorted(packages - listed)}"
