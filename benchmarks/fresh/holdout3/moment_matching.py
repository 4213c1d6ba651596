"""Moment matching for a correlated three-asset model: simulated returns must reproduce target moments."""

import numpy as np

NOISE = np.random.default_rng(3).normal(size=(200, 3))
WEIGHTS = np.linspace(1.0, 2.0, 200)
TARGET_MEAN = np.array([0.05, 0.02, 0.03])
TARGET_COV = np.array([[0.04, 0.01, 0.0], [0.01, 0.09, 0.02], [0.0, 0.02, 0.0625]])
TARGET_CORR = 0.3


def simulate(mu, chol):
    L = np.tril(chol)
    return mu + NOISE @ L.T


def mismatch(mu, chol):
    R = simulate(mu, chol)
    mean = np.average(R, axis=0, weights=WEIGHTS)
    cov = np.cov(R, rowvar=False)
    corr = np.corrcoef(R[:, 0], R[:, 1])[0, 1]
    return np.sum((mean - TARGET_MEAN) ** 2) + np.sum((cov - TARGET_COV) ** 2) + (corr - TARGET_CORR) ** 2
