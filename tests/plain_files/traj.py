import numpy as np

DT = 0.01
N_STEPS = 20


def step(q, p, k):
    p = p - DT * k * q
    q = q + DT * p
    return q, p


def energy_drift(q0, p0, k):
    qs = []
    ps = []
    q, p = q0, p0
    for t in range(N_STEPS):
        q, p = step(q, p, k)
        qs.append(q)
        ps.append(p)
    Q = np.array(qs)
    P = np.stack(ps)
    E = 0.5 * P**2 + 0.5 * k * Q**2
    return np.mean((E - E[0]) ** 2) + qs[-1].sum()
