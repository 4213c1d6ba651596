"""A Python function in; the source text of a module that holds it, and what it refers to, out.

``source_of(f, classes)`` is the text the pipeline differentiates for ``f``:

- a function defined at the top level of a file: that file, exactly as ``yota-s2s FILE --func
  NAME`` reads it (its helpers, methods and constants are the file's);
- any other function (one defined in a notebook cell, a doctest, a method, a nested function):
  a module assembled from its own source and what its code refers to.  The modules it uses
  become imports (``np`` -> ``import numpy as np``), the library functions it calls become
  ``from`` imports, the functions it calls are added by their source (and theirs, in turn), the
  classes it is given (or, with none, the classes of its module whose methods it calls) are
  rebuilt from their methods' sources, and the numbers it reads become constants.

The ``Source`` remembers where each block of an assembled module came from (``where``,
``relocate``), so errors and the tape's provenance point at the function's own file and line,
and which globals it copied (``guards``), so a caller can tell when they change.

    >>> import numpy as np
    >>> def loss(x):
    ...     return np.sum(x * x)
    >>> source = source_of(loss, ())
    >>> print(source.text, end="")
    import numpy as np
    <BLANKLINE>
    def loss(x):
        return np.sum(x * x)
    >>> source.where(source.path, 3)  # line 3 of the module is line 1 of the cell that defines loss
    ('<doctest yota_s2s.assemble[1]>', 1)
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import sys
import textwrap
import types
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from .errors import UserError
from .files import load_source

#: Modules whose functions are library calls (``from numpy import exp``), never inlined by source.
LIBRARIES = {"numpy", "math", "cupy", "cupyx", "jax", "scipy", "builtins"}


@dataclasses.dataclass
class Block:
    """Lines ``start..start+count-1`` of an assembled module are lines ``line..`` of ``path``."""

    start: int
    count: int
    path: str
    line: int


@dataclasses.dataclass
class Source:
    """Source text to differentiate, and where its lines came from."""

    text: str
    path: str
    funcs: list[str] | None
    blocks: list[Block] = dataclasses.field(default_factory=list)
    guards: list[tuple[dict, str, object]] = dataclasses.field(default_factory=list)  # globals copied in
    sha256: str | None = None  # of the file's bytes, when the text is a file's (the header's source-sha256)

    def where(self, path: str, line: int) -> tuple[str, int]:
        """The file and line that ``line`` of this (assembled) module came from."""
        for b in self.blocks:
            if path == self.path and b.start <= line < b.start + b.count:
                return b.path, line - b.start + b.line
        return path, line

    def relocate(self, error: UserError) -> UserError:
        """The error at the line of the original file, for an assembled module."""
        path, line = self.where(error.path, error.line)
        return dataclasses.replace(error, path=path, line=line)


def source_of(f: Callable, classes: Sequence[type]) -> Source:
    """The file of a top-level function, or a module assembled around any other function."""
    f = inspect.unwrap(f)
    if getattr(f, "__code__", None) is None:
        unsupported(f)
    if f.__name__ == "<lambda>":
        raise TypeError("yota-s2s cannot differentiate a lambda: define the function with 'def'")
    try:
        path = inspect.getsourcefile(f)
    except TypeError:
        path = None
    module = sys.modules.get(getattr(f, "__module__", None) or "")
    top_level = f.__qualname__ == f.__name__ and getattr(module, f.__name__, None) is f
    if path and top_level and Path(path).is_file():
        try:  # read as the command line reads it (encoding, line ends, hash of the bytes)
            file = load_source(path)
        except UserError:
            pass
        else:
            return Source(file.text, path, [f.__name__], sha256=file.sha256)
    return assemble(f, classes)


def assemble(f: types.FunctionType, classes: Sequence[type]) -> Source:
    """A module holding ``f``, the functions and classes it reaches, its imports and constants.

    >>> import math
    >>> SCALE = 3.0
    >>> def helper(x):
    ...     return math.sin(x) * SCALE
    >>> def outer(x):
    ...     return helper(x) + 1.0
    >>> print(assemble(outer, ()).text)
    import math
    SCALE = 3.0
    <BLANKLINE>
    def outer(x):
        return helper(x) + 1.0
    <BLANKLINE>
    def helper(x):
        return math.sin(x) * SCALE
    <BLANKLINE>
    """
    header: dict[str, str] = {}  # name -> the line that defines it
    definitions: list[list[tuple[str, str, int]]] = []  # [(dedented source, original path, first line)]
    guards: list[tuple[dict, str, object]] = []
    seen: set[int] = set()
    called: set[str] = set()  # the methods the code calls: m.forward(x)
    provided: set[str] = set()  # the methods of the classes included
    todo: list[object] = [f, *classes]
    while todo:
        item = todo.pop(0)
        if id(item) in seen:
            continue
        seen.add(id(item))
        pieces = _own_source(item, required=item is f)
        if not pieces:
            continue
        definitions.append(pieces)
        namespace = getattr(item, "__globals__", f.__globals__)
        called.update(_method_calls("".join(text for text, _, _ in pieces), namespace))
        provided.update(fn.__name__ for fn in _functions(item) if isinstance(item, type))
        for name, value, namespace in _referenced(item):
            if name in header or id(value) in seen:
                continue
            line = _import_or_constant(name, value)
            if line is not None:
                header[name] = line
            elif isinstance(value, types.FunctionType | type) and value.__name__ == name:
                todo.append(value)
            else:
                continue  # not something a module can hold: lowering reports the name if it is used
            if namespace is not None:
                guards.append((namespace, name, value))
        if not todo:  # m.forward(x) with no argument to tell m's class: the classes of f's module with a forward
            wanted = {m for m in called - provided if not hasattr(np.ndarray, m)}  # x.sum() is NumPy's
            todo = [
                cls
                for name, cls in list(f.__globals__.items())
                if isinstance(cls, type) and cls.__module__ == f.__module__ and id(cls) not in seen
                if any(isinstance(v, types.FunctionType) and k in wanted for k, v in vars(cls).items())
            ]
            guards.extend((f.__globals__, cls.__name__, cls) for cls in todo)
    lines = list(header.values())
    blocks = []
    for pieces in definitions:
        lines.append("")
        for text, path, line in pieces:
            if path:
                blocks.append(Block(len(lines) + 1, text.count("\n") + 1, path, line))
            lines.extend(text.rstrip("\n").splitlines())
    return Source("\n".join(lines) + "\n", f.__code__.co_filename, [f.__name__], blocks, guards)


def _import_or_constant(name: str, value: object) -> str | None:
    """The module-level line that defines ``name`` as ``value`` (an import or a number), or None."""
    if isinstance(value, types.ModuleType):
        module = value.__name__
        return f"import {module}" if module == name else f"import {module} as {name}"
    if _is_library(value):
        qualified = _qualified_name(value)
        if qualified:
            module, _, attr = qualified.rpartition(".")
            return f"from {module} import {attr}" + (f" as {name}" if attr != name else "")
        return None
    if is_number(value):
        return f"{name} = {(value.item() if isinstance(value, np.generic) else value)!r}"
    if isinstance(value, tuple) and all(isinstance(v, int | float) for v in value):
        return f"{name} = {value!r}"
    return None


def _own_source(item: object, required: bool) -> list[tuple[str, str, int]]:
    """The definitions of a function or class: [(dedented source, file, first line)], one per piece.

    A class is rebuilt from its methods' sources (a class defined in a notebook
    cell has no source of its own to ``inspect``); methods without source (those
    a ``@dataclass`` writes) are left out.  Empty when unreadable and optional.
    """
    if isinstance(item, type):
        methods = [m for m in vars(item).values() if isinstance(m, types.FunctionType)]
        pieces = [p for m in methods for p in _own_source(m, False)]
        indented = [(textwrap.indent(text, "    "), path, line) for text, path, line in pieces]
        return [(f"class {item.__name__}:\n", "", 0), *indented] if indented else []
    try:
        lines, first = inspect.getsourcelines(item)
        path = inspect.getsourcefile(item) or item.__code__.co_filename
    except (OSError, TypeError):
        if not required:
            return []
        raise UserError(
            "YS002",
            f"cannot read the source of {item.__name__}(): it was typed at the python prompt or made by exec(); "
            "define it in a file, a notebook cell or IPython, or pass a file to gradsource()",
            item.__code__.co_filename,
        ) from None
    text = textwrap.dedent("".join(lines))
    try:
        ast.parse(text)
    except SyntaxError:
        if not required:
            return []
        raise TypeError(
            f"cannot differentiate {item.__qualname__}(): its source is not a standalone definition"
        ) from None
    return [(text, path, max(first, 1))]


def _method_calls(text: str, namespace: dict) -> set[str]:
    """The names of methods called in ``text`` (``m.forward(x)``), not of module functions (``np.sum``)."""
    out = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            root = node.func.value
            while isinstance(root, ast.Attribute):
                root = root.value
            if not (isinstance(root, ast.Name) and isinstance(namespace.get(root.id), types.ModuleType)):
                out.add(node.func.attr)
    return out


def _functions(item: object) -> list[types.FunctionType]:
    """A function, or a class's methods."""
    if isinstance(item, type):
        return [v for v in vars(item).values() if isinstance(v, types.FunctionType)]
    return [item] if isinstance(item, types.FunctionType) else []


def _names(code: types.CodeType) -> list[str]:
    """The global and attribute names a code object (and the code nested in it) reads."""
    names = list(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names.extend(_names(const))
    return names


def _referenced(item: object) -> list[tuple[str, object, dict | None]]:
    """(name, value, the globals it is from or None for a closure cell) for each name ``item`` reads."""
    out: list[tuple[str, object, dict | None]] = []
    for fn in _functions(item):
        closure = dict(zip(fn.__code__.co_freevars, (c.cell_contents for c in fn.__closure__ or ())))
        for name in dict.fromkeys([*fn.__code__.co_freevars, *_names(fn.__code__)]):
            if name in closure:
                out.append((name, closure[name], None))
            elif name in fn.__globals__:
                out.append((name, fn.__globals__[name], fn.__globals__))
    return out


def is_number(value: object) -> bool:
    return isinstance(value, bool | int | float | complex | np.generic) and not isinstance(value, np.ndarray)


def _is_library(value: object) -> bool:
    module = getattr(value, "__module__", None) or ""
    return callable(value) and module.split(".")[0] in LIBRARIES


def _qualified_name(value: object) -> str | None:
    """``numpy.exp`` for ``np.exp``: a name the value can be imported by, or None."""
    name = getattr(value, "__name__", None)
    module = getattr(value, "__module__", None)
    for candidate in (module, module and module.split(".")[0]):
        if candidate and name and getattr(sys.modules.get(candidate), name, None) is value:
            return f"{candidate}.{name}"
    return None


def unsupported(f: object) -> None:
    what = getattr(f, "__name__", None) or type(f).__name__
    raise TypeError(
        f"yota-s2s differentiates Python functions defined with 'def'; {what!r} is not one "
        "(a NumPy function, a builtin or a functools.partial has no source to read)"
    )
