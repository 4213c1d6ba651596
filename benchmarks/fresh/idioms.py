"""Everyday idioms, one small function each (yota-s2s is run on each with --func)."""

import math

import numpy as np

SCALES = [0.5, 1.0, 2.0]
TABLE = {}
for i, s in enumerate(SCALES):
    TABLE[f"s{i}"] = s


def sum_of_squares_loop(x):
    total = 0.0
    for v in x:
        total += v * v
    return total


def mean_with_len(x):
    return sum(x) / len(x)


def dot_by_zip(w, x):
    return sum(a * b for a, b in zip(w, x))


def enumerate_weights(x):
    s = 0.0
    for i, v in enumerate(x):
        s += (i + 1) * v**2
    return s


def clip_and_sum(x):
    return np.sum(np.clip(x, -1.0, 1.0) ** 2)


def where_relu(x):
    return np.sum(np.where(x > 0, x, 0.01 * x))


def normalise(x):
    return np.sum((x / np.linalg.norm(x)) * np.arange(len(x)))


def softplus_sum(x):
    return np.sum(np.log1p(np.exp(-np.abs(x))) + np.maximum(x, 0))


def logsumexp_stable(x):
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m)))


def mse(pred, target):
    return np.mean((pred - target) ** 2)


def zeros_dtype_float(x):
    out = np.zeros(len(x), dtype=float)
    for i in range(len(x)):
        out[i] = x[i] ** 2
    return out.sum()


def ones_bool_mask(x):
    mask = np.ones(len(x), dtype=bool)
    mask[0] = False
    return np.sum(x[mask] ** 2)


def array_dtype_float(a, b):
    v = np.array([a, b, a * b], dtype=float)
    return v @ v


def stack_appended_rows(W, x):
    rows = []
    for k in range(3):
        rows.append(np.tanh(W[k] * x))
    return np.sum(np.stack(rows) ** 2)


def list_comprehension_sum(x):
    return sum([math.sin(v) for v in x])


def generator_of_logs(x):
    return sum(math.log(v) for v in x)


def math_on_scalars(a, b):
    return math.exp(-a) * math.cos(b) + math.sqrt(a * a + b * b) + math.atan2(a, b)


def dict_of_params(p, x):
    return np.sum(p["w"] * x) + p["b"] ** 2


def kwargs_defaults(x, scale=2.0, power=3):
    return np.sum((scale * x) ** power)


def tuple_unpack_return(x):
    def moments(v):
        return np.mean(v), np.var(v)

    m, s2 = moments(x)
    return m**2 + s2


def shape_driven(X):
    n, d = X.shape
    return np.sum(X**2) / (n * d)


def cumsum_diff(x):
    c = np.cumsum(x)
    return np.sum(np.diff(c) ** 2) + c[-1]


def outer_product(u, v):
    return np.sum(np.outer(u, v) ** 2)


def matrix_solve(A, b):
    return np.sum(np.linalg.solve(A + 5.0 * np.eye(len(b)), b))


def trace_inverse(A):
    return np.trace(np.linalg.inv(A @ A.T + np.eye(A.shape[0])))


def einsum_bilinear(x, M, y):
    return np.einsum("i,ij,j->", x, M, y)


def fancy_index(x, idx):
    return np.sum(x[idx] ** 2)


def boolean_select(x):
    return np.sum(x[x > 0.0])


def while_converge(a):
    x = 1.0
    it = 0
    while abs(x * x - a) > 1e-12 and it < 50:
        x = 0.5 * (x + a / x)
        it += 1
    return x


def if_else_branch(x, mode="l2"):
    if mode == "l1":
        return np.sum(np.abs(x))
    elif mode == "l2":
        return np.sum(x**2)
    else:
        raise ValueError(f"unknown mode {mode}")


def module_table(x):
    return sum(TABLE[k] * np.sum(x**2) for k in TABLE)


def range_len_loop(x):
    s = 0.0
    for i in range(len(x) - 1):
        s = s + (x[i + 1] - x[i]) ** 2
    return s


def reshape_mean(x):
    return np.sum(x.reshape(2, -1).mean(axis=1) ** 2)


def concatenate_parts(a, b):
    return np.sum(np.concatenate([a, 2 * b, a[:1]]) ** 2)


def polyval_fit(c, t):
    return np.sum(np.polyval(c, t) ** 2)


def erf_cdf(x):
    return sum(0.5 * (1 + math.erf(v / math.sqrt(2))) for v in x)


def lgamma_loglik(alpha, x):
    n = len(x)
    return n * (math.lgamma(alpha) - alpha * math.log(2.0)) - (alpha - 1) * np.sum(np.log(x)) + np.sum(x) / 2


def arange_dtype(x):
    k = np.arange(len(x), dtype=float)
    return np.sum(x * k**2)


def full_and_eye(x):
    n = len(x)
    M = np.full((n, n), 0.1) + np.eye(n, dtype=float)
    return x @ M @ x


def seeded_random_features(x):
    rng = np.random.default_rng(0)
    omega = rng.normal(size=(4, len(x)))
    return np.sum(np.cos(omega @ x))
