import warnings

import numpy as np


def stats(x):
    mu = np.mean(x)
    sigma = np.std(x)
    return mu, sigma


def zscore_loss(x, target_mu=0.0):
    mu, sigma = stats(x)
    if sigma < 1e-8:
        warnings.warn("degenerate input")
    z = (x - mu) / sigma
    tail = z[z > 1.0]
    return (
        (mu - target_mu) ** 2
        + np.sum(np.where(np.abs(z) > 2.0, z**2, 0.0))
        + np.sum(np.log1p(np.exp(-np.abs(z))))
        + tail.size
    )
