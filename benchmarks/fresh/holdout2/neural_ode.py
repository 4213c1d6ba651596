"""A two-layer tanh vector field integrated with RK4; loss against a target trajectory."""

import numpy as np

STEPS = 20
DT = 0.05


def field(layers, y):
    h = y
    *hidden, last = layers
    for W, b in hidden:
        h = np.tanh(W @ h + b)
    W, b = last
    return W @ h + b


def rk4_step(layers, y, dt):
    k1 = field(layers, y)
    k2 = field(layers, y + 0.5 * dt * k1)
    k3 = field(layers, y + 0.5 * dt * k2)
    k4 = field(layers, y + dt * k3)
    return y + dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)


def trajectory_loss(layers, y0, target):
    y = y0
    loss = 0.0
    for t in range(STEPS):
        y = rk4_step(layers, y, DT)
        loss = loss + np.sum((y - target[t]) ** 2)
    return loss / STEPS
