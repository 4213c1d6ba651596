"""2-D pose-graph optimisation: relative-pose residuals with angles wrapped by atan2."""

from itertools import combinations

import numpy as np

EDGES = [(0, 1), (1, 2), (2, 3), (3, 0)]


def wrap(angle):
    return np.arctan2(np.sin(angle), np.cos(angle))


def rot(theta):
    c, s = np.cos(theta), np.sin(theta)
    return np.array([[c, -s], [s, c]])


def residuals(poses: np.ndarray, measurements: np.ndarray) -> list:
    out = []
    for (i, j), z in zip(EDGES, measurements):
        xi, xj = poses[i], poses[j]
        dp = rot(xi[2]).T @ (xj[:2] - xi[:2])
        out.append(np.append(dp - z[:2], wrap(xj[2] - xi[2] - z[2])))
    return out


def graph_cost(poses: np.ndarray, measurements: np.ndarray) -> float:
    cost = sum(np.sum(r**2) for r in residuals(poses, measurements))
    anchor = np.sum(poses[0] ** 2)
    spread = 0.0
    for a, b in combinations(range(len(poses)), 2):
        spread += 1e-3 / (1.0 + np.sum((poses[a, :2] - poses[b, :2]) ** 2))
    return cost + 10.0 * anchor + spread
