"""Euler-Bernoulli cantilever by finite differences; tip deflection w.r.t. the stiffness profile."""

import numpy as np

N = 12
L = 1.0
h = L / N
LOAD = np.full(N, 1.0)
LOAD[-1] = 0.5  # half cell at the tip


def second_difference(n):
    D = np.zeros((n, n))
    for i in range(n):
        D[i, i] = -2.0
        if i > 0:
            D[i, i - 1] = 1.0
        if i < n - 1:
            D[i, i + 1] = 1.0
    return D / h**2


def tip_deflection(EI):
    D2 = second_difference(N)
    K = D2.T @ np.diag(EI) @ D2 + 1e-3 * np.eye(N)
    w = np.linalg.solve(K, LOAD * h)
    return w[-1] + 0.01 * np.sum(EI)
