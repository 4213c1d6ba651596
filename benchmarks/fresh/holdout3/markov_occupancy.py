"""Occupancy of a small Markov chain after n steps, transition rows from softmax logits, fitted to observed occupancy."""

import numpy as np

N_STEPS = 6


def transition(logits):
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def kl_to_observed(logits, start, observed):
    P = transition(logits)
    p_n = start @ np.linalg.matrix_power(P, N_STEPS)
    two = np.linalg.multi_dot([start, P, P])
    return np.sum(observed * np.log(observed / p_n)) + 0.1 * np.sum((two - observed) ** 2)
