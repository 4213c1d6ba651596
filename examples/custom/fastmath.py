"""Stands in for a compiled library: yota-s2s cannot read its source (think of a C extension).

The generated gradient calls it as it is, so it must be importable where the gradient runs.
"""

import numpy as np


def softplus(x):
    """log(1 + exp(x)), computed stably."""
    return np.logaddexp(0.0, x)
