"""Robust linear regression with a Huber loss, residuals scaled by a fixed robust spread."""

import numpy as np

DELTA = 1.345


def huber(r, delta=DELTA):
    a = np.abs(r)
    return np.where(a <= delta, 0.5 * r**2, delta * (a - 0.5 * delta))


def objective(beta, intercept, X, y):
    resid = y - (X @ beta + intercept)
    scale = 1.4826 * np.median(np.abs(y - np.median(y)))
    scale = max(scale, 1e-3)
    return np.sum(huber(resid / scale)) + 0.01 * np.dot(beta, beta)
