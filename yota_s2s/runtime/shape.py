"""Runtime helpers of the shape and indexing rules (``rules/shape.py``).

Like ``runtime``: each ``_<prim>`` writes the primitive ``prim`` and is copied into the
generated modules that use it, with ``xp`` renamed to the target's array module.
Statics come by keyword; a variadic primitive's operands come as one list.  The
adjoints return fresh arrays, never views of the incoming gradient.
"""

import numpy as xp


def _flatten(x):
    """``x.flatten()``: a flat copy of ``x``."""
    return xp.asarray(x).flatten()


def _tile_dx(g, x, reps):
    """``g``, of the shape of ``np.tile(x, reps)``, summed over the copies down to the shape of ``x``."""
    shape = xp.shape(x)
    reps = tuple(reps) if xp.ndim(reps) else (reps,)
    n = max(len(shape), len(reps))
    padded = (1,) * (n - len(shape)) + tuple(shape)
    reps = (1,) * (n - len(reps)) + reps
    # axis k of the result is (copy, element) = (reps[k], padded[k]): sum the copies
    split = xp.reshape(g, [d for pair in zip(reps, padded) for d in pair])
    return xp.reshape(xp.sum(split, axis=tuple(range(0, 2 * n, 2))), shape)


def _repeat_dx(g, x, repeats, axis):
    """``g``, of the shape of ``np.repeat(x, repeats, axis)``, with each element's copies summed."""
    shape = xp.shape(x)
    if axis is None:  # np.repeat flattens x first
        g = xp.reshape(g, -1)
        axis, n = 0, xp.size(x)
    else:
        axis = axis % len(shape)
        n = shape[axis]
    before, after = xp.shape(g)[:axis], xp.shape(g)[axis + 1 :]
    if xp.ndim(repeats) == 0:  # copies are adjacent: (n, repeats) blocks
        dx = xp.sum(xp.reshape(g, before + (n, repeats) + after), axis=axis + 1)
    else:  # a count per element (possibly 0): scatter each copy back to its element
        dx = xp.zeros(before + (n,) + after, dtype=xp.result_type(g, x))
        owner = xp.repeat(xp.arange(n), repeats)
        xp.add.at(dx, (slice(None),) * axis + (owner,), g)
    return xp.reshape(dx, shape)


def _concat_part(g, xs, part, axis):
    """The block of ``g`` that ``xs[part]`` fills in ``np.concatenate(xs, axis)`` (a copy)."""
    if axis is None:  # np.concatenate flattens the arrays first
        start = sum(xp.size(x) for x in xs[:part])
        return xp.reshape(g[start : start + xp.size(xs[part])], xp.shape(xs[part])).copy()
    axis = axis % xp.ndim(g)
    start = sum(xp.shape(x)[axis] for x in xs[:part])
    block = (slice(None),) * axis + (slice(start, start + xp.shape(xs[part])[axis]),)
    return g[block].copy()


def _hstack_part(g, xs, part):
    """The block of ``g`` that ``xs[part]`` fills in ``np.hstack(xs)``."""
    arrays = [xp.atleast_1d(x) for x in xs]
    axis = 0 if arrays[0].ndim == 1 else 1
    return xp.reshape(_concat_part(g, arrays, part, axis), xp.shape(xs[part]))


def _vstack_part(g, xs, part):
    """The block of ``g`` that ``xs[part]`` fills in ``np.vstack(xs)``."""
    arrays = [xp.atleast_2d(x) for x in xs]
    return xp.reshape(_concat_part(g, arrays, part, 0), xp.shape(xs[part]))


def _untake(g, x, indices, axis):
    """Zeros of the shape of ``x`` with ``g`` added where ``np.take(x, indices, axis)`` read."""
    indices = xp.asarray(indices)  # a tuple of indices is an index array, not a multi-index
    if axis is None:  # np.take reads the flattened x
        flat = xp.zeros(xp.size(x), dtype=xp.result_type(g, x))
        xp.add.at(flat, indices, g)
        return xp.reshape(flat, xp.shape(x))
    dx = xp.zeros(xp.shape(x), dtype=xp.result_type(g, x))
    xp.add.at(dx, (slice(None),) * (axis % xp.ndim(x)) + (indices,), g)
    return dx


def _setindex(a, v, index):
    """A copy of ``a`` with ``a[index] = v`` (the emitter writes ``a[index] = v`` itself)."""
    a = xp.array(a, copy=True)
    a[index] = v
    return a
