"""1D finite elements: a bar with piecewise-linear elements, compliance w.r.t. element stiffness."""

import numpy as np

N_ELEM = 8
LENGTH = 1.0
h = LENGTH / N_ELEM

XI, W = np.polynomial.legendre.leggauss(2)

# element load vector for a uniform body force (computed once)
f_elem = np.zeros(2)
for xi, w in zip(XI, W):
    shape = np.array([(1 - xi) / 2, (1 + xi) / 2])
    f_elem += w * shape * h / 2


def assemble(E):
    n_nodes = N_ELEM + 1
    K = np.zeros((n_nodes, n_nodes))
    F = np.zeros(n_nodes)
    for e in range(N_ELEM):
        ke = E[e] / h * np.array([[1.0, -1.0], [-1.0, 1.0]])
        idx = [e, e + 1]
        for a in range(2):
            F[idx[a]] += f_elem[a]
            for b in range(2):
                K[idx[a], idx[b]] += ke[a, b]
    return K, F


def compliance(E):
    K, F = assemble(E)
    # clamp node 0
    u = np.linalg.solve(K[1:, 1:], F[1:])
    return F[1:] @ u + 0.1 * np.sum(np.log(E))
