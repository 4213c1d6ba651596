"""Polynomials: Vandermonde matrices and the evaluators of np.polyval and numpy.polynomial."""


@diffrule(names=["numpy.vander"])
def vander(x, N=None, increasing=False):
    """x 1-D; column j holds x ** p_j, whose derivative p_j * x ** (p_j - 1) is read from products (finite at x == 0)."""
    # The helper builds x ** (p - 1) by products (np.vander of one column fewer), never a
    # negative power: the column x ** 0 contributes nothing, not 0 * 0 ** -1.
    dx = vander_dx(dout, x, N=N, increasing=increasing)


@diffrule(names=["numpy.polyval"])
def polyval(p, x):
    """p: coefficients, highest degree first (p[k] may be an array that broadcasts against x)."""
    # dx: g times p'(x), by Horner's scheme on the derivative's coefficients; dp[k]: g times
    # x ** (n - 1 - k), by repeated products. No power of x, no division: finite at x == 0.
    dp = polyval_dp(dout, p, x)
    dx = polyval_dx(dout, p, x)


@diffrule(names=["numpy.polynomial.polynomial.polyval"])
def polynomial_polyval(x, c, tensor=True):
    """c: coefficients, lowest degree first, along axis 0 (its other axes as NumPy's tensor= says)."""
    # dx: g times the derivative series, sum of c[k] * B_k'(x); dc[k]: g times the basis value
    # B_k(x) (here x ** k), both by the basis' recurrence (runtime/polynomial.py): finite at x == 0.
    dx = series_dx(dout, x, c, kind="poly", tensor=tensor)
    dc = series_dc(dout, x, c, kind="poly", tensor=tensor)


@diffrule(names=["numpy.polynomial.chebyshev.chebval"])
def chebval(x, c, tensor=True):
    """Chebyshev series: as numpy.polynomial.polynomial.polyval, in the basis T_k."""
    dx = series_dx(dout, x, c, kind="cheb", tensor=tensor)
    dc = series_dc(dout, x, c, kind="cheb", tensor=tensor)


@diffrule(names=["numpy.polynomial.legendre.legval"])
def legval(x, c, tensor=True):
    """Legendre series: as numpy.polynomial.polynomial.polyval, in the basis P_k."""
    dx = series_dx(dout, x, c, kind="leg", tensor=tensor)
    dc = series_dc(dout, x, c, kind="leg", tensor=tensor)


@diffrule(names=["numpy.polynomial.hermite.hermval"])
def hermval(x, c, tensor=True):
    """Hermite (physicists') series: as numpy.polynomial.polynomial.polyval, in the basis H_k."""
    dx = series_dx(dout, x, c, kind="herm", tensor=tensor)
    dc = series_dc(dout, x, c, kind="herm", tensor=tensor)


@diffrule(names=["numpy.polynomial.hermite_e.hermeval"])
def hermeval(x, c, tensor=True):
    """Hermite (probabilists') series: as numpy.polynomial.polynomial.polyval, in the basis He_k."""
    dx = series_dx(dout, x, c, kind="herme", tensor=tensor)
    dc = series_dc(dout, x, c, kind="herme", tensor=tensor)


@diffrule(names=["numpy.polynomial.laguerre.lagval"])
def lagval(x, c, tensor=True):
    """Laguerre series: as numpy.polynomial.polynomial.polyval, in the basis L_k."""
    dx = series_dx(dout, x, c, kind="lag", tensor=tensor)
    dc = series_dc(dout, x, c, kind="lag", tensor=tensor)


@diffrule(names=["numpy.polynomial.polynomial.polyval2d"])
def polynomial_polyval2d(x, y, c):
    """x and y of one shape; c[i, j] the coefficient of x ** i * y ** j (c's further axes lead the result's)."""
    dx = series2d_dx(dout, x, y, c, kind="poly", wrt=0)
    dy = series2d_dx(dout, x, y, c, kind="poly", wrt=1)
    dc = series2d_dc(dout, x, y, c, kind="poly")


@diffrule(names=["numpy.polynomial.polynomial.polyval3d"])
def polynomial_polyval3d(x, y, z, c):
    """x, y and z of one shape; c[i, j, k] the coefficient of x ** i * y ** j * z ** k."""
    dx = series3d_dx(dout, x, y, z, c, kind="poly", wrt=0)
    dy = series3d_dx(dout, x, y, z, c, kind="poly", wrt=1)
    dz = series3d_dx(dout, x, y, z, c, kind="poly", wrt=2)
    dc = series3d_dc(dout, x, y, z, c, kind="poly")


# ----------------------------------------------------------------------------- helpers of the rules above


@diffrule(shape="x")
def vander_dx(g, x, N=None, increasing=False):
    # the sum over each row of g times the derivative of its column: linear in g
    not_implemented("second derivatives through vander")


@diffrule(shape="p")
def polyval_dp(g, p, x):
    nondiff(p)
    not_implemented("second derivatives through polyval")


@diffrule(shape="x")
def polyval_dx(g, p, x):
    not_implemented("second derivatives through polyval")


@diffrule(shape="x")
def series_dx(g, x, c, kind="poly", tensor=True):
    # g times the derivative series of c at x, summed down to the shape of x
    not_implemented("second derivatives through a numpy.polynomial series")


@diffrule(shape="c")
def series_dc(g, x, c, kind="poly", tensor=True):
    # g times the basis values at x, summed down to the shape of c (linear in g, not in c)
    nondiff(c)
    not_implemented("second derivatives through a numpy.polynomial series")


# x, y and z have one shape (NumPy refuses others): the gradient of each has the shape of x


@diffrule(shape="x")
def series2d_dx(g, x, y, c, kind="poly", wrt=0):
    not_implemented("second derivatives through a numpy.polynomial series")


@diffrule(shape="c")
def series2d_dc(g, x, y, c, kind="poly"):
    nondiff(c)
    not_implemented("second derivatives through a numpy.polynomial series")


@diffrule(shape="x")
def series3d_dx(g, x, y, z, c, kind="poly", wrt=0):
    not_implemented("second derivatives through a numpy.polynomial series")


@diffrule(shape="c")
def series3d_dc(g, x, y, z, c, kind="poly"):
    nondiff(c)
    not_implemented("second derivatives through a numpy.polynomial series")
