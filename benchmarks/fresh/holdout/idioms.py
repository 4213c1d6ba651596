"""Twenty more everyday idioms, written after the fixes and run once (the holdout)."""

import math

import numpy as np

WEIGHTS = {"a": 1.0, "b": 2.5}


def top_k_sum(x, k=3):
    return np.sum(np.sort(x)[::-1][:k])


def pick_argmax(x):
    return x[np.argmax(x)] ** 2 + np.sum(x)


def median_abs(x):
    return np.median(np.abs(x - np.median(x)))


def det_trace(A):
    return np.linalg.det(A) + np.trace(A @ A)


def cumprod_last(x):
    return np.cumprod(1.0 + 0.1 * x)[-1]


def gram_diag(X):
    return np.sum(np.diag(X.T @ X))


def closure_scale(x, s):
    def scaled(v):
        return s * v**2

    return np.sum(scaled(x))


def map_lambda(x):
    return sum(map(lambda v: v * v, x))


def list_slices(x):
    lst = list(x)
    return sum(lst[1:]) * lst[0]


def weighted_arrays(xs, ws):
    return sum(w * np.sum(a**2) for a, w in zip(xs, ws))


def hypot_angle(x, y):
    return np.sum(np.hypot(x, y) + np.arctan2(y, x))


def float_then_math(x):
    s = float(np.sum(x**2))
    return math.exp(-s) + s


def isinstance_branch(x, scale=1.0):
    if isinstance(scale, (int, float)):
        return scale * np.sum(x**2)
    return np.sum(scale * x**2)


def dict_comprehension(p):
    doubled = {k: 2.0 * v for k, v in p.items()}
    return sum(doubled[k] ** 2 for k in doubled)


def star_unpack(x):
    first, *rest = x
    return first**2 + sum(rest)


def where_two_arrays(x, y):
    return np.sum(np.where(x > y, x - y, 0.5 * (y - x) ** 2))


def l1_norm(x):
    return np.linalg.norm(x, ord=1) + np.linalg.norm(x) ** 2


def kron_sum(a, b):
    return np.sum(np.kron(a, b) ** 2)


def inner_tensordot(A, B):
    return np.tensordot(A, B, axes=2) + np.inner(A[0], B[0])


def module_dict_weights(x):
    return WEIGHTS["a"] * np.sum(x) + WEIGHTS["b"] * np.sum(x**2)
