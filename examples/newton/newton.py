"""Newton's method with the generated Hessian, and Newton-CG with the generated Hessian-vector products.

python examples/newton/newton.py

hess_logistic.py (--hessian --wrt w) returns (value, dw, H): each Newton step solves H @ step = dw.
hess_intercept.py (--hessian --wrt w,b) returns (value, dw, db, ((H_ww, H_wb), (H_bw, H_bb))), the blocks
of the Hessian with respect to the weights and the intercept (a number): np.block makes them one matrix.
hvp_rosen.py (--hvp) returns (value, dx, H @ v) without forming H: each step of Newton-CG solves
H @ step = dx by conjugate gradients, one hvp_rosen call per iteration, for n = 100 unknowns.
hess_chain.py (--hessian --wrt u) returns the tridiagonal Hessian of a chain of 2,000 springs, computed
by its three diagonals (the band form: docs/higher-order.md); each Newton step solves with them alone.
"""

import numpy as np
from hess_chain import hess_energy as hess_chain
from hess_intercept import hess_loss as hess_intercept
from hess_logistic import hess_loss
from hvp_rosen import hvp_rosen

rng = np.random.default_rng(0)
X = rng.standard_normal((200, 5))
y = (X @ np.array([1.0, -2.0, 0.5, 0.0, 3.0]) + rng.standard_normal(200) > 0) * 1.0
w = np.zeros(5)
for step in range(6):
    value, dw, H = hess_loss(w, X, y)
    print(f"newton step {step}: loss {value:.12f}, |gradient| {np.linalg.norm(dw):.1e}")
    w = w - np.linalg.solve(H, dw)

w, b = np.zeros(5), 0.0
for step in range(6):
    value, dw, db, ((H_ww, H_wb), (H_bw, H_bb)) = hess_intercept(w, b, X, y)
    print(f"newton step {step} on (w, b): loss {value:.12f}, |gradient| {np.hypot(np.linalg.norm(dw), db):.1e}")
    H = np.block([[H_ww, H_wb[:, None]], [H_bw[None, :], H_bb]])  # H_wb: shape (5,) (w.shape + b.shape)
    s = np.linalg.solve(H, np.append(dw, db))
    w, b = w - s[:5], b - s[5]


def conjugate_gradients(hvp, b, tol):
    """Solve H @ s = b for s with the products hvp(v) = H @ v (H positive definite, or stop at a negative curvature)."""
    s, r = np.zeros_like(b), b.copy()
    p = r.copy()
    for _ in range(len(b)):
        Hp = hvp(p)
        curvature = p @ Hp
        if curvature <= 0:
            return s if s.any() else b
        alpha = (r @ r) / curvature
        s, r_new = s + alpha * p, r - alpha * Hp
        if np.linalg.norm(r_new) < tol:
            return s
        p, r = r_new + (r_new @ r_new) / (r @ r) * p, r_new
    return s


x = np.zeros(100)  # (from (-1.2, 1, -1.2, 1, ...) it reaches the local minimum near x[0] = -1, value 3.98)
for step in range(200):
    value, dx, _ = hvp_rosen(x, np.zeros_like(x))  # (the value and gradient: the product is not needed here)
    if np.linalg.norm(dx) < 1e-9:
        break
    s = conjugate_gradients(
        lambda v, x=x: hvp_rosen(x, v)[2], dx, 0.1 * min(1.0, np.linalg.norm(dx)) * np.linalg.norm(dx)
    )
    t = 1.0
    while hvp_rosen(x - t * s, s)[0] > value - 1e-4 * t * (dx @ s) and t > 1e-8:
        t *= 0.5  # backtracking: a step that decreases the value enough
    x = x - t * s
print(f"newton-cg on rosen, n = 100: {step} steps, value {value:.2e}, max |x - 1| {np.abs(x - 1.0).max():.1e}")


def tridiagonal_solve(lower, diagonal, upper, b):
    """Solve T @ s = b for the tridiagonal T (its diagonals below, on and above the main one): Thomas's algorithm."""
    n = len(diagonal)
    c, d = np.zeros(n), np.zeros(n)
    c[0], d[0] = upper[0] / diagonal[0] if n > 1 else 0.0, b[0] / diagonal[0]
    for i in range(1, n):
        pivot = diagonal[i] - lower[i - 1] * c[i - 1]
        c[i] = upper[i] / pivot if i < n - 1 else 0.0
        d[i] = (b[i] - lower[i - 1] * d[i - 1]) / pivot
    for i in range(n - 2, -1, -1):
        d[i] -= c[i] * d[i + 1]
    return d


u, load = np.zeros(2000), np.sin(np.linspace(0.0, 6.0 * np.pi, 2000))
for step in range(6):
    value, du, H = hess_chain(u, load)
    print(f"newton step {step} on the chain: energy {value:.10f}, |gradient| {np.linalg.norm(du):.1e}")
    u = u - tridiagonal_solve(np.diag(H, -1), np.diag(H), np.diag(H, 1), du)
outside = np.abs(np.triu(H, 2)).max() + np.abs(np.tril(H, -2)).max()
print(f"the chain's Hessian: {H.shape}, zero outside its three diagonals: {outside == 0.0}")
