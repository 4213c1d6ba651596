"""Reflectance of a dielectric multilayer (transfer-matrix method), normal incidence."""

import numpy as np

WAVELENGTHS = np.linspace(400e-9, 700e-9, 7)
N_AIR, N_SUB = 1.0, 1.52
INDICES = [2.3, 1.38, 2.3, 1.38]


def layer_matrix(n, d, lam):
    delta = 2 * np.pi * n * d / lam
    return np.array([[np.cos(delta), 1j * np.sin(delta) / n], [1j * n * np.sin(delta), np.cos(delta)]])


def reflectance(thickness, lam):
    M = np.eye(2, dtype=complex)
    for n, d in zip(INDICES, thickness):
        M = M @ layer_matrix(n, d, lam)
    B = M[0, 0] + M[0, 1] * N_SUB
    C = M[1, 0] + M[1, 1] * N_SUB
    r = (N_AIR * B - C) / (N_AIR * B + C)
    return np.abs(r) ** 2


def merit(thickness_nm):
    thickness = thickness_nm * 1e-9
    R = [reflectance(thickness, lam) for lam in WAVELENGTHS]
    return np.mean(np.array(R))
