import numpy as np


def fixed_point(a, x0=1.0, tol=1e-10, max_iter=100):
    x = x0
    it = 0
    while True:
        x_new = np.cos(a * x)
        it += 1
        if abs(x_new - x) < tol or it >= max_iter:
            break
        x = x_new
    return x_new
