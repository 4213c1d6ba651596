import numpy as np


def leapfrog(theta, x0, v0, n_steps=5, h=0.1):
    def grad_u(x):
        return theta * x**3 - x

    state = (x0, v0)
    for _ in range(n_steps):
        x, v = state
        v = v - 0.5 * h * grad_u(x)
        x = x + h * v
        v = v - 0.5 * h * grad_u(x)
        state = (x, v)
    x, v = state
    return np.sum(x**2 + v**2)
