"""A damped oscillation sampled at m times: the residuals of a least-squares fit of 4 parameters."""

import numpy as np


def signal(t, p):
    return p[0] * np.exp(-p[1] * t) * np.cos(p[2] * t + p[3])


def residual(p, t, y):
    return signal(t, p) - y
