"""Inverse problem for the 2D heat equation: recover the initial field from a blurred final one."""

import numpy as np

NX, NY = 8, 8
ALPHA = 0.2
N_STEPS = 15


def step(u):
    lap = np.zeros_like(u)
    lap[1:-1, 1:-1] = u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4 * u[1:-1, 1:-1]
    return u + ALPHA * lap


def misfit(u0, observed, reg=1e-2):
    u = u0.copy()
    for _ in range(N_STEPS):
        u = step(u)
    gx = np.diff(u0, axis=0)
    gy = np.diff(u0, axis=1)
    return 0.5 * np.sum((u - observed) ** 2) + reg * (np.sum(gx**2) + np.sum(gy**2))
