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
