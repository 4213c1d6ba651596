"""Least-squares fit of a cubic Bezier curve to noisy 2D points."""

import math

import numpy as np

DEGREE = 3
BINOM = np.array([math.comb(DEGREE, k) for k in range(DEGREE + 1)], dtype=float)


def bernstein(t):
    k = np.arange(DEGREE + 1)
    return BINOM * t[:, None] ** k * (1 - t[:, None]) ** (DEGREE - k)


def curve(ctrl, t):
    return bernstein(t) @ ctrl


def fit(ctrl, pts, smooth=0.05):
    t = np.linspace(0.0, 1.0, len(pts))
    r = curve(ctrl, t) - pts
    d2 = ctrl[2:] - 2 * ctrl[1:-1] + ctrl[:-2]
    return np.sum(r**2) + smooth * np.sum(d2**2)
