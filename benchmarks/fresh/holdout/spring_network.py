"""Energy of a random spring network: springs between nodes closer than a cutoff at rest."""

import numpy as np

rng = np.random.default_rng(11)
REST_POS = rng.uniform(0, 3, size=(10, 2))
CUTOFF = 1.2
EDGES = [
    (i, j)
    for i in range(len(REST_POS))
    for j in range(i + 1, len(REST_POS))
    if np.linalg.norm(REST_POS[i] - REST_POS[j]) < CUTOFF
]
REST_LEN = []
for i, j in EDGES:
    REST_LEN.append(np.linalg.norm(REST_POS[i] - REST_POS[j]))
REST_LEN = np.array(REST_LEN)
STIFF = 50.0


def energy(pos):
    i_idx = np.array([e[0] for e in EDGES])
    j_idx = np.array([e[1] for e in EDGES])
    d = np.linalg.norm(pos[i_idx] - pos[j_idx], axis=1)
    gravity = 0.1 * np.sum(pos[:, 1])
    return 0.5 * STIFF * np.sum((d - REST_LEN) ** 2) + gravity
