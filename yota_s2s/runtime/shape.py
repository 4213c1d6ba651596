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


def _diff_dx(g, x, n, axis):
    """The adjoint of ``np.diff(x, n, axis)``: ``n`` times ``-diff`` of ``g`` padded with a zero at each end."""
    shape = xp.shape(x)
    axis = axis % len(shape)
    g = xp.asarray(g)
    if shape[axis] <= n:  # the difference is empty: nothing flows back
        return xp.zeros(shape, dtype=xp.result_type(g, x, 0.0))
    width = [(0, 0)] * len(shape)
    width[axis] = (1, 1)
    for _ in range(n):
        g = -xp.diff(xp.pad(g, width), axis=axis)
    return g


def _diff_end(p, x, axis):
    """``np.diff``'s ``prepend=p`` (or ``append=p``): a 0-d ``p`` broadcast to the shape of ``x`` with
    length 1 along ``axis``, an array as it is."""
    p = xp.asarray(p)
    if p.ndim:
        return p
    shape = list(xp.shape(x))
    shape[axis] = 1
    return xp.broadcast_to(p, tuple(shape))


def _roll(x, shift=None, axis=None, _ndarray=xp.ndarray):
    """``np.roll(x, shift, axis)``; an array rolled by an int along one axis (or a flat one) as two
    copies into a new array: 3 µs where ``np.roll``, which builds index tuples, costs 8-10."""
    if type(x) is _ndarray and type(shift) is int and (type(axis) is int or axis is None and x.ndim == 1):
        axis = 0 if axis is None else axis % max(x.ndim, 1)
        n = x.shape[axis] if x.ndim else 0
        if n:
            s = shift % n
            out = xp.empty_like(x)
            lead = (slice(None),) * axis
            out[lead + (slice(s, None),)] = x[lead + (slice(None, n - s),)]
            out[lead + (slice(None, s),)] = x[lead + (slice(n - s, None),)]
            return out
    return xp.roll(x, shift, axis=axis)


def _roll_dx(g, shift, axis):
    """``np.roll`` back: ``g`` rolled by the negated shifts."""
    shift = tuple(-s for s in shift) if xp.ndim(shift) else -shift
    return _roll(g, shift, axis)


def _rollaxis_dx(g, axis, start):
    """The axis ``np.rollaxis(x, axis, start)`` moved, put back where it was."""
    n = xp.ndim(g)
    axis = axis % n
    start = start + n if start < 0 else start
    return xp.moveaxis(g, start - 1 if axis < start else start, axis)


def _pad_dx(g, x, pad_width, mode):
    """The adjoint of ``np.pad(x, pad_width, mode)``: the centre of ``g`` (``"constant"``), or for the
    modes that copy elements of ``x`` (edge, reflect, symmetric, wrap), every copy summed into it."""
    shape = xp.shape(x)
    width = pad_width
    if not isinstance(width, tuple | list):  # one width for every side of every axis
        pairs = [(width, width)] * len(shape)
    elif all(not isinstance(w, tuple | list) for w in width):  # (n,) or (before, after) for every axis
        pairs = [(width[0], width[-1])] * len(shape)
    else:  # ((before, after),) for every axis, or a pair per axis
        pairs = [(w[0], w[-1]) for w in width]
        pairs = pairs * len(shape) if len(pairs) == 1 else pairs
    if mode == "constant":
        return g[tuple(slice(b, n + b) for (b, _), n in zip(pairs, shape))].copy()
    # where each element of the result was read from: np.pad of x's flat indices
    size = 1
    for n in shape:
        size *= n
    source = xp.pad(xp.reshape(xp.arange(size), shape), pairs, mode=mode)
    total = xp.bincount(xp.reshape(source, -1), weights=xp.reshape(g, -1), minlength=size)
    return xp.reshape(total, shape).astype(xp.result_type(g, x, 0.0), copy=False)


def _split_at(x, part, sections, axis, equal):
    """Where section ``part`` of ``np.split(x, sections, axis)`` (``np.array_split`` when not ``equal``)
    starts, with NumPy's errors."""
    n = xp.shape(x)[axis]
    if sections <= 0:
        raise ValueError("number sections must be larger than 0.")
    each, extra = divmod(n, sections)
    if equal and extra:
        raise ValueError("array split does not result in an equal division")
    return part * each + min(part, extra)


def _split_part(x, part, sections, kind):
    """``np.hsplit(x, sections)[part]`` or ``np.vsplit(x, sections)[part]`` (``kind``)."""
    return (xp.hsplit(x, sections) if kind == "hsplit" else xp.vsplit(x, sections))[part]


def _split_part_dx(g, x, part, sections, kind):
    """Zeros of the shape of ``x`` with ``g`` where ``_split_part(x, part, sections, kind)`` reads."""
    dx = xp.zeros(xp.shape(x), dtype=xp.result_type(g, x, 0.0))
    (xp.hsplit(dx, sections) if kind == "hsplit" else xp.vsplit(dx, sections))[part][...] = g
    return dx


def _column_stack_part(g, xs, part):
    """The block of ``g`` that ``xs[part]`` fills in ``np.column_stack(xs)``."""
    arrays = [x if xp.ndim(x) >= 2 else xp.reshape(xp.asarray(x), (-1, 1)) for x in xs]
    return xp.reshape(_concat_part(g, arrays, part, 1), xp.shape(xs[part]))


def _index_join(xs, kind):
    """``np.r_[xs]`` (``kind`` ``"r"``) or ``np.c_[xs]`` (``"c"``)."""
    return (xp.r_ if kind == "r" else xp.c_)[tuple(xs)]


def _index_join_part(g, xs, part, kind):
    """The block of ``g`` that ``xs[part]`` fills in ``np.r_[xs]`` or ``np.c_[xs]`` (``kind``)."""
    if kind == "r":  # 1-D at least, joined along axis 0
        return xp.reshape(_concat_part(g, [xp.atleast_1d(x) for x in xs], part, 0), xp.shape(xs[part]))
    arrays = [x if xp.ndim(x) >= 2 else xp.reshape(xp.asarray(x), (-1, 1)) for x in xs]  # columns
    return xp.reshape(_concat_part(g, arrays, part, -1), xp.shape(xs[part]))


def _take_along_axis(x, indices, axis):
    """``np.take_along_axis(x, indices, axis)``, ``axis`` always passed (CuPy's has no default)."""
    return xp.take_along_axis(x, indices, axis=axis)


def _take_along_axis_dx(g, x, indices, axis):
    """Zeros of the shape of ``x`` with ``g`` added where ``np.take_along_axis(x, indices, axis)`` read."""
    indices = xp.asarray(indices)
    if axis is None:  # the flattened x, 1-D indices
        flat = xp.zeros(xp.size(x), dtype=xp.result_type(g, x, 0.0))
        xp.add.at(flat, indices, g)
        return xp.reshape(flat, xp.shape(x))
    shape = xp.shape(x)
    axis = axis % len(shape)
    dx = xp.zeros(shape, dtype=xp.result_type(g, x, 0.0))
    where = []
    for k, n in enumerate(shape):
        line = [1] * len(shape)
        line[k] = n
        where.append(indices if k == axis else xp.reshape(xp.arange(n), line))
    xp.add.at(dx, tuple(where), g)
    return dx
