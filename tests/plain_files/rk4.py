import numpy as np


def rhs(t, y, k):
    return np.array([y[1], -k[0] * y[0] - k[1] * y[1]])


def rk4(f, y0, t0, t1, n, k):
    h = (t1 - t0) / n
    ys = [y0]
    t = t0
    y = y0
    for _ in range(n):
        k1 = f(t, y, k)
        k2 = f(t + h / 2, y + h / 2 * k1, k)
        k3 = f(t + h / 2, y + h / 2 * k2, k)
        k4 = f(t + h, y + h * k3, k)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        t += h
        ys.append(y)
    return np.stack(ys)


def loss(k, y0, target):
    traj = rk4(rhs, y0, 0.0, 1.0, 10, k)
    return np.sum((traj[:, 0] - target) ** 2)
