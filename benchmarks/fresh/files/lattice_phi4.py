"""Euclidean lattice phi^4 theory on a periodic 2D lattice: the action and a smeared observable."""

import numpy as np

L = 6
COUPLINGS = {"kappa": 0.18, "lam": 0.02}


def action(phi):
    kappa, lam = COUPLINGS["kappa"], COUPLINGS["lam"]
    hop = 0.0
    for mu in range(2):
        hop = hop + np.sum(phi * np.roll(phi, -1, axis=mu))
    phi2 = phi**2
    return -2 * kappa * hop + np.sum(phi2) + lam * np.sum((phi2 - 1) ** 2)


def smeared_magnetisation(phi, steps=3, alpha=0.5):
    for _ in range(steps):
        nb = sum(np.roll(phi, s, axis=a) for a in range(2) for s in (-1, 1))
        phi = (1 - alpha) * phi + alpha * nb / 4
    return np.mean(phi) ** 2


def total(phi):
    return action(phi) + 10.0 * smeared_magnetisation(phi)
