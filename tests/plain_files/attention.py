import numpy as np


def attention_loss(Wq, Wk, Wv, X):
    d = Wq.shape[1]
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    scores = Q @ K.T / np.sqrt(d)
    scores = scores - scores.max(axis=1, keepdims=True)
    A = np.exp(scores)
    A /= A.sum(axis=1, keepdims=True)
    out = A @ V
    return float(np.mean(out**2))
