"""Finite-horizon rollout of a cart-pole linearisation under state feedback u = -K x."""

import numpy as np

dt = 0.02
HORIZON = 50
A = np.eye(4)
A[0, 1] = dt
A[2, 3] = dt
A[1, 2] = -0.98 * dt
A[3, 2] = 21.6 * dt
B = np.array([[0.0], [dt], [0.0], [-2.0 * dt]])
Q = np.diag([1.0, 0.1, 10.0, 0.1])
R = 0.01


def rollout_cost(K, x0):
    x = x0
    cost = 0.0
    for t in range(HORIZON):
        u = -K @ x
        cost = cost + x @ Q @ x + R * np.sum(u**2)
        x = A @ x + B @ u
    return cost + 10.0 * x @ Q @ x
