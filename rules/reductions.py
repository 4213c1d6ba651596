"""Reductions with NumPy's axis= and keepdims= semantics."""


@diffrule(names=["numpy.sum", "ndarray.sum"], shape="reduce")
def sum(x, axis=None, keepdims=False):
    dx = unreduce(dout, x, axis=axis, keepdims=keepdims)


@diffrule(names=["numpy.mean", "ndarray.mean"], shape="reduce")
def mean(x, axis=None, keepdims=False):
    count = size(x) / size(out)
    dx = unreduce(dout / count, x, axis=axis, keepdims=keepdims)


@diffrule(names=["numpy.max", "numpy.amax", "ndarray.max"], shape="reduce")
def max(x, axis=None, keepdims=False):
    # The gradient goes to the maxima, split evenly between ties (a subgradient).
    mask = equal(x, keep_axes(out, axis=axis, keepdims=keepdims))
    dx = mask * keep_axes(dout / sum(mask, axis=axis, keepdims=keepdims), axis=axis, keepdims=keepdims)


@diffrule(names=["numpy.min", "numpy.amin", "ndarray.min"], shape="reduce")
def min(x, axis=None, keepdims=False):
    mask = equal(x, keep_axes(out, axis=axis, keepdims=keepdims))
    dx = mask * keep_axes(dout / sum(mask, axis=axis, keepdims=keepdims), axis=axis, keepdims=keepdims)
