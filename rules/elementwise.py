"""Elementwise functions: NumPy ufuncs, np.clip and np.where, their math-module twins; broadcasting undone."""


@diffrule(names=["numpy.exp", "math.exp"], shape="elementwise")
def exp(x):
    dx = dout * out


@diffrule(names=["numpy.log", "math.log"], shape="elementwise")
def log(x):
    dx = dout / x


@diffrule(names=["numpy.sin", "math.sin"], shape="elementwise")
def sin(x):
    dx = dout * cos(x)


@diffrule(names=["numpy.cos", "math.cos"], shape="elementwise")
def cos(x):
    dx = -dout * sin(x)


@diffrule(names=["numpy.tanh", "math.tanh"], shape="elementwise")
def tanh(x):
    dx = dout * (1.0 - out * out)


@diffrule(names=["numpy.sqrt", "math.sqrt"], shape="elementwise")
def sqrt(x):
    dx = dout / (2.0 * out)


@diffrule(names=["numpy.abs", "numpy.absolute", "numpy.fabs", "builtins.abs", "math.fabs"], shape="elementwise")
def abs(x):
    # The subgradient 0 at x == 0, as NumPy's sign gives.
    dx = dout * sign(x)


@diffrule(names=["numpy.sign"], shape="elementwise")
def sign(x):
    nondiff(x)


# ----------------------------------------------------------------------------- exponentials and logarithms


@diffrule(names=["numpy.exp2", "math.exp2"], shape="elementwise")
def exp2(x):
    # d 2**x = log(2) * 2**x: reuse out; 0.6931471805599453 is log(2).
    dx = dout * out * 0.6931471805599453


@diffrule(names=["numpy.expm1", "math.expm1"], shape="elementwise")
def expm1(x):
    # exp(x) = expm1(x) + 1: reuse out instead of a second exponential.
    dx = dout * (out + 1.0)


@diffrule(names=["numpy.log2", "math.log2"], shape="elementwise")
def log2(x):
    # 1.4426950408889634 is 1 / log(2).
    dx = dout * 1.4426950408889634 / x


@diffrule(names=["numpy.log10", "math.log10"], shape="elementwise")
def log10(x):
    # 0.4342944819032518 is 1 / log(10).
    dx = dout * 0.4342944819032518 / x


@diffrule(names=["numpy.log1p", "math.log1p"], shape="elementwise")
def log1p(x):
    dx = dout / (1.0 + x)


@diffrule(names=["numpy.logaddexp"], shape="elementwise")
def logaddexp(x, y):
    # d/dx log(exp(x) + exp(y)) = exp(x) / (exp(x) + exp(y)) = exp(x - out), with x - out <= 0:
    # no overflow at x = 800, where exp(x) itself is inf.
    dx = unbroadcast(dout * exp(x - out), x)
    dy = unbroadcast(dout * exp(y - out), y)


@diffrule(names=["numpy.logaddexp2"], shape="elementwise")
def logaddexp2(x, y):
    # out = log2(2**x + 2**y); d/dx = 2**x / (2**x + 2**y) = 2**(x - out), stable as logaddexp.
    dx = unbroadcast(dout * exp2(x - out), x)
    dy = unbroadcast(dout * exp2(y - out), y)


# ----------------------------------------------------------------------------- powers and roots


@diffrule(names=["numpy.cbrt", "math.cbrt"], shape="elementwise")
def cbrt(x):
    # d x**(1/3) = 1 / (3 x**(2/3)) = 1 / (3 out**2); real for negative x, like np.cbrt.
    dx = dout / (3.0 * out * out)


@diffrule(names=["numpy.square"], shape="elementwise")
def square(x):
    dx = dout * 2.0 * x


@diffrule(names=["numpy.reciprocal"], shape="elementwise")
def reciprocal(x):
    # d 1/x = -1/x**2 = -out**2.
    dx = -dout * out * out


@diffrule(names=["numpy.float_power"], shape="elementwise")
def float_power(x, p):
    """As power (right at x == 0, log|x| for a negative x in d/dp), in float64."""
    dx = unbroadcast(dout * p * float_power(x, p - 1.0 + equal(p, 0)), x)
    dp = unbroadcast(dout * log(abs(x) + equal(x, 0)) * out, p)


@diffrule(names=["numpy.hypot", "math.hypot"], shape="elementwise")
def hypot(x, y):
    """0 for both at hypot(0, 0), the tip of a cone (as abs at 0), not 0 / 0."""
    # d sqrt(x**2 + y**2)/dx = x / out; x / out is at most 1 in size, so it cannot overflow.
    # Where out == 0 (x == y == 0) it divides by 1 instead: 0.
    safe = out + equal(out, 0.0)
    dx = unbroadcast(dout * (x / safe), x)
    dy = unbroadcast(dout * (y / safe), y)


# ----------------------------------------------------------------------------- trigonometric


@diffrule(names=["numpy.tan", "math.tan"], shape="elementwise")
def tan(x):
    # 1 / cos(x)**2 = 1 + tan(x)**2: reuse out.
    dx = dout * (1.0 + out * out)


@diffrule(names=["numpy.arcsin", "math.asin", "numpy.asin"], shape="elementwise")
def arcsin(x):
    # (1 - x) * (1 + x) rather than 1 - x * x: no cancellation near |x| = 1.
    dx = dout / sqrt((1.0 - x) * (1.0 + x))


@diffrule(names=["numpy.arccos", "math.acos", "numpy.acos"], shape="elementwise")
def arccos(x):
    dx = -dout / sqrt((1.0 - x) * (1.0 + x))


@diffrule(names=["numpy.arctan", "math.atan", "numpy.atan"], shape="elementwise")
def arctan(x):
    dx = dout / (1.0 + x * x)


@diffrule(names=["numpy.arctan2", "math.atan2", "numpy.atan2"], shape="elementwise")
def arctan2(y, x):
    # atan2(y, x) is the angle of the point (x, y): d/dy = x / r2, d/dx = -y / r2.
    r2 = x * x + y * y
    dy = unbroadcast(dout * x / r2, y)
    dx = unbroadcast(-dout * y / r2, x)


# ----------------------------------------------------------------------------- hyperbolic


@diffrule(names=["numpy.sinh", "math.sinh"], shape="elementwise")
def sinh(x):
    # cosh(x), not sqrt(1 + out**2): out**2 overflows from |x| > 355, cosh(x) only from 710.
    dx = dout * cosh(x)


@diffrule(names=["numpy.cosh", "math.cosh"], shape="elementwise")
def cosh(x):
    # sinh(x), not sqrt(out**2 - 1): that cancels near x = 0 and loses the sign of x.
    dx = dout * sinh(x)


@diffrule(names=["numpy.arcsinh", "math.asinh", "numpy.asinh"], shape="elementwise")
def arcsinh(x):
    # 1 / sqrt(x**2 + 1), as hypot(x, 1) so that x**2 cannot overflow.
    dx = dout / hypot(x, 1.0)


@diffrule(names=["numpy.arccosh", "math.acosh", "numpy.acosh"], shape="elementwise")
def arccosh(x):
    # 1 / sqrt(x**2 - 1) as two roots: no cancellation near x = 1, no overflow of x**2.
    dx = dout / (sqrt(x - 1.0) * sqrt(x + 1.0))


@diffrule(names=["numpy.arctanh", "math.atanh", "numpy.atanh"], shape="elementwise")
def arctanh(x):
    # (1 - x) * (1 + x) rather than 1 - x * x: no cancellation near |x| = 1.
    dx = dout / ((1.0 - x) * (1.0 + x))


# ----------------------------------------------------------------------------- extrema and selection


@diffrule(names=["numpy.maximum"], shape="elementwise")
def maximum(x, y):
    # All of dout to the operand equal to the result, half to each on a tie (as the max reduction
    # splits ties), none where the result is NaN. where() keeps dout's dtype (JAX's _balanced_eq).
    dx = unbroadcast(where(equal(x, out), where(equal(y, out), 0.5 * dout, dout), 0.0), x)
    dy = unbroadcast(where(equal(y, out), where(equal(x, out), 0.5 * dout, dout), 0.0), y)


@diffrule(names=["numpy.minimum"], shape="elementwise")
def minimum(x, y):
    dx = unbroadcast(where(equal(x, out), where(equal(y, out), 0.5 * dout, dout), 0.0), x)
    dy = unbroadcast(where(equal(y, out), where(equal(x, out), 0.5 * dout, dout), 0.0), y)


@diffrule(names=["numpy.copysign", "math.copysign"], shape="elementwise")
def copysign(x, y):
    """abs(x) with y's sign: dout times sign(x) * sign(out) in x (0 at x == 0, as abs), a step in y."""
    # sign(out) is y's sign bit where x != 0 (a -0.0 in y gives a negative out).
    nondiff(y)
    dx = unbroadcast(dout * sign(x) * sign(out), x)


@diffrule(names=["numpy.heaviside"], shape="elementwise")
def heaviside(x, h):
    """0 where x < 0, 1 where x > 0, h where x == 0: no gradient in x (a step), dout in h where x is 0."""
    nondiff(x)
    dh = unbroadcast(where(equal(x, 0.0), dout, 0.0), h)


@diffrule(names=["numpy.fmax"], shape="elementwise")
def fmax(x, y):
    # As maximum. fmax ignores a NaN operand: the result is the other one, which gets dout.
    dx = unbroadcast(where(equal(x, out), where(equal(y, out), 0.5 * dout, dout), 0.0), x)
    dy = unbroadcast(where(equal(y, out), where(equal(x, out), 0.5 * dout, dout), 0.0), y)


@diffrule(names=["numpy.fmin"], shape="elementwise")
def fmin(x, y):
    dx = unbroadcast(where(equal(x, out), where(equal(y, out), 0.5 * dout, dout), 0.0), x)
    dy = unbroadcast(where(equal(y, out), where(equal(x, out), 0.5 * dout, dout), 0.0), y)


@diffrule(names=["numpy.clip", "ndarray.clip"], shape="elementwise")
def clip(x, a_min, a_max):
    # NumPy's clip is minimum(maximum(x, a_min), a_max). The gradient goes to x where the result
    # is x (the closed interval, bounds included, as PyTorch and TensorFlow do); the rest to
    # a_max where the result is a_max (x above it, a_min > a_max, or a tie a_min == a_max), else
    # to a_min where the result is a_min. A NaN result sends none anywhere.
    rest = where(equal(out, x), 0.0, dout)
    to_max = equal(out, a_max)
    dx = unbroadcast(where(equal(out, x), dout, 0.0), x)
    da_min = unbroadcast(where(to_max, 0.0, where(equal(out, a_min), rest, 0.0)), a_min)
    da_max = unbroadcast(where(to_max, rest, 0.0), a_max)


@diffrule(names=["numpy.where"], shape="elementwise")
def where(cond, x, y):
    nondiff(cond)
    dx = unbroadcast(where(cond, dout, 0.0), x)
    dy = unbroadcast(where(cond, 0.0, dout), y)


# ----------------------------------------------------------------------------- steps (zero gradient)


# math.floor, math.ceil and round() are not source names of these: they return an int, which
# the source may use as an index (x[math.floor(t)]), and np.floor returns a float.


@diffrule(names=["numpy.floor"], shape="elementwise")
def floor(x):
    # Piecewise constant: zero gradient, and no gradient at all for a value that only goes here.
    nondiff(x)


@diffrule(names=["numpy.ceil"], shape="elementwise")
def ceil(x):
    nondiff(x)


@diffrule(names=["numpy.round", "numpy.around", "ndarray.round"], shape="elementwise")
def round(x, decimals=0):
    nondiff(x)


# ----------------------------------------------------------------------------- complex parts


# For a real x: real(x) is x, imag(x) is 0 (the zero gradient), conj(x) is x.  For a complex x the
# cotangent convention dL/dRe + 1j dL/dIm (docs/complex.md) gives dout, 1j * dout (complex_imag,
# rules/complex.py) and conj(dout).


@diffrule(names=["numpy.real", "ndarray.real"], shape="elementwise")
def real(x):
    dx = dout


@diffrule(names=["numpy.imag", "ndarray.imag"], shape="elementwise")
def imag(x):
    # Zero for a real x; complex_imag is its adjoint for a complex one.
    dx = grad_zeros(x)


@diffrule(names=["numpy.conj", "numpy.conjugate", "ndarray.conj", "ndarray.conjugate"], shape="elementwise")
def conj(x):
    dx = conj(dout)


# ----------------------------------------------------------------------------- sinc, angles, remainders, NaNs


@diffrule(names=["numpy.sinc"], shape="elementwise")
def sinc(x):
    """The normalized sinc, sin(pi x) / (pi x): 1 at x == 0, where its derivative is 0."""
    # d/dx = (cos(pi x) - sinc(x)) / x, read as 0 / 1 = 0 at x == 0 (cos(0) - 1 == 0). Near 0 the
    # difference cancels (both are 1 - O(x**2)): below |x| = 0.02 the Taylor series
    # -pi**2 x / 3 + pi**4 x**3 / 30 - pi**6 x**5 / 840 + pi**8 x**7 / 45360 (to 1e-16) is used.
    x2 = x * x
    series = x * (-3.289868133696453 + x2 * (3.246969701133414 + x2 * (-1.144510944732505 + x2 * 0.20918278254123832)))
    exact = (cos(3.141592653589793 * x) - out) / (x + equal(x, 0.0))
    dx = dout * where(less(abs(x), 0.02), series, exact)


@diffrule(names=["numpy.deg2rad", "numpy.radians", "math.radians"], shape="elementwise")
def deg2rad(x):
    # pi / 180
    dx = dout * 0.017453292519943295


@diffrule(names=["numpy.rad2deg", "numpy.degrees", "math.degrees"], shape="elementwise")
def rad2deg(x):
    # 180 / pi
    dx = dout * 57.29577951308232


@diffrule(names=["operator.mod", "numpy.mod", "numpy.remainder"], shape="elementwise")
def mod(x, y):
    """x - y * floor(x / y); at a jump (x a multiple of y) the slopes of the piece whose value NumPy gives."""
    # d/dx = 1 and d/dy = -floor(x / y), with the quotient read back from the result,
    # q = (x - out) / y rounded: the integer NumPy's remainder used, where floor(x / y) can be
    # one off (floor(1 / 0.1) is 10, 1 % 0.1 is 0.0999...: the quotient 9). At a jump, out is the
    # value of one piece (0 at x == k y for y > 0) and these are that piece's slopes.
    dx = unbroadcast(dout, x)
    dy = unbroadcast(-dout * round((x - out) / y), y)


@diffrule(names=["numpy.fmod", "math.fmod"], shape="elementwise")
def fmod(x, y):
    """x - y * trunc(x / y) (the sign of x); at a jump, as mod: the slopes of the piece NumPy gives."""
    # As mod: d/dx = 1, d/dy = -trunc(x / y), the quotient read back from the result.
    dx = unbroadcast(dout, x)
    dy = unbroadcast(-dout * round((x - out) / y), y)


@diffrule(names=["numpy.nan_to_num"], shape="elementwise")
def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """dout where x is finite (kept), 0 where it was replaced (NaN, +-inf)."""
    # where x was kept, out == x; a replaced NaN is never equal, a replaced inf is a finite number.
    # (copy=False writes the result into x itself: then out == x everywhere and the gradient is
    # dout at the replaced components too.)
    dx = where(equal(out, x), dout, 0.0)
