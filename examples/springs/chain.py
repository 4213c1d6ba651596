"""A damped spring network, and the fit of its stiffness to an observed path.

Plain Python as a scientist writes it: module constants built by expressions, an ``assert`` on the
input, a nested helper that reads the stiffness from the enclosing function, a dict of settings, a
list of positions appended in the time loop and stacked at the end, and a debug ``print``.  Only
``k`` and ``pos0`` are differentiated; the rest passes through to the gradient module as written.

    yota-s2s examples/springs/chain.py --wrt k,pos0 --out examples/springs/grad_chain.py
"""

import numpy as np

EDGES = [(0, 1), (1, 2), (2, 3), (3, 0), (0, 2)]
REST = [1.0] * 4 + [2.0**0.5]
SETTINGS = {"dt": 0.05, "damping": 0.9}
DEBUG = False


def loss(k, pos0, observed, steps=20):
    """Mean squared distance between the simulated path of the points and the observed one."""
    assert pos0.shape == observed.shape[1:], "observed holds one frame of all the points per step"
    n_points, dim = pos0.shape
    dt, damping = SETTINGS["dt"], SETTINGS["damping"]

    def pull(p, i, j, rest):
        d = p[j] - p[i]
        length = np.sqrt(np.sum(d * d))
        return k * (length - rest) * d / length

    path = [pos0]
    vel = np.zeros_like(pos0)
    for step in range(steps):
        p = path[-1]
        acc = np.zeros((n_points, dim))
        for (i, j), rest in zip(EDGES, REST):
            f = pull(p, i, j, rest)
            acc[i] = acc[i] + f
            acc[j] = acc[j] - f
        vel = damping * vel + dt * acc
        path.append(p + dt * vel)
        if DEBUG and step % 5 == 0:
            print(f"step {step}: kinetic energy {0.5 * np.sum(vel * vel):.4f}")
    traj = np.stack(path[1:])
    return np.mean((traj - observed) ** 2)
