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


@diffrule(names=["operator.pow", "numpy.power", "math.pow", "builtins.pow", "numpy.pow"], shape="elementwise")
def power(x, p):
    """Right at x == 0: d/dx is 0 where p == 0, d/dp is 0 where x == 0 (JAX's and autograd's convention)."""
    # d/dx = p * x ** (p - 1), the exponent raised by 1 where p == 0: x ** 0 is 1 there, so the
    # product is 0, not 0 * 0 ** -1 (NaN in NumPy, ZeroDivisionError on Python floats). For a
    # constant p the exponent folds to p - 1 (x ** 3 -> 3 * x ** 2: nothing added).
    dx = unbroadcast(dout * p * x ** (p - 1 + equal(p, 0)), x)
    # d/dp = log(x) * x ** p, with log(1) = 0 read where x == 0, not log(0) * 0 = NaN: x ** p is
    # 0 there for every p > 0; and log(|x|) where x < 0 (where x ** p is real only for an integer
    # p: x ** n * log|x| is the slope of Re(x ** p) there, finite, not NaN: an integer exponent
    # parameter's gradient). Never instantiated for a constant exponent (no log(x) then).
    dp = unbroadcast(dout * log(abs(x) + equal(x, 0)) * out, p)
