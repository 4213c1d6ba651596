"""Polynomial trend plus seasonal terms fitted to a time series, with a roughness penalty."""

import numpy as np

PERIOD = 12.0
N_HARMONICS = 2


def design(t, n_poly):
    V = np.vander(t, n_poly, increasing=True)
    season = []
    for k in range(1, N_HARMONICS + 1):
        season.append(np.sin(2 * np.pi * k * t / PERIOD))
        season.append(np.cos(2 * np.pi * k * t / PERIOD))
    return np.hstack([V, np.stack(season, axis=1)])


def objective(coef, t, y, lam=0.1):
    n_poly = len(coef) - 2 * N_HARMONICS
    X = design(t / t.max(), n_poly)
    resid = y - X @ coef
    rough = np.diff(X[:, :n_poly] @ coef[:n_poly], n=2)
    return np.sum(resid**2) / len(y) + lam * np.sum(rough**2)
