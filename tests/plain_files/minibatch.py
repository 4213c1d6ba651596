import numpy as np


def loss(w, X, y, batch=4):
    n = X.shape[0]
    nb, rem = divmod(n, batch)
    if rem:
        nb += 1
    total = 0.0
    for b in range(nb):
        lo = b * batch
        hi = min(lo + batch, n)
        xb = X[lo:hi]
        yb = y[lo:hi]
        z = xb @ w
        p = 1.0 / (1.0 + np.exp(-z))
        total = total - np.sum(yb * np.log(p) + (1 - yb) * np.log(1 - p))
    return total / n
