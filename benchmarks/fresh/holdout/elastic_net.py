"""Elastic-net regression objective on standardised features (smoothed L1 for the gradient)."""

import numpy as np

L1_RATIO = 0.5
SMOOTH = 1e-3


def standardise(X):
    mu = X.mean(axis=0)
    sd = X.std(axis=0, ddof=1)
    return (X - mu) / sd


def objective(w, b, X, y, lam=0.1):
    Z = standardise(X)
    resid = y - (Z @ w + b)
    l1 = np.sum(np.sqrt(w**2 + SMOOTH**2))
    l2 = 0.5 * np.dot(w, w)
    return 0.5 * np.mean(resid**2) + lam * (L1_RATIO * l1 + (1 - L1_RATIO) * l2)
