"""Log evidence of Bayesian linear regression with Gaussian prior and noise (empirical Bayes)."""

import math

import numpy as np

PRIOR = {"mean": 0.0}


def log_evidence(log_alpha, log_beta, Phi, t):
    alpha, beta = np.exp(log_alpha), np.exp(log_beta)
    N, M = Phi.shape
    A = alpha * np.eye(M) + beta * Phi.T @ Phi
    m_N = beta * np.linalg.solve(A, Phi.T @ t) + PRIOR["mean"]
    E = beta / 2 * np.sum((t - Phi @ m_N) ** 2) + alpha / 2 * m_N @ m_N
    sign, logdet = np.linalg.slogdet(A)
    return -(M / 2 * log_alpha + N / 2 * log_beta - E - 0.5 * logdet - N / 2 * math.log(2 * math.pi))
