"""A loss that calls a function yota-s2s cannot see into (fastmath.softplus).

    yota-s2s examples/custom/model.py --rules examples/custom/fastmath_rules.py \
        --out examples/custom/grad_model.py
"""

import numpy as np
from fastmath import softplus


def loss(w, X, y):
    z = X @ w
    return np.mean(softplus(z) - y * z)
