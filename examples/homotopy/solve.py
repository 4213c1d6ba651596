"""Solve katsura-4 (katsura.py) by homotopy continuation, all paths at once, with the generated Jacobian.

python examples/homotopy/solve.py

From each of 1,000 random start points x0, the Newton homotopy H(x, t) = f(x) - (1 - t) f(x0)
deforms the system f(x) - f(x0), which x0 solves, into f = katsura4 at t = 1.  Each path is
tracked by a predictor-corrector: an Euler step along dx/dt = -J(x)^-1 f(x0), then Newton
corrections at the new t, the step halved where they do not converge and doubled (up to 0.1)
where they do.  All paths move together: x has shape (5, paths), and jac_katsura4(x), generated
with --jacobian, returns the value, of shape (5, paths), and the Jacobian at each path's point,
J of shape (5, 5, paths).  Newton's method then polishes the endpoints, and the distinct ones
are printed with the largest residual.

The arithmetic is real: a path that reaches a turning point (where it would go on as a complex
pair) stops there and is counted as lost, and the complex solutions are not found.  The
total-degree homotopy with the gamma trick, which reaches every solution, complex ones included,
needs complex arithmetic, which the tool refuses today (YS022): see README.md.
"""

import numpy as np
from jac_katsura import jac_katsura4


def homotopy(x, t, f0):
    """H(x, t) = f(x) - (1 - t) f(x0) and its derivatives H_x = J(x) (n, n, paths) and H_t = f(x0)."""
    f, J = jac_katsura4(x)
    return f - (1.0 - t) * f0, J, f0


def solve(A, b):
    """Solve A[:, :, p] y[:, p] = b[:, p] for each path p."""
    return np.linalg.solve(A.transpose(2, 0, 1), b.T[:, :, None])[:, :, 0].T


def track(x, steps=2000):
    """Track every path from its start x (the solution at t = 0) to t = 1; returns the endpoints and
    which paths arrived."""
    paths = x.shape[1]
    f0 = jac_katsura4(x)[0]
    t, dt = np.zeros(paths), np.full(paths, 0.01)
    alive = np.ones(paths, bool)
    for _ in range(steps):
        moving = alive & (t < 1.0)
        if not moving.any():
            break
        s = np.where(moving, np.minimum(t + dt, 1.0), t)  # the next t (1.0 exactly at the end)
        _, H_x, H_t = homotopy(x, t, f0)
        y = x - (s - t) * solve(H_x, H_t)  # Euler predictor
        converged = np.zeros(paths, bool)
        for _ in range(4):  # Newton corrector at t + h
            H, H_x, _ = homotopy(y, s, f0)
            step = solve(H_x, H)
            y = y - step
            converged = np.abs(step).max(axis=0) < 1e-9
        accept = moving & converged
        x = np.where(accept, y, x)
        t = np.where(accept, s, t)
        dt = np.where(accept, np.minimum(2.0 * dt, 0.1), np.where(moving, 0.5 * dt, dt))
        alive &= dt > 1e-8  # a path whose step vanished turns complex (or diverges)
    return x, alive & (t >= 1.0)


def newton(x, iterations=5):
    for _ in range(iterations):
        f, J = jac_katsura4(x)
        x = x - solve(J, f)
    return x


start = np.random.default_rng(0).uniform(-1.5, 1.5, (5, 1000))
end, arrived = track(start)
end = newton(end[:, arrived])
residual = np.abs(jac_katsura4(end)[0]).max(axis=0)
solutions = np.unique(np.round(end[:, residual < 1e-12], 10), axis=1) + 0.0  # (+ 0.0: no -0.0)
print(f"paths: {start.shape[1]}, arrived at t = 1: {arrived.sum()}, lost (turning back or complex): {(~arrived).sum()}")
# a residual at machine precision differs in its last bits from one CPU to another: the bound is printed
largest = "< 1e-12" if residual.max() < 1e-12 else f"{residual.max():.1e}"
print(f"distinct real solutions: {solutions.shape[1]}, largest residual |f(x)|: {largest}")
for x in solutions.T:
    print("  x = [" + ", ".join(f"{v:+.6f}" for v in x) + "]")
