"""Log-likelihood of a constant-velocity Kalman filter, for fitting the process and measurement noise."""

import math

import numpy as np

DT = 0.1
F = np.array([[1.0, DT], [0.0, 1.0]])
H = np.array([[1.0, 0.0]])


def process_noise(q):
    return q * np.array([[DT**3 / 3.0, DT**2 / 2.0], [DT**2 / 2.0, DT]])


def neg_log_likelihood(log_q, log_r, ys):
    q = np.exp(log_q)
    r = np.exp(log_r)
    Q = process_noise(q)
    R = np.array([[r]])
    m = np.zeros(2)
    P = np.eye(2)
    total = 0.0
    for y in ys:
        m = F @ m
        P = F @ P @ F.T + Q
        S = H @ P @ H.T + R
        innov = y - H @ m
        K = P @ H.T @ np.linalg.inv(S)
        total = total + 0.5 * (math.log(2.0 * math.pi) + np.log(np.linalg.det(S)) + innov @ np.linalg.solve(S, innov))
        m = m + K @ innov
        P = (np.eye(2) - K @ H) @ P
    return total
