"""Helper primitives that rules produce: adjoints of broadcasting, reductions and indexing.

They have rules too, so the gradient of a gradient goes through the same machinery.
"""


@diffrule(shape="x")
def unbroadcast(g, x):
    # Sum g over the axes that broadcasting added to x.
    nondiff(x)
    dg = broadcast_to(dout, shape(g))


@diffrule(names=["numpy.broadcast_to"])
def broadcast_to(x, newshape):
    nondiff(newshape)
    dx = unbroadcast(dout, x)


@diffrule(shape="x")
def unreduce(g, x, axis=None, keepdims=False):
    # Spread the gradient of a reduction back over the reduced axes of x.
    nondiff(x)
    dg = sum(dout, axis=axis, keepdims=keepdims)


@diffrule(shape="buf")
def index_add(buf, g, *idx, index=()):
    # buf with g added at buf[index], repeated indices accumulated (np.add.at); on a
    # fresh buffer the emitter writes it in place.
    nondiff(idx)
    dbuf = dout
    dg = getindex(dout, idx, index=index)


@diffrule(names=["numpy.zeros_like"], shape="x")
def zeros_like(x):
    nondiff(x)


@diffrule(shape="x")
def grad_zeros(x):
    # The zero gradient of x, the buffer gradients are added into: zeros of x's shape in the
    # dtype of x + 0.0 (float64 for an integer x, whose gradient is not an integer).
    nondiff(x)


@diffrule(shape="x")
def matmul_dx(g, x, y):
    # g @ y.T (summed to x's shape): the adjoint J.T g of the linear map J: u -> u @ y, so its
    # gradient with respect to g is J dout = dout @ y, and <dout, J.T g> = <dout @ y, g> gives y's.
    nondiff(x)
    dg = matmul(dout, y)
    dy = matmul_dy(g, dout, y)


@diffrule(shape="y")
def matmul_dy(g, x, y):
    # x.T @ g (summed to y's shape): the adjoint of u -> x @ u (see matmul_dx).
    nondiff(y)
    dg = matmul(x, dout)
    dx = matmul_dx(g, x, dout)


@diffrule(shape="x")
def xtx_dx(g, x):
    # The gradient of x.T @ x with respect to x (both operands): x @ (g + g.T) for a matrix.
    # It is J.T g for J: u -> u.T @ x + x.T @ u, symmetric in its two operands, so the gradient
    # with respect to x is xtx_dx(g, dout).
    dg = matmul(transpose(dout), x) + matmul(transpose(x), dout)
    dx = xtx_dx(g, dout)


@diffrule(shape="x")
def xxt_dx(g, x):
    # The gradient of x @ x.T with respect to x (both operands): (g + g.T) @ x for a matrix.
    dg = matmul(dout, transpose(x)) + matmul(x, transpose(dout))
    dx = xxt_dx(g, dout)


@diffrule(shape="v")
def diag_dv(g, v, k=0):
    nondiff(v)
    dg = diag(dout, k=k)


@diffrule
def keep_axes(g, x, axis=None, keepdims=False):
    # The result g of a reduction of x over axis, with the reduced axes put back as length 1,
    # so that it broadcasts against x; none for a number or a 0-d x (NumPy reduces one along
    # axis 0 or -1 as it is). x is read for its number of axes only.
    nondiff(x)
    dg = reshape(dout, shape(g))


@diffrule
def like(x, y):
    # An uninitialised array of the shape and dtype of x + y (or x - y, x * y): the stand-in
    # of a value the gradient reads only for its shape (optimize.stand_ins).
    nondiff(x)
    nondiff(y)


@diffrule
def broadcast(*xs):
    # np.broadcast(x, y, ...): the broadcast of its operands as NumPy describes it (shape, size,
    # ndim), no array; the stand-in of a sum or product the gradient reads only for its size
    # (optimize.stand_ins).
    nondiff(xs)


@diffrule
def like_matmul(x, y):
    # An uninitialised array of the shape and dtype of x @ y: the stand-in of a product the
    # gradient reads only for its shape.
    nondiff(x)
    nondiff(y)
