"""Variable projection for a sum of exponentials: the rates are nonlinear, the amplitudes solved by least squares."""

import numpy as np

T = np.linspace(0.0, 3.0, 30)


def basis(rates):
    return np.stack([np.exp(-r * T) for r in rates] + [np.ones_like(T)], axis=1)


def projected_residual(rates, y):
    A = basis(rates)
    coef, *_ = np.linalg.lstsq(A, y, rcond=None)
    r = y - A @ coef
    return 0.5 * r @ r
