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


@diffrule(names=["numpy.concatenate"])
def concatenate(*xs, axis=0):
    dxs = concat_part(dout, xs, part=i, axis=axis)


@diffrule
def concat_part(g, *xs, part=0, axis=0):
    # the block of g that xs[part] fills in np.concatenate(xs, axis)
    nondiff(xs)
    dg = not_implemented("second derivatives through concatenate")


@diffrule(names=["numpy.stack"])
def stack(*xs, axis=0):
    # also np.array([a, b]) of computed values, lowered to stack(a, b, axis=0)
    dxs = take(dout, i, axis=axis)


@diffrule(names=["numpy.hstack"])
def hstack(*xs):
    # NumPy joins 1-D arrays (and numbers) along axis 0, the others along axis 1
    dxs = hstack_part(dout, xs, part=i)


@diffrule
def hstack_part(g, *xs, part=0):
    nondiff(xs)
    dg = not_implemented("second derivatives through hstack")


@diffrule(names=["numpy.vstack"])
def vstack(*xs):
    # NumPy makes 1-D arrays (and numbers) rows, then joins along axis 0
    dxs = vstack_part(dout, xs, part=i)


@diffrule
def vstack_part(g, *xs, part=0):
    nondiff(xs)
    dg = not_implemented("second derivatives through vstack")


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
