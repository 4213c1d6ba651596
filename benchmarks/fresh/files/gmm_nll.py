"""Negative log-likelihood of a diagonal Gaussian mixture, parameters in a dict."""

import math

import numpy as np

LOG2PI = math.log(2.0 * math.pi)


def logsumexp(a, axis):
    m = np.max(a, axis=axis, keepdims=True)
    return np.squeeze(m, axis=axis) + np.log(np.sum(np.exp(a - m), axis=axis))


def nll(params, X):
    logits, means, log_std = params["logits"], params["means"], params["log_std"]
    log_w = logits - logsumexp(logits, axis=0)
    n, d = X.shape
    comps = []
    for k in range(len(logits)):
        z = (X - means[k]) / np.exp(log_std[k])
        comps.append(log_w[k] - 0.5 * np.sum(z**2, axis=1) - np.sum(log_std[k]) - 0.5 * d * LOG2PI)
    return -np.mean(logsumexp(np.stack(comps, axis=1), axis=1))
