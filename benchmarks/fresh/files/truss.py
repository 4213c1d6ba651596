"""Compliance of a planar truss as a function of member cross-sections (sizing optimisation)."""

import numpy as np

E_MOD = 200e9 / 1e9  # GPa, scaled
NODES = np.array([[0.0, 0.0], [1.0, 0.0], [2.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, 1.0]])
MEMBERS = [(0, 1), (1, 2), (3, 4), (4, 5), (0, 4), (1, 3), (1, 4), (1, 5), (2, 4), (2, 5)]
FIXED = [0, 1, 6, 7]  # nodes 0 and 3 pinned
FREE = [d for d in range(2 * len(NODES)) if d not in FIXED]
LOAD = np.zeros(2 * len(NODES))
LOAD[5] = -1.0


def stiffness(areas):
    ndof = 2 * len(NODES)
    K = np.zeros((ndof, ndof))
    for m, (a, b) in enumerate(MEMBERS):
        d = NODES[b] - NODES[a]
        length = np.sqrt(d @ d)
        c, s = d / length
        k = E_MOD * areas[m] / length * np.outer([c, s, -c, -s], [c, s, -c, -s])
        dofs = [2 * a, 2 * a + 1, 2 * b, 2 * b + 1]
        for i in range(4):
            for j in range(4):
                K[dofs[i], dofs[j]] += k[i, j]
    return K


def compliance(areas):
    K = stiffness(areas)
    Kf = K[np.ix_(FREE, FREE)]
    f = LOAD[FREE]
    u = np.linalg.solve(Kf, f)
    return f @ u
