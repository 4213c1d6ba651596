"""Fit a logistic growth model dN/dt = r N (1 - N/K) to counts, with a midpoint (RK2) integrator."""

import math

import numpy as np

TIMES = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]
SUBSTEPS = 10


def rhs(n, p):
    return p["r"] * n * (1.0 - n / p["K"])


def integrate(p, n0):
    out = [n0]
    n = n0
    for k in range(len(TIMES) - 1):
        dt = (TIMES[k + 1] - TIMES[k]) / SUBSTEPS
        for _ in range(SUBSTEPS):
            half = n + 0.5 * dt * rhs(n, p)
            n = n + dt * rhs(half, p)
        out.append(n)
    return np.array(out)


def sse(p, n0, counts):
    pred = integrate(p, n0)
    resid = np.log(pred) - np.log(np.asarray(counts, dtype=float))
    return float(np.sum(resid**2)) + 0.5 * math.log(p["K"]) ** 2 * 1e-3
