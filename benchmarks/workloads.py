"""The benchmark workloads: plain NumPy loss functions and their inputs, two sizes each.

Input: nothing.  Output: ``WORKLOADS``, a name -> ``Workload`` table.  Each workload is the
loss a user writes for NumPy (most come from the Yota.jl announcement thread), with one
function per size (``small`` is scalar-sized code, ``large`` the batched version) and a
deterministic input builder.  Every peer differentiates the *source text* of these
functions: JAX, autograd and torch re-execute it with ``np`` bound to their own module,
yota-s2s and tangent read it from a file.  So the functions stay plain: no closures, no
in-place operations, no globals but ``np`` and the helpers listed in ``Workload.helpers``.

>>> w = WORKLOADS["linear"]
>>> [a.shape for a in w.make_inputs("small")]
[(3, 4), (3,), (4, 5)]
>>> w.wrt_names("small")
['W', 'b', 'x']
>>> print(WORKLOADS["factored"].source("small"))  # doctest: +ELLIPSIS
import numpy as np
<BLANKLINE>
<BLANKLINE>
def lin4(x):
    return x[0] + 3 * x[1] + 2 * x[2] + 5 * x[3]
<BLANKLINE>
<BLANKLINE>
def factored(x):
    return lin4(x) ** 4 - lin4(x) ** 2
<BLANKLINE>
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

SIZES = ("small", "large")


# --------------------------------------------------------------------------------- poly8
# The polynomial of the Yota.jl announcement thread, 0-based: x has 9 entries and x[0]
# is unused (its gradient is exactly 0).


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
    # x: (9, N), one polynomial per column, summed
    return np.sum(poly8(x))


# ------------------------------------------------------------------------------ factored
# The same kind of polynomial already in factored form: g = l^4 - l^2 with the linear form
# l a helper called twice, as written in the thread.


def lin4(x):
    return x[0] + 3 * x[1] + 2 * x[2] + 5 * x[3]


def factored(x):
    return lin4(x) ** 4 - lin4(x) ** 2


def factored_batched(x):
    # x: (4, N)
    return np.sum(lin4(x) ** 4 - lin4(x) ** 2)


# ------------------------------------------------------------------------------ logistic


def logistic(x):
    return np.sum(1.0 / (1.0 + np.exp(-x)))


# -------------------------------------------------------------------------------- linear
# The seed's simplegrad example: sum(W x .+ b).


def linear(W, b, x):
    return np.sum(W @ x + b[:, None])


# ------------------------------------------------------------------------------------ pd
# Pairwise squared distances of the columns of x: m = x'x, v = diag(m), v .+ v' .- 2m.


def pd(x):
    m = x.T @ x
    v = np.diag(m)
    return np.sum(v[:, None] + v[None, :] - 2 * m)


# ----------------------------------------------------------------------------------- mlp
# Two layers, tanh hidden layer, softmax cross-entropy through a stable log-sum-exp, mean
# over the batch; Y is one-hot (float).


def mlp(W1, b1, W2, b2, X, Y):
    h = np.tanh(X @ W1 + b1)
    z = h @ W2 + b2
    zmax = np.max(z, axis=1, keepdims=True)
    lse = np.log(np.sum(np.exp(z - zmax), axis=1, keepdims=True)) + zmax
    return -np.sum(Y * (z - lse)) / X.shape[0]


# ----------------------------------------------------------------------------- iterative
# The seed's dynamic-graph example (Yota's grad(...; dynamic=true)): a loop over an int.


def iterative(x, n):
    for i in range(n):
        x = 2 * x
    return np.sum(x)


# ------------------------------------------------------------------------------ katsura8
# The Katsura-7 polynomial system (unknowns u0..u7: seven convolution equations
# u_m = sum_l u_|l| u_|m-l| and the normalisation u0 + 2 sum u_l = 1), as a least-squares
# loss: the sum of the squared residuals.


def katsura8(x):
    u0 = x[0]
    u1 = x[1]
    u2 = x[2]
    u3 = x[3]
    u4 = x[4]
    u5 = x[5]
    u6 = x[6]
    u7 = x[7]
    e0 = u0**2 - u0 + 2 * (u1**2 + u2**2 + u3**2 + u4**2 + u5**2 + u6**2 + u7**2)
    e1 = 2 * (u0 * u1 + u1 * u2 + u2 * u3 + u3 * u4 + u4 * u5 + u5 * u6 + u6 * u7) - u1
    e2 = 2 * (u0 * u2 + u1 * u3 + u2 * u4 + u3 * u5 + u4 * u6 + u5 * u7) + u1**2 - u2
    e3 = 2 * (u0 * u3 + u1 * u2 + u1 * u4 + u2 * u5 + u3 * u6 + u4 * u7) - u3
    e4 = 2 * (u0 * u4 + u1 * u3 + u1 * u5 + u2 * u6 + u3 * u7) + u2**2 - u4
    e5 = 2 * (u0 * u5 + u1 * u4 + u1 * u6 + u2 * u3 + u2 * u7) - u5
    e6 = 2 * (u0 * u6 + u1 * u5 + u1 * u7 + u2 * u4) + u3**2 - u6
    e7 = u0 + 2 * (u1 + u2 + u3 + u4 + u5 + u6 + u7) - 1
    return e0**2 + e1**2 + e2**2 + e3**2 + e4**2 + e5**2 + e6**2 + e7**2


def katsura8_batched(x):
    # x: (8, N), N independent points, residual norms summed
    return np.sum(katsura8(x))


# -------------------------------------------------------------------------------- inputs
# Each builder takes (size, rng) and returns the positional arguments, float64 throughout.


def _poly8_inputs(size, rng):
    return (rng.uniform(-1.0, 1.0, 9 if size == "small" else (9, 100_000)),)


def _factored_inputs(size, rng):
    return (rng.uniform(-1.0, 1.0, 4 if size == "small" else (4, 100_000)),)


def _logistic_inputs(size, rng):
    return (rng.standard_normal(1_000 if size == "small" else 1_000_000),)


def _linear_inputs(size, rng):
    m, k, n = (3, 4, 5) if size == "small" else (128, 784, 100)  # Yota's README toy; the seed's example
    return (rng.random((m, k)), rng.random(m), rng.random((k, n)))


def _pd_inputs(size, rng):
    return (rng.random((2, 3) if size == "small" else (200, 500)),)


def _mlp_inputs(size, rng):
    batch, d_in, d_hid, d_out = (4, 8, 16, 3) if size == "small" else (64, 784, 256, 10)
    W1 = rng.standard_normal((d_in, d_hid)) / np.sqrt(d_in)
    b1 = 0.1 * rng.standard_normal(d_hid)
    W2 = rng.standard_normal((d_hid, d_out)) / np.sqrt(d_hid)
    b2 = 0.1 * rng.standard_normal(d_out)
    X = rng.standard_normal((batch, d_in))
    Y = np.eye(d_out)[rng.integers(0, d_out, batch)]
    return (W1, b1, W2, b2, X, Y)


def _iterative_inputs(size, rng):
    return (rng.random(1_000 if size == "small" else 1_000_000), 10)


def _katsura8_inputs(size, rng):
    return (rng.uniform(-0.5, 0.5, 8 if size == "small" else (8, 10_000)),)


# ------------------------------------------------------------------------------ registry


@dataclass(frozen=True)
class Workload:
    """One benchmark workload.

    ``funcs`` maps a size to the function differentiated at that size, ``wrt`` holds the
    positions of the float-array arguments (every gradient is taken with respect to all of
    them; the others, like ``iterative``'s ``n``, are static), ``helpers`` the module-level
    functions that must travel with the source.  ``polynomial`` marks workloads whose small
    function is a polynomial in ``x[0] .. x[nvars - 1]``, which SymPy differentiates.
    """

    name: str
    funcs: dict[str, Callable]
    inputs: Callable
    wrt: tuple[int, ...]
    shapes: dict[str, str]
    helpers: tuple[Callable, ...] = ()
    polynomial: bool = False
    nvars: int = 0

    def func(self, size: str) -> Callable:
        return self.funcs[size]

    def make_inputs(self, size: str, seed: int = 0) -> tuple:
        """The positional arguments at ``size`` (the same for every ``seed``, every run)."""
        return self.inputs(size, np.random.default_rng(seed))

    def static(self, size: str) -> tuple[int, ...]:
        nargs = len(inspect.signature(self.funcs[size]).parameters)
        return tuple(i for i in range(nargs) if i not in self.wrt)

    def wrt_names(self, size: str) -> list[str]:
        params = list(inspect.signature(self.funcs[size]).parameters)
        return [params[i] for i in self.wrt]

    def source(self, size: str) -> str:
        """A module holding the helpers and the function at ``size`` (last), as a user writes it."""
        func = self.funcs[size]
        parts = [inspect.getsource(f) for f in (*[h for h in self.helpers if h is not func], func)]
        return "import numpy as np\n\n\n" + "\n\n".join(parts)


WORKLOADS: dict[str, Workload] = {
    w.name: w
    for w in [
        Workload(
            "poly8",
            {"small": poly8, "large": poly8_batched},
            _poly8_inputs,
            wrt=(0,),
            shapes={"small": "x (9,)", "large": "x (9, 1e5)"},
            helpers=(poly8,),
            polynomial=True,
            nvars=9,
        ),
        Workload(
            "factored",
            {"small": factored, "large": factored_batched},
            _factored_inputs,
            wrt=(0,),
            shapes={"small": "x (4,)", "large": "x (4, 1e5)"},
            helpers=(lin4,),
            polynomial=True,
            nvars=4,
        ),
        Workload(
            "katsura8",
            {"small": katsura8, "large": katsura8_batched},
            _katsura8_inputs,
            wrt=(0,),
            shapes={"small": "x (8,)", "large": "x (8, 1e4)"},
            helpers=(katsura8,),
            polynomial=True,
            nvars=8,
        ),
        Workload(
            "logistic",
            {"small": logistic, "large": logistic},
            _logistic_inputs,
            wrt=(0,),
            shapes={"small": "x (1e3,)", "large": "x (1e6,)"},
        ),
        Workload(
            "linear",
            {"small": linear, "large": linear},
            _linear_inputs,
            wrt=(0, 1, 2),
            shapes={"small": "W 3×4, b 3, x 4×5", "large": "W 128×784, b 128, x 784×100"},
        ),
        Workload(
            "pd",
            {"small": pd, "large": pd},
            _pd_inputs,
            wrt=(0,),
            shapes={"small": "x 2×3", "large": "x 200×500"},
        ),
        Workload(
            "mlp",
            {"small": mlp, "large": mlp},
            _mlp_inputs,
            wrt=(0, 1, 2, 3, 4, 5),
            shapes={"small": "B=4, 8-16-3", "large": "B=64, 784-256-10"},
        ),
        Workload(
            "iterative",
            {"small": iterative, "large": iterative},
            _iterative_inputs,
            wrt=(0,),
            shapes={"small": "x (1e3,), n=10", "large": "x (1e6,), n=10"},
        ),
    ]
}
