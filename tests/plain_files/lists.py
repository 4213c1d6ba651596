import numpy as np


def f(x, weights):
    parts = [x[:2], x[2:4], x[4:]]
    scaled = [w * p for w, p in zip(weights, parts)]
    firsts = [s[0] for s in scaled]
    tail = scaled[1:]
    total = sum(np.sum(t**2) for t in tail)
    return total + np.sum(np.array(firsts)) + len(parts)
