"""Smoothing a planar robot path: curvature by second differences, segment lengths by row norms,
waypoints held inside a corridor given per point (array bounds for np.clip)."""

import numpy as np

LOWER = np.tile(np.array([-0.2, -1.0]), (8, 1))
UPPER = np.tile(np.array([3.2, 1.0]), (8, 1))


def path_cost(flat: np.ndarray, anchors: np.ndarray, w_smooth: float = 1.0, w_len: float = 0.1) -> float:
    pts = flat.reshape(-1, 2)
    pts = np.clip(pts, LOWER, UPPER)
    curvature = np.diff(pts, n=2, axis=0)
    seg = np.linalg.norm(np.diff(pts, axis=0), axis=1)
    fit = np.sum((pts[::7] - anchors) ** 2)
    return w_smooth * np.sum(curvature**2) + w_len * np.sum(seg) + fit
