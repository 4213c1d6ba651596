"""Runtime helpers of second derivatives and of forward mode: the adjoints of first-order helpers.

A first-order helper that is linear in its gradient operand ``g`` (``_concat_part``, ``_norm_dx``,
``_sort_dx``) needs its adjoint with respect to ``g`` when the gradient is differentiated again
(``--hvp``, ``--hessian``) or transposed (``--jvp``); the helpers here are those adjoints, each the
exact transpose of the map it undoes (``tests/test_rules_second.py`` checks every pair by
``<A g, d> == <g, A.T d>`` and against central differences).
"""

import numpy as xp

from .core import _scan, _tie_means  # for direct calls; modules copy them
from .linalg import _as_rows, _norm_axes, _norm_dx, _reduced_axes
from .shape import _column_stack_part, _concat_part, _hstack_part, _index_join, _index_join_part, _vstack_part


def _join_place(d, xs, part, join, axis):
    """``d`` placed where ``xs[part]`` goes in the join of ``xs``, zeros elsewhere: the adjoint of
    ``_join_part`` (``join``: ``"concatenate"``, ``"hstack"``, ``"vstack"``, ``"column_stack"``,
    ``"r"`` or ``"c"`` for ``np.r_``/``np.c_``), made by joining ``d`` with zeros of the others' shapes."""
    dtype = xp.result_type(d, 0.0)
    blocks = [
        xp.reshape(xp.asarray(d, dtype=dtype), xp.shape(x)) if k == part else xp.zeros(xp.shape(x), dtype)
        for k, x in enumerate(xs)
    ]
    if join == "concatenate":
        return xp.concatenate(blocks, axis=axis)
    if join in ("r", "c"):
        return xp.asarray(_index_join(blocks, join), dtype=dtype)
    return {"hstack": xp.hstack, "vstack": xp.vstack, "column_stack": xp.column_stack}[join](blocks)


def _join_part(g, xs, part, join, axis):
    """The block of ``g`` that ``xs[part]`` fills in the join of ``xs`` (``join`` as ``_join_place``)."""
    if join == "concatenate":
        return _concat_part(g, xs, part, axis)
    if join in ("r", "c"):
        return _index_join_part(g, xs, part, join)
    return {"hstack": _hstack_part, "vstack": _vstack_part, "column_stack": _column_stack_part}[join](g, xs, part)


def _norm_dx_dg(d, x, n, ord=None, axis=None, keepdims=False):
    """The adjoint, in ``g``, of ``_norm_dx(g, x, n, ...)`` (``g`` times the norm's gradient):
    ``d`` times that gradient, summed over the reduced axes."""
    w = _norm_dx(xp.ones(xp.shape(n), xp.result_type(n, 0.0)), x, n, ord, axis, keepdims)
    return xp.sum(d * w, axis=_norm_axes(x, ord, axis), keepdims=keepdims)


def _norm_two(g, x, n, ord, axis, keepdims):
    """``g`` and ``n`` with the reduced axes kept, and ``1 / n`` (NaN where ``n`` is 0: the 2-norm has no
    second derivative at 0), for the second derivatives of the 2-norm; ``None`` for a piecewise-linear
    norm (ord 0, 1, -1, inf, -inf), whose second derivatives are 0."""
    x = xp.asarray(x)
    axes = _norm_axes(x, ord, axis)
    if ord not in (None, "fro", 2):
        return None
    if ord == 2 and len(axes) != 1:  # the matrix 2-norm: the largest singular value
        raise ValueError("second derivatives of the matrix 2-norm (the largest singular value) are not written")
    if not keepdims:
        g, n = xp.expand_dims(g, axes), xp.expand_dims(n, axes)
    inv = 1.0 / xp.where(n == 0, xp.nan, n)
    return g, inv, axes


def _norm_dx_dx(d, g, x, n, ord=None, axis=None, keepdims=False):
    """The derivative of ``_norm_dx(g, x, n, ...)`` with respect to ``x`` (``g`` and ``n`` held), applied to
    ``d``: ``d * g / n`` for the 2-norm (``g * x / n``), 0 for the piecewise-linear norms."""
    two = _norm_two(g, x, n, ord, axis, keepdims)
    if two is None:
        return xp.zeros(xp.shape(x), xp.result_type(d, x, 0.0))
    g, inv, _ = two
    return d * g * inv


def _norm_dx_dn(d, g, x, n, ord=None, axis=None, keepdims=False):
    """The derivative of ``_norm_dx(g, x, n, ...)`` with respect to ``n`` (``g`` and ``x`` held), applied to
    ``d``: ``-sum(d * g * x / n**2)`` over the reduced axes for the 2-norm, 0 for the piecewise-linear ones."""
    two = _norm_two(g, x, n, ord, axis, keepdims)
    if two is None:
        return xp.zeros(xp.shape(n), xp.result_type(d, n, 0.0))
    g, inv, axes = two
    return -xp.sum(d * g * x * inv * inv, axis=axes, keepdims=keepdims)


def _sort_dx_dg(d, x, s, axis=-1):
    """The adjoint, in ``g``, of ``_sort_dx(g, x, s, axis)``: ``d`` read in sorted order (``d`` at
    ``np.argsort(x)``), each run of tied values given its mean, as ``_sort_dx`` shares them."""
    x = xp.asarray(x)
    if axis is None:
        return _sort_dx_dg(xp.reshape(d, -1), x.reshape(-1), s, 0)
    d = xp.broadcast_to(d, x.shape)
    r = xp.take_along_axis(d, xp.argsort(x, axis=axis), axis=axis).astype(xp.result_type(d, 0.0))
    return _tie_means(r, xp.asarray(s), axis)


def _prod_dx_dx(d, g, x, axis=None, keepdims=False):
    """The derivative of ``_prod_dx(g, x, ...)`` (``g`` times the product of the other elements) with respect to
    ``x``, applied to ``d``: ``g * sum(d[i] * prod(x[m] for m not i, j) for i != j)`` at each ``j``, the
    first-order part of the product of the others of ``x + eps * d``, made by prefix and suffix products of those
    dual numbers: no division by ``x``, exact where it holds zeros."""
    x = xp.asarray(x)
    axes = _reduced_axes(axis, x.ndim)
    if not keepdims:
        g = xp.expand_dims(g, axes)
    dtype = xp.result_type(d, g, x, 0.0)
    rows, order, moved = _as_rows(x.astype(dtype), axes)
    ds = _as_rows(xp.broadcast_to(d, x.shape).astype(dtype), axes)[0]

    def before(v, dv):  # the products of the elements before each, and their first-order parts
        p = xp.ones(v.shape, dtype)
        p[..., 1:] = xp.cumprod(v[..., :-1], axis=-1)
        e = xp.zeros(v.shape, dtype)
        if v.shape[-1] > 1:
            e[..., 1:] = _scan(v[..., :-1], p[..., :-1] * dv[..., :-1])
        return p, e

    p, a = before(rows, ds)
    s, b = before(rows[..., ::-1], ds[..., ::-1])
    e = a * s[..., ::-1] + p * b[..., ::-1]
    return g * xp.transpose(xp.reshape(e, moved), xp.argsort(order))


def _cumprod_dx_adj(d, g, x, c, part, axis=None):
    """The adjoint of ``_cumprod_dx(g, x, c, axis)`` applied to ``d`` (of ``x``'s shape), with respect to
    ``part``: ``"g"`` (the running product's tangent, ``q[i] = d[i] * c[i - 1] + x[i] * q[i - 1]``), ``"x"``
    (``q[i - 1] * r[i]``) or ``"c"`` (``d[i + 1] * r[i + 1]``), with ``r[i] = g[i] + x[i + 1] * r[i + 1]`` the
    recurrence ``_cumprod_dx`` solves."""
    x = xp.asarray(x)
    shape = x.shape
    if axis is None:  # np.cumprod flattens x: c, g and the result of part "g" and "c" are flat
        x, d, axis = x.reshape(-1), xp.reshape(d, -1), 0
    dtype = xp.result_type(d, g, x, 0.0)
    x = xp.moveaxis(x, axis, -1).astype(dtype)
    c = xp.moveaxis(xp.reshape(xp.asarray(c), xp.shape(xp.moveaxis(x, -1, axis))), axis, -1)
    g = xp.moveaxis(xp.broadcast_to(g, xp.shape(xp.moveaxis(x, -1, axis))), axis, -1)
    d = xp.moveaxis(xp.broadcast_to(d, xp.shape(xp.moveaxis(x, -1, axis))), axis, -1).astype(dtype)
    n = x.shape[-1]
    if n == 0:
        out = xp.zeros(x.shape, dtype)
    else:
        before = xp.ones(x.shape, dtype)
        before[..., 1:] = c[..., :-1]
        q = _scan(x, d * before)
        if part == "g":
            out = q
        else:
            a = xp.zeros(x.shape, dtype)  # r from the end: r[m] = g[m] + x[m + 1] * r[m + 1]
            a[..., 1:] = x[..., :0:-1]
            r = _scan(a, g[..., ::-1].astype(dtype))[..., ::-1]
            out = xp.zeros(x.shape, dtype)
            if part == "x":
                out[..., 1:] = q[..., :-1] * r[..., 1:]
            else:
                out[..., :-1] = d[..., 1:] * r[..., 1:]
    out = xp.moveaxis(out, -1, axis)
    return out.reshape(shape) if part == "x" else out


def _band_window(H, d, vec, start, stop):
    """Add ``vec`` into the elements ``start`` (from the first) to ``stop`` (from the end, 0 or
    less) of the diagonal ``d`` of the square ``H``: ``H[j + d, j] += vec[j - start]`` for each such
    ``j`` with both in range (``vec``: those elements, or one number).  ``hess_NAME``'s band form
    writes a term of a diagonal that lies on a window of it (``transform.band``) so."""
    n = len(H)
    lo, hi = max(0, -d, start), min(n, n - d, n + stop)
    if lo < hi:  # a strided write into the flat H: row j + d, column j is (j + d) * n + j
        H.reshape(-1)[(lo + d) * n + lo : (hi - 1 + d) * n + hi : n + 1] += (
            vec[lo - start : hi - start] if xp.ndim(vec) else vec
        )
