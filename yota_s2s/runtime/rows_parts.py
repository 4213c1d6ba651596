"""Helpers of a batched sweep (``ir.batching``, ``runtime/rows.py``) for the primitives that move
elements: the parts of a join and their adjoints, ``np.roll`` and an index array.  A batched value
has a leading axis of rows, one per seed; each helper does to every row what the primitive does to
the value (``_rows_roll(a, 1, axis=0)`` rolls each row along its own first axis).
"""

import numpy as xp

from .second import _join_place  # for direct calls; modules copy them
from .shape import _roll


def _rows_concat_part(g, *xs, part, axis):
    """``_concat_part`` of each row of the batched ``g``: the block that ``xs[part]`` fills in
    ``np.concatenate(xs, axis)`` (a view of ``g``: its record says so, and nothing writes into it)."""
    k = g.shape[0]
    if axis is None:  # (np.concatenate flattens the arrays first)
        start = sum(xp.size(x) for x in xs[:part])
        flat = g.reshape(k, -1)[:, start : start + xp.size(xs[part])]
        return flat.reshape((k,) + xp.shape(xs[part]))
    axis = axis % (g.ndim - 1)
    start = sum(xp.shape(x)[axis] for x in xs[:part])
    return g[(slice(None),) * (axis + 1) + (slice(start, start + xp.shape(xs[part])[axis]),)]


def _rows_join_place(d, *xs, part, join, axis):
    """``_join_place`` of each row of the batched ``d``: ``d`` placed where ``xs[part]`` goes in the
    join of ``xs``, zeros elsewhere (a concatenation along an axis at once, the other joins row by
    row)."""
    k = d.shape[0]
    dtype = xp.result_type(d, 0.0)
    if join != "concatenate" or axis is None:
        return xp.stack([_join_place(d[i], list(xs), part, join, axis) for i in range(k)])
    blocks = [
        d.reshape((k,) + xp.shape(x)).astype(dtype, copy=False) if n == part else xp.zeros((k,) + xp.shape(x), dtype)
        for n, x in enumerate(xs)
    ]
    return xp.concatenate(blocks, axis=axis % xp.ndim(xs[part]) + 1)


def _rows_roll(a, shift, axis=None):
    """``np.roll`` of each row of the batched ``a``."""
    if axis is None:  # (the row flattened, rolled, and given its shape back)
        return _rows_roll(a.reshape(a.shape[0], -1), shift, 0).reshape(a.shape)
    rows = a.ndim - 1
    if type(axis) is int:  # (_roll: two copies, 5 µs less than np.roll)
        return _roll(a, shift, axis % rows + 1)
    return xp.roll(a, shift, axis=tuple(i % rows + 1 for i in axis))


def _rows_roll_dx(g, shift, axis=None):
    """``_roll_dx`` of each row of the batched ``g``: each rolled by the negated shifts."""
    shift = tuple(-s for s in shift) if xp.ndim(shift) else -shift
    return _rows_roll(g, shift, axis)


def _rows_getindex(a, index):
    """``a[index]`` of each row of the batched ``a``, ``index`` computed when the function runs: an
    index array or an integer reads ``a[:, index]`` (an array by ``np.take``); any other index (a
    tuple, a slice, a mask), row by row."""
    if type(index) is xp.ndarray and index.dtype.kind in "iu":  # (np.take: 3-7x faster than a[:, index])
        return xp.take(a, index, axis=1)
    if type(index) is int:
        return a[:, index]
    return xp.stack([a[i][index] for i in range(a.shape[0])])


def _rows_index_add(buf, g, index, buf_rows, g_rows):
    """``_index_add`` of each row: a batched copy of ``buf`` with ``g`` added at each row's
    ``[index]`` (``index`` computed when the function runs; repeated indices accumulated), each
    operand batched where its flag says."""
    k = (buf if buf_rows else g).shape[0]
    dtype = xp.result_type(buf, g)
    if buf_rows:
        out = buf.astype(dtype)
    else:
        out = xp.empty((k,) + xp.shape(buf), dtype)
        out[...] = buf
    for i in range(k):  # (np.add.at on each row: its fast path for one index array)
        xp.add.at(out[i], index, g[i] if g_rows else g)
    return out


def _rows_concatenate(*xs, rows, axis=0):
    """``np.concatenate`` of each row: ``xs`` batched where ``rows`` says (an unbatched one, the same
    in every row), joined along the rows' ``axis`` (None: each row flattened first)."""
    k = next(x.shape[0] for x, r in zip(xs, rows, strict=True) if r)
    if axis is None:
        items = [x.reshape(k, -1) if r else xp.broadcast_to(xp.ravel(x), (k, xp.size(x))) for x, r in zip(xs, rows)]
        return xp.concatenate(items, axis=1)
    items = [x if r else xp.broadcast_to(xp.asarray(x), (k,) + xp.shape(x)) for x, r in zip(xs, rows, strict=True)]
    return xp.concatenate(items, axis=axis % (items[0].ndim - 1) + 1)


def _rows_stack(*xs, rows, axis=0):
    """``np.stack`` of each row: ``xs`` batched where ``rows`` says (an unbatched one, the same in
    every row), stacked along the rows' ``axis``."""
    k = next(x.shape[0] for x, r in zip(xs, rows, strict=True) if r)
    items = [x if r else xp.asarray(x) for x, r in zip(xs, rows, strict=True)]
    shapes = [x.shape[1:] if r else x.shape for x, r in zip(items, rows)]
    shape = shapes[0] if shapes.count(shapes[0]) == len(shapes) else xp.broadcast_shapes(*shapes)
    at = axis % (len(shape) + 1)  # (written into one new array: 3 times np.stack's 12 µs on small rows)
    out = xp.empty((k, *shape[:at], len(items), *shape[at:]), xp.result_type(*items))
    for i, x in enumerate(items):
        out[(slice(None),) * (at + 1) + (i,)] = x
    return out
