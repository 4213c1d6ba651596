"""Censored (Tobit) regression: observations below zero are recorded as zero."""

import numpy as np
from scipy.stats import norm


def neg_log_lik(beta, log_sigma, X, y):
    sigma = np.exp(log_sigma)
    mu = X @ beta
    censored = y <= 0.0
    ll_obs = norm.logpdf(y[~censored], loc=mu[~censored], scale=sigma)
    ll_cens = norm.logcdf(-mu[censored] / sigma)
    return -(np.sum(ll_obs) + np.sum(ll_cens))
