"""Kuramoto oscillators: sensitivity of the final synchrony to the coupling strength."""

import numpy as np

N_OSC = 8
rng = np.random.default_rng(7)
OMEGA = rng.normal(0.0, 0.5, size=N_OSC)
THETA0 = rng.uniform(0, 2 * np.pi, size=N_OSC)
DT = 0.05
STEPS = 60


def order_parameter(theta):
    re = np.mean(np.cos(theta))
    im = np.mean(np.sin(theta))
    return np.sqrt(re**2 + im**2)


def simulate(K):
    theta = THETA0.copy()
    for _ in range(STEPS):
        diff = theta[None, :] - theta[:, None]
        coupling = K / N_OSC * np.sum(np.sin(diff), axis=1)
        theta = theta + DT * (OMEGA + coupling)
    return theta


def synchrony_loss(K, target=0.9):
    r = order_parameter(simulate(K))
    return (r - target) ** 2
