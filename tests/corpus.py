"""The differentiation corpus: plain NumPy functions and the inputs to check them at.

tests/test_corpus.py runs ``yota-s2s`` on this file for every function in
``CASES``, imports the generated module and checks each gradient against
central finite differences of the function itself.  Every function here must
be something the tool supports.
"""

import math
from dataclasses import dataclass

import numpy as np
from numpy import exp as npexp

SCALE = 0.5

# --------------------------------------------------------------------------- seed examples


def foo(x):
    return np.exp(x)


def logistic(x):
    return 1.0 / (1.0 + np.exp(-x))


def logistic_sum(x):
    return np.sum(logistic(x))


def poly8(x):
    return (
        x[3] * x[8] ** 3
        - 3 * x[3] * x[8] * x[6] ** 2
        - x[1] * x[6] ** 3
        + 3 * x[1] * x[6] * x[8] ** 2
        + x[4] * x[5] ** 3
        - 3 * x[4] * x[5] * x[7] ** 2
        - x[2] * x[7] ** 3
        + 3 * x[2] * x[7] * x[5] ** 2
        - 1.2342523
    )


def poly8_batched(x):
    return np.sum(
        x[3] * x[8] ** 3
        - 3 * x[3] * x[8] * x[6] ** 2
        - x[1] * x[6] ** 3
        + 3 * x[1] * x[6] * x[8] ** 2
        + x[4] * x[5] ** 3
        - 3 * x[4] * x[5] * x[7] ** 2
        - x[2] * x[7] ** 3
        + 3 * x[2] * x[7] * x[5] ** 2
        - 1.2342523
    )


def lin4(x):
    return x[0] + 3 * x[1] + 2 * x[2] + 5 * x[3]


def factored(x):
    return lin4(x) ** 4 - lin4(x) ** 2


def factored_batched(x):
    return np.sum(lin4(x) ** 4 - lin4(x) ** 2)


def linear(W, b, x):
    return np.sum(W @ x + b[:, None])


def pd(x):
    m = x.T @ x
    v = np.diag(m)
    return np.sum(v[:, None] + v[None, :] - 2 * m)


def power_both(x, y):
    return np.sum(x**y)


def power_const(x):
    return np.sum(x**2.0)


@dataclass
class Linear:
    W: np.ndarray
    b: np.ndarray


def forward(m, X):
    return m.W @ X


def linear_model(m, X):
    return np.sum(forward(m, X))


def affine_model(m, X):
    return np.sum(np.tanh(m.W @ X + m.b[:, None]))


# --------------------------------------------------------------------------- scalars


def scalar_poly(a, b):
    return a**3 * b - 2.0 * a * b**2 + 7.0


def scalar_trig(t):
    return math.sin(t) * math.cos(2.0 * t) + math.tanh(t)


def scalar_quotient(a, b):
    return (a + b) / (a * b + 1.0)


def scalar_sqrt_log(a):
    return math.sqrt(a) * math.log(a) - np.exp(-a)


def scalar_default(a, scale=2.0):
    return scale * a * a


def scalar_const_default(a, scale=SCALE):
    return scale * np.exp(a)


def scalar_abs(a, b):
    return abs(a - b) * b


def scalar_pow_both(a, b):
    return a**b + b**a


# --------------------------------------------------------------------------- vectors


def vec_dot(x, y):
    return np.dot(x, y)


def vec_matmul(x, y):
    return x @ y


def vec_norm2(x):
    return np.sqrt(np.sum(x * x))


def vec_mean_sq(x):
    return np.mean((x - np.mean(x)) ** 2)


def vec_slices(x):
    return np.sum(x[1:] * x[:-1]) + np.sum(x[::2] ** 2) - x[-1]


def vec_repeated(x):
    e = np.exp(x)
    return np.sum(e * e) + np.sum(np.exp(x))


def vec_helpers(x):
    return np.sum(square(logistic(x)) + logistic(2.0 * x))


def square(v):
    return v * v


def vec_neg_div(x, y):
    return np.sum(-x / (y * y + 1.0))


def vec_aug(x):
    s = np.sum(x)
    s += np.sum(x * x)
    s *= 0.5
    return s


def vec_from_import(x):
    return np.sum(npexp(-x * x))


def vec_abs(x):
    return np.sum(np.abs(x) * x)


def vec_sincos(x):
    return np.sum(np.sin(x) ** 2 + np.cos(x) ** 2 * x)


def vec_tuple_helper(x):
    a, b = split_moments(x)
    return a * b


def split_moments(x):
    return np.mean(x), np.mean(x * x)


def vec_keyword_call(x):
    return np.sum(scale_by(x, factor=3.0)) + np.sum(scale_by(x))


def scale_by(v, factor=2.0):
    return v * factor


# --------------------------------------------------------------------------- matrices


def mat_quadratic(A, x):
    return x @ A @ x


def mat_vec(A, x):
    return np.sum(np.tanh(A @ x))


def mat_frobenius(A):
    return np.sum(A * A)


def mat_trace_like(A, B):
    return np.sum(np.diag(A @ B))


def mat_transpose(A):
    return np.sum(A.T @ A)


def mat_method_sum(A):
    return A.sum(axis=0).dot(A.mean(axis=1)) + A.sum()


def mat_keepdims(A):
    centered = A - np.mean(A, axis=1, keepdims=True)
    return np.sum(centered**2)


def mat_reshape(A):
    v = A.reshape(-1)
    return np.sum(v * np.arange(6.0)) + np.sum(A.reshape(3, 2) @ A)


def mat_diag_vector(v):
    return np.sum(np.diag(v) @ np.diag(v + 1.0))


def mat_rows(A):
    return np.sum(A[0] * A[1]) + np.sum(A[:, 1] ** 2)


def mat_shape_div(A):
    return np.sum(A) / A.shape[0] + np.sum(A) / len(A)


def mlp(W1, b1, W2, b2, X, Y):
    h = np.tanh(X @ W1 + b1)
    z = h @ W2 + b2
    zmax = np.sum(z, axis=1, keepdims=True) / z.shape[1]
    lse = np.log(np.sum(np.exp(z - zmax), axis=1, keepdims=True)) + zmax
    return -np.sum(Y * (z - lse)) / X.shape[0]


def batched_matmul(A, B):
    return np.sum(np.sin(A @ B))


# --------------------------------------------------------------------------- broadcasting


def bcast_row(A, r):
    return np.sum(A * r + r)


def bcast_col(A, c):
    return np.sum((A - c) ** 2 / (c * c + 1.0))


def bcast_scalar(A, s):
    return np.sum(s * A + s**2 / (A * A + 1.0))


def bcast_keep(A, k):
    return np.sum(np.exp(A + k) * k)


def bcast_both(u, v):
    return np.sum(u * v + u / (v * v + 1.0))


# --------------------------------------------------------------------------- constants, unused parameters


def unused_param(x, flag):
    return np.sum(x * x)


def module_constant(x):
    return np.sum(SCALE * x + np.pi * x * x)


def int_param(x, n):
    return np.sum(x * n)


def element_reads(x):
    # one element read as x[2] and x[-1] (which is x[3] here), a row of a 2-D x, and the same
    # element twice: the gradient buffer must add, not overwrite, where writes meet
    return x[3] * x[-1] + x[0] ** 3 + x[-1] * x[0] + x[2] * x[3]


def element_reads_rows(X):
    return np.sum(X[1] * X[0] + X[-1] ** 2 + X[2] * X[1])


# --------------------------------------------------------------------------- inputs per function


def _pos(rng, *shape):
    return rng.uniform(0.5, 2.0, shape)


def _nrm(rng, *shape):
    return rng.standard_normal(shape)


CASES = {
    "foo": lambda r: (0.5,),
    "element_reads": lambda r: (r.standard_normal(4),),
    "element_reads_rows": lambda r: (r.standard_normal((3, 2)),),
    "logistic_sum": lambda r: (_nrm(r, 5),),
    "poly8": lambda r: (r.uniform(-1, 1, 9),),
    "poly8_batched": lambda r: (r.uniform(-1, 1, (9, 4)),),
    "factored": lambda r: (r.uniform(-1, 1, 4),),
    "factored_batched": lambda r: (r.uniform(-1, 1, (4, 3)),),
    "linear": lambda r: (_nrm(r, 3, 4), _nrm(r, 3), _nrm(r, 4, 5)),
    "pd": lambda r: (_nrm(r, 2, 3),),
    "power_both": lambda r: (_pos(r, 2, 3), _nrm(r, 2, 3)),
    "power_const": lambda r: (_nrm(r, 4),),
    "linear_model": lambda r: (Linear(_nrm(r, 3, 4), _nrm(r, 3)), _nrm(r, 4, 5)),
    "affine_model": lambda r: (Linear(_nrm(r, 3, 4), _nrm(r, 3)), _nrm(r, 4, 5)),
    "scalar_poly": lambda r: (0.7, -1.3),
    "scalar_trig": lambda r: (0.4,),
    "scalar_quotient": lambda r: (0.8, 1.7),
    "scalar_sqrt_log": lambda r: (1.6,),
    "scalar_default": lambda r: (1.5,),
    "scalar_const_default": lambda r: (0.3,),
    "scalar_abs": lambda r: (0.3, 1.2),
    "scalar_pow_both": lambda r: (1.3, 0.7),
    "vec_dot": lambda r: (_nrm(r, 4), _nrm(r, 4)),
    "vec_matmul": lambda r: (_nrm(r, 4), _nrm(r, 4)),
    "vec_norm2": lambda r: (_nrm(r, 5),),
    "vec_mean_sq": lambda r: (_nrm(r, 6),),
    "vec_slices": lambda r: (_nrm(r, 7),),
    "vec_repeated": lambda r: (_nrm(r, 3),),
    "vec_helpers": lambda r: (_nrm(r, 4),),
    "vec_neg_div": lambda r: (_nrm(r, 3), _nrm(r, 3)),
    "vec_aug": lambda r: (_nrm(r, 3),),
    "vec_from_import": lambda r: (_nrm(r, 3),),
    "vec_abs": lambda r: (_nrm(r, 5) + np.sign(_nrm(r, 5)) * 0.5,),
    "vec_sincos": lambda r: (_nrm(r, 4),),
    "vec_tuple_helper": lambda r: (_nrm(r, 5),),
    "vec_keyword_call": lambda r: (_nrm(r, 3),),
    "mat_quadratic": lambda r: (_nrm(r, 3, 3), _nrm(r, 3)),
    "mat_vec": lambda r: (_nrm(r, 2, 3), _nrm(r, 3)),
    "mat_frobenius": lambda r: (_nrm(r, 2, 3),),
    "mat_trace_like": lambda r: (_nrm(r, 3, 2), _nrm(r, 2, 3)),
    "mat_transpose": lambda r: (_nrm(r, 3, 2),),
    "mat_method_sum": lambda r: (_nrm(r, 3, 3),),
    "mat_keepdims": lambda r: (_nrm(r, 2, 3),),
    "mat_reshape": lambda r: (_nrm(r, 2, 3),),
    "mat_diag_vector": lambda r: (_nrm(r, 3),),
    "mat_rows": lambda r: (_nrm(r, 2, 3),),
    "mat_shape_div": lambda r: (_nrm(r, 2, 3),),
    "mlp": lambda r: (
        _nrm(r, 5, 4) / 2,
        _nrm(r, 4) / 10,
        _nrm(r, 4, 3) / 2,
        _nrm(r, 3) / 10,
        _nrm(r, 6, 5),
        np.eye(3)[r.integers(0, 3, 6)],
    ),
    "batched_matmul": lambda r: (_nrm(r, 2, 3, 4), _nrm(r, 4, 2)),
    "bcast_row": lambda r: (_nrm(r, 2, 3), _nrm(r, 3)),
    "bcast_col": lambda r: (_nrm(r, 2, 3), _nrm(r, 2, 1)),
    "bcast_scalar": lambda r: (_nrm(r, 2, 3), 0.7),
    "bcast_keep": lambda r: (_nrm(r, 2, 3), _nrm(r, 1, 3)),
    "bcast_both": lambda r: (_nrm(r, 2, 1), _nrm(r, 1, 3)),
    "unused_param": lambda r: (_nrm(r, 3), True),
    "module_constant": lambda r: (_nrm(r, 3),),
    "int_param": lambda r: (_nrm(r, 3), 3),
}

#: parameters that are not differentiated (no float input): their gradient must be None
NONDIFF = {"unused_param": {"flag"}}
