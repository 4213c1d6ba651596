"""Log-likelihood of an observation sequence under a discrete HMM (forward algorithm, log space)."""

import numpy as np


def log_softmax(z, axis=-1):
    m = np.max(z, axis=axis, keepdims=True)
    return z - m - np.log(np.sum(np.exp(z - m), axis=axis, keepdims=True))


def log_likelihood(init_logits, trans_logits, emit_logits, obs):
    log_pi = log_softmax(init_logits)
    log_A = log_softmax(trans_logits, axis=1)
    log_B = log_softmax(emit_logits, axis=1)
    alpha = log_pi + log_B[:, obs[0]]
    for t in range(1, len(obs)):
        scores = alpha[:, None] + log_A
        m = scores.max(axis=0)
        alpha = m + np.log(np.exp(scores - m).sum(axis=0)) + log_B[:, obs[t]]
    m = alpha.max()
    return m + np.log(np.sum(np.exp(alpha - m)))
