"""Helpers of the array-API target for products and indexed writes (see ``core``).

The standard has no scatter (``np.add.at``) and JAX arrays cannot be written, so a write at a
basic index (integers, slices, ``None``, ``...``) is done axis by axis: along each axis the
index selects an arithmetic progression of positions, so each position's source is found by
arithmetic (``xp.take`` of the written values) and a mask says which positions are written
(``xp.where``).  An integer array or boolean index (which may repeat a position) is refused at
generation time.
"""

from .core import _array_namespace, _device, _float_dtype, _grad_zeros, _ndim, _shape, _transpose, _unbroadcast


def _matmul_dx(g, x, y):
    """Gradient of ``x @ y`` with respect to ``x``, for operands of any rank."""
    xp = _array_namespace(g, x, y)
    x_nd, y_nd = _ndim(x), _ndim(y)
    if x_nd == 0 or y_nd == 0:  # dot with a scalar multiplies
        return _unbroadcast(g * y, x)
    g = xp.asarray(g)
    if y_nd == 1:
        g = xp.expand_dims(g, axis=-1)
        y = xp.expand_dims(y, axis=-1)
    if x_nd == 1:
        g = xp.expand_dims(g, axis=-2)
        return _unbroadcast(xp.matmul(g, xp.matrix_transpose(y)), xp.expand_dims(x, axis=0))[0, ...]
    return _unbroadcast(xp.matmul(g, xp.matrix_transpose(y)), x)


def _matmul_dy(g, x, y):
    """Gradient of ``x @ y`` with respect to ``y``, for operands of any rank."""
    xp = _array_namespace(g, x, y)
    x_nd, y_nd = _ndim(x), _ndim(y)
    if x_nd == 0 or y_nd == 0:  # dot with a scalar multiplies
        return _unbroadcast(g * x, y)
    g = xp.asarray(g)
    if y_nd == 1:
        g = xp.expand_dims(g, axis=-1)
    if x_nd == 1:
        g = xp.expand_dims(g, axis=-2)
        x = xp.expand_dims(x, axis=0)
    if y_nd == 1:
        return _unbroadcast(xp.matmul(xp.matrix_transpose(x), g), xp.expand_dims(y, axis=-1))[..., 0]
    return _unbroadcast(xp.matmul(xp.matrix_transpose(x), g), y)


def _scatter(a, v, index):
    """``(w, mask)``: ``v`` placed at ``a[index]`` in an array of the shape of ``a`` (``w``, its
    other elements unspecified) and where it was placed (``mask``, broadcastable to that shape;
    None: everywhere), for a basic index: integers, slices, ``None`` and ``...``."""
    xp = _array_namespace(a, v)
    shape = _shape(a)
    index = index if isinstance(index, tuple) else (index,)
    real = sum(1 for i in index if i is not None and i is not Ellipsis)
    dots = [k for k, i in enumerate(index) if i is Ellipsis]
    fill = (slice(None),) * (len(shape) - real)
    index = index[: dots[0]] + fill + index[dots[0] + 1 :] if dots else index + fill
    v = xp.asarray(v, dtype=_float_dtype(xp, v, a) if type(v) is float else None)
    picked = []  # the shape of a[index]
    axis = 0
    for i in index:
        if i is None:
            picked.append(1)
        elif isinstance(i, slice):
            picked.append(len(range(*i.indices(shape[axis]))))
        if i is not None:
            axis += 1
    v = xp.broadcast_to(v, tuple(picked))
    mask = None
    axis = 0
    for i in index:
        if i is None:
            v = xp.squeeze(v, axis=axis)
            continue
        n = shape[axis]
        if not isinstance(i, slice):  # an integer: a slice of one, its axis put back
            if not -n <= i < n:
                raise IndexError("index " + str(i) + " is out of bounds for axis " + str(axis) + " of size " + str(n))
            v = xp.expand_dims(v, axis=axis)
            i = slice(i % n, i % n + 1)
        start, stop, step = i.indices(n)
        m = len(range(start, stop, step))
        if m == 0:  # nothing written
            return xp.zeros(shape, dtype=v.dtype), xp.zeros(shape, dtype=xp.bool)
        if not (m == n and step == 1):
            k = xp.arange(n) - start
            hit = (k % step == 0) & (k // step >= 0) & (k // step < m)
            v = xp.take(v, xp.where(hit, k // step, 0), axis=axis)
            hit = xp.reshape(hit, tuple(n if b == axis else 1 for b in range(len(shape))))
            mask = hit if mask is None else mask & hit
        axis += 1
    return v, mask


def _index_add(buf, g, index):
    """``buf`` with ``g`` added at ``buf[index]`` (a new array), for a basic index."""
    w, mask = _scatter(buf, g, index)
    if mask is None:
        return buf + w
    return buf + _array_namespace(buf, g).where(mask, w, 0.0)


def _setindex(a, v, index):
    """``a`` with ``a[index] = v`` (a new array, in ``a``'s dtype), for a basic index."""
    xp = _array_namespace(a, v)
    w, mask = _scatter(a, v, index)
    w = xp.astype(w, a.dtype)
    if mask is None:
        return w
    return xp.where(mask, w, a)


def _xtx_dx(g, x):
    """Gradient of ``x.T @ x`` with respect to ``x``."""
    xt = _transpose(x)
    return _matmul_dy(g, xt, x) + _transpose(_matmul_dx(g, xt, x))


def _xxt_dx(g, x):
    """Gradient of ``x @ x.T`` with respect to ``x``."""
    xt = _transpose(x)
    return _matmul_dx(g, x, xt) + _transpose(_matmul_dy(g, x, xt))


def _rows(x, rows):
    """The gradient of ``x`` whose rows (along axis 0) ``k`` are ``rows[k]`` and zeros elsewhere, as one
    new array (``xp.stack``): what a write per row (``_index_add``, a pass over the array each) makes."""
    if not _ndim(x):  # not an array: the writes one by one
        out = _grad_zeros(x)
        for k, g in rows.items():
            out = _index_add(out, g, k)
        return out
    xp = _array_namespace(x, *rows.values())
    shape = _shape(x)
    dtype = _float_dtype(xp, x, *rows.values())
    zeros = None
    stacked = []
    for k in range(shape[0]):
        if k in rows:
            stacked.append(xp.broadcast_to(xp.asarray(rows[k], dtype=dtype), shape[1:]))
        else:
            zeros = xp.zeros(shape[1:], dtype=dtype, device=_device(x)) if zeros is None else zeros
            stacked.append(zeros)
    return xp.stack(stacked)
