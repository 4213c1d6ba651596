"""scipy.special functions (elementwise): the generated module imports scipy.special for them."""


@diffrule(names=["scipy.special.expit"], shape="elementwise")
def expit(x):
    # The logistic 1 / (1 + exp(-x)): its derivative from out, finite for every x.
    dx = dout * out * (1.0 - out)


@diffrule(names=["scipy.special.logit"], shape="elementwise")
def logit(x):
    # log(x / (1 - x))
    dx = dout / (x * (1.0 - x))


@diffrule(names=["scipy.special.erf", "math.erf"], shape="elementwise")
def erf(x):
    # 2 / sqrt(pi) * exp(-x**2); 1.1283791670955126 is 2 / sqrt(pi).
    dx = dout * 1.1283791670955126 * exp(-(x * x))


@diffrule(names=["scipy.special.erfc", "math.erfc"], shape="elementwise")
def erfc(x):
    dx = -dout * 1.1283791670955126 * exp(-(x * x))


@diffrule(names=["scipy.special.gammaln", "math.lgamma"], shape="elementwise")
def gammaln(x):
    # log|gamma(x)|: its derivative is digamma(x) on both sides of the poles.
    dx = dout * digamma(x)


@diffrule(names=["scipy.special.gamma", "math.gamma"], shape="elementwise")
def gamma(x):
    # gamma' = gamma psi (NumPy-only: the sign of gamma times exp(log|gamma|))
    dx = dout * out * digamma(x)


@diffrule(names=["scipy.special.rgamma"], shape="elementwise")
def rgamma(x):
    # (1 / gamma)' = -psi / gamma
    dx = -(dout * out * digamma(x))


@diffrule(names=["scipy.special.gammasgn"], shape="elementwise")
def gammasgn(x):
    # piecewise constant
    nondiff(x)


@diffrule(names=["scipy.special.digamma", "scipy.special.psi"], shape="elementwise")
def digamma(x):
    dx = dout * polygamma(1, x)


@diffrule(names=["scipy.special.polygamma"], shape="elementwise")
def polygamma(n, x):
    # The order n is an integer; an array of orders broadcasts against x.
    nondiff(n)
    dx = unbroadcast(dout * polygamma(n + 1, x), x)


@diffrule(names=["scipy.special.xlogy"], shape="elementwise")
def xlogy(x, y):
    # x * log(y), 0 where x == 0 whatever y. So f(0, y) = 0 for every y: dy is exactly 0 there,
    # written x / (y or 1) to avoid 0 / 0 at y == 0. dx is log(y) (-inf at x == y == 0).
    dx = unbroadcast(dout * log(y), x)
    dy = unbroadcast(dout * x / where(equal(x, 0.0), 1.0, y), y)


# -------------------- Bessel functions (the order a constant: its derivative is not written)


@diffrule(names=["scipy.special.j0"], shape="elementwise")
def j0(x):
    dx = -(dout * j1(x))


@diffrule(names=["scipy.special.j1"], shape="elementwise")
def j1(x):
    # j1' = (j0 - j2) / 2, finite at 0 (where j1 / x is not)
    dx = dout * 0.5 * (j0(x) - jv(2.0, x))


@diffrule(names=["scipy.special.y0"], shape="elementwise")
def y0(x):
    dx = -(dout * y1(x))


@diffrule(names=["scipy.special.y1"], shape="elementwise")
def y1(x):
    dx = dout * 0.5 * (y0(x) - yv(2.0, x))


@diffrule(names=["scipy.special.i0"], shape="elementwise")
def i0(x):
    dx = dout * i1(x)


@diffrule(names=["scipy.special.i1"], shape="elementwise")
def i1(x):
    dx = dout * 0.5 * (i0(x) + iv(2.0, x))


@diffrule(names=["scipy.special.i0e"], shape="elementwise")
def i0e(x):
    # i0e = i0 exp(-|x|): i1e - sign(x) i0e
    dx = dout * (i1e(x) - sign(x) * out)


@diffrule(names=["scipy.special.i1e"], shape="elementwise")
def i1e(x):
    dx = dout * (0.5 * (i0e(x) + ive(2.0, x)) - sign(x) * out)


@diffrule(names=["scipy.special.jv", "scipy.special.jn"], shape="elementwise")
def jv(v, x):
    # d/dx J_v = (J_{v-1} - J_{v+1}) / 2; in the order, a series of no closed form (jn is jv in SciPy)
    dv = not_implemented("the derivative of a Bessel function in its order")
    dx = unbroadcast(dout * 0.5 * (jv(v - 1.0, x) - jv(v + 1.0, x)), x)


@diffrule(names=["scipy.special.yv"], shape="elementwise")
def yv(v, x):
    dv = not_implemented("the derivative of a Bessel function in its order")
    dx = unbroadcast(dout * 0.5 * (yv(v - 1.0, x) - yv(v + 1.0, x)), x)


@diffrule(names=["scipy.special.yn"], shape="elementwise")
def yn(n, x):
    # yn truncates its order to an integer m (piecewise constant in n): d/dx = (Y_{m-1} - Y_{m+1}) / 2
    nondiff(n)
    m = sign(n) * floor(abs(n))
    dx = unbroadcast(dout * 0.5 * (yv(m - 1.0, x) - yv(m + 1.0, x)), x)


@diffrule(names=["scipy.special.iv"], shape="elementwise")
def iv(v, x):
    dv = not_implemented("the derivative of a Bessel function in its order")
    dx = unbroadcast(dout * 0.5 * (iv(v - 1.0, x) + iv(v + 1.0, x)), x)


@diffrule(names=["scipy.special.ive"], shape="elementwise")
def ive(v, x):
    # ive = iv exp(-|x|)
    dv = not_implemented("the derivative of a Bessel function in its order")
    dx = unbroadcast(dout * (0.5 * (ive(v - 1.0, x) + ive(v + 1.0, x)) - sign(x) * out), x)


# -------------------- inverse error functions, incomplete gamma functions


@diffrule(names=["scipy.special.erfinv"], shape="elementwise")
def erfinv(x):
    # 1 / erf'(out) = sqrt(pi) / 2 exp(out**2); 0.886... is sqrt(pi) / 2
    dx = dout * 0.8862269254527580 * exp(out * out)


@diffrule(names=["scipy.special.erfcinv"], shape="elementwise")
def erfcinv(x):
    dx = -(dout * 0.8862269254527580 * exp(out * out))


@diffrule(names=["scipy.special.gammainc"], shape="elementwise")
def gammainc(a, x):
    # P(a, x) = gamma(a, x) / Gamma(a): dP/dx = x**(a - 1) exp(-x) / Gamma(a); in a, no closed form
    da = not_implemented("the derivative of the incomplete gamma function in its first argument")
    dx = unbroadcast(dout * exp((a - 1.0) * log(x) - x - gammaln(a)), x)


@diffrule(names=["scipy.special.gammaincc"], shape="elementwise")
def gammaincc(a, x):
    da = not_implemented("the derivative of the incomplete gamma function in its first argument")
    dx = unbroadcast(-(dout * exp((a - 1.0) * log(x) - x - gammaln(a))), x)
