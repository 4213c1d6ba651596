"""Logistic regression: the mean negative log-likelihood of labels y in {0, 1}.

The helper `logistic` is inlined; the gradient reuses its forward values.

    yota-s2s examples/logistic.py --out examples/grad_logistic.py
"""

import numpy as np


def logistic(z):
    return 1.0 / (1.0 + np.exp(-z))


def loss(w, b, X, y):
    p = logistic(X @ w + b)
    return -np.mean(y * np.log(p) + (1.0 - y) * np.log(1.0 - p))
