"""Complex values in the source: what makes one, and which parameters are declared complex.

Complex differentiation (``transform.complexes``, docs/complex.md) needs to know which values may
be complex.  It reads them from the source: complex literals (``1j``, ``2 + 3j``), module constants
that hold a complex number, ``np.angle`` of one, and parameters declared complex by their
annotation (``complex_params``: ``z: complex``, ``z: np.complex128``, ``z: complex | np.ndarray``).
What makes a complex value some other way is refused where it is written (YS022), in every
function the differentiated ones reach: ``complex(...)`` (write ``a + 1j * b``), ``complex`` or
NumPy's complex types as a dtype (``np.complex128``, ``np.cdouble``), complex dtype strings
(``dtype="complex64"``, ``.astype("c16")``), and NumPy's functions that make complex values from
real ones (``np.fft``, ``np.roots``, ``np.emath``; not ``np.linalg.eig`` and ``eigvals``, whose
generated forms check for a real symmetric matrix when they run, see ``rules/linalg.py``).
Complex arguments of parameters not declared complex are refused at run time by the generated
code (``codegen.writer``'s type checks).

    >>> from yota_s2s.frontend.fence import parse_module
    >>> m = parse_module("import numpy as np\\ndef f(x):\\n    return np.sum(np.abs(x * complex(0, 1)))\\n", "f.py")
    >>> [(e.code, e.line, e.col) for e in complex_errors(m, m.functions["f"])]
    [('YS022', 3, 30)]
    >>> m = parse_module("def f(x, z: complex, w: int):\\n    return abs(x * z + 1j)\\n", "f.py")
    >>> complex_params(m.functions["f"]), complex_errors(m, m.functions["f"])
    (['z'], [])
"""

from __future__ import annotations

import ast
import re

from ..errors import UserError, located

#: What the refusals say after naming what they found.
WHY = (
    "complex values are made by complex literals (x + 1j * y) and parameters declared complex "
    "(z: complex) only (docs/complex.md)"
)
#: NumPy's complex scalar types, by their names under ``numpy.``.
_TYPES = frozenset(
    {
        "complex64",
        "complex128",
        "complex256",
        "complex_",
        "csingle",
        "cdouble",
        "clongdouble",
        "cfloat",
        "clongfloat",
        "longcomplex",
        "singlecomplex",
        "complexfloating",
    }
)
#: NumPy's functions (and namespaces) that make complex values from real ones.
_MAKERS = (
    "numpy.fft.",
    "numpy.roots",
    "numpy.emath.",
    "numpy.lib.scimath.",
)
#: A complex dtype string: "complex128", "c16", "<c8", "D" (NumPy's type codes F, D, G).
_DTYPE = re.compile(r"[<>=|]?(complex\d*|c\d+|[FDG])")


#: The nodes ``complex_errors`` reads (the others of a function are passed over at one look).
_READ = frozenset({ast.Name, ast.Attribute, ast.Call})


def complex_errors(module, fn: ast.FunctionDef) -> list[UserError]:
    """A located YS022 error for each complex value ``fn``'s source makes (see the module docstring)."""
    found: list[tuple[ast.AST, str]] = []
    nodes = module.nodes_of(fn)  # (ast.walk's order: np.fft.fft is found before np.fft)
    local = {n.id for n in nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    local |= {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)}
    annotations = {id(n) for a in _annotations(fn) for n in ast.walk(a)}
    annotations |= _complex_dtypes(nodes)  # np.eye(2, dtype=complex): np.eye(2) + 0j
    for node in nodes:
        if type(node) not in _READ or id(node) in annotations:  # (an annotation: complex_params)
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in local:
            if node.id == "complex" and not any(
                node.id in d for d in (module.constants, module.functions, module.imports)
            ):
                found.append((node, "the type complex (write a + 1j * b for complex(a, b))"))
            else:
                _library(module, node, node.id, found)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            dotted = _dotted(node)
            if dotted is not None and dotted.split(".")[0] not in local:
                _library(module, node, dotted, found)
        elif isinstance(node, ast.Call):
            strings = [kw.value for kw in node.keywords if kw.arg == "dtype"]
            if isinstance(node.func, ast.Attribute) and node.func.attr in ("astype", "dtype") and node.args:
                strings.append(node.args[0])
            for s in strings:
                if id(s) in annotations:  # x.astype("complex128"): x + 0j
                    continue
                if isinstance(s, ast.Constant) and isinstance(s.value, str) and _DTYPE.fullmatch(s.value):
                    found.append((s, f"the complex dtype {s.value!r}"))
    seen: set[tuple[int, int]] = set()
    errors = []
    for node, what in sorted(found, key=lambda f: (f[0].lineno, f[0].col_offset)):
        where = (node.lineno, node.col_offset)
        if where not in seen:  # np.fft.fft: one error, at the outermost name
            seen.add(where)
            errors.append(located("YS022", f"{what}: {WHY}", node, module.path, module.source))
    return errors


#: Array makers whose ``dtype=complex`` is the real array plus ``0j`` (``adapters_dtype``; so is
#: ``x.astype(complex)``, ``adapters_keywords``).
_COMPLEX_MAKERS = frozenset({"array", "asarray", "zeros", "ones", "eye", "identity", "full", "empty"})
#: The complex dtypes they take so, as the source names them.
COMPLEX_DTYPES = frozenset({"complex", "complex128", "cdouble", "complex_"})


def _complex_dtypes(nodes: list[ast.AST]) -> set[int]:
    """The nodes of ``dtype=complex`` (``np.complex128``, ``"complex128"``) on an array maker, and of
    ``x.astype(complex)``."""
    out: set[int] = set()
    for call in nodes:
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "astype":
            named = call.args[0] if len(call.args) == 1 and not call.keywords else None  # x.astype(complex): x + 0j
            name = named.value if isinstance(named, ast.Constant) else _dotted(named) if named is not None else ""
            if str(name).rpartition(".")[2] in COMPLEX_DTYPES:
                out |= {id(n) for n in ast.walk(named)}
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr in _COMPLEX_MAKERS:
            for kw in call.keywords:
                named = kw.value.value if isinstance(kw.value, ast.Constant) else _dotted(kw.value) or ""
                if kw.arg == "dtype" and str(named).rpartition(".")[2] in COMPLEX_DTYPES:
                    out |= {id(n) for n in ast.walk(kw.value)}
    return out


def _annotations(fn: ast.FunctionDef) -> list[ast.expr]:
    args = fn.args
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs, *(a for a in (args.vararg, args.kwarg) if a)]
    return [a.annotation for a in every if a.annotation is not None] + ([fn.returns] if fn.returns else [])


def complex_params(fn: ast.FunctionDef) -> list[str]:
    """The parameters of ``fn`` whose annotation names a complex type (``complex``, NumPy's complex
    types, ``"complex"``; alone or in a union or a subscript: ``complex | np.ndarray``)."""
    args = fn.args
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    return [a.arg for a in every if a.annotation is not None and _names_complex(a.annotation)]


def _names_complex(annotation: ast.expr) -> bool:
    for node in ast.walk(annotation):
        if isinstance(node, ast.Name) and node.id == "complex":
            return True
        if isinstance(node, ast.Attribute) and node.attr in _TYPES:
            return True
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                if _names_complex(ast.parse(node.value, mode="eval").body):
                    return True
            except SyntaxError:
                continue
    return False


def _dotted(node: ast.Attribute) -> str | None:
    """``np.fft.fft`` as a dotted name, or None when it is not names all the way down."""
    parts = []
    base: ast.expr = node
    while isinstance(base, ast.Attribute):
        parts.append(base.attr)
        base = base.value
    if not isinstance(base, ast.Name):
        return None
    return ".".join([base.id, *reversed(parts)])


def _library(module, node: ast.AST, dotted: str, found: list[tuple[ast.AST, str]]) -> None:
    """Record ``node`` when the name ``dotted`` resolves (by the module's imports) to a complex
    type of NumPy or a function that makes complex values."""
    head, _, rest = dotted.partition(".")
    resolved = module.imports.get(head)
    if resolved is None:
        return
    full = f"{resolved}.{rest}" if rest else resolved
    if not full.startswith("numpy."):
        return
    name = full[len("numpy.") :]
    if name in _TYPES:
        found.append((node, f"the complex type {dotted}"))
    elif any(full == m or (m.endswith(".") and full.startswith(m)) for m in _MAKERS):
        found.append((node, f"{dotted}, a function of complex values"))
