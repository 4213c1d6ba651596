"""Elementwise functions of one argument (NumPy ufuncs and their math-module twins)."""


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


@diffrule(names=["numpy.abs", "numpy.absolute", "builtins.abs", "math.fabs"], shape="elementwise")
def abs(x):
    # The subgradient 0 at x == 0, as NumPy's sign gives.
    dx = dout * sign(x)


@diffrule(names=["numpy.sign"], shape="elementwise")
def sign(x):
    nondiff(x)
