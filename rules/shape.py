"""Indexing, reshaping and shape queries."""


@diffrule
def getindex(x, *idx, index=()):
    # x[index]: index is a template of integers, slices, None and ..., in which computed
    # parts (an integer, an index array, a boolean mask) are the operands idx.
    # One gradient buffer per array: the optimizer folds every read of x into it.
    nondiff(idx)
    dx = index_add(zeros_like(x), dout, idx, index=index)


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
