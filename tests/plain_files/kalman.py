import numpy as np


def kalman_nll(q, F, H, R, ys, x0, P0):
    n = F.shape[0]
    Q = q * np.eye(n)
    x, P = x0, P0
    nll = 0.0
    for y in ys:
        x = F @ x
        P = F @ P @ F.T + Q
        S = H @ P @ H.T + R
        K = P @ H.T @ np.linalg.inv(S)
        r = y - H @ x
        nll = nll + 0.5 * (r @ np.linalg.solve(S, r) + np.log(np.linalg.det(S)))
        x = x + K @ r
        P = (np.eye(n) - K @ H) @ P
    return nll
