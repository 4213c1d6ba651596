"""Poisson GLMM with random intercepts per group: negative log joint density (MAP objective)."""

import math

import numpy as np


def neg_log_joint(beta, u, log_sigma, X, y, group):
    sigma = np.exp(log_sigma)
    eta = X @ beta + u[group]
    mu = np.exp(eta)
    loglik = np.sum(y * eta - mu) - sum(math.lgamma(k + 1) for k in y)
    n_groups = len(u)
    logprior = -0.5 * np.sum(u**2) / sigma**2 - n_groups * (log_sigma + 0.5 * math.log(2 * math.pi))
    return -(loglik + logprior)
