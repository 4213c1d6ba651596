"""Consecutive reactions A -> B -> C with Arrhenius rates, integrated by RK4, fitted to B's record."""

import math

import numpy as np

R_GAS = 8.314
STEPS = 40
DT = 0.05


def rates(log_a: np.ndarray, activation: np.ndarray, temperature: float) -> np.ndarray:
    return np.exp(log_a - activation / (R_GAS * temperature))


def rhs(c: np.ndarray, k: np.ndarray) -> np.ndarray:
    a, b, _ = c
    return np.array([-k[0] * a, k[0] * a - k[1] * b, k[1] * b])


def simulate(k: np.ndarray, c0: np.ndarray) -> list:
    c = c0
    history = [c0[1]]
    for _ in range(STEPS):
        k1 = rhs(c, k)
        k2 = rhs(c + 0.5 * DT * k1, k)
        k3 = rhs(c + 0.5 * DT * k2, k)
        k4 = rhs(c + DT * k3, k)
        c = c + DT / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
        history.append(c[1])
    return history


def sse(log_a: np.ndarray, activation: np.ndarray, observed_b: np.ndarray, temperature: float = 350.0) -> float:
    k = rates(log_a, activation, temperature)
    predicted = np.array(simulate(k, np.array([1.0, 0.0, 0.0])))
    residual = predicted - observed_b
    mass_penalty = math.fsum([0.0, 1e-4]) * np.sum(k**2)
    return np.sum(residual**2) + mass_penalty
