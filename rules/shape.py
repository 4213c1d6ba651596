"""Indexing, reshaping and shape queries."""


@diffrule
def getindex(x, index=()):
    # x[index] for basic indices (integers, slices, None, ...): one gradient
    # buffer per array; the optimizer folds every read of x into it.
    dx = index_add(zeros_like(x), dout, index=index)


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
