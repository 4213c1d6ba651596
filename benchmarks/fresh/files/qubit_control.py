"""Single-qubit gate by piecewise-constant control fields, simulated on the Bloch sphere."""

import numpy as np

N_SLICES = 12
T_TOTAL = 1.0
dt = T_TOTAL / N_SLICES
DETUNING = 0.3
TARGET = np.array([0.0, 0.0, -1.0])  # a pi pulse: |0> -> |1>


def rotation(axis_vec, angle):
    """Rodrigues' formula."""
    k = axis_vec / np.linalg.norm(axis_vec)
    K = np.array([[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]])
    return np.eye(3) + np.sin(angle) * K + (1 - np.cos(angle)) * K @ K


def evolve(ux, uy):
    s = np.array([0.0, 0.0, 1.0])
    for k in range(N_SLICES):
        omega = np.array([ux[k], uy[k], DETUNING])
        s = rotation(omega, np.linalg.norm(omega) * dt) @ s
    return s


def cost(ux, uy, penalty=1e-3):
    s = evolve(ux, uy)
    infidelity = 0.5 * (1 - s @ TARGET)
    return infidelity + penalty * dt * (np.sum(ux**2) + np.sum(uy**2))
