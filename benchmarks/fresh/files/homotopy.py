"""Homotopy continuation for a polynomial system; sensitivity of the end point w.r.t. coefficients."""

import numpy as np

N_STEPS = 10
START = np.array([1.0, 1.0])


def target(x, a):
    return np.array([x[0] ** 2 + a[0] * x[1] - a[1], x[0] * x[1] + a[2] * x[1] ** 3 - 1.0])


def target_jac(x, a):
    return np.array([[2 * x[0], a[0]], [x[1], x[0] + 3 * a[2] * x[1] ** 2]])


def start_system(x):
    return x**2 - 1.0


def track(a):
    x = START.copy()
    for k in range(1, N_STEPS + 1):
        t = k / N_STEPS
        for _ in range(3):  # Newton corrector
            H = (1 - t) * start_system(x) + t * target(x, a)
            J = (1 - t) * np.diag(2 * x) + t * target_jac(x, a)
            x = x - np.linalg.solve(J, H)
    return x


def objective(a):
    x = track(a)
    return x[0] + 2.0 * x[1]
