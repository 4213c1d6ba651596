"""Reductions with NumPy's axis= and keepdims= semantics."""


@diffrule(names=["numpy.sum", "ndarray.sum"], shape="reduce")
def sum(x, axis=None, keepdims=False):
    dx = unreduce(dout, x, axis=axis, keepdims=keepdims)


@diffrule(names=["numpy.mean", "ndarray.mean"], shape="reduce")
def mean(x, axis=None, keepdims=False):
    count = size(x) / size(out)
    dx = unreduce(dout / count, x, axis=axis, keepdims=keepdims)
