"""Calls spelled with a keyword or a form the primitives do not take (``calls.adapt``): ``np.sum(x,
where=m)``, ``np.max(x, initial=0.0)``, ``logsumexp(x, b=w)``, ``math.fsum(xs)``, ``np.block(rows)``,
``np.float64(x)``; then ``x.astype(float)`` and the calls of ``adapters_shape``.

A part of lowering, called with the lowerer (``lw``: ``calls.call_primitive``, ``binop``), like
``adapters_dtype``: each is written in terms of calls that have rules, so its derivative is theirs.

- ``np.sum(x, where=m)`` is ``np.sum(np.where(m, x, 0.0))``; ``np.mean(x, where=m)`` that over the
  count of ``m`` broadcast to ``x``.
- ``np.max(x, initial=v)`` is ``np.maximum(np.max(x), v)`` (``min``: ``np.minimum``).
- ``scipy.special.logsumexp(x, b=w)`` is ``logsumexp(x + np.log(w))`` (``w > 0``; ``return_sign``
  is not taken).
- ``math.fsum(xs)`` is ``sum(xs)`` (rounded at each addition, not once).
- ``np.block([[A, B], [C, D]])`` is ``np.concatenate`` of each row along the last axis, then of
  the rows along the one before; ``np.block([a, b])`` joins along the last axis.
- ``np.float64(x)`` (``np.double``, ``np.float32``) is ``np.asarray(x, dtype=...)``;
  ``x.astype(complex)`` (``np.complex128``, ``"complex128"``) is ``x + 0j``.
- ``np.maximum.reduce(xs, axis=0)`` (``minimum``, ``add``, ``multiply``) is ``np.max`` (``min``,
  ``sum``, ``prod``) of ``np.array(xs)`` over that axis; ``np.add.accumulate`` / ``np.multiply.accumulate``
  are ``np.cumsum`` / ``np.cumprod`` (axis 0 unless given).
"""

from __future__ import annotations

import ast

from ..ir.core import Lit
from .adapters_dtype import complex_dtype, dtype_call, float_dtype
from .adapters_shape import adapt_shape

#: The reductions that take where= and initial=; the casts by a floating NumPy type.
_WHERE_REDUCTIONS = frozenset({"numpy.sum", "ndarray.sum", "numpy.mean", "ndarray.mean"})
_INITIAL_REDUCTIONS = frozenset({"numpy.max", "numpy.amax", "ndarray.max", "numpy.min", "numpy.amin", "ndarray.min"})
#: A ufunc's reduce or accumulate, as the reduction or scan NumPy also spells as a function.
_UFUNC_METHODS = {
    "numpy.maximum.reduce": "numpy.max",
    "numpy.minimum.reduce": "numpy.min",
    "numpy.add.reduce": "numpy.sum",
    "numpy.multiply.reduce": "numpy.prod",
    "numpy.add.accumulate": "numpy.cumsum",
    "numpy.multiply.accumulate": "numpy.cumprod",
}
_FLOAT_CASTS = {"numpy.float64": "float64", "numpy.double": "float64", "numpy.float32": "float32"}


def adapt_keywords(lw, name: str, args: list, kwargs: dict, node: ast.AST) -> object | None:
    """The value of the call, written with calls that have rules; None where it is none of these."""
    if name in _FLOAT_CASTS and len(args) == 1 and not kwargs:  # np.float64(x): np.asarray(x, dtype=...)
        return dtype_call(lw, "numpy.asarray", args, {"dtype": Lit(_FLOAT_CASTS[name])}, node)
    if name in _WHERE_REDUCTIONS and "where" in kwargs and args:  # np.sum(x, where=m): of np.where(m, x, 0)
        rest = {k: v for k, v in kwargs.items() if k != "where"}
        mask = kwargs["where"]
        masked = lw.calls.call_primitive("numpy.where", [mask, args[0], Lit(0.0)], {}, node)
        total = lw.calls.call_primitive("numpy.sum", [masked, *args[1:]], rest, node)
        if name.endswith("sum"):
            return total
        ones = lw.calls.call_primitive("numpy.where", [mask, Lit(1.0), Lit(0.0)], {}, node)
        spread = lw.binop("add", ones, lw.calls.call_primitive("numpy.zeros_like", [args[0]], {}, node), node)
        count = lw.calls.call_primitive(
            "numpy.sum",
            [spread, *args[1:]],
            rest,
            node,
        )
        return lw.binop("truediv", total, count, node)
    if name in _INITIAL_REDUCTIONS and "initial" in kwargs and "where" not in kwargs and args:
        rest = {k: v for k, v in kwargs.items() if k != "initial"}  # np.max(x, initial=0.0)
        extreme = "numpy.maximum" if "max" in name else "numpy.minimum"
        return lw.calls.call_primitive(
            extreme, [lw.calls.call_primitive(name, args, rest, node), kwargs["initial"]], {}, node
        )
    if name == "scipy.special.logsumexp" and "b" in kwargs and "return_sign" not in kwargs and args:
        rest = {k: v for k, v in kwargs.items() if k != "b"}  # logsumexp(x, b=w): of x + log(w)
        shifted = lw.binop("add", args[0], lw.calls.call_primitive("numpy.log", [kwargs["b"]], {}, node), node)
        return lw.calls.call_primitive(name, [shifted, *args[1:]], rest, node)
    if name == "math.fsum" and len(args) == 1 and not kwargs:  # the sum (rounded once: to the last bit)
        return lw.calls.call_primitive("builtins.sum", args, {}, node)
    if name == "numpy.block" and len(args) == 1 and not kwargs and isinstance(args[0], tuple) and args[0]:
        rows = args[0]  # np.block([[A, B], [C, D]]): each row joined along the last axis, then the rows
        if all(isinstance(r, tuple) and r for r in rows):
            joined = tuple(lw.calls.call_primitive("numpy.concatenate", [r], {"axis": Lit(-1)}, node) for r in rows)
            return lw.calls.call_primitive("numpy.concatenate", [joined], {"axis": Lit(-2)}, node)
        if not any(isinstance(r, tuple) for r in rows):  # np.block([a, b]): joined along the last axis
            return lw.calls.call_primitive("numpy.concatenate", [rows], {"axis": Lit(-1)}, node)
    if name in _UFUNC_METHODS and 1 <= len(args) <= 2 and set(kwargs) <= {"axis", "keepdims"}:
        # np.maximum.reduce([a, b, c]): np.max(np.array([a, b, c]), axis=0); np.add.accumulate: cumsum
        bound = {"axis": args[1] if len(args) == 2 else Lit(0), **kwargs}
        if name.endswith(".accumulate") and "keepdims" in bound:
            return None
        x = lw.calls.call_primitive("numpy.array", [args[0]], {}, node) if isinstance(args[0], tuple) else args[0]
        return lw.calls.call_primitive(_UFUNC_METHODS[name], [x], bound, node)
    if name == "ndarray.astype" and len(args) == 2 and not kwargs:
        if complex_dtype(args[1]):  # x.astype(complex): x + 0j (a complex copy, as np.eye(n, dtype=complex))
            return lw.calls.bound_primitive("add", [args[0], Lit(0j)], {}, node)
        dtype = float_dtype(args[1])
        if dtype is not None:  # x.astype(float): differentiable; to an integer dtype: static code
            return lw.calls.call_primitive(name, [args[0]], {"dtype": Lit(dtype)}, node)
    return adapt_shape(lw, name, args, kwargs, node)  # np.split, np.diff(prepend=), np.pad, np.select, np.r_
