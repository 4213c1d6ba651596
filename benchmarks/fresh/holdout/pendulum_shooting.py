"""Shooting for a damped pendulum: hit a target angle at T with the initial angular velocity."""

import numpy as np

G_OVER_L = 9.81
T_FINAL = 2.0
N_STEPS = 100


def deriv(state, damping):
    theta, omega = state
    return omega, -G_OVER_L * np.sin(theta) - damping * omega


def rk4_step(state, dt, damping):
    k1 = deriv(state, damping)
    s2 = (state[0] + 0.5 * dt * k1[0], state[1] + 0.5 * dt * k1[1])
    k2 = deriv(s2, damping)
    s3 = (state[0] + 0.5 * dt * k2[0], state[1] + 0.5 * dt * k2[1])
    k3 = deriv(s3, damping)
    s4 = (state[0] + dt * k3[0], state[1] + dt * k3[1])
    k4 = deriv(s4, damping)
    theta = state[0] + dt / 6 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0])
    omega = state[1] + dt / 6 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1])
    return theta, omega


def miss(omega0, damping, target=0.3):
    state = (0.5, omega0)
    dt = T_FINAL / N_STEPS
    for _ in range(N_STEPS):
        state = rk4_step(state, dt, damping)
    return (state[0] - target) ** 2
