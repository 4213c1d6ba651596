"""Linear algebra: matrix products, transposes, diagonals."""


@diffrule(names=["operator.matmul", "numpy.matmul"])
def matmul(x, y):
    # The helpers handle 1-D operands (vector @ matrix, ...) and batch broadcasting.
    dx = matmul_dx(dout, x, y)
    dy = matmul_dy(dout, x, y)


@diffrule(names=["numpy.dot", "ndarray.dot"])
def dot(x, y):
    """Every rank: a product with a 0-d operand, matmul's products up to a 2-D y, and past them the outer product over leading axes."""
    # np.dot is not matmul when y has more than 2 axes and x at least 2: dot(a, b)[i, j, k, m] =
    # sum(a[i, j, :] * b[k, :, m]), tensordot over (-1, -2), where matmul would broadcast the
    # leading axes. The ranks may be known only at run time: the helpers choose there.
    dx = dot_dx(dout, x, y)
    dy = dot_dy(dout, x, y)


@diffrule(names=["numpy.transpose", "ndarray.transpose", "ndarray.T"])
def transpose(x, axes=None):
    dx = transpose(dout, axes=invperm(axes))


@diffrule(names=["numpy.diag"])
def diag(v, k=0):
    # diag builds a matrix from a vector and extracts a diagonal from a matrix.
    dv = diag_dv(dout, v, k=k)


# ----------------------------------------------------------------------------- products and contractions


@diffrule(names=["numpy.vdot"], shape="scalar")
def vdot(x, y):
    """Both operands are flattened; real values (no conjugation)."""
    dx = dout * reshape(y, shape(x))
    dy = dout * reshape(x, shape(y))


@diffrule(names=["numpy.inner"])
def inner(x, y):
    """tensordot over the last axis of each; a product when one operand is 0-d."""
    dx = inner_dx(dout, x, y)
    dy = inner_dy(dout, x, y)


@diffrule(names=["numpy.outer"])
def outer(x, y):
    """Both operands are flattened: out[i, j] = x.flat[i] * y.flat[j]."""
    dx = reshape(dout @ reshape(y, -1), shape(x))
    dy = reshape(reshape(x, -1) @ dout, shape(y))


@diffrule(names=["numpy.tensordot"])
def tensordot(x, y, axes=2):
    """axes: an int, or a pair of axes or of tuples of axes (a tuple of tuples as a module constant)."""
    dx = tensordot_dx(dout, x, y, axes=axes)
    dy = tensordot_dy(dout, x, y, axes=axes)


@diffrule(names=["numpy.einsum"])
def einsum(*xs, subscripts=""):
    """Constant subscripts: explicit or implicit output, '...', repeated indices ('ii->i')."""
    # np.einsum("ij,jk->ik", a, b): the gradient of operand i is an einsum of dout with the
    # others (the helper spells out the adjoint subscripts).
    dxs = einsum_dx(dout, xs, subscripts=subscripts, k=i)


@diffrule(names=["numpy.trace", "ndarray.trace"])
def trace(x, offset=0, axis1=0, axis2=1):
    # trace = sum(diagonal(x), axis=-1): dout spread along the diagonal.
    dx = trace_dx(dout, x, offset=offset, axis1=axis1, axis2=axis2)


@diffrule(names=["numpy.diagonal", "ndarray.diagonal"])
def diagonal(x, offset=0, axis1=0, axis2=1):
    dx = diagonal_dx(dout, x, offset=offset, axis1=axis1, axis2=axis2)


# ----------------------------------------------------------------------------- inverses, determinants, solves


@diffrule(names=["numpy.linalg.inv"], shape="x")
def inv(x):
    # d inv(x) = -inv(x) dx inv(x), for a matrix or a stack of matrices.
    dx = -(mT(out) @ dout @ mT(out))


@diffrule(names=["numpy.linalg.det"])
def det(x):
    """The gradient det(x) inv(x)^T needs an invertible x."""
    # d det(x) = det(x) d log|det(x)|, for a matrix or a stack of matrices.
    dx = logdet_dx(dout * out, x)


@diffrule(names=["numpy.linalg.slogdet#0"])
def slogdet_sign(x):
    """Element 0 of np.linalg.slogdet: the sign, piecewise constant."""
    nondiff(x)


@diffrule(names=["numpy.linalg.slogdet#1"])
def slogdet_logabsdet(x):
    """Element 1 of np.linalg.slogdet: log|det(x)|, with gradient inv(x)^T."""
    dx = logdet_dx(dout, x)


@diffrule(names=["numpy.linalg.solve"])
def solve(a, b):
    """b is a vector (1-D, also against a stack of a) or a matrix or stack of matrices."""
    # x = solve(a, b): db = solve(a^T, dx), da = -db x^T.
    gb = solve_adjoint(dout, a, b)
    da = solve_da(gb, out, a, b)
    db = unbroadcast(gb, b)


@diffrule(names=["numpy.linalg.cholesky"], shape="x")
def cholesky(x, upper=False):
    """Symmetric convention: a symmetric gradient, exact for symmetric perturbations of x."""
    # The gradient S of cholesky as a function of symmetric matrices (as in JAX, PyTorch,
    # autograd).  NumPy reads only one triangle of x (the lower one by default), so for a
    # non-symmetric x, S is not the entry-by-entry derivative: that is 2 tril(S, -1) + diag(S).
    dx = cholesky_dx(dout, out, upper=upper)


# ----------------------------------------------------------------------------- helpers of the rules above


@diffrule
def mT(x):
    # the transpose of each matrix of a stack: x with its last two axes swapped
    dx = mT(dout)


@diffrule(shape="x")
def dot_dx(g, x, y):
    nondiff(x)
    dg = not_implemented("second derivatives through dot")
    dy = not_implemented("second derivatives through dot")


@diffrule(shape="y")
def dot_dy(g, x, y):
    nondiff(y)
    dg = not_implemented("second derivatives through dot")
    dx = not_implemented("second derivatives through dot")


@diffrule(shape="x")
def dot_xtx_dx(g, x):
    # The gradient of np.dot(x.T, x) with respect to x (both operands): xtx_dx where it is x.T @ x.
    dg = not_implemented("second derivatives through dot")
    dx = not_implemented("second derivatives through dot")


@diffrule(shape="x")
def dot_xxt_dx(g, x):
    # The gradient of np.dot(x, x.T) with respect to x (both operands): xxt_dx where it is x @ x.T.
    dg = not_implemented("second derivatives through dot")
    dx = not_implemented("second derivatives through dot")


@diffrule(shape="x")
def tensordot_dx(g, x, y, axes=2):
    nondiff(x)
    dg = not_implemented("second derivatives through tensordot")
    dy = not_implemented("second derivatives through tensordot")


@diffrule(shape="y")
def tensordot_dy(g, x, y, axes=2):
    nondiff(y)
    dg = not_implemented("second derivatives through tensordot")
    dx = not_implemented("second derivatives through tensordot")


@diffrule(shape="x")
def inner_dx(g, x, y):
    nondiff(x)
    dg = not_implemented("second derivatives through inner")
    dy = not_implemented("second derivatives through inner")


@diffrule(shape="y")
def inner_dy(g, x, y):
    nondiff(y)
    dg = not_implemented("second derivatives through inner")
    dx = not_implemented("second derivatives through inner")


@diffrule
def einsum_dx(g, *xs, subscripts="", k=0):
    not_implemented("second derivatives through einsum")


@diffrule(shape="x")
def diagonal_dx(g, x, offset=0, axis1=0, axis2=1):
    # writes g on a diagonal of zeros: the adjoint reads that diagonal back
    nondiff(x)
    dg = diagonal(dout, offset=offset, axis1=axis1, axis2=axis2)


@diffrule(shape="x")
def trace_dx(g, x, offset=0, axis1=0, axis2=1):
    # writes g all along a diagonal of zeros: the adjoint sums that diagonal
    nondiff(x)
    dg = trace(dout, offset=offset, axis1=axis1, axis2=axis2)


@diffrule(shape="x")
def logdet_dx(g, x):
    # g times the gradient of log|det(x)|, inv(x)^T, per matrix of a stack
    not_implemented("second derivatives through det")


@diffrule
def solve_adjoint(g, a, b):
    nondiff(b)
    not_implemented("second derivatives through solve")


@diffrule(shape="a")
def solve_da(g, x, a, b):
    nondiff(a, b)
    not_implemented("second derivatives through solve")


@diffrule(shape="L")
def cholesky_dx(g, L, upper=False):
    not_implemented("second derivatives through cholesky")
