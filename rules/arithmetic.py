"""Arithmetic operators: + - * / ** and unary minus, with NumPy broadcasting undone."""


@diffrule(names=["operator.add", "numpy.add"], shape="elementwise")
def add(x, y):
    dx = unbroadcast(dout, x)
    dy = unbroadcast(dout, y)


@diffrule(names=["operator.sub", "numpy.subtract"], shape="elementwise")
def sub(x, y):
    dx = unbroadcast(dout, x)
    dy = unbroadcast(-dout, y)


@diffrule(names=["operator.mul", "numpy.multiply"], shape="elementwise")
def mul(x, y):
    dx = unbroadcast(dout * y, x)
    dy = unbroadcast(dout * x, y)


@diffrule(names=["operator.truediv", "numpy.divide", "numpy.true_divide"], shape="elementwise")
def truediv(x, y):
    # d(x/y)/dy = -x/y**2 = -out/y: reuse the quotient instead of squaring y.
    dx = unbroadcast(dout / y, x)
    dy = unbroadcast(-dout * out / y, y)


@diffrule(names=["operator.neg", "numpy.negative"], shape="elementwise")
def neg(x):
    dx = -dout


@diffrule(names=["operator.pow", "numpy.power", "math.pow", "builtins.pow"], shape="elementwise")
def power(x, p):
    # Never instantiated for a constant exponent, so x ** 2.0 carries no log(x).
    dx = unbroadcast(dout * p * x ** (p - 1), x)
    dp = unbroadcast(dout * log(x) * out, p)
