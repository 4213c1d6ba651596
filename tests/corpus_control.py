"""The control-flow corpus: loops, branches and early returns, and the inputs to check them at.

tests/test_corpus.py generates every function in ``CASES``, runs the generated file and
checks each gradient against central finite differences of the function itself.
"""

from dataclasses import dataclass

import numpy as np

DT = 0.01


# --------------------------------------------------------------------------- for loops


def sum_squares_loop(x):
    s = 0.0
    for i in range(len(x)):
        s = s + x[i] ** 2
    return s


def loop_argument_bound(x, n):
    s = 0.0
    for i in range(n):
        s = s + np.sin(x * s) + x[i]
    return np.sum(s)


def loop_shape_bound(x):
    s = 0.0
    for i in range(x.shape[0]):
        s = s + np.cos(x[i]) * i
    return s


def loop_start_stop_step(x):
    s = 1.0
    for i in range(1, len(x), 2):
        s = s * x[i] + x[i - 1]
    return s


def loop_over_rows(X):
    s = 0.0
    for row in X:
        s = s + np.sum(np.tanh(row))
    return s


def loop_enumerate(X, w):
    s = 0.0
    for i, row in enumerate(X):
        s = s + w[i] * np.sum(row**2)
    return s


def loop_static_tuple(x, W1, W2):
    h = x
    for W in (W1, W2):
        h = np.tanh(W @ h)
    return np.sum(h)


def loop_product(x):
    p = 1.0
    for i in range(len(x)):
        p = p * x[i]
    return p


def loop_counter(x):
    k = 0
    s = 0.0
    for i in range(len(x)):
        k = k + 1
        s = s + x[i] * k
    return s


def loop_index_arithmetic(x):
    s = 0.0
    for i in range(len(x)):
        s = s + i * x[i] + 0.5 * i * i * x[i] ** 2
    return s


def loop_swap(x, n):
    a = x
    b = 2.0 * x
    for _ in range(n):
        a, b = b, a + 0.1 * b * x
    return np.sum(a * b)


def loop_unused_carry(x):
    s = 0.0
    c = 0.0
    for i in range(len(x)):
        s = s + x[i] ** 3
        c = c + 1.0
    return s


def loop_array_accumulate(x, y):
    A = np.zeros((3, 3))
    for i in range(3):
        A = A + np.outer(x * i, y)
    return np.sum(A * A)


def loop_module_constant(x, n):
    v = x
    for _ in range(n):
        v = v - DT * v**3
    return np.sum(v)


def nested_loops_matrix(A, w):
    s = 0.0
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            s = s + A[i, j] * w[j] * (i + 1)
    return s


def pairwise_energy(x):
    e = 0.0
    n = len(x)
    for i in range(n):
        for j in range(i + 1, n):
            d = x[i] - x[j]
            e = e + 1.0 / (d * d + 1.0)
    return e


def pairwise_energy_2d(P):
    e = 0.0
    for i in range(P.shape[0]):
        for j in range(P.shape[0]):
            if i != j:
                d = P[i] - P[j]
                e = e + np.exp(-np.sum(d * d))
    return e


def nested_carry_both(x, n):
    s = 0.0
    t = x
    for i in range(n):
        for j in range(n):
            t = np.sin(t) + 0.1 * s
        s = s + np.sum(t)
    return s


def loop_reads_outside_reads(x, n):
    # x[0], x[1] before the loops and x[i] in both: one gradient buffer, every write in place
    s = x[0] * x[1]
    for i in range(n):
        s = s + x[i] * x[i] * s
    for i in range(n):
        s = s * x[i] + x[2]
    return s


def loop_carry_grows(X, w, n):
    # s starts a number and becomes a row: its adjoint after the loop has the shape of 0.0
    s = 0.0
    for i in range(n):
        s = s * 0.5 + X[i] * w
    return np.sum(s * s)


def power_iteration(A, v, n):
    for _ in range(n):
        v = A @ v
        v = v / np.linalg.norm(v)
    return v @ A @ v


def rnn(W, U, b, xs, T):
    h = np.zeros(W.shape[0])
    for t in range(T):
        h = np.tanh(W @ h + U @ xs[t] + b)
    return np.sum(h**2)


def _rhs(u, k):
    return -k * u + np.sin(u)


def euler(u0, k, steps):
    u = u0
    for _ in range(steps):
        u = u + DT * _rhs(u, k)
    return np.sum(u**2)


def rk4(u0, k, steps):
    u = u0
    h = DT
    for _ in range(steps):
        k1 = _rhs(u, k)
        k2 = _rhs(u + 0.5 * h * k1, k)
        k3 = _rhs(u + 0.5 * h * k2, k)
        k4 = _rhs(u + h * k3, k)
        u = u + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    return np.sum(u**2)


def euler_10(u0, k):
    u = u0
    for _ in range(10):
        u = u + DT * _rhs(u, k)
    return np.sum(u**2)


def euler_1000(u0, k):
    u = u0
    for _ in range(1000):
        u = u + DT * _rhs(u, k)
    return np.sum(u**2)


def _loop_helper(x, n):
    s = 0.0
    for i in range(n):
        s = s + np.sum(np.exp(-x * i))
    return s


def helper_with_loop_twice(x):
    return _loop_helper(x, 3) + _loop_helper(2.0 * x, 2)


# --------------------------------------------------------------------------- while loops


def newton_sqrt(x, tol=1e-10):
    y = x
    while np.max(np.abs(y * y - x)) > tol:
        y = 0.5 * (y + x / y)
    return np.sum(y)


def newton_cbrt_scalar(a):
    y = 1.0
    while abs(y**3 - a) > 1e-12:
        y = y - (y**3 - a) / (3.0 * y**2)
    return y


def while_counter(x, n):
    i = 0
    s = 1.0
    while i < n:
        s = s * np.cos(x) + x
        i = i + 1
    return np.sum(s)


def while_value_dependent(x):
    s = 1.0
    while s < 10.0:
        s = s * 1.5 + x
    return s


# --------------------------------------------------------------------------- branches


def branch_sign(x):
    if np.sum(x) > 0:
        y = x * 2.0
    else:
        y = np.exp(x)
    return np.sum(y)


def branch_elif(x):
    t = np.sum(x)
    if t > 1.0:
        y = np.sin(x)
    elif t > -1.0:
        y = x**2
    else:
        y = -x
    return np.sum(y)


def branch_one_sided(x, c):
    y = x * c
    if c > 0:
        y = np.tanh(y)
    return np.sum(y)


def branch_clip_gradient(g):
    n = np.sqrt(np.sum(g * g))
    if n > 1.0:
        g = g / n
    return np.sum(g * np.arange(len(g)))


def conditional_expression(x):
    y = x * x if x > 0 else -2.0 * x
    return y + 1.0


def conditional_in_loop(x):
    s = 0.0
    for i in range(len(x)):
        s = s + (x[i] if x[i] > 0 else 0.1 * x[i] ** 2)
    return s


def branch_in_loop(x):
    s = 0.0
    for i in range(len(x)):
        if x[i] > 0:
            s = s + x[i] ** 2
        else:
            s = s - 0.5 * np.sin(x[i])
    return s


def branch_on_constant(x):
    if DT > 0:
        return np.sum(x)
    return np.sum(x * x)


def early_return(x):
    if x > 0:
        return x * x
    return -x


def early_return_arrays(x, w):
    h = np.tanh(x * w)
    if np.sum(h) > 0:
        return np.sum(h**2)
    s = np.sum(np.exp(h))
    return s * 2.0


def _relu_like(v):
    if v > 0:
        return v
    return 0.01 * v


def helper_with_branch(x):
    return _relu_like(x[0]) * _relu_like(x[1]) + _relu_like(x[2] - x[0])


# --------------------------------------------------------------------------- objects


@dataclass
class TwoLayer:
    W1: np.ndarray
    W2: np.ndarray


def model_loop(m, xs):
    s = 0.0
    for t in range(xs.shape[0]):
        h = np.tanh(m.W1 @ xs[t])
        s = s + np.sum(m.W2 @ h)
    return s


def _r(*shape):
    return lambda rng: rng.standard_normal(shape)


CASES = {
    "sum_squares_loop": lambda r: (r.standard_normal(6),),
    "loop_argument_bound": lambda r: (0.3 * r.standard_normal(5), 4),
    "loop_shape_bound": lambda r: (r.standard_normal(5),),
    "loop_start_stop_step": lambda r: (r.standard_normal(7),),
    "loop_over_rows": lambda r: (r.standard_normal((4, 3)),),
    "loop_enumerate": lambda r: (r.standard_normal((4, 3)), r.standard_normal(4)),
    "loop_static_tuple": lambda r: (r.standard_normal(3), r.standard_normal((3, 3)), r.standard_normal((2, 3))),
    "loop_product": lambda r: (r.standard_normal(5),),
    "loop_counter": lambda r: (r.standard_normal(5),),
    "loop_index_arithmetic": lambda r: (r.standard_normal(5),),
    "loop_swap": lambda r: (r.standard_normal(3), 4),
    "loop_unused_carry": lambda r: (r.standard_normal(4),),
    "loop_array_accumulate": lambda r: (r.standard_normal(3), r.standard_normal(3)),
    "loop_module_constant": lambda r: (r.standard_normal(4), 5),
    "nested_loops_matrix": lambda r: (r.standard_normal((3, 4)), r.standard_normal(4)),
    "pairwise_energy": lambda r: (r.standard_normal(5),),
    "pairwise_energy_2d": lambda r: (r.standard_normal((4, 2)),),
    "nested_carry_both": lambda r: (0.5 * r.standard_normal(3), 3),
    "loop_reads_outside_reads": lambda r: (r.uniform(0.5, 1.0, 5), 4),
    "loop_carry_grows": lambda r: (r.standard_normal((4, 3)), r.standard_normal(3), 4),
    "power_iteration": lambda r: (r.standard_normal((3, 3)), r.standard_normal(3), 4),
    "rnn": lambda r: (
        0.5 * r.standard_normal((4, 4)),
        0.5 * r.standard_normal((4, 3)),
        r.standard_normal(4),
        r.standard_normal((6, 3)),
        5,
    ),
    "euler": lambda r: (r.standard_normal(3), 0.7, 1000),
    "rk4": lambda r: (r.standard_normal(3), 0.7, 1000),
    "euler_10": lambda r: (r.standard_normal(3), 0.7),
    "euler_1000": lambda r: (r.standard_normal(3), 0.7),
    "helper_with_loop_twice": lambda r: (0.3 * r.standard_normal(3),),
    "newton_sqrt": lambda r: (1.0 + r.random(4),),
    "newton_cbrt_scalar": lambda r: (2.0 + r.random(),),
    "while_counter": lambda r: (r.standard_normal(3), 4),
    "while_value_dependent": lambda r: (0.3 + 0.1 * r.random(),),
    "branch_sign": lambda r: (r.standard_normal(4) + 0.5,),
    "branch_elif": lambda r: (0.2 * r.standard_normal(4),),
    "branch_one_sided": lambda r: (r.standard_normal(4), 0.8),
    "branch_clip_gradient": lambda r: (r.standard_normal(4),),
    "conditional_expression": lambda r: (0.7,),
    "conditional_in_loop": lambda r: (r.standard_normal(6),),
    "branch_in_loop": lambda r: (r.standard_normal(6),),
    "branch_on_constant": lambda r: (r.standard_normal(3),),
    "early_return": lambda r: (-0.6,),
    "early_return_arrays": lambda r: (r.standard_normal(3), r.standard_normal(3)),
    "helper_with_branch": lambda r: (r.standard_normal(3),),
    "model_loop": lambda r: (TwoLayer(r.standard_normal((3, 2)), r.standard_normal((2, 3))), r.standard_normal((4, 2))),
}

#: Parameters with no differentiable path (the gradient is None).
NONDIFF = {
    "loop_argument_bound": {"n"},
    "loop_swap": {"n"},
    "loop_module_constant": {"n"},
    "nested_carry_both": {"n"},
    "loop_reads_outside_reads": {"n"},
    "loop_carry_grows": {"n"},
    "power_iteration": {"n"},
    "rnn": {"T"},
    "euler": {"steps"},
    "rk4": {"steps"},
    "newton_sqrt": {"tol"},
    "while_counter": {"n"},
}


# --------------------------------------------------------------------------- break, continue, return in loops


def loop_break(x):
    s = 0.0
    for i in range(len(x)):
        if s > 2.0:
            break
        s = s + x[i] ** 2
    return s


def loop_continue(x):
    s = 0.0
    for i in range(len(x)):
        if x[i] < 0:
            continue
        s = s + np.sin(x[i]) * x[i]
    return s


def loop_return(x):
    s = 0.0
    for i in range(len(x)):
        s = s + x[i] * x[i]
        if s > 1.5:
            return s * 10.0
    return s


def while_break(x):
    y = x
    k = 0
    while True:
        y = np.cos(y) + 0.5 * x
        k = k + 1
        if k >= 5:
            break
    return np.sum(y)


def nested_return(A):
    s = 0.0
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            s = s + A[i, j] ** 2
            if s > 3.0:
                return np.sqrt(s)
    return s


CASES.update(
    {
        "loop_break": lambda r: (r.standard_normal(8),),
        "loop_continue": lambda r: (r.standard_normal(8),),
        "loop_return": lambda r: (r.standard_normal(8),),
        "while_break": lambda r: (r.standard_normal(3),),
        "nested_return": lambda r: (r.standard_normal((3, 3)),),
    }
)


# --------------------------------------------------------------------------- writes into arrays in loops


def gauss_seidel(u, f, sweeps):
    """Gauss-Seidel sweeps for -u'' = f on a grid: writes into its parameter u."""
    n = len(u)
    for _ in range(sweeps):
        for i in range(1, n - 1):
            u[i] = 0.5 * (u[i - 1] + u[i + 1] + 0.01 * f[i])
    return np.sum(u * u)


def build_local_array(x):
    a = np.zeros(len(x))
    for i in range(len(x)):
        a[i] = np.sin(x[i]) * (i + 1)
    return np.sum(a * a)


CASES.update(
    {
        "gauss_seidel": lambda r: (r.standard_normal(6), r.standard_normal(6), 3),
        "build_local_array": lambda r: (r.standard_normal(5),),
    }
)
NONDIFF["gauss_seidel"] = {"sweeps"}


# --------------------------------------------------------------------------- spread adjoints carried by loops
# The adjoint of np.sum is one scalar spread over an array; a backward loop that keeps it spread
# carries the scalar itself (optimize.spread_carries).  The cases where it must not: a carried
# value that changes shape, an array factor, a mean, a while loop, and two carries.


def doubling(x, n):
    for _ in range(n):
        x = 2 * x
    return np.sum(x)


def affine_steps(x, n):
    for _ in range(n):
        x = 0.5 * x - 1.0
    return np.mean(x)


def grows_by_broadcast(x, Y):
    for _ in range(3):
        x = x + Y  # (4,) + (3, 4): the carried value changes shape in the first iteration
    return np.sum(x)


def array_factor_loop(x, w, n):
    for _ in range(n):
        x = w * x
    return np.sum(x)


def halving_while(x):
    s = 0
    while s < 4:
        x = x / 2 + 0.1
        s = s + 1
    return np.sum(x)


def two_spread_carries(x, y, n):
    for _ in range(n):
        x, y = 3 * x, -y
    return np.sum(x) + np.sum(y)


def sum_of_matrix_loop(A, n):
    for _ in range(n):
        A = A * 1.5
    return np.sum(A[:, None, :] + A[None, :, :])


CASES.update(
    {
        "doubling": lambda r: (r.standard_normal(5), 10),
        "affine_steps": lambda r: (r.standard_normal((2, 3)), 4),
        "grows_by_broadcast": lambda r: (r.standard_normal(4), r.standard_normal((3, 4))),
        "array_factor_loop": lambda r: (r.standard_normal(4), r.standard_normal(4), 3),
        "halving_while": lambda r: (r.standard_normal(3),),
        "two_spread_carries": lambda r: (r.standard_normal(3), r.standard_normal((2, 2)), 5),
        "sum_of_matrix_loop": lambda r: (r.standard_normal((2, 3)), 2),
    }
)
NONDIFF.update(
    {
        name: {"n"}
        for name in ("doubling", "affine_steps", "array_factor_loop", "two_spread_carries", "sum_of_matrix_loop")
    }
)


def nested_doubling(x, n):
    for _ in range(n):
        for _ in range(2):
            x = 1.5 * x
        x = x - 0.25
    return np.sum(x)


def doubling_with_branch(x, n):
    for i in range(n):
        if i < 2:
            x = 2 * x
        else:
            x = -x
    return np.sum(x)


def spread_and_array_carry(x, w, n):
    s = 0.0
    for _ in range(n):
        x = 0.5 * x
        s = s + np.sum(w * x)
    return np.sum(x) + s


def doubling_break(x, n):
    for i in range(n):
        x = 2 * x
        if i >= 2:
            break
    return np.sum(x)


def doubling_indexed(x, w, n):
    for i in range(n):
        x = 2 * x + w[i]
    return np.sum(x)


CASES.update(
    {
        "doubling_break": lambda r: (r.standard_normal(3), 6),
        "doubling_indexed": lambda r: (r.standard_normal(3), r.standard_normal(4), 4),
        "nested_doubling": lambda r: (r.standard_normal(3), 3),
        "doubling_with_branch": lambda r: (r.standard_normal(4), 5),
        "spread_and_array_carry": lambda r: (r.standard_normal(3), r.standard_normal(3), 4),
    }
)
NONDIFF.update(
    {
        name: {"n"}
        for name in (
            "doubling_break",
            "doubling_indexed",
            "nested_doubling",
            "doubling_with_branch",
            "spread_and_array_carry",
        )
    }
)


# The spread made after a backward loop is over the loop's initial value, which has the shape of
# its result (optimize._Rewriter._initial_value): a computed initial value, no iteration at all,
# a while loop whose initial value broadcasts in the first step, and a nested loop's carry.


def doubling_computed_start(x, n):
    y = np.tanh(x) * 3
    for _ in range(n):
        y = 2 * y
    return np.sum(y) + np.sum(x)


def doubling_no_trips(x, n):
    for _ in range(n):
        x = 2 * x
    return np.sum(x)


def while_grows_then_spreads(x, Y):
    k = 0
    while k < 3:
        x = 0.5 * x + Y
        k = k + 1
    return np.sum(x)


def inner_spread_carry(x, n):
    s = 0.0
    for _ in range(n):
        y = x
        for _ in range(3):
            y = 1.5 * y
        s = s + np.sum(y)
    return s


CASES.update(
    {
        "doubling_computed_start": lambda r: (r.standard_normal((2, 3)), 3),
        "doubling_no_trips": lambda r: (r.standard_normal(3), 0),
        "while_grows_then_spreads": lambda r: (r.standard_normal(()), r.standard_normal((2, 3))),
        "inner_spread_carry": lambda r: (r.standard_normal(4), 2),
    }
)
NONDIFF.update({name: {"n"} for name in ("doubling_computed_start", "doubling_no_trips", "inner_spread_carry")})


# A loop whose initial value is a free value of the enclosing loop or branch must not take its
# name: the outer value is read again (the next iteration, or after the branch).


def inner_loop_from_free_value(x, n):
    s = 0.0
    for _ in range(n):
        y = x
        for _ in range(3):
            y = 1.5 * y + 1.0
        s = s + np.sum(y * y)
    return s


def branch_loop_from_outer_value(x, c):
    if c > 0:
        y = x
        for _ in range(3):
            y = 1.5 * y + 1.0
        s = np.sum(y * y)
    else:
        s = 0.0
    return s + np.sum(x)


CASES.update(
    {
        "inner_loop_from_free_value": lambda r: (r.standard_normal(3), 2),
        "branch_loop_from_outer_value": lambda r: (r.standard_normal(3), 1.0),
    }
)
NONDIFF.update({"inner_loop_from_free_value": {"n"}, "branch_loop_from_outer_value": {"c"}})
