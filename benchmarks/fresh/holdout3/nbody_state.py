"""Three-body gravitational rollout with the state kept as a dict of arrays; loss on the final positions."""

import numpy as np

G = 1.0
DT = 0.01
STEPS = 40
MASSES = np.array([1.0, 0.8, 0.6])


def accelerations(pos):
    n = len(pos)
    diff = pos[None, :, :] - pos[:, None, :]
    dist2 = np.sum(diff**2, axis=-1) + np.eye(n)
    inv3 = dist2**-1.5 * (1.0 - np.eye(n))
    return G * np.einsum("ij,ijk,j->ik", inv3, diff, MASSES)


def step(state):
    vel = state["vel"] + 0.5 * DT * accelerations(state["pos"])
    pos = state["pos"] + DT * vel
    vel = vel + 0.5 * DT * accelerations(pos)
    return {"pos": pos, "vel": vel, "t": state["t"] + DT}


def final_miss(pos0, vel0, target):
    state = {"pos": pos0, "vel": vel0, "t": 0.0}
    for _ in range(STEPS):
        state = step(state)
    sizes = {key: np.sum(value**2) for key, value in state.items() if key != "t"}
    return np.sum((state["pos"] - target) ** 2) + 1e-3 * sizes["vel"]
