"""Sample the banana of density.py with the unadjusted Langevin algorithm.

python examples/langevin/sample.py

Each step moves every chain down the gradient of the negative log-density plus noise.  The value
is never needed, so grad_density.py is written with --no-value: grad_neg_log_density returns
(dx,) and skips the work only the value needs (the final sum).
"""

import numpy as np
from grad_density import grad_neg_log_density

rng = np.random.default_rng(0)
chains, steps, eps = 2_000, 4_000, 0.005
x = rng.standard_normal((2, chains))
for _ in range(steps):
    (dx,) = grad_neg_log_density(x)
    x = x - eps * dx + np.sqrt(2 * eps) * rng.standard_normal(x.shape)
# the banana's first coordinate is N(A, 1/2): mean 1, variance 0.5
print(f"mean of x[0]: {x[0].mean():.2f} (exact 1.00), variance: {x[0].var():.2f} (exact 0.50)")
