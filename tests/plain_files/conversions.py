import numpy as np


def f(x, y):
    s = float(x.sum())
    m = x.mean().item()
    z = np.asarray(y).astype(float)
    scale = int(np.ceil(abs(s))) + 1
    return s * m + np.sum(z * x) / scale
