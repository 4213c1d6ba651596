"""Forty more everyday idioms, written before any fix and run once as written (holdout 4)."""

import itertools
import math
from dataclasses import dataclass
from functools import reduce
from typing import NamedTuple

import numpy as np
import scipy.special

SCALE = {"w": 2.0, "b": 0.5}
GRID = np.linspace(0.0, 1.0, 21)


class Config(NamedTuple):
    steps: int
    rate: float


CFG = Config(steps=3, rate=0.4)


@dataclass
class Spring:
    k: float = 2.0
    rest: float = 1.0

    @property
    def half_k(self) -> float:
        return 0.5 * self.k

    def energy(self, length):
        return self.half_k * (length - self.rest) ** 2


def dict_param_items(p):
    return sum(SCALE[name] * value**2 for name, value in p.items())


def dict_param_values_arrays(p):
    total = 0.0
    for v in p.values():
        total = total + np.sum(v**2)
    return total


def max_key_lambda(a, b, c):
    vecs = [a, b, c]
    biggest = max(vecs, key=lambda v: np.sum(v**2))
    return np.sum(biggest) + np.sum(a * c)


def min_max_of_list(x, y):
    candidates = [x @ x, y @ y, np.sum(x * y) + 3.0]
    return min(candidates) + 0.5 * max(candidates)


def reduce_matmul(A, B, C):
    return np.sum(reduce(np.matmul, [A, B, C]))


def itertools_combinations(x):
    total = 0.0
    for i, j in itertools.combinations(range(len(x)), 2):
        total += (x[i] - x[j]) ** 2
    return total


def itertools_product(x, y):
    return sum(x[i] * y[j] * (i + 1) for i, j in itertools.product(range(len(x)), range(len(y))))


def math_fsum(x):
    return math.fsum([x[0] ** 2, x[1] * x[2], 0.5])


def assert_fstring(x):
    assert x.ndim == 1, f"expected a vector, got shape {x.shape}"
    assert len(x) >= 2, f"need two entries, got {len(x)}"
    return np.sum(np.sin(x))


def try_except_pure(x):
    try:
        scale = 1.0 / len(x)
    except ZeroDivisionError:
        scale = 0.0
    return scale * np.sum(x**2)


def walrus_len(x):
    if (n := len(x)) > 3:
        return np.sum(x[: n // 2] ** 2)
    return np.sum(x)


def match_mode(x, mode="l2"):
    match mode:
        case "l1":
            return np.sum(np.abs(x))
        case "l2":
            return np.sum(x**2)
        case _:
            return np.max(x)


def annotated_everything(x: np.ndarray, scale: float = 2.0) -> float:
    shifted: np.ndarray = x - np.mean(x)
    total: float = 0.0
    for v in shifted:
        total += scale * v**2
    return total


def float64_cast(x):
    s = np.float64(x[0]) + np.float64(2.0)
    return s * np.sum(x) + np.float64(x[1]) ** 2


def quadratic_form_T(x, A):
    return x.T @ A @ x


def slogdet_gauss(A):
    M = A @ A.T + 2.0 * np.eye(A.shape[0])
    sign, logdet = np.linalg.slogdet(M)
    return sign * logdet


def norm_axis_rows(X):
    return np.sum(np.linalg.norm(X, axis=1))


def norm_ord_variants(x):
    return np.linalg.norm(x, ord=1) + np.linalg.norm(x, 2) + np.linalg.norm(x, ord=np.inf)


def einsum_batched(A, x):
    y = np.einsum("bij,bj->bi", A, x)
    return np.einsum("bi,bi->", y, y)


def mask_assign_zero(x):
    y = x.copy()
    y[y < 0] = 0.0
    return np.sum(y**2)


def trapezoid_grid(a, b):
    f = np.exp(-a * GRID) * np.sin(b * GRID)
    return np.trapezoid(f, GRID)


def convolve_same(x):
    kernel = np.array([0.25, 0.5, 0.25])
    return np.sum(np.convolve(x, kernel, mode="same") ** 2)


def fft_power(x):
    spectrum = np.fft.rfft(x)
    return np.sum(np.abs(spectrum) ** 2) / len(x)


def cross_product(a, b):
    c = np.cross(a, b)
    return c @ c


def arctan2_wrap(theta, target):
    d = np.arctan2(np.sin(theta - target), np.cos(theta - target))
    return np.sum(d**2)


def rotation_matrix(theta, v):
    c, s = np.cos(theta), np.sin(theta)
    R = np.array([[c, -s], [s, c]])
    return np.sum((R @ v) * np.array([1.0, 2.0]))


def hinge_mean(w, X):
    y = np.array([1.0, -1.0, 1.0, -1.0, 1.0])
    return np.mean(np.maximum(0.0, 1.0 - y * (X @ w)))


def focal_loss(logits):
    p = 1.0 / (1.0 + np.exp(-logits))
    y = np.array([1.0, 0.0, 1.0, 1.0])
    pt = np.where(y == 1.0, p, 1.0 - p)
    return -np.sum((1.0 - pt) ** 2 * np.log(np.clip(pt, 1e-7, 1.0)))


def label_smoothing_ce(logits):
    labels = np.array([0, 2, 1])
    k = logits.shape[1]
    target = np.full((3, k), 0.1 / (k - 1))
    target[np.arange(3), labels] = 0.9
    logp = logits - scipy.special.logsumexp(logits, axis=1, keepdims=True)
    return -np.sum(target * logp) / 3


def select_piecewise(x):
    y = np.select([x < -1.0, x < 1.0], [-(x**2), x**3], default=2.0 * x)
    return np.sum(y)


def roll_periodic(u):
    lap = np.roll(u, 1) - 2.0 * u + np.roll(u, -1)
    return np.sum(lap**2)


def gradient_fd(u):
    du = np.gradient(u, 0.1)
    return np.sum(du**2)


def logaddexp_pair(a, b):
    return np.sum(np.logaddexp(a, b))


def block_matrix(A, B):
    M = np.block([[A, B], [B.T, np.eye(2)]])
    return np.sum(M @ M)


def pad_edges(u):
    padded = np.pad(u, 1, mode="edge")
    return np.sum((padded[2:] - padded[:-2]) ** 2)


def fill_diagonal(x):
    K = np.exp(-((x[:, None] - x[None, :]) ** 2))
    np.fill_diagonal(K, 0.0)
    return np.sum(K)


def astype_flip(x):
    y = np.flip(x.astype(np.float64))
    return np.sum(y * np.arange(len(x)))


def namedtuple_config(x):
    for _ in range(CFG.steps):
        x = x - CFG.rate * np.tanh(x)
    return np.sum(x**2)


def enumerate_zip_start(x, y):
    total = 0.0
    for i, (a, b) in enumerate(zip(x, y), start=1):
        total += a * b / i
    return total


def dataclass_property(lengths):
    spring = Spring(k=3.0)
    return sum(spring.energy(l) for l in lengths)
