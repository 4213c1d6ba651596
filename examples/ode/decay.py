"""A damped, driven oscillator integrated by explicit Euler steps: the state after ``steps`` steps
as a function of the initial state ``y0`` and the parameters ``p = (stiffness, damping)``."""

import numpy as np


def trajectory_end(y0, p, dt=0.01, steps=200):
    y = y0
    t = 0.0
    for _ in range(steps):
        force = -p[0] * y[0] - p[1] * y[1] + np.sin(t)
        y = y + dt * np.array([y[1], force])
        t = t + dt
    return y
