"""Negative log-likelihood of a beta-binomial model for success counts, with a log-normal prior."""

import math

TRIALS = [12, 15, 9, 20, 11, 14]


def log_beta(a, b):
    return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)


def log_choose(n, k):
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


def nll(log_a, log_b, successes):
    a, b = math.exp(log_a), math.exp(log_b)
    total = 0.0
    for n, k in zip(TRIALS, successes):
        total -= log_choose(n, k) + log_beta(k + a, n - k + b) - log_beta(a, b)
    prior = 0.5 * (log_a**2 + log_b**2)
    return total + prior
