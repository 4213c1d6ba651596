"""Linear algebra: matrix products, transposes, diagonals."""


@diffrule(names=["operator.matmul", "numpy.matmul"])
def matmul(x, y):
    # The helpers handle 1-D operands (vector @ matrix, ...) and batch broadcasting.
    dx = matmul_dx(dout, x, y)
    dy = matmul_dy(dout, x, y)


@diffrule(names=["numpy.dot", "ndarray.dot"])
def dot(x, y):
    # np.dot agrees with matmul for 1-D and 2-D operands, the cases supported.
    dx = matmul_dx(dout, x, y)
    dy = matmul_dy(dout, x, y)


@diffrule(names=["numpy.transpose", "ndarray.transpose", "ndarray.T"])
def transpose(x, axes=None):
    dx = transpose(dout, axes=invperm(axes))


@diffrule(names=["numpy.diag"])
def diag(v, k=0):
    # diag builds a matrix from a vector and extracts a diagonal from a matrix.
    dv = diag_dv(dout, v, k=k)
