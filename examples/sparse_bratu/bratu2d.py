"""The 2-D Bratu problem: -Laplace(u) = lam * exp(u) on the unit square, u = 0 on its boundary.

``u`` holds the values at the m x m interior points of a grid of step h = 1 / (m + 1); the
residual is the five-point Laplacian's: one equation per interior point, each reading the point
and its four neighbours.  Its Jacobian has m**2 rows and columns and at most 5 m**2 nonzeros.
"""

import numpy as np


def residual(u, lam):
    m = u.shape[0]
    h = 1.0 / (m + 1)
    side = np.zeros((m, 1))
    U = np.concatenate([side, u, side], axis=1)  # the boundary's zeros around the interior
    edge = np.zeros((1, m + 2))
    U = np.concatenate([edge, U, edge], axis=0)
    laplacian = (U[:-2, 1:-1] + U[2:, 1:-1] + U[1:-1, :-2] + U[1:-1, 2:] - 4.0 * u) / h**2
    return -laplacian - lam * np.exp(u)
