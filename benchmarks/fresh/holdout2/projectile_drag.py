"""Range of a projectile with quadratic drag, integrated by a while loop over a fixed horizon."""

import math

import numpy as np

G = 9.81
T_END = 2.0
DT = 0.01


def simulate(speed, angle_deg, drag):
    theta = math.radians(angle_deg)
    pos = np.array([0.0, 0.0])
    vel = speed * np.array([math.cos(theta), math.sin(theta)])
    t = 0.0
    while t < T_END - 1e-12:
        v = np.linalg.norm(vel)
        acc = np.array([0.0, -G]) - drag * v * vel
        vel = vel + DT * acc
        pos = pos + DT * vel
        t += DT
    return pos


def miss(speed, angle_deg, drag):
    x, y = simulate(speed, angle_deg, drag)
    target = (20.0, 1.5)
    return (x - target[0]) ** 2 + (y - target[1]) ** 2
