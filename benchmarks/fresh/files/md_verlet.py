"""Velocity-Verlet molecular dynamics of a small Lennard-Jones cluster."""

import numpy as np

N = 5
DT = 0.005
N_STEPS = 20
EPS, SIGMA = 1.0, 1.0
PAIRS = [(i, j) for i in range(N) for j in range(i + 1, N)]
MASSES = np.ones(N)
MASSES[0] = 2.0


def forces(x):
    f = np.zeros_like(x)
    for i, j in PAIRS:
        d = x[i] - x[j]
        r2 = d @ d
        sr6 = (SIGMA**2 / r2) ** 3
        fij = 24 * EPS * (2 * sr6**2 - sr6) / r2 * d
        f[i] += fij
        f[j] -= fij
    return f


def potential(x):
    u = 0.0
    for i, j in PAIRS:
        r2 = np.sum((x[i] - x[j]) ** 2)
        sr6 = (SIGMA**2 / r2) ** 3
        u += 4 * EPS * (sr6**2 - sr6)
    return u


def final_energy(x0, v0):
    x, v = x0, v0
    a = forces(x) / MASSES[:, None]
    for _ in range(N_STEPS):
        x = x + DT * v + 0.5 * DT**2 * a
        a_new = forces(x) / MASSES[:, None]
        v = v + 0.5 * DT * (a + a_new)
        a = a_new
    kinetic = 0.5 * np.sum(MASSES[:, None] * v**2)
    return kinetic + potential(x)
