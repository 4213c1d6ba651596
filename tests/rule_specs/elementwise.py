"""Elementwise primitives: SymPy forms and sampling domains."""

import sympy

SYMPY = {
    "add": lambda x, y: x + y,
    "sub": lambda x, y: x - y,
    "mul": lambda x, y: x * y,
    "truediv": lambda x, y: x / y,
    "neg": lambda x: -x,
    "power": lambda x, p: x**p,
    "exp": sympy.exp,
    "log": sympy.log,
    "sin": sympy.sin,
    "cos": sympy.cos,
    "tanh": sympy.tanh,
    "sqrt": sympy.sqrt,
    "abs": sympy.Abs,
    "sign": sympy.sign,
    # comparisons are steps: zero derivative away from x == y
    "less": lambda x, y: sympy.Heaviside(y - x),
    "less_equal": lambda x, y: sympy.Heaviside(y - x),
    "greater": lambda x, y: sympy.Heaviside(x - y),
    "greater_equal": lambda x, y: sympy.Heaviside(x - y),
    "equal": lambda x, y: sympy.Heaviside(x - y) * sympy.Heaviside(y - x),
    "not_equal": lambda x, y: 1 - sympy.Heaviside(x - y) * sympy.Heaviside(y - x),
}

DOMAIN = {
    "log": (0.5, 2.0),
    "sqrt": (0.5, 2.0),
    "power": {"x": (0.5, 2.0)},
}
