"""Indexing, reshaping and shape queries."""


@diffrule
def getindex(x, *idx, index=()):
    # x[index]: index is a template of integers, slices, None and ..., in which computed
    # parts (an integer, an index array, a boolean mask) are the operands idx.
    # One gradient buffer per array: the optimizer folds every read of x into it.
    nondiff(idx)
    dx = index_add(grad_zeros(x), dout, idx, index=index)


@diffrule(names=["numpy.asarray", "numpy.array"])
def asarray(x):
    # A constant array written in the source (an index list).
    nondiff(x)


@diffrule(names=["numpy.reshape", "ndarray.reshape"])
def reshape(x, newshape):
    nondiff(newshape)
    dx = reshape(dout, shape(x))


@diffrule(names=["numpy.shape", "ndarray.shape"])
def shape(x):
    nondiff(x)


@diffrule(names=["numpy.size", "ndarray.size"], shape="scalar")
def size(x):
    nondiff(x)


@diffrule(names=["builtins.len"], shape="scalar")
def len(x):
    nondiff(x)


@diffrule(names=["numpy.ndim", "ndarray.ndim"], shape="scalar")
def ndim(x):
    nondiff(x)


@diffrule(names=["numpy.arange"])
def arange(start, stop=None, step=None):
    nondiff(start)


@diffrule(names=["numpy.zeros"])
def zeros(shape):
    nondiff(shape)


@diffrule(names=["numpy.ones"])
def ones(shape):
    nondiff(shape)


@diffrule(names=["numpy.eye"])
def eye(n):
    nondiff(n)


# ----------------------------------------------------------------------------- axes and views
# Static parameters that NumPy requires (swapaxes' axes, moveaxis' source) default to None here:
# leaving one out fails at run time, as in NumPy.


@diffrule(names=["numpy.ravel", "ndarray.ravel"])
def ravel(x):
    dx = reshape(dout, shape(x))


@diffrule(names=["ndarray.flatten"])
def flatten(x):
    # ravel's copy: a method only, written by the runtime helper _flatten
    dx = reshape(dout, shape(x))


@diffrule(names=["numpy.swapaxes", "ndarray.swapaxes"])
def swapaxes(x, axis1=None, axis2=None):
    dx = swapaxes(dout, axis1=axis1, axis2=axis2)


@diffrule(names=["numpy.moveaxis"])
def moveaxis(x, source=None, destination=None):
    dx = moveaxis(dout, source=destination, destination=source)


@diffrule(names=["numpy.expand_dims"])
def expand_dims(x, axis=None):
    dx = reshape(dout, shape(x))


@diffrule(names=["numpy.squeeze", "ndarray.squeeze"])
def squeeze(x, axis=None):
    dx = reshape(dout, shape(x))


@diffrule(names=["numpy.atleast_1d"])
def atleast_1d(x):
    dx = reshape(dout, shape(x))


@diffrule(names=["numpy.atleast_2d"])
def atleast_2d(x):
    dx = reshape(dout, shape(x))


@diffrule(names=["numpy.flip"], shape="x")
def flip(x, axis=None):
    dx = flip(dout, axis=axis)


@diffrule(names=["numpy.fliplr"], shape="x")
def fliplr(x):
    dx = fliplr(dout)


@diffrule(names=["numpy.flipud"], shape="x")
def flipud(x):
    dx = flipud(dout)


# ----------------------------------------------------------------------------- copies


@diffrule(names=["numpy.tile"])
def tile(x, reps=None):
    # the gradient sums the copies
    dx = tile_dx(dout, x, reps=reps)


@diffrule(shape="x")
def tile_dx(g, x, reps=None):
    # g, of the shape of np.tile(x, reps), summed over the copies down to the shape of x
    nondiff(x)
    dg = tile(dout, reps=reps)


@diffrule(names=["numpy.repeat", "ndarray.repeat"])
def repeat(x, repeats=None, axis=None):
    # repeats: an int or a constant sequence (one count per element along axis)
    dx = repeat_dx(dout, x, repeats=repeats, axis=axis)


@diffrule(shape="x")
def repeat_dx(g, x, repeats=None, axis=None):
    # g, of the shape of np.repeat(x, repeats, axis), with each element's copies summed
    nondiff(x)
    dg = repeat(dout, repeats=repeats, axis=axis)


# ----------------------------------------------------------------------------- joining
# Each operand's gradient is its block of dout; the helpers find the block from the
# operands' run-time shapes.


@diffrule(names=["numpy.concatenate", "numpy.concat"])
def concatenate(*xs, axis=0):
    dxs = concat_part(dout, xs, part=i, axis=axis)
    out_dot = concatenate(xs_dot, axis=axis)  # (the parts have no rule for g to transpose)


@diffrule
def concat_part(g, *xs, part=0, axis=0):
    # the block of g that xs[part] fills in np.concatenate(xs, axis)
    nondiff(xs)
    dg = join_place(dout, xs, part=part, join="concatenate", axis=axis)


@diffrule
def join_place(d, *xs, part=0, join="concatenate", axis=0):
    # d where xs[part] goes in the join of xs, zeros elsewhere: the adjoint of the parts above
    # (join: "concatenate", "hstack", "vstack", "column_stack", "r" or "c" for np.r_ and np.c_)
    nondiff(xs)
    dd = join_part(dout, xs, part=part, join=join, axis=axis)


@diffrule
def join_part(g, *xs, part=0, join="concatenate", axis=0):
    # the block of g that xs[part] fills in the join of xs: the parts above, by kind of join
    nondiff(xs)
    dg = join_place(dout, xs, part=part, join=join, axis=axis)


@diffrule(names=["numpy.stack"])
def stack(*xs, axis=0):
    # also np.array([a, b]) of computed values, lowered to stack(a, b, axis=0)
    dxs = take(dout, i, axis=axis)
    out_dot = stack(xs_dot, axis=axis)  # (the transposed take: a sum of _untake, one per operand)


@diffrule(names=["numpy.hstack"])
def hstack(*xs):
    # NumPy joins 1-D arrays (and numbers) along axis 0, the others along axis 1
    dxs = hstack_part(dout, xs, part=i)
    out_dot = hstack(xs_dot)


@diffrule
def hstack_part(g, *xs, part=0):
    nondiff(xs)
    dg = join_place(dout, xs, part=part, join="hstack", axis=0)


@diffrule(names=["numpy.vstack"])
def vstack(*xs):
    # NumPy makes 1-D arrays (and numbers) rows, then joins along axis 0
    dxs = vstack_part(dout, xs, part=i)
    out_dot = vstack(xs_dot)


@diffrule
def vstack_part(g, *xs, part=0):
    nondiff(xs)
    dg = join_place(dout, xs, part=part, join="vstack", axis=0)


# ----------------------------------------------------------------------------- gathering


@diffrule(names=["numpy.take", "ndarray.take"])
def take(x, indices, axis=None):
    # indices: an integer or an index array; repeated indices accumulate
    nondiff(indices)
    dx = untake(dout, x, indices, axis=axis)


@diffrule(shape="x")
def untake(g, x, indices, axis=None):
    # zeros of the shape of x with g added at np.take's positions (the adjoint of take)
    nondiff(x, indices)
    dg = take(dout, indices, axis=axis)


# ----------------------------------------------------------------------------- indices (no gradient)


@diffrule(names=["numpy.argmax", "ndarray.argmax"], shape="reduce")
def argmax(x, axis=None, keepdims=False):
    nondiff(x)


@diffrule(names=["numpy.argmin", "ndarray.argmin"], shape="reduce")
def argmin(x, axis=None, keepdims=False):
    nondiff(x)


@diffrule(names=["numpy.argsort", "ndarray.argsort"])
def argsort(x, axis=-1):
    nondiff(x)


@diffrule(names=["numpy.flatnonzero"])
def flatnonzero(x):
    nondiff(x)


@diffrule(names=["numpy.argwhere"])
def argwhere(x):
    nondiff(x)


@diffrule(shape="a")
def setindex(a, v, *idx, index=()):
    # A copy of a with a[index] = v: a write into an array, as a value (a[i] = v in the
    # source). The emitter writes it in place when the old a is used nowhere else.
    nondiff(idx)
    da = setindex(dout, 0.0, idx, index=index)
    dv = unbroadcast(getindex(dout, idx, index=index), v)


@diffrule(names=["numpy.copy", "ndarray.copy"], shape="x")
def copy(x):
    # A new array with the values of x (before writing into it: a = x.copy(); a[0] = v).
    dx = dout


# ----------------------------------------------------------------------------- differences, rolls, pads


@diffrule(names=["numpy.diff"])
def diff(x, n=1, axis=-1):
    # prepend=/append= are joined to x first (frontend/adapters_shape.py): diff(concatenate(...))
    dx = diff_dx(dout, x, n=n, axis=axis)


@diffrule(shape="x")
def diff_dx(g, x, n=1, axis=-1):
    # the adjoint of np.diff(x, n, axis): n times -diff of g padded with a zero at both ends
    nondiff(x)
    dg = diff(dout, n=n, axis=axis)


@diffrule
def diff_end(p, x, axis=-1):
    # np.diff's prepend=p (or append=p): a number (0-d) broadcast to x's shape with length 1
    # along axis, an array as it is
    nondiff(x)
    dp = unbroadcast(dout, p)


@diffrule(names=["numpy.roll"], shape="x")
def roll(x, shift=None, axis=None):
    dx = roll_dx(dout, shift=shift, axis=axis)


@diffrule(shape="g")
def roll_dx(g, shift=None, axis=None):
    # np.roll back: the shifts negated
    dg = roll(dout, shift=shift, axis=axis)


@diffrule(names=["numpy.rollaxis"])
def rollaxis(x, axis=None, start=0):
    dx = rollaxis_dx(dout, axis=axis, start=start)


@diffrule
def rollaxis_dx(g, axis=None, start=0):
    # the axis np.rollaxis(x, axis, start) moved, put back
    dg = rollaxis(dout, axis=axis, start=start)


@diffrule(names=["numpy.pad"])
def pad(x, pad_width=None, mode="constant", constant_values=0, reflect_type="even"):
    # modes constant, edge, reflect, symmetric, wrap (the front end refuses the others, and
    # reflect_type="odd"): each padded element is a constant or a copy of an element of x
    dx = pad_dx(dout, x, pad_width=pad_width, mode=mode)


@diffrule(shape="x")
def pad_dx(g, x, pad_width=None, mode="constant"):
    # g's centre (constant mode), or every copy of an element summed into it (the other modes)
    nondiff(x)
    dg = pad(dout, pad_width=pad_width, mode=mode)


@diffrule(names=["numpy.tril"])
def tril(x, k=0):
    # a 1-D x is broadcast to a square matrix first, as NumPy does: its gradient sums the rows
    dx = unbroadcast(tril(dout, k=k), x)


@diffrule(names=["numpy.triu"])
def triu(x, k=0):
    dx = unbroadcast(triu(dout, k=k), x)


# ----------------------------------------------------------------------------- splitting
# np.split(x, s, axis) and np.array_split are slices of x (getindex), one gradient buffer for
# every part (frontend/adapters_shape.py); split_at gives the bounds of equal sections.


@diffrule(shape="scalar")
def split_at(x, part=1, sections=2, axis=0, equal=True):
    # where section `part` of np.split(x, sections, axis) starts (np.array_split for equal=False);
    # an uneven np.split raises NumPy's ValueError
    nondiff(x)


@diffrule
def split_part(x, part=0, sections=2, kind="hsplit"):
    # np.hsplit(x, sections)[part] or np.vsplit(...)[part] (kind), whose axis is x's to choose
    dx = split_part_dx(dout, x, part=part, sections=sections, kind=kind)


@diffrule(shape="x")
def split_part_dx(g, x, part=0, sections=2, kind="hsplit"):
    # zeros of x's shape with g where split_part read
    nondiff(x)
    dg = split_part(dout, part=part, sections=sections, kind=kind)


# ----------------------------------------------------------------------------- more joining


@diffrule(names=["numpy.column_stack"])
def column_stack(*xs):
    # 1-D arrays (and numbers) become columns; joined along axis 1
    dxs = column_stack_part(dout, xs, part=i)


@diffrule
def column_stack_part(g, *xs, part=0):
    nondiff(xs)
    dg = join_place(dout, xs, part=part, join="column_stack", axis=0)


@diffrule
def index_join(*xs, kind="r"):
    # np.r_[a, 1.0, b] (kind "r": numbers and 0-d arrays made 1-D, joined along axis 0) or
    # np.c_[a, b] (kind "c": 1-D arrays made columns, numbers 1 x 1, joined along the last
    # axis), NumPy's dtype included (a number does not make float32 arrays float64)
    dxs = index_join_part(dout, xs, part=i, kind=kind)


@diffrule
def index_join_part(g, *xs, part=0, kind="r"):
    nondiff(xs)
    dg = join_place(dout, xs, part=part, join=kind, axis=0)


@diffrule(names=["numpy.atleast_3d"])
def atleast_3d(x):
    dx = reshape(dout, shape(x))


# ----------------------------------------------------------------------------- gathering along an axis


@diffrule(names=["numpy.take_along_axis"])
def take_along_axis(x, indices, axis=-1):
    # NumPy's default axis=-1 (2.3 and later; before, axis had no default); the helper always
    # passes it (CuPy's has no default)
    nondiff(indices)
    dx = take_along_axis_dx(dout, x, indices, axis=axis)


@diffrule(shape="x")
def take_along_axis_dx(g, x, indices, axis=-1):
    # zeros of x's shape with g added where np.take_along_axis read, repeated indices accumulated
    nondiff(x, indices)
    dg = take_along_axis(dout, indices, axis=axis)
