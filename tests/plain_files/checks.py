import numpy as np

TOL = 1e-8


def validate(x):
    if not isinstance(x, np.ndarray):
        raise TypeError("x must be an array")
    if x.ndim != 1:
        raise ValueError(f"expected 1-D, got {x.ndim}-D")


def energy(x, coupling=None, debug=False):
    validate(x)
    n = x.size
    if coupling is None:
        coupling = np.full(n, 0.5)
    J = np.eye(n) * 2.0 - np.diag(np.ones(n - 1), 1) - np.diag(np.ones(n - 1), -1)
    e = 0.5 * x @ J @ x + np.sum(coupling * x**4)
    if debug and e > TOL:
        print("energy", e)
    return e
