"""Logistic regression with an intercept: the Hessian with respect to (w, b) (--hessian --wrt w,b), by
blocks, drives Newton's method on both at once (newton.py)."""

import numpy as np


def loss(w, b, X, y):
    z = X @ w + b
    return np.mean(np.logaddexp(0.0, z) - y * z) + 0.05 * np.sum(w * w)
