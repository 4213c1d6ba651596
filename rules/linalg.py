"""Linear algebra: matrix products, transposes, diagonals, inverses, decompositions."""


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


@diffrule(names=["numpy.transpose", "ndarray.transpose", "ndarray.T", "numpy.permute_dims"])
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


# ----------------------------------------------------------------------------- decompositions
# A function returning a tuple is one primitive per element (``name#k``, as slogdet): ``w, v =
# np.linalg.eigh(a)`` and ``np.linalg.eigh(a)[1]``.  A rule that needs another element calls its
# primitive with the same arguments: the same call as the forward one (the same signs of the
# vectors), shared with it by CSE when the function computes it too.


@diffrule(names=["numpy.linalg.eigh#0"])
def eigh_values(x, UPLO="L"):
    """Element 0 of np.linalg.eigh: the eigenvalues, ascending; no distinct eigenvalues needed. Entry by entry: eigh reads one triangle of x."""
    # v diag(g) v^T, as a function of the symmetric matrix eigh builds from the triangle UPLO of
    # x; entry by entry that is m + m^T in that triangle, m's diagonal, and 0 in the other one.
    dx = eigh_values_dx(dout, eigh_vectors(x, UPLO=UPLO), UPLO=UPLO)


@diffrule(names=["numpy.linalg.eigh#1"], shape="x")
def eigh_vectors(x, UPLO="L"):
    """Element 1 of np.linalg.eigh: the eigenvectors. Needs distinct eigenvalues where the gradient reaches their vectors: a ValueError at run time otherwise."""
    # v (F o (v^T g)) v^T with F[i, j] = 1 / (w_j - w_i), folded onto the triangle read; where two
    # eigenvalues are equal within rounding their vectors are any basis of the shared eigenspace:
    # no gradient, the helper raises unless g does not reach them (their columns of g are 0).
    dx = eigh_vectors_dx(dout, eigh_values(x, UPLO=UPLO), out, UPLO=UPLO)


@diffrule(names=["numpy.linalg.eigvalsh"])
def eigvalsh(x, UPLO="L"):
    """The eigenvalues of np.linalg.eigh; no distinct eigenvalues needed."""
    dx = eigh_values_dx(dout, eigh_vectors(x, UPLO=UPLO), UPLO=UPLO)


@diffrule(names=["numpy.linalg.eig#0"])
def eig_values(x):
    """Element 0 of np.linalg.eig, for a real symmetric x only: checked at run time (a ValueError otherwise)."""
    # the gradient of the eigenvalues of a symmetric matrix, v diag(g) v^T, exact entry by entry
    # (eig reads all of x); v from eigh(x), orthonormal also where eigenvalues repeat.
    dx = eig_values_dx(dout, x, out)


@diffrule(names=["numpy.linalg.eig#1"], shape="x")
def eig_vectors(x):
    """Element 1 of np.linalg.eig, for a real symmetric x only (checked at run time); distinct eigenvalues where the gradient reaches their vectors."""
    # entry by entry at a symmetric x: v^-T (F o (v^T g - v^T v diag(v^T g))) v^T, not symmetrized
    # (eig's v is any basis, not orthonormal, of the eigenspace of a repeated eigenvalue)
    dx = eig_vectors_dx(dout, x, eig_values(x), out)


@diffrule(names=["numpy.linalg.eigvals"])
def eigvals(x):
    """The eigenvalues of np.linalg.eig, for a real symmetric x only (checked at run time)."""
    dx = eig_values_dx(dout, x, out)


# np.linalg.svd(a, compute_uv=False) and hermitian= are refused when generating (no such parameter):
# the tuple form always makes the three elements (write np.linalg.svdvals(a) or svd(a)[1]).
# full_matrices=True (NumPy's default) is the reduced SVD of a square matrix; of a rectangle, U (Vh)
# has extra columns (rows), any basis of a complement: a rule cannot refuse by the value of a
# static parameter, so the helpers raise at run time where a gradient reaches them.  Stacks of
# matrices: every formula is written with matmul's broadcasting.


@diffrule(names=["numpy.linalg.svd#0"])
def svd_u(x, full_matrices=True):
    """Element 0 of np.linalg.svd: U. Needs distinct singular values, nonzero if x is not square; with full_matrices=True, no gradient on the extra columns (run-time ValueErrors)."""
    dx = svd_u_dx(dout, out, svd_s(x, full_matrices=full_matrices), svd_vh(x, full_matrices=full_matrices))


@diffrule(names=["numpy.linalg.svd#1"])
def svd_s(x, full_matrices=True):
    """Element 1 of np.linalg.svd: the singular values; no distinct values needed."""
    dx = svd_s_dx(dout, svd_u(x, full_matrices=full_matrices), out, svd_vh(x, full_matrices=full_matrices))


@diffrule(names=["numpy.linalg.svd#2"])
def svd_vh(x, full_matrices=True):
    """Element 2 of np.linalg.svd: Vh, as U."""
    dx = svd_vh_dx(dout, svd_u(x, full_matrices=full_matrices), svd_s(x, full_matrices=full_matrices), out)


@diffrule(names=["numpy.linalg.svdvals"])
def svdvals(x):
    """The singular values: u diag(g) vh; no distinct values needed."""
    dx = svdvals_dx(dout, x)


@diffrule(names=["numpy.linalg.pinv"])
def pinv(x):
    """Default rcond and hermitian only; x of full rank (checked at run time: pinv jumps where the rank drops)."""
    dx = pinv_dx(dout, x, out)


@diffrule(names=["numpy.linalg.qr#0"])
def qr_q(x):
    """Element 0 of np.linalg.qr (mode 'reduced'): Q. m >= n and x of full column rank (checked at run time)."""
    # (gq + q copyltu(M)) r^-T with M = -gq^T q: the gradient of both factors, r's taken as 0
    dx = qr_dx(dout, 0.0, out, qr_r(x))


@diffrule(names=["numpy.linalg.qr#1"])
def qr_r(x):
    """Element 1 of np.linalg.qr: R, upper triangular; as Q."""
    dx = qr_dx(0.0, dout, qr_q(x), out)


# ----------------------------------------------------------------------------- helpers of the rules above


@diffrule
def mT(x):
    # the transpose of each matrix of a stack: x with its last two axes swapped
    dx = mT(dout)


@diffrule(shape="x")
def dot_dx(g, x, y):
    # The adjoint J.T g of J: u -> dot(u, y) (helpers.matmul_dx: the same reasoning).
    nondiff(x)
    dg = dot(dout, y)
    dy = dot_dy(g, dout, y)


@diffrule(shape="y")
def dot_dy(g, x, y):
    # The adjoint of u -> dot(x, u).
    nondiff(y)
    dg = dot(x, dout)
    dx = dot_dx(g, x, dout)


@diffrule(shape="x")
def dot_xtx_dx(g, x):
    # The gradient of np.dot(x.T, x) with respect to x (both operands): xtx_dx where it is x.T @ x.
    # J.T g for J: u -> dot(u.T, x) + dot(x.T, u), symmetric in its operands (helpers.xtx_dx).
    dg = dot(transpose(dout), x) + dot(transpose(x), dout)
    dx = dot_xtx_dx(g, dout)


@diffrule(shape="x")
def dot_xxt_dx(g, x):
    # The gradient of np.dot(x, x.T) with respect to x (both operands): xxt_dx where it is x @ x.T.
    dg = dot(dout, transpose(x)) + dot(x, transpose(dout))
    dx = dot_xxt_dx(g, dout)


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


@diffrule(shape="v")
def eigh_values_dx(g, v, UPLO="L"):
    not_implemented("second derivatives through eigh")


@diffrule(shape="v")
def eigh_vectors_dx(g, w, v, UPLO="L"):
    not_implemented("second derivatives through eigh")


@diffrule(shape="x")
def eig_values_dx(g, x, w):
    not_implemented("second derivatives through eig")


@diffrule(shape="x")
def eig_vectors_dx(g, x, w, v):
    not_implemented("second derivatives through eig")


@diffrule
def svd_u_dx(g, u, s, vh):
    not_implemented("second derivatives through svd")


@diffrule
def svd_s_dx(g, u, s, vh):
    not_implemented("second derivatives through svd")


@diffrule
def svd_vh_dx(g, u, s, vh):
    not_implemented("second derivatives through svd")


@diffrule(shape="x")
def svdvals_dx(g, x):
    not_implemented("second derivatives through svdvals")


@diffrule(shape="x")
def pinv_dx(g, x, p):
    not_implemented("second derivatives through pinv")


@diffrule(shape="q")
def qr_dx(gq, gr, q, r):
    nondiff(q, r)
    not_implemented("second derivatives through qr")
