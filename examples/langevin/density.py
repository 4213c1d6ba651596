"""The negative log-density of a banana-shaped 2-D distribution, for many chains at once.

x has shape (2, C): one column per chain.  The sum over chains makes one scalar whose gradient's
column c is chain c's own gradient (the chains do not interact).
"""

import numpy as np

A = 1.0  # the banana's centre
B = 2.0  # and its curvature


def neg_log_density(x):
    return np.sum((A - x[0]) ** 2 + B * (x[1] - x[0] ** 2) ** 2)
