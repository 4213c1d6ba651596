"""Fit a damped oscillation to 2,000 noisy samples by Levenberg-Marquardt, with the generated Jacobian.

python examples/fit/fit.py

model.py defines the residuals r(p) = signal(t, p) - y of 4 parameters at 2,000 times;
jac_model.py, generated with --jacobian --wrt p, returns r and its Jacobian J (2,000 x 4), a tall
one: jac_residual takes its forward columns when it runs (4 sweeps of the JVP, all 4 at once,
instead of 2,000 reverse sweeps).  Each step solves (J^T J + lam diag(J^T J)) dp = -J^T r and
keeps it where the sum of squares falls (lam divided by 3), else raises lam tenfold.
"""

import numpy as np
from jac_model import jac_residual

rng = np.random.default_rng(7)
t = np.linspace(0.0, 10.0, 2000)
truth = np.array([2.0, 0.3, 3.0, 0.5])
y = truth[0] * np.exp(-truth[1] * t) * np.cos(truth[2] * t + truth[3]) + 0.05 * rng.standard_normal(t.size)

p = np.array([1.0, 0.1, 2.9, 0.0])
lam = 1e-2
r, J = jac_residual(p, t, y)
cost = 0.5 * float(r @ r)
print(f"start: p = {np.round(p, 4).tolist()}, cost = {cost:.4f}, J: {J.shape}")
for step in range(1, 51):
    A = J.T @ J
    dp = np.linalg.solve(A + lam * np.diag(np.diag(A)), -(J.T @ r))
    r_new, J_new = jac_residual(p + dp, t, y)
    new = 0.5 * float(r_new @ r_new)
    if new < cost:
        p, r, J, lam = p + dp, r_new, J_new, lam / 3.0
        done = cost - new < 1e-12 * cost
        cost = new
        print(f"step {step:2d}: cost = {cost:.6f}, p = {np.round(p, 4).tolist()}")
        if done:
            break
    else:
        lam *= 10.0
sigma = np.sqrt(2.0 * cost / (t.size - p.size) * np.diag(np.linalg.inv(J.T @ J)))
print(f"fitted: {np.round(p, 4).tolist()} +- {np.round(sigma, 4).tolist()} (truth {truth.tolist()})")
