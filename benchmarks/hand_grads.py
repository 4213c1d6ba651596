"""Hand-written gradients of the workloads: the references every peer is checked and timed against.

Input: the workload's arguments.  Output: a tuple with one gradient per ``Workload.wrt``
entry, in order (never the loss value).  Two flavours per (workload, size) in ``HAND``:

``hand``
    the practical limit: the fastest gradient a careful person writes in NumPy, with
    algebraic shortcuts (``sum(W @ x)`` needs no matmul), Python floats for scalar code,
    in-place and ``out=`` operations.
``hand_mech``
    a careful *mechanical* adjoint: what a perfect reverse-mode source transformer could
    emit.  The forward's data representation and operations (``np.float64`` scalars from
    ``x[i]``, fresh arrays, matmuls stay matmuls), with common subexpressions shared and
    constants folded but no algebraic identities.  ``None`` where it would be ``hand``.

``FWD_NOPOW`` holds forwards rewritten without ``**`` (NumPy's array ``x ** 3`` calls libm
``pow``, about 100x slower than ``x * x * x``; only ``** 2`` has a fast path), to show how
much of a plain forward is ``pow``.

>>> import numpy as np
>>> hand, mech = HAND["logistic", "small"]
>>> x = np.array([0.0, 1.0])
>>> np.allclose(hand(x)[0], mech(x)[0]) and round(float(hand(x)[0][0]), 6)
0.25
"""

from __future__ import annotations

import numpy as np

# --------------------------------------------------------------------------------- poly8
# f = x3 x8^3 - 3 x3 x8 x6^2 - x1 x6^3 + 3 x1 x6 x8^2 + x4 x5^3 - 3 x4 x5 x7^2 - x2 x7^3 + 3 x2 x7 x5^2 - c
#   df/dx1 = x6 (3 x8^2 - x6^2)            df/dx2 = x7 (3 x5^2 - x7^2)
#   df/dx3 = x8 (x8^2 - 3 x6^2)            df/dx4 = x5 (x5^2 - 3 x7^2)
#   df/dx5 = 3 x4 (x5^2 - x7^2) + 6 x2 x5 x7
#   df/dx6 = 3 x1 (x8^2 - x6^2) - 6 x3 x6 x8
#   df/dx7 = 3 x2 (x5^2 - x7^2) - 6 x4 x5 x7
#   df/dx8 = 3 x3 (x8^2 - x6^2) + 6 x1 x6 x8      df/dx0 = 0


def _poly8_partials(x1, x2, x3, x4, x5, x6, x7, x8):
    x5s, x6s, x7s, x8s = x5 * x5, x6 * x6, x7 * x7, x8 * x8
    d57 = x5s - x7s
    d86 = x8s - x6s
    return (
        x6 * (3 * x8s - x6s),
        x7 * (3 * x5s - x7s),
        x8 * (x8s - 3 * x6s),
        x5 * (x5s - 3 * x7s),
        3 * x4 * d57 + 6 * x2 * x5 * x7,
        3 * x1 * d86 - 6 * x3 * x6 * x8,
        3 * x2 * d57 - 6 * x4 * x5 * x7,
        3 * x3 * d86 + 6 * x1 * x6 * x8,
    )


def poly8_small(x):
    _, *rest = x.tolist()  # Python floats: no NumPy scalar overhead
    return (np.array((0.0, *_poly8_partials(*rest))),)


def poly8_small_mech(x):
    return (np.array((0.0, *_poly8_partials(x[1], x[2], x[3], x[4], x[5], x[6], x[7], x[8]))),)


def poly8_large(x):
    # every row written in place, products shared between rows
    x1, x2, x3, x4, x5, x6, x7, x8 = x[1:]
    x5s, x6s, x7s, x8s = x5 * x5, x6 * x6, x7 * x7, x8 * x8
    d57 = x5s - x7s
    d86 = x8s - x6s
    x57 = x5 * x7
    x68 = x6 * x8
    g = np.empty_like(x)
    g[0] = 0.0
    np.multiply(x6, 3 * x8s - x6s, out=g[1])
    np.multiply(x7, 3 * x5s - x7s, out=g[2])
    np.multiply(x8, x8s - 3 * x6s, out=g[3])
    np.multiply(x5, x5s - 3 * x7s, out=g[4])
    np.add(3 * x4 * d57, 6 * x2 * x57, out=g[5])
    np.subtract(3 * x1 * d86, 6 * x3 * x68, out=g[6])
    np.subtract(3 * x2 * d57, 6 * x4 * x57, out=g[7])
    np.add(3 * x3 * d86, 6 * x1 * x68, out=g[8])
    return (g,)


def poly8_large_mech(x):
    g = np.empty_like(x)
    g[0] = 0.0
    g[1:] = np.array(_poly8_partials(x[1], x[2], x[3], x[4], x[5], x[6], x[7], x[8]))
    return (g,)


# ------------------------------------------------------------------------------ factored
# g = l^4 - l^2 with l = x0 + 3 x1 + 2 x2 + 5 x3, so dg/dx = (4 l^3 - 2 l) (1, 3, 2, 5).

_LIN4 = np.array([1.0, 3.0, 2.0, 5.0])


def factored_small(x):
    x0, x1, x2, x3 = x.tolist()
    lin = x0 + 3 * x1 + 2 * x2 + 5 * x3
    dlin = lin * (4 * lin * lin - 2)
    return (np.array((dlin, 3 * dlin, 2 * dlin, 5 * dlin)),)


def factored_small_mech(x):
    lin = x[0] + 3 * x[1] + 2 * x[2] + 5 * x[3]
    dlin = 4 * lin**3 - 2 * lin
    return (np.array((dlin, 3 * dlin, 2 * dlin, 5 * dlin)),)


def factored_large(x):
    lin = x[0] + 3 * x[1] + 2 * x[2] + 5 * x[3]
    dlin = lin * (4 * lin * lin - 2)
    return (np.multiply(_LIN4[:, None], dlin),)


def factored_large_mech(x):
    lin = x[0] + 3 * x[1] + 2 * x[2] + 5 * x[3]
    dlin = 4 * lin**3 - 2 * lin
    g = np.empty_like(x)
    g[0] = dlin
    g[1] = 3 * dlin
    g[2] = 2 * dlin
    g[3] = 5 * dlin
    return (g,)


# ------------------------------------------------------------------------------ katsura8
# L = sum_m e_m^2, dL/du_i = sum_m 2 e_m de_m/du_i.  Each e_m (m < 7) is 2 (a bilinear form)
# plus or minus a linear term, so with q_m = 2 e_m and p_m = 4 e_m the partials are sums of
# p_m times neighbouring unknowns, minus q_i for the -u_i term; e7 adds 2 e7 (u0) or 4 e7.


def _katsura8_partials(u0, u1, u2, u3, u4, u5, u6, u7):
    e0 = u0 * u0 - u0 + 2 * (u1 * u1 + u2 * u2 + u3 * u3 + u4 * u4 + u5 * u5 + u6 * u6 + u7 * u7)
    e1 = 2 * (u0 * u1 + u1 * u2 + u2 * u3 + u3 * u4 + u4 * u5 + u5 * u6 + u6 * u7) - u1
    e2 = 2 * (u0 * u2 + u1 * u3 + u2 * u4 + u3 * u5 + u4 * u6 + u5 * u7) + u1 * u1 - u2
    e3 = 2 * (u0 * u3 + u1 * u2 + u1 * u4 + u2 * u5 + u3 * u6 + u4 * u7) - u3
    e4 = 2 * (u0 * u4 + u1 * u3 + u1 * u5 + u2 * u6 + u3 * u7) + u2 * u2 - u4
    e5 = 2 * (u0 * u5 + u1 * u4 + u1 * u6 + u2 * u3 + u2 * u7) - u5
    e6 = 2 * (u0 * u6 + u1 * u5 + u1 * u7 + u2 * u4) + u3 * u3 - u6
    e7 = u0 + 2 * (u1 + u2 + u3 + u4 + u5 + u6 + u7) - 1
    q0, q1, q2, q3, q4, q5, q6 = 2 * e0, 2 * e1, 2 * e2, 2 * e3, 2 * e4, 2 * e5, 2 * e6
    p0, p1, p2, p3, p4, p5, p6 = 2 * q0, 2 * q1, 2 * q2, 2 * q3, 2 * q4, 2 * q5, 2 * q6
    f7 = 2 * e7
    h7 = 2 * f7
    P0 = 2 * p0
    return (
        p0 * u0 - q0 + p1 * u1 + p2 * u2 + p3 * u3 + p4 * u4 + p5 * u5 + p6 * u6 + f7,
        P0 * u1 + p1 * (u0 + u2) - q1 + p2 * (u1 + u3) + p3 * (u2 + u4) + p4 * (u3 + u5)
        + p5 * (u4 + u6) + p6 * (u5 + u7) + h7,
        P0 * u2 + p1 * (u1 + u3) + p2 * (u0 + u4) - q2 + p3 * (u1 + u5) + p4 * (u2 + u6)
        + p5 * (u3 + u7) + p6 * u4 + h7,
        P0 * u3 + p1 * (u2 + u4) + p2 * (u1 + u5) + p3 * (u0 + u6) - q3 + p4 * (u1 + u7)
        + p5 * u2 + p6 * u3 + h7,
        P0 * u4 + p1 * (u3 + u5) + p2 * (u2 + u6) + p3 * (u1 + u7) + p4 * u0 - q4 + p5 * u1 + p6 * u2 + h7,
        P0 * u5 + p1 * (u4 + u6) + p2 * (u3 + u7) + p3 * u2 + p4 * u1 + p5 * u0 - q5 + p6 * u1 + h7,
        P0 * u6 + p1 * (u5 + u7) + p2 * u4 + p3 * u3 + p4 * u2 + p5 * u1 + p6 * u0 - q6 + h7,
        P0 * u7 + p1 * u6 + p2 * u5 + p3 * u4 + p4 * u3 + p5 * u2 + p6 * u1 + h7,
    )  # fmt: skip


def katsura8_small(x):
    return (np.array(_katsura8_partials(*x.tolist())),)


def katsura8_small_mech(x):
    return (np.array(_katsura8_partials(x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7])),)


def katsura8_large(x):
    g = np.empty_like(x)
    for i, gi in enumerate(_katsura8_partials(x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7])):
        g[i] = gi
    return (g,)


# ------------------------------------------------------------------------------ logistic
# d/dx sum(s(x)) = s (1 - s) with s the sigmoid.


def logistic_hand(x):
    t = np.negative(x)
    np.exp(t, out=t)
    t += 1.0
    np.reciprocal(t, out=t)  # t = s
    g = t * t
    np.subtract(t, g, out=g)  # s - s^2
    return (g,)


def logistic_mech(x):
    s = 1.0 / (1.0 + np.exp(-x))
    return (s * (1.0 - s),)


# -------------------------------------------------------------------------------- linear
# L = sum(W x + b 1'):  dW = 1 1' x' (every row is x.sum(1)), db = N 1, dx = W' 1 1'
# (every column is W.sum(0)).


def linear_hand(W, b, x):
    dW = np.empty_like(W)
    dW[...] = x.sum(axis=1)
    db = np.full(b.shape, float(x.shape[1]))
    dx = np.empty_like(x)
    dx[...] = W.sum(axis=0)[:, None]
    return (dW, db, dx)


def linear_mech(W, b, x):
    G = np.ones((W.shape[0], x.shape[1]))  # d sum / d(W @ x + b)
    return (G @ x.T, G.sum(axis=1), W.T @ G)


# ------------------------------------------------------------------------------------ pd
# L = sum_ij (v_i + v_j - 2 m_ij) = 2n sum(x^2) - 2 sum_i (sum_j x_ij)^2 with n columns,
# so dL/dx = 4n x - 4 rowsum(x) 1'.


def pd_hand(x):
    g = x * (4.0 * x.shape[1])
    g -= (4.0 * x.sum(axis=1))[:, None]
    return (g,)


def pd_mech(x):
    n = x.shape[1]
    G = np.ones((n, n))  # d sum / d(v_i + v_j - 2 m_ij)
    dv = G.sum(axis=1) + G.sum(axis=0)
    dm = -2.0 * G + np.diag(dv)
    return (x @ (dm + dm.T),)


# ----------------------------------------------------------------------------------- mlp


def mlp_hand(W1, b1, W2, b2, X, Y):
    B = X.shape[0]
    h = X @ W1
    h += b1
    np.tanh(h, out=h)
    z = h @ W2
    z += b2
    z -= z.max(axis=1, keepdims=True)
    p = np.exp(z)
    s = p.sum(axis=1, keepdims=True)
    logp = z - np.log(s)
    p /= s  # softmax
    dz = (p * Y.sum(axis=1, keepdims=True) - Y) / B
    dY = logp * (-1.0 / B)
    dW2 = h.T @ dz
    db2 = dz.sum(axis=0)
    da = dz @ W2.T
    da *= 1.0 - h * h  # tanh'
    dW1 = X.T @ da
    db1 = da.sum(axis=0)
    dX = da @ W1.T
    return (dW1, db1, dW2, db2, dX, dY)


# ----------------------------------------------------------------------------- iterative


def iterative_hand(x, n):
    return (np.full_like(x, 2.0**n),)


def iterative_mech(x, n):
    g = np.ones_like(x)
    for _ in range(n):
        g = 2 * g
    return (g,)


# ------------------------------------------------------------------------------ registry

#: (workload, size) -> (hand, hand_mech or None)
HAND = {
    ("poly8", "small"): (poly8_small, poly8_small_mech),
    ("poly8", "large"): (poly8_large, poly8_large_mech),
    ("factored", "small"): (factored_small, factored_small_mech),
    ("factored", "large"): (factored_large, factored_large_mech),
    ("katsura8", "small"): (katsura8_small, katsura8_small_mech),
    ("katsura8", "large"): (katsura8_large, None),
    ("logistic", "small"): (logistic_hand, logistic_mech),
    ("logistic", "large"): (logistic_hand, logistic_mech),
    ("linear", "small"): (linear_hand, linear_mech),
    ("linear", "large"): (linear_hand, linear_mech),
    ("pd", "small"): (pd_hand, pd_mech),
    ("pd", "large"): (pd_hand, pd_mech),
    ("mlp", "small"): (mlp_hand, None),
    ("mlp", "large"): (mlp_hand, None),
    ("iterative", "small"): (iterative_hand, iterative_mech),
    ("iterative", "large"): (iterative_hand, iterative_mech),
}


# ------------------------------------------------------------------- pow-free forwards


def poly8_batched_nopow(x):
    x1, x2, x3, x4, x5, x6, x7, x8 = x[1:]
    x5s, x6s, x7s, x8s = x5 * x5, x6 * x6, x7 * x7, x8 * x8
    return np.sum(
        x3 * x8s * x8
        - 3 * x3 * x8 * x6s
        - x1 * x6s * x6
        + 3 * x1 * x6 * x8s
        + x4 * x5s * x5
        - 3 * x4 * x5 * x7s
        - x2 * x7s * x7
        + 3 * x2 * x7 * x5s
        - 1.2342523
    )


def factored_batched_nopow(x):
    lin = x[0] + 3 * x[1] + 2 * x[2] + 5 * x[3]
    lin2 = lin * lin
    return np.sum(lin2 * lin2 - lin2)


#: (workload, size) -> the forward without array ``**``, where the workload has ``** 3`` or ``** 4``
FWD_NOPOW = {
    ("poly8", "large"): poly8_batched_nopow,
    ("factored", "large"): factored_batched_nopow,
}
