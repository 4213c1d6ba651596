import numpy as np


def f(x, thr):
    acc = 0.0
    for i in range(len(x)):
        acc = acc + x[i] ** 2
        if acc > thr:
            return acc * 2.0
    return acc
