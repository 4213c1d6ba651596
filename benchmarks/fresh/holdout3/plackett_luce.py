"""Plackett-Luce log-likelihood of observed rankings, a margin penalty on sorted scores, and a top-3 bonus."""

import numpy as np


def log_likelihood(scores, ranking):
    s = scores[ranking]
    tail = np.log(np.cumsum(np.exp(s[::-1]))[::-1])
    return np.sum(s - tail)


def loss(scores, rankings, margin=0.1):
    total = 0.0
    for r in rankings:
        total = total - log_likelihood(scores, r)
    order = np.argsort(scores)
    gaps = np.diff(scores[order])
    total = total + np.sum(np.maximum(margin - gaps, 0.0) ** 2)
    top = sorted(scores, reverse=True)[:3]
    return total - 0.01 * sum(top)
