"""Cantilever strain energy by quadrature: a deflection written as a sum of modes on a linspace grid."""

import numpy as np

LENGTH = 2.0
X = np.linspace(0.0, LENGTH, 81)
EI = 3.0
LOAD = 1.5


def deflection(coeffs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    w = np.zeros_like(X)
    curvature = np.zeros_like(X)
    for k, c in enumerate(coeffs, start=2):
        w = w + c * (X / LENGTH) ** k
        curvature = curvature + c * k * (k - 1) * X ** (k - 2) / LENGTH**k
    return w, curvature


def total_energy(coeffs: np.ndarray) -> float:
    w, curvature = deflection(coeffs)
    strain = 0.5 * EI * np.trapezoid(curvature**2, X)
    work = LOAD * np.trapezoid(w, X)
    return strain - work
