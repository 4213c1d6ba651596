"""Probit regression on a minibatch drawn with replacement: the example of the CuPy target.

``scipy.special.erf`` becomes ``cupyx.scipy.special.erf``, and the gradient of the gather
``p[batch]`` (a batch may repeat a row) is a scatter-add, ``cp.add.at``.
"""

import numpy as np
import scipy.special


def loss(w, X, y, batch):
    p = 0.5 * (1.0 + scipy.special.erf(X @ w / np.sqrt(2.0)))
    picked = p[batch]
    labels = y[batch]
    return -np.mean(labels * np.log(picked) + (1.0 - labels) * np.log(1.0 - picked))
