"""Helpers of ``hess_NAME``'s batched second sweep (``codegen.batched``): every value of the sweep
carries a leading axis of rows, one per unit seed, and these write the primitives whose NumPy form
would read that axis as one of the value's own (a broadcast, a reduction, a product of matrices).

A batched value ``a`` has the shape ``(k,) + S``, ``S`` the shape the loop form's row has; an
unbatched one (computed before the sweep, read by every row) has its own shape.
"""

import numpy as xp

from .core import _matmul_dx, _matmul_dy  # for direct calls; modules copy them
from .linalg import _dot_dx, _dot_dy

#: The most numbers a block of rows gives one value of the sweep (512 KiB of float64, about a
#: core's L2 cache): the sweep runs on blocks of rows, so that its values stay in cache and none
#: is ``x.size ** 2`` numbers.  Measured (one thread, 2 shared cores), by the block's numbers:
#: hess_rosen at n = 1,000: 2**14 (16 rows) 4.2 ms, 2**16 (65 rows) 3.6 ms, 2**17 (131) 10 ms,
#: 2**20 (all 1,000) 18 ms; hess_mlp (rows of 64 x 32 values, 320 rows): 2**14 (8 rows) 3.4 ms,
#: 2**16 (32) 2.7 ms, 2**18 (128) 12.5 ms; hess_rosen at n = 100 (one block from 2**14 on) 66 µs.
_ROWS_BLOCK = 1 << 16
#: Blocks whose values would hold between 2**11 and 2**15 numbers (16 to 256 KiB) are cut to 2**11:
#: with glibc's default thresholds, freed arrays of that size at the top of the heap are given back
#: to the system and faulted in again at the next allocation, every call (arrays over 128 KiB are
#: mapped instead, and raise the thresholds when unmapped).  hess_rosen at n = 100 in a fresh
#: process: one block of 10**4 numbers 390 µs, blocks of 2**11 99 µs (54 and 101 µs where the
#: thresholds were raised before, by JAX's allocations or by mallopt).
_ROWS_SMALL = 1 << 11
_ROWS_LARGE = 1 << 15


def _rows_step(x, *read):
    """How many rows of the Hessian of ``x`` one batched sweep computes: a row of the sweep's
    values has about as many numbers as the largest of ``x`` and the arrays it reads (``read``;
    a number or a shape counts 1)."""
    n = size = xp.size(x)
    for a in read:
        if type(a) is xp.ndarray and a.size > size:  # (attributes: np.size costs 1 µs on a tuple)
            size = a.size
    size = max(1, size)
    step = max(1, _ROWS_BLOCK // size)
    if _ROWS_SMALL < min(step, n) * size < _ROWS_LARGE:
        step = max(1, _ROWS_SMALL // size)
    return step


def _rows_seed(x, start, step):
    """The unit seeds ``start``, ``start + 1``, ... (at most ``step`` of them), stacked: shape
    ``(k,) + np.shape(x)``."""
    n = xp.size(x)
    k = min(step, n - start)
    seed = xp.zeros((k, n))
    seed.reshape(-1)[start :: n + 1] = 1.0  # row i's 1 at i * n + start + i (a strided write: 1 µs less)
    return seed.reshape((k,) + xp.shape(x))


def _rows_diagonal(H, d, vec):
    """Write ``vec`` into the diagonal ``d`` of the square ``H``: ``H[j + d, j] = vec[j]`` for
    every ``j`` with both in range (``vec`` a vector of ``len(H)`` numbers, or one number)."""
    n = len(H)
    lo, hi = max(0, -d), min(n, n - d)
    if lo < hi:  # a strided write into the flat H: row j + d, column j is (j + d) * n + j
        H.reshape(-1)[(lo + d) * n + lo : (hi - 1 + d) * n + hi : n + 1] = vec[lo:hi] if xp.ndim(vec) else vec


def _rows_lift(a, b, b_rows):
    """The batched ``a`` with axes of length 1 after its leading one, so that its rows have at least
    the dimensions of ``b``'s (of ``b``'s rows where ``b_rows``): NumPy then broadcasts a row of
    ``a`` against ``b`` (its row) as the loop form does, the leading axis against nothing."""
    need = xp.ndim(b) - b_rows - (a.ndim - 1)
    if need <= 0:
        return a
    return a.reshape(a.shape[:1] + (1,) * need + a.shape[1:])


def _rows_zeros(seed, x):
    """Zeros of shape ``(k,) + np.shape(x)`` (a batched gradient buffer); ``x`` may be a list of
    numbers (``np.result_type`` would read a list as a dtype's fields)."""
    if isinstance(x, list | tuple):
        x = xp.asarray(x)
    return xp.zeros(seed.shape[:1] + xp.shape(x), xp.result_type(x, 0.0))


def _rows_unbroadcast(g, x):
    """Sum each row of the batched ``g`` down to the shape of ``x`` (``_unbroadcast`` row by row)."""
    shape, g_shape = xp.shape(x), g.shape[1:]
    if g_shape == shape:
        return g
    k = g.shape[0]
    extra = len(g_shape) - len(shape)
    if extra < 0:
        return xp.broadcast_to(_rows_lift(g, x, 0), (k,) + shape).astype(xp.result_type(g, x))
    ones = [i + 1 for i in range(extra, len(g_shape)) if shape[i - extra] == 1 != g_shape[i]]
    return g.sum(axis=(*range(1, extra + 1), *ones)).reshape((k,) + shape)


def _rows_broadcast(a, shape):
    """``np.broadcast_to`` of each row of the batched ``a``."""
    shape = tuple(shape)
    if a.shape[1:] == shape:  # (the rows have the shape already: 2 µs less)
        return a
    need = len(shape) - (a.ndim - 1)
    if need > 0:  # (as _rows_lift)
        a = a.reshape(a.shape[:1] + (1,) * need + a.shape[1:])
    return xp.broadcast_to(a, a.shape[:1] + shape)


def _rows_axis(a, axis):
    """The axis (or axes) of the batched ``a`` that ``axis`` names in each row."""
    if axis is None:
        return tuple(range(1, a.ndim))
    if isinstance(axis, tuple):
        return tuple(i + 1 if i >= 0 else i for i in axis)
    return axis + 1 if axis >= 0 else axis


def _rows_sum(a, axis=None, keepdims=False):
    """``np.sum`` of each row of the batched ``a``."""
    return xp.sum(a, axis=_rows_axis(a, axis), keepdims=keepdims)


def _rows_mean(a, axis=None, keepdims=False):
    """``np.mean`` of each row of the batched ``a``."""
    return xp.mean(a, axis=_rows_axis(a, axis), keepdims=keepdims)


def _rows_matmul(a, b, a_rows, b_rows):
    """``a @ b`` row by row, each operand batched where its flag says (a matrix product of NumPy's
    stacks where the shapes allow it, else a loop over the rows)."""
    da, db = a.ndim - a_rows, b.ndim - b_rows
    if not b_rows and da >= 1 and db in (1, 2):  # (k, ..., n) @ (n, p) or (n,): NumPy's stacks
        return a @ b
    if not a_rows and da in (1, 2) and db >= 2:  # (m, n) @ (k, ..., n, p)
        return a @ b
    if not a_rows and da in (1, 2) and db == 1:  # (m, n) @ (n, k): the rows last, moved first
        return xp.moveaxis(a @ b.T, -1, 0)
    if a_rows and b_rows and da == 2 == db:
        return a @ b
    k = a.shape[0] if a_rows else b.shape[0]
    return xp.stack([(a[i] if a_rows else a) @ (b[i] if b_rows else b) for i in range(k)])


def _rows_map(f, rows, *args):
    """``f`` (an unbatched helper) applied row by row and stacked; ``rows[i]``: argument ``i`` is batched."""
    k = next(a.shape[0] for a, r in zip(args, rows, strict=True) if r)
    return xp.stack([f(*(a[i] if r else a for a, r in zip(args, rows, strict=True))) for i in range(k)])


def _rows_product_dx(f, g, x, y, rows):
    """``f(g, x, y)`` (``_matmul_dx`` or ``_dot_dx``: the adjoint of a product ``x @ y`` for ``x``)
    row by row, ``rows`` the flags of ``g``, ``x``, ``y``: one product of NumPy's stacks for
    matrices or vectors, a loop over the rows otherwise."""
    gr, xr, yr = rows
    xd, yd = xp.ndim(x) - xr, xp.ndim(y) - yr
    if gr or yr:
        if xd == 2 == yd:
            return g @ xp.swapaxes(y, -1, -2)
        if xd == 1 == yd:
            return (_rows_lift(g, y, yr) if gr else g) * y
    return _rows_map(f, rows, g, x, y)


def _rows_product_dy(f, g, x, y, rows):
    """``f(g, x, y)`` (``_matmul_dy`` or ``_dot_dy``) row by row (see ``_rows_product_dx``)."""
    gr, xr, yr = rows
    xd, yd = xp.ndim(x) - xr, xp.ndim(y) - yr
    if gr or xr:
        if xd == 2 == yd:
            return xp.swapaxes(x, -1, -2) @ g
        if xd == 1 == yd:
            return (_rows_lift(g, x, xr) if gr else g) * x
    return _rows_map(f, rows, g, x, y)


def _rows_matmul_dx(g, x, y, g_rows, x_rows, y_rows):
    """``_matmul_dx`` row by row: the gradient of ``x @ y`` in ``x``."""
    return _rows_product_dx(_matmul_dx, g, x, y, (g_rows, x_rows, y_rows))


def _rows_matmul_dy(g, x, y, g_rows, x_rows, y_rows):
    """``_matmul_dy`` row by row: the gradient of ``x @ y`` in ``y``."""
    return _rows_product_dy(_matmul_dy, g, x, y, (g_rows, x_rows, y_rows))


def _rows_dot_dx(g, x, y, g_rows, x_rows, y_rows):
    """``_dot_dx`` row by row: the gradient of ``np.dot(x, y)`` in ``x``."""
    return _rows_product_dx(_dot_dx, g, x, y, (g_rows, x_rows, y_rows))


def _rows_dot_dy(g, x, y, g_rows, x_rows, y_rows):
    """``_dot_dy`` row by row: the gradient of ``np.dot(x, y)`` in ``y``."""
    return _rows_product_dy(_dot_dy, g, x, y, (g_rows, x_rows, y_rows))


def _rows_fresh(buf, seed, rows):
    """A batched copy of ``buf`` (batched where ``rows``, else the same for every row), to write into."""
    if rows:
        return buf.astype(xp.result_type(buf, 0.0))
    out = xp.empty(seed.shape[:1] + xp.shape(buf), xp.result_type(buf, 0.0))
    out[...] = buf
    return out


def _rows_transpose(a, axes=None):
    """``np.transpose`` of each row of the batched ``a``."""
    if axes is None:
        return xp.transpose(a, (0, *range(a.ndim - 1, 0, -1)))
    return xp.transpose(a, (0, *(i % (a.ndim - 1) + 1 for i in axes)))


def _rows_reshape(a, shape):
    """``np.reshape`` of each row of the batched ``a``."""
    return a.reshape(a.shape[:1] + (tuple(shape) if isinstance(shape, tuple | list) else (shape,)))


def _rows_unreduce(g, x, axis=None, keepdims=False):
    """``_unreduce`` of each row of the batched ``g`` (a reduction's gradient) over the shape of ``x``."""
    shape = xp.shape(x)
    if axis is None:
        g = g.reshape(g.shape[:1] + (1,) * len(shape))
    elif not keepdims:
        axes = axis if isinstance(axis, tuple) else (axis,)
        g = xp.expand_dims(g, tuple(sorted(i % len(shape) + 1 for i in axes)))
    out = xp.empty(g.shape[:1] + shape, xp.result_type(x, g))
    out[...] = g
    return out


def _rows_dot(a, b, a_rows, b_rows):
    """``np.dot`` row by row (``_rows_matmul`` for vectors and matrices, a product with a number)."""
    da, db = a.ndim - a_rows, b.ndim - b_rows
    if da in (1, 2) and db in (1, 2):
        return _rows_matmul(a, b, a_rows, b_rows)
    if da == 0 or db == 0:
        return (_rows_lift(a, b, b_rows) if a_rows else a) * (_rows_lift(b, a, a_rows) if b_rows else b)
    return _rows_map(xp.dot, (a_rows, b_rows), a, b)


def _rows_take(a, indices, axis):
    """``np.take`` of each row of the batched ``a`` along ``axis`` (an int); an int index as a view
    (``a[:, 0]``: its record says so, and nothing writes into it), no copy of the block."""
    axis = axis + 1 if axis >= 0 else axis
    if type(indices) is int:
        return a[(slice(None),) * (axis % a.ndim) + (indices,)]
    return xp.take(a, indices, axis=axis)


def _rows_untake(g, x, indices, axis):
    """``_untake`` of each row of the batched ``g`` (zeros of ``x``'s shape with ``g`` added where
    ``np.take(x, indices, axis)`` read), ``axis`` an int: shape ``(k,) + np.shape(x)``."""
    indices = xp.asarray(indices)
    dx = xp.zeros(g.shape[:1] + xp.shape(x), dtype=xp.result_type(g, x))
    xp.add.at(dx, (slice(None),) * (axis % xp.ndim(x) + 1) + (indices,), g)
    return dx
