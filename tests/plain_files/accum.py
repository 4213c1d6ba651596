import numpy as np


def f(X, w):
    total = 0.0
    rows = []
    for row in X:
        v = np.dot(row, w)
        total += v**2
        rows.append(np.tanh(v))
    last = rows[-1]
    mid = rows[1:3]
    return total + sum(rows) + last * 2 + np.sum(np.array(mid))
