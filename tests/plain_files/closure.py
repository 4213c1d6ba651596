import numpy as np


def make_loss(alpha):
    def loss(w, X, y):
        r = X @ w - y
        return np.sum(r**2) + alpha * np.sum(w**2)

    return loss


def objective(w, X, y, lam):
    def penalty(v):
        return lam * np.sum(np.abs(v))

    smooth = lambda v: np.sum(np.log1p(np.exp(v)))

    def apply(fn, v):
        return fn(v)

    r = X @ w - y
    return np.sum(r * r) + penalty(w) + apply(smooth, w)
