import numpy as np

EDGES = [(0, 1), (1, 2), (2, 0), (0, 3)]
REST = [1.0] * 3 + [2.0] * 1
STIFF = {"soft": 0.5, "hard": 4.0}
MASSES = np.array([1.0, 2.0, 1.0, 3.0])
TWO_PI = 2 * np.pi


def spring_energy(pos, kind="soft"):
    k = STIFF[kind]
    e = 0.0
    for (i, j), L0 in zip(EDGES, REST):
        d = pos[i] - pos[j]
        L = np.sqrt(np.sum(d**2))
        e = e + 0.5 * k * (L - L0) ** 2
    return e + np.sum(MASSES * pos[:, 1]) * TWO_PI
