"""A softmax classifier's loss: the mean negative log-likelihood of one-hot labels Y.

The log-sum-exp subtracts each row's maximum first, so that exp never overflows. The gradient
does not depend on that maximum (it cancels), and the generated code finds it: no mask, no tie
split, the softmax closed form.
"""

import numpy as np


def nll(W, b, X, Y):
    z = X @ W + b
    zmax = np.max(z, axis=1, keepdims=True)
    lse = np.log(np.sum(np.exp(z - zmax), axis=1, keepdims=True)) + zmax
    return -np.sum(Y * (z - lse)) / X.shape[0]
