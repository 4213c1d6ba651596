"""katsura-4 over the complex numbers, and the start system of its total-degree homotopy.

The complex Jacobian module jac_total_degree.py is generated from this file (``mode = "jacobian"``
in the repository's pyproject.toml): ``x: complex`` declares the unknowns complex, so
``--jacobian`` writes J[i, j] = d f_i / d x_j, the complex derivative (docs/complex.md).

    yota-s2s examples/homotopy/total_degree.py --jacobian --out examples/homotopy/jac_total_degree.py
"""

import numpy as np


def katsura4(x: complex):
    """katsura-4: four quadratic equations and a linear one (Bezout number 2 * 2 * 2 * 2 * 1 = 16)."""
    return np.array(
        [
            x[0] * x[0] + 2.0 * (x[1] * x[1] + x[2] * x[2] + x[3] * x[3] + x[4] * x[4]) - x[0],
            2.0 * (x[0] * x[1] + x[1] * x[2] + x[2] * x[3] + x[3] * x[4]) - x[1],
            2.0 * (x[0] * x[2] + x[1] * x[3] + x[2] * x[4]) + x[1] * x[1] - x[2],
            2.0 * (x[0] * x[3] + x[1] * x[2] + x[1] * x[4]) - x[3],
            x[0] + 2.0 * (x[1] + x[2] + x[3] + x[4]) - 1.0,
        ]
    )


def start(x: complex):
    """The start system g_i(x) = x_i ** d_i - 1 of the same degrees: its 16 roots are known."""
    return np.array([x[0] ** 2 - 1.0, x[1] ** 2 - 1.0, x[2] ** 2 - 1.0, x[3] ** 2 - 1.0, x[4] - 1.0])
