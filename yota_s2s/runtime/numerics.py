"""Runtime helpers of the numerical-analysis rules (``rules/numerics.py``): the adjoints of
``np.gradient``, ``np.cross``, ``np.convolve``, ``np.correlate``, ``np.interp``, ``np.kron``, and the order statistics
``np.median``, ``np.quantile`` and ``np.percentile``.

Like ``runtime.core``: each ``_<prim>`` writes the primitive ``prim`` and is copied into the
generated modules that use it, with ``xp`` renamed to the target's array module.  Statics come
by keyword.  Each adjoint returns a new array of its operand's shape (a number's gradient is
0-d), never a view of the incoming gradient.
"""

import numpy as xp

from .core import _sort_dx  # for direct calls; modules copy it

# ----------------------------------------------------------------------------- np.gradient


def _gradient_spacings(h, n, dtype):
    """The spacings of np.gradient along an axis of ``n`` points: ``(d, uniform)``, ``d`` the
    ``n - 1`` distances between neighbours (one scalar ``h`` repeated, or ``np.diff`` of the
    coordinates ``h``)."""
    if xp.ndim(h) == 0:
        return xp.full(max(n - 1, 0), h, dtype=dtype), True
    h = xp.asarray(h)
    if h.ndim != 1 or h.shape[0] != n:
        raise ValueError("np.gradient: coordinates must be 1-D, one per point along the axis")
    return xp.diff(h.astype(dtype)), False


def _gradient_rows(d, edge_order):
    """The stencil of np.gradient on spacings ``d``: for each of the ``n`` rows, three
    coefficients of f at three points (``lo``: the rows' first point; the points are lo, lo+1, lo+2)."""
    n = d.shape[0] + 1
    c = xp.zeros((3, n), dtype=d.dtype)
    d1, d2 = d[:-1], d[1:]
    c[0, 1:-1] = -d2 / (d1 * (d1 + d2))  # interior: f[i-1], f[i], f[i+1]
    c[1, 1:-1] = (d2 - d1) / (d1 * d2)
    c[2, 1:-1] = d1 / (d2 * (d1 + d2))
    if edge_order == 1:  # (f[1] - f[0]) / d[0], (f[-1] - f[-2]) / d[-1]
        c[:, 0] = xp.stack([-1.0 / d[0], 1.0 / d[0], 0.0 * d[0]])
        c[:, -1] = xp.stack([0.0 * d[-1], -1.0 / d[-1], 1.0 / d[-1]])
        if n == 2:  # both rows are (f[1] - f[0]) / d[0], read from point 0
            c[:, -1] = c[:, 0]
    else:
        a, b = d[0], d[1]
        c[:, 0] = xp.stack([-(2.0 * a + b) / (a * (a + b)), (a + b) / (a * b), -a / (b * (a + b))])
        a, b = d[-2], d[-1]
        c[:, -1] = xp.stack([b / (a * (a + b)), -(a + b) / (a * b), (2.0 * b + a) / (b * (a + b))])
    return c


def _gradient_row_starts(n):
    """The first point of each row's stencil: 0 for row 0, i - 1 inside, n - 3 for the last
    (clipped to the axis: with two points, both rows start at 0)."""
    lo = xp.arange(n) - 1
    lo[0] = 0
    lo[-1] = n - 3
    return xp.clip(lo, 0, max(n - 3, 0))


def _gradient_check(f, axis, edge_order):
    """The axis of a 1-axis np.gradient of ``f`` (a located refusal of a list-valued one)."""
    nd = xp.ndim(f)
    if axis is None:
        if nd != 1:
            raise ValueError(
                "np.gradient of a " + str(nd) + "-D array over every axis returns a list: its gradient "
                "is supported one axis at a time, np.gradient(f, h, axis=k)"
            )
        axis = 0
    elif isinstance(axis, tuple | list):
        if len(axis) != 1:
            raise ValueError("np.gradient over several axes returns a list: differentiate one axis at a time")
        axis = axis[0]
    if edge_order not in (1, 2):
        raise ValueError("np.gradient: edge_order is 1 or 2")
    return axis % nd


def _gradient_df(g, f, h, axis, edge_order):
    """The gradient of ``sum(g * np.gradient(f, h, axis=axis, edge_order=edge_order))`` with
    respect to ``f``: the transposed stencil applied to ``g`` along ``axis``."""
    axis = _gradient_check(f, axis, edge_order)
    dtype = xp.result_type(g, f, 0.0)
    n = xp.shape(f)[axis]
    gm = xp.moveaxis(xp.asarray(g, dtype=dtype), axis, 0)
    df = xp.zeros(gm.shape, dtype=dtype)
    inner = gm[1:-1]  # row i (inside) adds c[k, i] * g[i] to f[i - 1 + k]
    if xp.ndim(h) == 0:  # inside, (f[i + 1] - f[i - 1]) / 2h; the end rows of an axis of 3 points
        c = _gradient_rows(xp.full(min(n - 1, 2), h, dtype=dtype), edge_order)
        df[:-2] -= inner / (2.0 * h)
        df[2:] += inner / (2.0 * h)
    else:
        c = _gradient_rows(_gradient_spacings(h, n, dtype)[0], edge_order)
        c = xp.reshape(c, c.shape + (1,) * (gm.ndim - 1))
        df[:-2] += c[0, 1:-1] * inner
        df[1:-1] += c[1, 1:-1] * inner
        df[2:] += c[2, 1:-1] * inner
    last = n - 3 if n > 2 else 0  # the first point of the last row's stencil (0, 1, 2 for the first)
    for k in range(3 if n > 2 else 2):
        df[k] += c[k, 0] * gm[0]
        df[last + k] += c[k, -1] * gm[-1]
    return xp.moveaxis(df, 0, axis)


def _gradient_dh(g, f, h, out, axis, edge_order):
    """The gradient of ``sum(g * np.gradient(f, h, ...))`` with respect to the spacing ``h``:
    ``-sum(g * out) / h`` for a scalar ``h``; for coordinates, each row's stencil differentiated
    with respect to the two distances it reads."""
    axis = _gradient_check(f, axis, edge_order)
    dtype = xp.result_type(g, f, h, 0.0)
    if xp.ndim(h) == 0:
        total = -xp.sum(xp.asarray(g) * out) / h
        return total.astype(dtype) if isinstance(h, xp.ndarray) else float(total)
    n = xp.shape(f)[axis]
    d = _gradient_spacings(h, n, dtype)[0]
    gm = xp.moveaxis(xp.asarray(g, dtype=dtype), axis, 0)
    fm = xp.moveaxis(xp.asarray(f, dtype=dtype), axis, 0)
    lo = _gradient_row_starts(n)
    # s[k, i]: the sum over the other axes of g[i] * f[lo[i] + k] (what row i's k-th coefficient multiplies)
    s = xp.stack([xp.reshape(gm * fm[xp.clip(lo + k, 0, n - 1)], (n, -1)).sum(axis=1) for k in range(3)])
    dd = xp.zeros(n - 1, dtype=dtype)  # the gradient with respect to each distance d[j]
    if n > 2:  # interior row i reads a = d[i-1], b = d[i]
        a, b = d[:-1], d[1:]
        ab, inner = a + b, s[:, 1:-1]
        # the partial derivatives of -b/(a(a+b)), (b-a)/(ab), a/(b(a+b)) by a, then by b
        by_a = (b * (2.0 * a + b) / (a * a * ab * ab), -1.0 / (a * a), 1.0 / (ab * ab))
        by_b = (-1.0 / (ab * ab), 1.0 / (b * b), -a * (a + 2.0 * b) / (b * b * ab * ab))
        dd[:-1] += sum(p * inner[k] for k, p in enumerate(by_a))
        dd[1:] += sum(p * inner[k] for k, p in enumerate(by_b))
    if edge_order == 1:  # (f[1] - f[0]) / d[0] and (f[-1] - f[-2]) / d[-1]
        dd[0] += (s[0, 0] - s[1, 0]) / (d[0] * d[0])
        k = 0 if n == 2 else 1  # with two points, the last row reads f[0] and f[1] too
        dd[-1] += (s[k, -1] - s[k + 1, -1]) / (d[-1] * d[-1])
    else:  # rows 0 and n - 1 read (d[0], d[1]) and (d[-2], d[-1])
        a, b = d[0], d[1]
        ab = a + b
        by_a = ((2.0 * a * a + 2.0 * a * b + b * b) / (a * a * ab * ab), -1.0 / (a * a), -1.0 / (ab * ab))
        by_b = (1.0 / (ab * ab), -1.0 / (b * b), a * (a + 2.0 * b) / (b * b * ab * ab))
        dd[0] += sum(p * s[k, 0] for k, p in enumerate(by_a))
        dd[1] += sum(p * s[k, 0] for k, p in enumerate(by_b))
        a, b = d[-2], d[-1]
        ab = a + b
        by_a = (-b * (2.0 * a + b) / (a * a * ab * ab), 1.0 / (a * a), -1.0 / (ab * ab))
        by_b = (1.0 / (ab * ab), 1.0 / (b * b), -(a * a + 2.0 * a * b + 2.0 * b * b) / (b * b * ab * ab))
        dd[-2] += sum(p * s[k, -1] for k, p in enumerate(by_a))
        dd[-1] += sum(p * s[k, -1] for k, p in enumerate(by_b))
    # d[j] = h[j + 1] - h[j]
    dh = xp.zeros(n, dtype=dtype)
    dh[1:] += dd
    dh[:-1] -= dd
    return dh


# ----------------------------------------------------------------------------- np.cross


def _cross_pad(v):
    """``v`` with its vectors (the last axis) made 3-vectors: a 2-vector gets z = 0."""
    v = xp.asarray(v)
    if v.ndim == 0 or v.shape[-1] not in (2, 3):
        raise ValueError("np.cross: the vectors (the last axis) have 2 or 3 components")
    if v.shape[-1] == 3:
        return v
    return xp.concatenate([v, xp.zeros(v.shape[:-1] + (1,), dtype=v.dtype)], axis=-1)


def _cross_grad(g, x, other, x_first):
    """The gradient of ``sum(g * np.cross(x, other))`` (``x_first``) or of
    ``sum(g * np.cross(other, x))`` with respect to ``x``: <g, a x b> = <a, b x g> = <b, g x a>."""
    x3, o3 = _cross_pad(x), _cross_pad(other)
    g = xp.asarray(g)
    if xp.shape(x)[-1] == 2 and xp.shape(other)[-1] == 2:  # the z components of the products
        g = xp.stack([xp.zeros_like(g), xp.zeros_like(g), g], axis=-1)
    full = xp.cross(o3, g) if x_first else xp.cross(g, o3)
    full = full[..., : xp.shape(x)[-1]]
    shape = xp.shape(x)
    extra = full.ndim - len(shape)  # sum what broadcasting added to x
    axes = tuple(range(extra)) + tuple(k + extra for k, n in enumerate(shape) if n == 1 and full.shape[k + extra] != 1)
    out = xp.sum(full, axis=axes) if axes else full
    return xp.reshape(out, shape).astype(xp.result_type(g, x3, o3), copy=True)


def _cross_da(g, a, b):
    """The gradient of ``sum(g * np.cross(a, b))`` with respect to ``a``: ``b x g``."""
    return _cross_grad(g, a, b, True)


def _cross_db(g, a, b):
    """The gradient of ``sum(g * np.cross(a, b))`` with respect to ``b``: ``g x a``."""
    return _cross_grad(g, b, a, False)


# ----------------------------------------------------------------------------- np.convolve, np.correlate


def _conv_window(m, n, mode, correlate):
    """Where ``np.convolve`` (or ``np.correlate``) of lengths ``m`` and ``n`` in ``mode`` starts
    in the full result, and how long it is."""
    mode = {0: "valid", 1: "same", 2: "full"}.get(mode, mode) if not isinstance(mode, str) else mode
    if mode not in ("valid", "same", "full"):
        raise ValueError("Use one of 'valid', 'same', or 'full' for convolve/correlate mode")
    long, short = max(m, n), min(m, n)
    if mode == "full":
        return 0, m + n - 1
    if mode == "valid":
        return short - 1, long - short + 1
    # 'same': NumPy centres the window on the longer operand; a correlate whose second operand is
    # the longer one is computed swapped and reversed, which moves an even window by one
    return (short // 2 if correlate and n > m else (short - 1) // 2), long


def _conv_grad(g, x, y, mode, correlate, first):
    """The gradient of ``sum(g * op(a, b, mode))`` with respect to ``x`` (``a`` when ``first``,
    else ``b``), ``y`` the other operand: the full-length gradient of the full product (``g`` in
    its window, zeros elsewhere) correlated with the other operand."""
    x1, y1 = xp.ravel(xp.asarray(x)), xp.ravel(xp.asarray(y))
    m, n = (x1.shape[0], y1.shape[0]) if first else (y1.shape[0], x1.shape[0])
    start, length = _conv_window(m, n, mode, correlate)
    dtype = xp.result_type(g, x1, y1)
    full = xp.zeros(m + n - 1, dtype=dtype)
    full[start : start + length] = xp.ravel(xp.asarray(g))
    # the full product is convolve(a, b') with b' = b, or b reversed for a correlation
    if correlate and not first:  # with respect to b: the gradient of b', reversed
        dx = xp.correlate(full, y1, "valid")[::-1]
    else:
        dx = xp.correlate(full, y1[::-1] if correlate else y1, "valid")
    return xp.reshape(dx, xp.shape(x)).astype(dtype, copy=True)


def _convolve_dx(g, x, y, mode):
    """The gradient of ``sum(g * np.convolve(x, y, mode))`` with respect to ``x`` (of ``y`` too:
    convolve is symmetric, ``_convolve_dx(g, y, x, mode)``)."""
    return _conv_grad(g, x, y, mode, False, True)


def _correlate_dx(g, x, y, mode):
    """The gradient of ``sum(g * np.correlate(x, y, mode))`` with respect to ``x``."""
    return _conv_grad(g, x, y, mode, True, True)


def _correlate_dy(g, x, y, mode):
    """The gradient of ``sum(g * np.correlate(x, y, mode))`` with respect to ``y``."""
    return _conv_grad(g, y, x, mode, True, False)


# ----------------------------------------------------------------------------- np.interp


def _interp_segment(x, grid):
    """For each ``x``: the segment ``j`` of ``xp`` it lies on (``xp[j] <= x < xp[j + 1]``, the last
    knot on the last segment), its place ``t`` on it, and whether it is below / above ``xp``."""
    x = xp.asarray(x)
    knots = xp.asarray(grid)
    j = xp.clip(xp.searchsorted(knots, x, side="right") - 1, 0, max(knots.shape[0] - 2, 0))
    if knots.shape[0] == 1:
        return j, xp.zeros(x.shape), x < knots[0], x > knots[0]
    width = knots[j + 1] - knots[j]
    t = (x - knots[j]) / xp.where(width == 0, 1.0, width)
    return j, t, x < knots[0], x > knots[-1]


def _interp_dfp(g, x, grid, fp, left, right):
    """The gradient of ``sum(g * np.interp(x, xp, fp, left, right))`` with respect to ``fp``: each
    ``g`` split between the two knots of its segment, ``1 - t`` and ``t``; outside ``xp`` to the
    end value (``fp[0]``, ``fp[-1]``), or to nothing where ``left`` / ``right`` is given."""
    j, t, below, above = _interp_segment(x, grid)
    g = xp.broadcast_to(xp.asarray(g), xp.shape(t))
    inside = ~(below | above)
    dtype = xp.result_type(g, fp, 0.0)
    dfp = xp.zeros(xp.shape(fp), dtype=dtype)
    n = dfp.shape[0]
    if n == 1:
        xp.add.at(dfp, xp.zeros(g.shape, dtype=j.dtype), g * inside)
    else:
        xp.add.at(dfp, j, g * (1.0 - t) * inside)
        xp.add.at(dfp, j + 1, g * t * inside)
    if left is None:
        dfp[0] += xp.sum(g * below)
    if right is None:
        dfp[-1] += xp.sum(g * above)
    return dfp


def _interp_slope(x, grid, fp):
    """The slope of ``np.interp(x, xp, fp)`` at each ``x``: that of its segment (at a knot, the
    segment to its right; at the last knot, the last one), 0 outside ``[xp[0], xp[-1]]``."""
    j, t, below, above = _interp_segment(x, grid)
    knots, values = xp.asarray(grid), xp.asarray(fp)
    if knots.shape[0] == 1:
        return xp.zeros(xp.shape(t), dtype=xp.result_type(values, 0.0))
    width = knots[j + 1] - knots[j]
    slope = (values[j + 1] - values[j]) / xp.where(width == 0, 1.0, width)
    slope = xp.where(below | above | (width == 0), 0.0, slope)
    return slope if xp.ndim(x) or isinstance(x, xp.ndarray) else float(slope)


def _interp_fixed(x, grid, h, left, right):
    """``np.interp(x, xp, h, left, right)`` with a given ``left`` / ``right`` read as 0: the part of
    np.interp linear in its values (the transpose of ``_interp_dfp``)."""
    return xp.interp(x, grid, h, left=None if left is None else 0.0, right=None if right is None else 0.0)


def _interp_slope_dfp(g, x, grid, fp):
    """The gradient of ``sum(g * _interp_slope(x, xp, fp))`` with respect to ``fp``: each ``g``
    divided by its segment's width, added at the segment's right end and taken at its left."""
    j, t, below, above = _interp_segment(x, grid)
    knots = xp.asarray(grid)
    dfp = xp.zeros(xp.shape(fp), dtype=xp.result_type(g, fp, 0.0))
    if knots.shape[0] == 1:
        return dfp
    width = knots[j + 1] - knots[j]
    inside = ~(below | above) & (width != 0)
    w = xp.broadcast_to(xp.asarray(g), xp.shape(t)) * inside / xp.where(width == 0, 1.0, width)
    xp.add.at(dfp, j + 1, w)
    xp.add.at(dfp, j, -w)
    return dfp


# ----------------------------------------------------------------------------- np.kron


def _kron_blocks(g, a, b):
    """``g``, of the shape of ``np.kron(a, b)``, as a matrix: a row per element of ``a``, a
    column per element of ``b`` (both in C order)."""
    sa, sb = xp.shape(a), xp.shape(b)
    nd = max(len(sa), len(sb))
    sa, sb = (1,) * (nd - len(sa)) + tuple(sa), (1,) * (nd - len(sb)) + tuple(sb)
    split = xp.reshape(g, [k for pair in zip(sa, sb) for k in pair])  # axes (a0, b0, a1, b1, ...)
    order = tuple(range(0, 2 * nd, 2)) + tuple(range(1, 2 * nd, 2))
    return xp.reshape(xp.transpose(split, order), (xp.size(a), xp.size(b)))


def _kron_da(g, a, b):
    """The gradient of ``sum(g * np.kron(a, b))`` with respect to ``a``."""
    blocks = _kron_blocks(g, a, b)
    return xp.reshape(blocks @ xp.ravel(xp.asarray(b)), xp.shape(a)).astype(xp.result_type(g, a, b), copy=True)


def _kron_db(g, a, b):
    """The gradient of ``sum(g * np.kron(a, b))`` with respect to ``b``."""
    blocks = _kron_blocks(g, a, b)
    return xp.reshape(xp.ravel(xp.asarray(a)) @ blocks, xp.shape(b)).astype(xp.result_type(g, a, b), copy=True)


# ----------------------------------------------------------------------------- np.median, np.quantile


def _quantile_axes(a, axis, keepdims):
    """``a`` with the reduced axes moved last and merged into one, ``(am, rest, out_shape)``:
    ``rest`` the shape of the axes kept (their order in ``a``), ``out_shape`` the shape one q gives
    (``rest``, or ``a``'s shape with the reduced axes set to 1 under ``keepdims``)."""
    a = xp.asarray(a)
    axes = range(a.ndim) if axis is None else (axis,) if xp.ndim(axis) == 0 else axis
    axes = sorted(int(k) % max(a.ndim, 1) for k in axes)
    kept = [k for k in range(a.ndim) if k not in axes]
    rest = tuple(a.shape[k] for k in kept)
    n = 1
    for k in axes:
        n *= a.shape[k]
    am = xp.reshape(xp.transpose(a, kept + axes), rest + (n,))
    out_shape = tuple(1 if k in axes else a.shape[k] for k in range(a.ndim)) if keepdims else rest
    return am, axes, kept, out_shape


#: The continuous methods of np.quantile: the place q reads is ``n * q + alpha + q * (1 - alpha -
#: beta) - 1`` (NumPy's ``_compute_virtual_index``; linear's ``(n - 1) * q``), so its slope in q.
_QUANTILE_SLOPES = {
    "linear": (1.0, 1.0),
    "weibull": (0.0, 0.0),
    "hazen": (0.5, 0.5),
    "median_unbiased": (1 / 3.0, 1 / 3.0),
    "normal_unbiased": (3 / 8.0, 3 / 8.0),
    "interpolated_inverted_cdf": (0.0, 1.0),
}


def _quantile_places(q, n, method, scale):
    """For each q (flat, divided by ``scale``: 100 for a percentile), the two places of the sorted
    elements it reads and the weight of the upper one: ``q``'s value is ``(1 - w) * s[lo] + w *
    s[hi]``.  The places depend on ``n``, ``q`` and ``method`` only, so NumPy's own quantile of
    ``0, 1, ..., n - 1`` is the place, whatever the method."""
    q = xp.ravel(xp.asarray(q, dtype=float)) / scale
    pos = xp.quantile(xp.arange(n, dtype=float), q, method=method) if n else 0.0 * q
    lo = xp.clip(xp.floor(pos), 0, max(n - 1, 0)).astype(int)
    hi = xp.clip(lo + 1, 0, max(n - 1, 0))
    return lo, hi, pos - lo, q


def _quantile_da(g, a, q, axis=None, method="linear", keepdims=False, scale=1.0):
    """The gradient of ``np.quantile(a, q / scale, axis, method=method, keepdims=keepdims)`` with
    respect to ``a``: each q's gradient goes to the sorted element(s) it reads (weights ``1 - w``
    and ``w``), and elements that tie share evenly the gradients of their places (as ``np.sort``'s)."""
    a = xp.asarray(a)
    am, axes, kept, out_shape = _quantile_axes(a, axis, keepdims)
    n = am.shape[-1]
    lo, hi, w, _ = _quantile_places(q, n, method, scale)
    rest = am.shape[:-1]
    gq = xp.reshape(xp.broadcast_to(g, xp.shape(q) + out_shape), (lo.shape[0],) + rest)
    gs = xp.zeros(rest + (n,), xp.result_type(g, a, 0.0))
    for i in range(lo.shape[0]):  # the sorted layout's gradient: q by q, its two places
        gs[..., lo[i]] += (1.0 - w[i]) * gq[i]
        gs[..., hi[i]] += w[i] * gq[i]
    dam = _sort_dx(gs, am, xp.sort(am, axis=-1), -1)
    shape = tuple(a.shape[k] for k in kept + axes)
    return xp.transpose(xp.reshape(dam, shape), xp.argsort(xp.asarray(kept + axes)))


def _quantile_dq(g, a, q, axis=None, method="linear", keepdims=False, scale=1.0):
    """The gradient of ``np.quantile(a, q / scale, ...)`` with respect to ``q``: the slope of the
    interpolation between the two sorted elements read, ``(s[hi] - s[lo]) / scale`` times the
    place's own slope in q (``n - 1`` for linear; 0 for the methods that pick one element, and
    where the place is held at an end)."""
    am, _, _, out_shape = _quantile_axes(a, axis, keepdims)
    n = am.shape[-1]
    lo, hi, _, qs = _quantile_places(q, n, method, scale)
    s = xp.sort(am, axis=-1)
    gq = xp.reshape(xp.broadcast_to(g, xp.shape(q) + out_shape), (lo.shape[0], -1))
    alpha, beta = _QUANTILE_SLOPES.get(method, (0.0, n + 1.0))  # (the others: a slope of 0)
    place = n * qs + alpha + qs * (1.0 - alpha - beta) - 1.0
    moves = (n + 1.0 - alpha - beta) * ((place > 0) & (place < n - 1))
    slope = moves[:, None] / scale * xp.reshape(s[..., hi] - s[..., lo], (-1, lo.shape[0])).T
    dq = xp.sum(gq * slope, axis=1)
    return xp.reshape(dq, xp.shape(q)).astype(xp.result_type(g, a, 0.0))
