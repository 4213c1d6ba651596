"""katsura-4: five polynomial equations in five unknowns (a magnetism model), written as scalar expressions.

The Jacobian module jac_katsura.py is generated from this file (``mode = "jacobian"`` in the
repository's pyproject.toml):

    yota-s2s examples/homotopy/katsura.py --jacobian --out examples/homotopy/jac_katsura.py
"""

import numpy as np


def katsura4(x):
    return np.array(
        [
            x[0] * x[0] + 2.0 * (x[1] * x[1] + x[2] * x[2] + x[3] * x[3] + x[4] * x[4]) - x[0],
            2.0 * (x[0] * x[1] + x[1] * x[2] + x[2] * x[3] + x[3] * x[4]) - x[1],
            2.0 * (x[0] * x[2] + x[1] * x[3] + x[2] * x[4]) + x[1] * x[1] - x[2],
            2.0 * (x[0] * x[3] + x[1] * x[2] + x[1] * x[4]) - x[3],
            x[0] + 2.0 * (x[1] + x[2] + x[3] + x[4]) - 1.0,
        ]
    )
