"""Echo state network: a fixed random reservoir, a trained readout, and the input scaling."""

import numpy as np

rng = np.random.default_rng(42)
N_RES = 30
W_RES = rng.normal(size=(N_RES, N_RES))
W_RES *= 0.9 / np.max(np.abs(np.linalg.eigvals(W_RES)))
W_IN = rng.uniform(-1, 1, size=N_RES)
WASHOUT = 5


def run_reservoir(u, input_scale):
    x = np.zeros(N_RES)
    states = []
    for t in range(len(u)):
        x = np.tanh(W_RES @ x + input_scale * W_IN * u[t])
        states.append(x)
    return states


def readout_loss(w_out, input_scale, u, target):
    states = run_reservoir(u, input_scale)
    preds = [states[t] @ w_out for t in range(WASHOUT, len(states))]
    err = np.array(preds) - target[WASHOUT:]
    return np.mean(err**2) + 1e-4 * np.sum(w_out**2)
