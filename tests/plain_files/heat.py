import numpy as np


def heat_loss(u0, kappa, target, steps=10, dx=0.1, dt=0.001):
    u = u0.copy()
    r = kappa * dt / dx**2
    for _ in range(steps):
        lap = np.zeros_like(u)
        lap[1:-1] = u[2:] - 2 * u[1:-1] + u[:-2]
        u = u + r * lap
        u[0] = 0.0
        u[-1] = 0.0
    return 0.5 * np.sum((u - target) ** 2)
