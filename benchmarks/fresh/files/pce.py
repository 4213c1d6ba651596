"""Polynomial chaos surrogate: probabilists' Hermite basis, total-degree multi-indices."""

import math

import numpy as np

DIM = 2
DEGREE = 3
MULTI = [(i, j) for i in range(DEGREE + 1) for j in range(DEGREE + 1 - i)]
NORMS = np.array([math.factorial(i) * math.factorial(j) for i, j in MULTI], dtype=float)


def hermite(x, n):
    """He_0..He_n at x by the three-term recurrence."""
    H = [np.ones_like(x), x]
    for k in range(1, n):
        H.append(x * H[k] - k * H[k - 1])
    return H[: n + 1]


def design(xi):
    h1 = hermite(xi[:, 0], DEGREE)
    h2 = hermite(xi[:, 1], DEGREE)
    cols = [h1[i] * h2[j] for i, j in MULTI]
    return np.stack(cols, axis=1)


def fit_loss(c, xi, y):
    Psi = design(xi)
    resid = Psi @ c - y
    mean = c[0]
    variance = np.sum(c[1:] ** 2 * NORMS[1:])
    return 0.5 * np.mean(resid**2) + 0.01 * variance + 0.0 * mean
