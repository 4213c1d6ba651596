"""Complex values in the source, refused (YS022) until complex differentiation is supported.

The rules are proven for real values: a complex intermediate gives conjugated or complex
gradients of a real loss, with exit 0 (``np.sum(np.abs(z) ** 2)`` of a complex ``z``,
``abs(p(a + 1j * b)) ** 2``).  So every way the source itself makes a complex value is refused
where it is written, in every function the differentiated ones reach: a complex literal
(``1j``), ``complex(...)`` or ``complex`` as a dtype, NumPy's complex types (``np.complex128``,
``np.cdouble``), complex dtype strings (``dtype="complex64"``, ``.astype("c16")``), module
constants that hold a complex number, and NumPy's functions that make complex values from real
ones (``np.angle``, ``np.fft``, ``np.roots``, ``np.emath``; not ``np.linalg.eig`` and ``eigvals``,
whose generated forms check for a real symmetric matrix when they run, see ``rules/linalg.py``).  ``np.real``,
``np.imag`` and ``np.conj`` are refused where they take a differentiated value (their
operands' activity is known after lowering: ``transform.types``); complex arguments are
refused at run time by the generated code.

    >>> from yota_s2s.frontend.fence import parse_module
    >>> m = parse_module("import numpy as np\\ndef f(x):\\n    return np.sum(np.abs(x * 1j))\\n", "f.py")
    >>> [(e.code, e.line, e.col) for e in complex_errors(m, m.functions["f"])]
    [('YS022', 3, 30)]
"""

from __future__ import annotations

import ast
import re

from ..errors import UserError, located

#: What the refusal says after naming what it found.
WHY = "complex values are not supported yet (yota-s2s differentiates real functions of real values)"
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
    "numpy.angle",
    "numpy.fft.",
    "numpy.roots",
    "numpy.emath.",
    "numpy.lib.scimath.",
)
#: A complex dtype string: "complex128", "c16", "<c8", "D" (NumPy's type codes F, D, G).
_DTYPE = re.compile(r"[<>=|]?(complex\d*|c\d+|[FDG])")


def complex_errors(module, fn: ast.FunctionDef) -> list[UserError]:
    """A located YS022 error for each complex value ``fn``'s source makes (see the module docstring)."""
    found: list[tuple[ast.AST, str]] = []
    local = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    local |= {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)}
    for node in ast.walk(fn):
        if isinstance(node, ast.Constant) and isinstance(node.value, complex):
            found.append((node, f"the complex literal {ast.unparse(node)}"))
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in local:
            if node.id == "complex" and not any(
                node.id in d for d in (module.constants, module.functions, module.imports)
            ):
                found.append((node, "the type complex"))
            elif _holds_complex(module.constants.get(node.id)):
                found.append((node, f"the module constant {node.id} = {module.constants[node.id]!r}"))
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


def _holds_complex(value: object) -> bool:
    if isinstance(value, tuple):
        return any(_holds_complex(v) for v in value)
    return isinstance(value, complex)


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
