"""Thirty more everyday idioms, written before any fix and run once as written (holdout 3)."""

import numpy as np
import scipy.stats

WEIGHT = {"a": 1.0, "b": 2.0, "c": 0.5}
KNOTS = np.array([0.0, 1.0, 2.0, 3.0])
T_GRID = np.linspace(0.0, 1.0, 8)


class Model:
    def __init__(self, scale):
        self.scale = scale

    def energy(self, x):
        return self.scale * np.sum(x**2)


def sorted_extremes(x):
    s = sorted(x)
    return s[-1] - s[0] + s[1] * s[-2]


def argsort_rank_weights(x):
    order = np.argsort(x)
    return np.sum(x[order] * np.arange(1, len(x) + 1))


def zip_star_pairs(x):
    pairs = [(x[i], x[i + 1]) for i in range(len(x) - 1)]
    firsts, seconds = zip(*pairs)
    return sum(firsts) * sum(seconds)


def dict_values_sum(p):
    return sum(v**2 for v in p.values()) + sum(WEIGHT[k] * p[k] for k in p)


def object_in_branch(x, mode="soft"):
    if mode == "soft":
        m = Model(0.5)
    else:
        m = Model(2.0)
    return m.energy(x)


def weighted_average(x, w):
    return np.average(x**2, weights=w)


def cov_trace(X):
    return np.trace(np.cov(X, rowvar=False))


def corrcoef_pair(x, y):
    return np.corrcoef(x, y)[0, 1]


def lstsq_coef(A, b):
    coef = np.linalg.lstsq(A, b, rcond=None)[0]
    return np.sum(coef**2)


def qr_logdet(A):
    _, r = np.linalg.qr(A)
    return np.sum(np.log(np.abs(np.diag(r))))


def multi_dot_chain(A, B, x):
    return np.sum(np.linalg.multi_dot([A, B, x]) ** 2)


def matrix_power_sum(A):
    return np.sum(np.linalg.matrix_power(A, 3))


def polyfit_slope(y):
    slope, intercept = np.polyfit(T_GRID, y, 1)
    return slope**2 + intercept


def norm_logpdf_sum(x, mu):
    return np.sum(scipy.stats.norm.logpdf(x, loc=mu, scale=2.0))


def norm_cdf_probit(x):
    return np.sum(np.log(scipy.stats.norm.cdf(x)))


def interp_knots(y):
    return np.sum(np.interp(np.array([0.5, 1.25, 2.9]), KNOTS, y) ** 2)


def cumprod_discount(r):
    factors = np.cumprod(1.0 / (1.0 + r))
    return np.sum(factors)


def second_difference(x):
    return np.sum(np.diff(x, n=2) ** 2) + np.sum(np.diff(x))


def tril_outer(x):
    return np.sum(np.tril(np.outer(x, x), -1))


def triu_mask_pairs(A):
    mask = np.triu(np.ones_like(A), 1)
    return np.sum(mask * A**2)


def raise_with_fstring(x):
    if x.shape[0] < 2:
        raise ValueError(f"need at least 2 values, got {x.shape[0]}")
    return np.sum(x[1:] * x[:-1])


def early_return_in_loop(x):
    total = 0.0
    for v in x:
        if v > 10.0:
            return v
        total += v**2
    return total


def generator_function(x):
    def squares(values):
        for v in values:
            yield v * v

    return sum(squares(x))


def recursion_static_depth(x):
    def power(v, n):
        if n == 0:
            return 1.0
        return v * power(v, n - 1)

    return np.sum(power(x, 4))


def closure_factory(x):
    def make_loss(scale):
        def loss(v):
            return scale * np.sum(v**2)

        return loss

    return make_loss(3.0)(x)


def keyword_only(x, *, alpha=0.5):
    return np.sum(alpha * x**2 + (1.0 - alpha) * np.abs(x))


def star_args_sum(a, b, c):
    def total(*terms):
        return sum(t**2 for t in terms)

    return total(a, b, c)


def triu_indices_pairs(X):
    iu = np.triu_indices(X.shape[0], 1)
    D = X @ X.T
    return np.sum(D[iu] ** 2)


def meshgrid_bump(a, b):
    g = np.linspace(-1.0, 1.0, 5)
    XX, YY = np.meshgrid(g, g)
    return np.sum(np.exp(-((XX - a) ** 2) - (YY - b) ** 2))


def max_with_key(x):
    best = max(range(len(x)), key=lambda i: x[i])
    return x[best] ** 2 + np.sum(x)
