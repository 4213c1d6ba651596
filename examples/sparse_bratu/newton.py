"""Newton's method on the 2-D Bratu problem (``bratu2d.py``) with m = 100: 10,000 unknowns, the
sparse Jacobian from ``jac_bratu2d.py`` (``yota-s2s --jacobian --sparse``), each step solved by
``scipy.sparse.linalg.spsolve``.

    python examples/sparse_bratu/newton.py
"""

import numpy as np
from jac_bratu2d import jac_residual, jac_residual_pattern
from scipy.sparse.linalg import spsolve

m, lam = 100, 6.0
u = np.zeros((m, m))
pattern = jac_residual_pattern(u, lam)
print(f"unknowns: {u.size:,}, Jacobian pattern: {pattern.shape}, {pattern.nnz:,} nonzeros")
for step in range(1, 20):
    F, J = jac_residual(u, lam)
    norm = np.linalg.norm(F) / m
    print(f"step {step}: |F| = {norm:.3e}" + (f"  (J: {J.nnz:,} nonzeros)" if step == 1 else ""))
    if norm < 1e-10:
        break
    u -= spsolve(J.tocsc(), F.ravel()).reshape(u.shape)
print(f"max u = {u.max():.6f} at the centre (lam = {lam})")
