import numpy as np


def solve_cubic(c, x0):
    x = x0
    err = 1.0
    i = 0
    while i < 50 and err > 1e-12:
        fx = x**3 + c * x - 1.0
        dfx = 3 * x**2 + c
        x_new = x - fx / dfx
        err = abs(x_new - x)
        x = x_new
        i += 1
    else:
        pass
    return x


def loss(c):
    return solve_cubic(c, 1.0) ** 2
