import numpy as np


def rbf(X, lengthscale, variance):
    sq = np.sum(X**2, axis=1)
    d2 = sq[:, None] + sq[None, :] - 2 * X @ X.T
    return variance * np.exp(-0.5 * d2 / lengthscale**2)


def nll(log_params, X, y, jitter=1e-6):
    ell, var, noise = np.exp(log_params)
    n = X.shape[0]
    K = rbf(X, ell, var) + (noise + jitter) * np.eye(n)
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(K, y)
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(L))) + 0.5 * n * np.log(2 * np.pi)
