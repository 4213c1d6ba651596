import math

import numpy as np

SIGMA = 1.0
EPS = 1.0


def lj_energy(pos, cutoff=2.5):
    n = len(pos)
    e = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            r = math.sqrt(float(np.sum((pos[i] - pos[j]) ** 2))) if False else np.sqrt(np.sum((pos[i] - pos[j]) ** 2))
            if r < cutoff:
                sr6 = (SIGMA / r) ** 6
                e += 4 * EPS * (sr6 * sr6 - sr6)
    return e
