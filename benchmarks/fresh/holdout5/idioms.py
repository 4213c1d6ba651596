"""Thirty more everyday idioms, written before any fix and run once as written (holdout 5)."""

import math
from functools import partial

import numpy as np

TOL = 1e-8
WEIGHTS = np.array([1.0, 2.0, 3.0])
COUNTER = 0


def norm_keepdims_normalize(X):
    return np.sum(X / np.linalg.norm(X, ord=2, axis=1, keepdims=True) * WEIGHTS)


def einsum_ellipsis_trace(A):
    return np.sum(np.einsum("...ii->...", A) ** 2)


def where_scalar_branch(x):
    return np.sum(np.where(x > 0.0, x**2, 0.0))


def clip_array_bounds(x, lo, hi):
    return np.sum(np.clip(x, lo, hi) ** 2)


def maximum_reduce_list(a, b, c):
    return np.sum(np.maximum.reduce([a, b, c]))


def cumprod_survival(h):
    return np.sum(np.cumprod(1.0 - h))


def diff_second_order(x):
    return np.sum(np.diff(x, n=2) ** 2)


def convolve_valid(x, k):
    return np.sum(np.convolve(x, k, mode="valid") ** 2)


def interp_table(t):
    xs = np.linspace(0.0, 1.0, 5)
    return np.sum(np.interp(xs, np.array([0.0, 0.3, 0.7, 1.0]), t))


def searchsorted_piecewise(x):
    knots = np.array([-1.0, 0.0, 1.0])
    slopes = np.array([0.5, 1.0, 2.0, 3.0])
    idx = np.searchsorted(knots, x)
    return np.sum(slopes[idx] * x)


def tile_repeat(x):
    return np.sum(np.tile(x, 3) * np.repeat(x, 3))


def argsort_rank(x, y):
    order = np.argsort(x)
    return np.sum(y[order] * np.arange(1, len(y) + 1))


def unique_counts(x):
    labels = np.array([0, 2, 2, 1, 0, 2])
    groups, counts = np.unique(labels, return_counts=True)
    return sum(np.sum(x[labels == g]) / c for g, c in zip(groups, counts))


def isclose_guard(x):
    n = np.linalg.norm(x)
    if np.isclose(n, 0.0):
        return 0.0
    return np.sum(x) / n


def reshape_minus_one_ravel(x):
    pts = x.reshape(-1, 3)
    return np.sum(pts.T.copy().ravel() * np.arange(x.size))


def newaxis_pairwise(x):
    d = x[:, np.newaxis] - x[np.newaxis, :]
    return np.sum(d**2)


def step_negative_slices(x):
    return np.sum(x[::2] * x[-1::-2]) + x[-2] * x[1]


def chained_comparison(x):
    total = 0.0
    for v in x:
        if -0.5 < v <= 0.5:
            total += v**2
        else:
            total += 0.25 * v
    return total


def lambda_closure(x, s):
    scale = s * 2.0
    f = lambda v: scale * v**2
    return np.sum(f(x))


def default_array_arg(x, w=np.array([0.5, 1.0, 1.5])):  # noqa: B008
    return np.sum(w * x**2)


def functools_partial_call(x):
    def huber(r, delta):
        return np.where(np.abs(r) < delta, 0.5 * r**2, delta * (np.abs(r) - 0.5 * delta))

    h = partial(huber, delta=0.7)
    return np.sum(h(x))


def global_counter_modified(x):
    global COUNTER
    COUNTER += 1
    return np.sum(x**2)


def string_mode_dispatch(x, mode="l2"):
    if mode == "l1":
        return np.sum(np.abs(x))
    if mode == "l2":
        return np.sqrt(np.sum(x**2))
    return np.max(np.abs(x))


def early_return_loop(x):
    acc = 0.0
    for i in range(len(x)):
        acc = acc + x[i] ** 2
        if i == 2:
            return acc
    return acc


def while_tolerance_newton(a):
    y = 1.0
    delta = 1.0
    while abs(delta) > TOL:
        delta = (y * y - a) / (2.0 * y)
        y = y - delta
    return y


def recursive_list_sum(x):
    def rsum(items):
        if not items:
            return 0.0
        return items[0] ** 2 + rsum(items[1:])

    return rsum([x[0], x[1], x[2]])


def math_hypot_copysign(a, b):
    return math.hypot(a, b) + math.copysign(1.0, b) * a


def sqrt_negative_complex(x):
    r = np.sqrt(x.astype(complex) - 1.0)
    return np.sum(np.abs(r) ** 2)


def inf_sentinel_min(x):
    best = float("inf")
    for v in x:
        if v**2 < best:  # noqa: PLR1730
            best = v**2
    return best + np.sum(x[np.isfinite(x)] * 0.0 + x) * 0.1


def class_staticmethod_chain(x):
    class Model:
        @staticmethod
        def act(z):
            return np.tanh(z)

        def forward(self, z):
            return self.act(z) * 2.0

        def loss(self, z):
            return np.sum(self.forward(z) ** 2)

    return Model().loss(x)
