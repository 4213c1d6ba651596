"""Fit Arrhenius parameters of a two-step mechanism A -> B -> C to concentrations over time."""

import math

import numpy as np

R_GAS = 8.314
TEMPS = [300.0, 320.0, 340.0]
TIMES = np.linspace(0.0, 5.0, 11)
# NASA-like heat capacity polynomial of the solvent (highest power first), for the temperature rise
CP_COEFFS = [1.2e-6, -3.0e-4, 0.05, 70.0]


def rate(params, step, temp):
    log_a, ea = params[step]
    return math.exp(log_a - ea / (R_GAS * temp))


def concentrations(params, temp):
    k1 = rate(params, "k1", temp)
    k2 = rate(params, "k2", temp)
    a = np.exp(-k1 * TIMES)
    b = k1 / (k2 - k1) * (np.exp(-k1 * TIMES) - np.exp(-k2 * TIMES))
    return a, b, 1.0 - a - b


def sse(params, observed):
    total = 0.0
    for i, temp in enumerate(TEMPS):
        cp = np.polyval(CP_COEFFS, temp)
        a, b, c = concentrations(params, temp)
        for name, series in (("A", a), ("B", b), ("C", c)):
            resid = series - observed[name][i]
            total += np.sum(resid**2) * (70.0 / cp)
    return total
