"""Gaussian-process regression with a Matern-5/2 kernel: negative log marginal likelihood."""

import math

import numpy as np

JITTER = 1e-8


def matern52(X1, X2, hyp):
    d = np.sqrt(np.sum((X1[:, None, :] - X2[None, :, :]) ** 2, axis=-1) + 1e-12)
    r = math.sqrt(5.0) * d / hyp["lengthscale"]
    return hyp["variance"] * (1 + r + r**2 / 3) * np.exp(-r)


def nlml(log_hyp, X, y):
    hyp = {"lengthscale": np.exp(log_hyp[0]), "variance": np.exp(log_hyp[1]), "noise": np.exp(log_hyp[2])}
    n = len(y)
    K = matern52(X, X, hyp) + (hyp["noise"] + JITTER) * np.eye(n)
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(L.T, np.linalg.solve(L, y))
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(L))) + 0.5 * n * math.log(2 * math.pi)
