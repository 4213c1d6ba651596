import numpy as np


def smooth_loss(x, k=3):
    n = x.shape[0]
    out = 0.0
    for i in range(n - k + 1):
        win = x[i : i + k]
        out = out + np.mean(win) ** 2
    even = x[::2]
    odd = x[1::2]
    return out + np.sum(even[: len(odd)] * odd)
