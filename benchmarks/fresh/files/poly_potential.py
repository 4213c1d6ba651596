"""A polynomial interatomic potential fitted to reference energies (cluster expansion style)."""

import math

import numpy as np

MAX_ORDER = 4
POWERS = []
for p in range(1, MAX_ORDER + 1):
    POWERS.append(p)

CUTOFF = 2.5
PARAMS = {"r0": 1.1, "scale": 0.8}


def pair_features(r):
    """Powers of a smooth cutoff-weighted distance."""
    s = (r - PARAMS["r0"]) / PARAMS["scale"]
    fc = 0.5 * (np.cos(math.pi * r / CUTOFF) + 1.0)
    return np.stack([fc * s**p for p in POWERS], axis=-1)


def energy(coef, positions):
    n = len(positions)
    e = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            r = np.linalg.norm(positions[i] - positions[j])
            if r < CUTOFF:
                e = e + pair_features(r) @ coef
    return e


def loss(coef, configs, ref_energies):
    err = 0.0
    for k in range(len(configs)):
        err += (energy(coef, configs[k]) - ref_energies[k]) ** 2
    return err / len(configs) + 1e-3 * np.sum(coef**2)
