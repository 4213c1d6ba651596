"""Fit a filter's frequency response: a real loss of real taps b and a complex pole.

H(z) = (b0 + b1 / z + b2 / z**2) / (1 - pole / z) on the unit circle z = exp(1j w), against a
measured complex response. The loss is real, the taps are real (their gradient is real) and the
pole is declared complex (its gradient is dL/dRe + 1j dL/dIm: a gradient step moves it downhill).
"""

import numpy as np


def loss(b, pole: complex, w, target: complex):
    z = np.exp(1j * w)
    h = (b[0] + b[1] / z + b[2] / z**2) / (1.0 - pole / z)
    return np.mean(np.abs(h - target) ** 2)
