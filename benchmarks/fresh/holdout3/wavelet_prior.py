"""A multiscale smoothness prior: a Haar pyramid built recursively, each level's detail weighted by a closure."""

import numpy as np

LEVELS = 3


def make_weight(base):
    def weight(level):
        return base**level

    return weight


def pyramid(x, level):
    if level == 0:
        return [x]
    avg = 0.5 * (x[0::2] + x[1::2])
    detail = 0.5 * (x[0::2] - x[1::2])
    return [detail] + pyramid(avg, level - 1)


def neg_log_posterior(signal, observed, noise=0.1):
    weight = make_weight(2.0)
    data = np.sum((signal - observed) ** 2) / (2.0 * noise**2)
    bands = pyramid(signal, LEVELS)
    prior = sum(weight(k) * np.sum(np.log(np.cosh(b))) for k, b in enumerate(bands[:-1]))
    return data + prior
