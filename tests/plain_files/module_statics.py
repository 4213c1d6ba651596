import numpy as np

GRID = np.linspace(0.0, 1.0, 5)
W = np.ones(5) * 0.5
MASK = np.arange(5) % 2 == 0
TABLE = {"a": np.eye(5), "b": 2.0}
rng = np.random.default_rng(0)
NOISE = rng.normal(size=5)
SCALE = float(np.sqrt(2.0))


def f(x):
    total = 0.0
    for k in range(3):
        total = total + np.sum(GRID * x**2 * W) * k
    return total + np.sum(x[MASK]) + np.sum(TABLE["a"] @ x) * TABLE["b"] + np.sum(NOISE * x) * SCALE
