"""The derivative of fastmath.softplus, for yota-s2s (--rules examples/custom/fastmath_rules.py).

This file is parsed by yota-s2s, never imported.
"""


@diffrule(names=["fastmath.softplus"], shape="elementwise")
def softplus(x):
    # d/dx log(1 + e^x) = 1 / (1 + e^-x) = exp(x - softplus(x)): reuses the primal result
    dx = dout * exp(x - out)
