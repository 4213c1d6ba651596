"""Thirty more everyday idioms, written before any fix and run once as written (holdout 2)."""

import functools
import math
from dataclasses import dataclass

import numpy as np

TABLE = {"low": 0.5, "mid": 1.0, "high": 2.0}


@dataclass
class Params:
    scale: float = 2.0
    shift: float = 0.5


def col_mean_keepdims(X):
    centered = X - X.mean(axis=0, keepdims=True)
    return np.sum(centered**2)


def row_max_softmax(X):
    e = np.exp(X - X.max(axis=1, keepdims=True))
    p = e / e.sum(axis=1, keepdims=True)
    return np.sum(p[:, 0])


def clip_maximum_chain(x):
    y = np.maximum(x, 0.0)
    y = np.clip(y, 0.1, 1.5)
    return np.sum(np.where(x > 1.0, y * x, y))


def variance_by_hand(x):
    m = sum(x) / len(x)
    return sum((v - m) ** 2 for v in x) / (len(x) - 1)


def star_head_tail(x):
    head, *tail = x
    return head * sum(tail)


def enumerate_zip(x, y):
    total = 0.0
    for i, (a, b) in enumerate(zip(x, y)):
        total += (i + 1) * a * b
    return total


def dict_items_loop(p):
    total = 0.0
    for name, value in p.items():
        total += TABLE[name] * value**2
    return total


def table_lookup(x, level="mid"):
    return TABLE[level] * np.sum(x**2)


def math_specials(a):
    return math.tanh(a) + math.atan(a) + math.log1p(a * a) + math.erf(a)


def np_specials(x):
    return np.sum(np.log1p(x**2) + np.expm1(0.1 * x) + np.arcsinh(x) + np.sinc(x))


def integer_powers(x):
    return np.sum(x**3 - 2 * x**2 + x ** (-2))


def horner_loop(c, t):
    acc = np.zeros_like(t)
    for coef in c:
        acc = acc * t + coef
    return np.sum(acc**2)


def polyval_coeffs(c):
    return np.polyval(c, 0.7) + np.polyval(c, -1.3)


def boolean_mask_mean(x):
    mask = x > 0
    return np.sum(x[mask] ** 2) / max(np.count_nonzero(mask), 1)


def solve_norm(A, b):
    return np.linalg.norm(np.linalg.solve(A, b))


def inv_det(A):
    return np.sum(np.linalg.inv(A)) + np.log(abs(np.linalg.det(A)))


def einsum_trace(A, B):
    return np.einsum("ij,ji->", A, B) + np.einsum("ii", A)


def newaxis_pairwise(x):
    d = x[:, None] - x[None, :]
    return np.sum(np.exp(-(d**2)))


def early_return(x, cap=5.0):
    s = np.sum(x**2)
    if s > cap:
        return cap + np.log(s - cap + 1.0)
    return s


def while_newton_sqrt(a):
    y = a
    it = 0
    while it < 20:
        y = 0.5 * (y + a / y)
        it += 1
    return y


class Quadratic:
    def __init__(self, A):
        self.A = A

    def value(self, x):
        return 0.5 * x @ self.A @ x


def small_class(x):
    q = Quadratic(np.array([[2.0, 0.5], [0.5, 1.0]]))
    return q.value(x)


def reduce_product(x):
    return functools.reduce(lambda a, b: a * b, x, 1.0)


def matvec_at(W, x):
    return x @ W @ x + np.sum(W @ x)


def std_axis(X):
    return np.sum(np.std(X, axis=0)) + np.var(X)


def median_of_array(x):
    return np.median(x**2) + np.mean(x)


def percentile_spread(x):
    return np.percentile(x, 90) - np.percentile(x, 10)


def list_of_runtime_length(x):
    values = list(x)
    return values[0] * values[-1] + len(values)


def sum_axis_tuple(T):
    return np.sum(np.sum(T, axis=(1, 2)) ** 2)


def prod_and_cumsum(x):
    return np.prod(1.0 + 0.1 * x) + np.cumsum(x)[-1] ** 2


def dataclass_params(x):
    p = Params()
    return np.sum((p.scale * x + p.shift) ** 2)
