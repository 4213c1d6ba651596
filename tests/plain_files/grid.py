import numpy as np


def potential(c, n=6):
    xs = np.linspace(-1.0, 1.0, n)
    X, Y = np.meshgrid(xs, xs)
    V = c[0] * X**2 + c[1] * Y**2 + c[2] * X * Y
    idx = np.arange(n) % 2 == 0
    return np.sum(V[idx] ** 2) + np.max(V)
