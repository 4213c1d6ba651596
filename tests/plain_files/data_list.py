import numpy as np


def loss(w, batches):
    total = 0.0
    for X, y in batches:
        total += np.sum((X @ w - y) ** 2)
    return total / len(batches)
