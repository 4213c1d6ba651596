import numpy as np


def f(x, w=None, verbose=False):
    if w is None:
        w = np.ones_like(x)
    n = len(x)
    if n % 2 == 1 and not verbose:
        x = x[:-1]
        w = w[: n - 1]
    half = n // 2
    t = np.linspace(0.0, 1.0, len(x))
    grid = np.arange(len(x)) * 0.5
    if verbose:
        print(f"n={n}, half={half}")
    out = 0.0
    for i, (xi, wi) in enumerate(zip(x, w)):
        if i in (0, 1) or i % 3 == 0:
            out += wi * np.sin(xi) * t[i]
        else:
            out += xi**2 * grid[i]
    return out
