"""A batched energy: the example of the array-API target (docs/scale.md).

``x`` holds N points as the columns of a (3, N) array; the energy sums a polynomial of each
point's coordinates over them.  Its gradient module runs on NumPy, PyTorch, JAX or Dask arrays:
on Dask, N may be larger than one machine's memory.
"""

import numpy as np


def energy(x, c):
    r = x[0] ** 2 + x[1] ** 2 + x[2] ** 2
    return np.sum(c * r**2 - np.sqrt(1.0 + r) + x[0] * x[1] * x[2])
