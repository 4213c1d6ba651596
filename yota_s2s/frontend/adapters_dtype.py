"""``dtype=`` on the array makers (``calls.call_primitive``): ``np.zeros(n, dtype=float)``, a causal mask.

A part of lowering, called with the lowerer (``lw``: ``call_primitive``, ``error``).  A float dtype
is the call then ``astype`` (differentiable; nothing where the maker's default is float64 already,
numbers written in the source made floats for ``np.array([1, 2], dtype=float)``); any other
dtype (``np.ones((T, T), dtype=bool)``, ``dtype=int``) is a YS031 the caller passes through as
static code written as the source wrote it, refused only where the value is differentiated.

    >>> float_dtype(Lit("float"))
    'float64'
"""

from __future__ import annotations

import ast

from ..ir.core import Lit
from .complexes import COMPLEX_DTYPES
from .values import _Function

#: The floating dtypes ``x.astype(...)`` is differentiated to, by how the source names them.
_FLOAT_DTYPES = {
    "builtins.float": "float64",
    "numpy.float64": "float64",
    "numpy.float32": "float32",
    "numpy.double": "float64",
    "numpy.single": "float32",
}


#: Array makers that take ``dtype=`` (``dtype_call``); those whose default dtype is float64.
DTYPE_CALLS = frozenset(
    f"numpy.{n}"
    for n in ("array", "asarray", "zeros", "ones", "full", "arange", "eye", "empty", "identity", "linspace")
)
_FLOAT64_BY_DEFAULT = frozenset(f"numpy.{n}" for n in ("zeros", "ones", "eye", "empty", "identity", "linspace"))


def _floats(value: object) -> object:
    """Numbers written in the source as floats: ``np.array([1, 2], dtype=float)``."""
    if isinstance(value, tuple):
        return tuple(_floats(v) for v in value)
    if isinstance(value, Lit) and type(value.value) in (int, bool):
        return Lit(float(value.value))
    if isinstance(value, Lit) and isinstance(value.value, tuple):
        return Lit(_floats(tuple(Lit(v) for v in value.value)))
    return value


def float_dtype(value: object) -> str | None:
    """The floating dtype a value names (``float``, ``np.float32``, ``"float64"``), else None."""
    if isinstance(value, _Function) and value.local is None:
        return _FLOAT_DTYPES.get(value.name)
    if isinstance(value, Lit) and value.value in ("float64", "float32", "float", "double", "single"):
        return {"float": "float64", "double": "float64", "single": "float32"}.get(value.value, value.value)
    return None


def complex_dtype(value: object) -> bool:
    """``complex``, ``np.complex128``, ``"complex128"``: the complex dtypes the fence lets through."""
    if isinstance(value, _Function) and value.local is None:
        return value.name.rpartition(".")[2] in COMPLEX_DTYPES
    return isinstance(value, Lit) and value.value in COMPLEX_DTYPES


def dtype_call(lw, name: str, args: list, kwargs: dict, node: ast.AST) -> object:
    """``np.zeros(n, dtype=float)``, ``np.array(rows, dtype=np.float32)``: the call, then ``astype``
    (differentiable); of another dtype (``np.ones((T, T), dtype=bool)``, ``dtype=int``), static
    code written as the source wrote it (a differentiated value cast so is refused there)."""
    rest = {k: v for k, v in kwargs.items() if k != "dtype"}
    dtype = float_dtype(kwargs["dtype"])
    if dtype is None and complex_dtype(kwargs["dtype"]):  # np.eye(2, dtype=complex): np.eye(2) + 0j
        made = [_floats(a) for a in args] if name in ("numpy.array", "numpy.asarray") else args
        value = lw.calls.call_primitive(name, made, rest, node)
        return lw.calls.bound_primitive("add", [value, Lit(0j)], {}, node)
    if dtype is None:
        short = name.rpartition(".")[2]
        raise lw.error("YS031", f"{short}() with a dtype that is not a float is static code only", node)
    if dtype == "float64" and name in ("numpy.array", "numpy.asarray") and len(args) == 1:
        # of numbers written in the source, floats; of a value, the value (as np.asarray(x) is:
        # a differentiated value is a float, checked when the gradient is called)
        return lw.calls.call_primitive(name, [_floats(args[0])], rest, node)
    value = lw.calls.call_primitive(name, args, rest, node)
    if dtype == "float64" and name in _FLOAT64_BY_DEFAULT:
        return value
    return lw.calls.call_primitive("ndarray.astype", [value, kwargs["dtype"]], {}, node)
