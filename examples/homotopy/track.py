"""Solve katsura-4 (total_degree.py) by a total-degree homotopy on complex paths, with the generated
complex Jacobians.

python examples/homotopy/track.py

The start system g(x) = (x0**2 - 1, x1**2 - 1, x2**2 - 1, x3**2 - 1, x4 - 1) has the degrees of
f = katsura4, so its 2**4 = 16 roots (each x_i = +1 or -1, x4 = 1) are as many as f's Bezout
number.  The homotopy H(x, t) = (1 - t) * gamma * g(x) + t * f(x), with gamma a random complex
number (the gamma trick), deforms g (t = 0) into f (t = 1); for all but finitely many gamma, its
16 paths are regular for t in [0, 1), so each reaches a solution of f, and every solution is
reached.  They are tracked together, x of shape (5, 16), complex: jac_katsura4(x) and jac_start(x),
generated with --jacobian from parameters declared complex, return the values and the complex
Jacobians at each path's point, of shape (5, 5, 16), from which H, H_x = (1 - t) gamma J_g + t J_f
and H_t = f - gamma g.  A predictor-corrector steps each path: an Euler step along
dx/dt = -H_x^-1 H_t, then Newton corrections at the new t, the step halved where they do not
converge and doubled (up to 0.05) where they do.  Newton's method on f polishes the endpoints.
"""

import itertools

import numpy as np
from jac_total_degree import jac_katsura4, jac_start

GAMMA = np.exp(2j * np.pi * np.random.default_rng(1).uniform())  # the gamma trick: a random unit complex number


def homotopy(x, t):
    """H(x, t), H_x (5, 5, paths) and H_t at each path's point."""
    f, J_f = jac_katsura4(x)
    g, J_g = jac_start(x)
    return (1.0 - t) * GAMMA * g + t * f, (1.0 - t) * GAMMA * J_g + t * J_f, f - GAMMA * g


def solve(A, b):
    """Solve A[:, :, p] y[:, p] = b[:, p] for each path p."""
    return np.linalg.solve(A.transpose(2, 0, 1), b.T[:, :, None])[:, :, 0].T


def track(x, steps=5000):
    """Track every path from its start x (a root of g, t = 0) to t = 1; the endpoints and which paths arrived."""
    paths = x.shape[1]
    t, dt = np.zeros(paths), np.full(paths, 0.01)
    alive = np.ones(paths, bool)
    for _ in range(steps):
        moving = alive & (t < 1.0)
        if not moving.any():
            break
        s = np.where(moving, np.minimum(t + dt, 1.0), t)  # the next t (1.0 exactly at the end)
        _, H_x, H_t = homotopy(x, t)
        y = x - (s - t) * solve(H_x, H_t)  # Euler predictor
        for _ in range(3):  # Newton corrector at the next t
            H, H_x, _ = homotopy(y, s)
            step = solve(H_x, H)
            y = y - step
        converged = np.abs(step).max(axis=0) < 1e-10 * (1.0 + np.abs(y).max(axis=0))
        accept = moving & converged
        x = np.where(accept, y, x)
        t = np.where(accept, s, t)
        dt = np.where(accept, np.minimum(2.0 * dt, 0.05), np.where(moving, 0.5 * dt, dt))
        alive &= dt > 1e-12  # a path whose step vanished (a singular point: none for a generic gamma)
    return x, alive & (t >= 1.0)


def newton(x, iterations=5):
    for _ in range(iterations):
        f, J = jac_katsura4(x)
        x = x - solve(J, f)
    return x


roots = [[*signs, 1.0] for signs in itertools.product((1.0, -1.0), repeat=4)]  # g's 16 roots
start = np.array(roots, dtype=complex).T
end, arrived = track(start)
end = newton(end)
residual = np.abs(jac_katsura4(end)[0]).max(axis=0)
solutions = np.unique(np.round(end, 8), axis=1)
real = np.abs(solutions.imag).max(axis=0) < 1e-8
print(f"paths: {start.shape[1]} (the Bezout number 2**4), arrived at t = 1: {arrived.sum()}")
print(f"distinct solutions: {solutions.shape[1]}, {real.sum()} real and {(~real).sum()} complex")
# a residual at machine precision differs in its last bits from one CPU to another (2.2e-16 here, 1.1e-16
# with AVX-512): the bound is printed
largest = "< 1e-12" if residual.max() < 1e-12 else f"{residual.max():.1e}"
print(f"largest residual |f(x)|: {largest}")
for x in solutions[:, np.lexsort(np.round(solutions.real[::-1], 6))].T:
    x = np.round(x, 6) + (0.0 + 0.0j)  # (+ 0: no -0.0)
    print("  x = [" + ", ".join(f"{v.real:+.6f}{v.imag:+.6f}j" for v in x) + "]")
