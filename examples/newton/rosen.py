"""The Rosenbrock function in n dimensions: its Hessian-vector products (--hvp) drive Newton-CG (newton.py)."""

import numpy as np


def rosen(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)
