"""The conventions at kinks (docs/src/conventions.md.in): one test per row of its table.

Each test generates the gradient of a small function and evaluates it *at* the kink (where finite
differences say nothing useful), asserting the documented value exactly.  Away from the kinks the
same rules are checked against SymPy and finite differences by ``tests/test_rules.py``; the few
finite-difference checks here are for the values next to a kink that a fix could break (powers
with array exponents, ``np.dot`` of N-D operands).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from yota_s2s.pipeline import generate

from .gradcheck import assert_close, numeric_grad


def grad_of(body: str, params: str = "x", name: str = "f"):
    """``grad_<name>`` generated from ``def <name>(<params>): <body>`` (``np`` and ``math`` imported)."""
    source = f"import math\n\nimport numpy as np\n\n\ndef {name}({params}):\n"
    source += "".join(f"    {line}\n" for line in body.splitlines())
    namespace: dict = {}
    exec(compile(generate(source, "kink.py", [name]).text, "grad_kink.py", "exec"), namespace)  # noqa: S102
    user: dict = {}
    exec(compile(source, "kink.py", "exec"), user)  # noqa: S102 - the test's own source
    return namespace[f"grad_{name}"], user[name]


def quiet(grad, *args):
    """``grad(*args)`` with NumPy's floating-point warnings (divide by zero ...) silenced."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return grad(*args)


def same(actual, expected) -> None:
    """Equal values, NaN where NaN is expected, and the same shape."""
    a, e = np.asarray(actual, dtype=float), np.asarray(expected, dtype=float)
    assert a.shape == e.shape, (a.shape, e.shape)
    assert np.array_equal(a, e, equal_nan=True), (a.tolist(), e.tolist())


# ----------------------------------------------------------------------------- abs, sign


def test_abs_at_zero_is_zero():
    grad, _ = grad_of("return np.sum(np.abs(x))")
    same(grad(np.array([0.0, -2.0, 3.0]))[1], [0.0, -1.0, 1.0])
    grad, _ = grad_of("return abs(x)")
    assert grad(0.0)[1] == 0.0


# ----------------------------------------------------------------------------- maximum, minimum


@pytest.mark.parametrize("fn", ["maximum", "minimum", "fmax", "fmin"])
def test_a_tie_of_maximum_and_minimum_splits_evenly(fn):
    grad, _ = grad_of(f"return np.sum(np.{fn}(x, y))", "x, y")
    x, y = np.array([1.0, 2.0, 5.0]), np.array([1.0, 3.0, 4.0])
    _, dx, dy = grad(x, y)
    winner = (x > y) if fn in ("maximum", "fmax") else (x < y)
    same(dx, [0.5, *winner[1:].astype(float)])
    same(dy, [0.5, *(~winner[1:]).astype(float)])


# ----------------------------------------------------------------------------- roots and powers


def test_sqrt_at_zero_is_infinite():
    grad, _ = grad_of("return np.sum(np.sqrt(x))")
    same(quiet(grad, np.array([0.0, 4.0]))[1], [np.inf, 0.25])


def test_an_infinite_derivative_of_a_python_float():
    grad, _ = grad_of("return math.sqrt(x)")  # written np.sqrt: a NumPy float, inf
    assert quiet(grad, 0.0)[1] == np.inf
    grad, _ = grad_of("return x ** 0.5")  # Python's own 0.0 ** -0.5 raises
    with pytest.raises(ZeroDivisionError):
        grad(0.0)


def test_powers_of_an_array_at_zero():
    # the x[:, None] ** np.arange(3): d/dx (1 + x + x**2) = 1 + 2x, 1 at x = 0 (not NaN)
    grad, _ = grad_of("return np.sum(x[:, None] ** np.arange(3))")
    same(quiet(grad, np.array([0.0, 2.0]))[1], [1.0, 5.0])


def test_power_zero_at_zero_is_zero():
    for body in ("return np.sum(np.power(x, 0.0))", "return np.sum(x ** 0)", "return np.sum(np.float_power(x, 0.0))"):
        grad, _ = grad_of(body)
        same(quiet(grad, np.array([0.0, 2.0]))[1], [0.0, 0.0])
    grad, _ = grad_of("return np.power(x, 0.0) + x ** 0")
    assert grad(0.0)[1] == 0.0  # Python floats: no ZeroDivisionError


@pytest.mark.parametrize("fn", ["np.power", "np.float_power"])
def test_the_derivative_of_every_exponent_at_zero(fn):
    # d/dx x**p at x = 0: 0 for p = 0, inf for 0 < p < 1, 1 for p = 1, 0 for p > 1 (also as
    # integer-valued floats); d/dp is 0 at x = 0 (x ** p is 0 for p > 0, and 1 at p = 0)
    grad, _ = grad_of(f"return np.sum({fn}(x, p))", "x, p")
    p = np.array([0.0, 0.5, 1.0, 2.0, 3.0])
    _, dx, dp = quiet(grad, np.zeros(5), p)
    same(dx, [0.0, np.inf, 1.0, 0.0, 0.0])
    same(dp, [0.0, 0.0, 0.0, 0.0, 0.0])
    _, dx, dp = quiet(grad, np.zeros(4), np.array([0.0, 1.0, 2.0, 3.0]))  # integer-valued exponents
    same(dx, [0.0, 1.0, 0.0, 0.0])
    # an integer array exponent has no gradient (it is refused as an argument with one): x's only
    source = f"import numpy as np\n\n\ndef f(x, p):\n    return np.sum({fn}(x, p))\n"
    namespace: dict = {}
    exec(compile(generate(source, "kink.py", ["f"], wrt=["x"]).text, "grad_kink.py", "exec"), namespace)  # noqa: S102
    _, dx = quiet(namespace["grad_f"], np.zeros(4), np.array([0, 1, 2, 3]))
    same(dx, [0.0, 1.0, 0.0, 0.0])


def test_power_of_python_floats_at_zero():
    grad, _ = grad_of("return x ** p", "x, p")
    for p, dx in ((0.0, 0.0), (1.0, 1.0), (2.0, 0.0), (0, 0.0), (3, 0.0)):
        value, gx, gp = grad(0.0, p)
        assert (value, gx, gp) == (0.0**p, dx, 0.0), p


def test_the_exponent_gradient_where_the_base_is_zero():
    grad, _ = grad_of("return np.sum(np.power(0.0, y) * x)", "x, y")
    _, _, dy = quiet(grad, np.array([1.0, 2.0]), np.array([0.5, 2.0]))
    same(dy, [0.0, 0.0])
    grad, _ = grad_of("return np.sum(x ** p)", "x, p")
    _, _, dp = quiet(grad, np.array([0.0, 2.0]), np.array([2.0, 3.0]))
    same(dp, [0.0, math.log(2.0) * 8.0])


def test_powers_away_from_zero_still_match_finite_differences():
    for body, args in (
        ("return np.sum(np.sin(x ** p))", [np.array([0.5, 1.5, 2.0]), np.array([0.0, 1.0, -1.5])]),
        ("return np.sum(np.sin(x[:, None] ** np.arange(4)))", [np.array([0.3, -1.2, 2.0])]),
        ("return np.sum(np.sin(np.float_power(x, p)))", [np.array([[0.5], [1.5]]), np.array([0.0, 2.5])]),
    ):
        names = ", ".join("xp"[: len(args)])
        grad, f = grad_of(body, names)
        _, *grads = grad(*args)
        for i, g in enumerate(grads):
            assert_close(g, numeric_grad(f, args, i), f"{body}: d{names[3 * i]}")


# ----------------------------------------------------------------------------- where, clip, hypot


def test_where_sends_the_gradient_to_the_branch_taken():
    grad, _ = grad_of("return np.sum(np.where(x > 0.0, x, 2.0 * x))")
    same(grad(np.array([0.0, 1.0, -1.0]))[1], [2.0, 1.0, 2.0])


def test_where_does_not_hide_the_other_branch_nan():
    # the branch not taken gets a zero gradient, times its own derivative: 0 * inf = NaN
    grad, _ = grad_of("return np.sum(np.where(x > 0.0, np.sqrt(x), 0.0))")
    same(quiet(grad, np.array([0.0, 4.0]))[1], [np.nan, 0.25])
    grad, _ = grad_of("return np.sum(np.where(x > 0.0, np.sqrt(np.where(x > 0.0, x, 1.0)), 0.0))")
    same(quiet(grad, np.array([0.0, 4.0]))[1], [0.0, 0.25])  # the documented fix


def test_clip_gives_x_the_gradient_at_its_bounds():
    grad, _ = grad_of("return np.sum(np.clip(x, lo, hi) * np.arange(1.0, 5.0))", "x, lo, hi")
    _, dx, dlo, dhi = grad(np.array([-1.0, 1.0, 0.5, 2.0]), -1.0, 1.0)
    same(dx, [1.0, 2.0, 3.0, 0.0])
    assert (dlo, dhi) == (0.0, 4.0)


def test_hypot_at_the_origin_is_zero():
    grad, _ = grad_of("return np.sum(np.hypot(x, y))", "x, y")
    _, dx, dy = grad(np.array([0.0, 3.0]), np.array([0.0, 4.0]))
    same(dx, [0.0, 0.6])
    same(dy, [0.0, 0.8])
    grad, _ = grad_of("return math.hypot(x, y)", "x, y")
    assert grad(0.0, 0.0) == (0.0, 0.0, 0.0)


@pytest.mark.parametrize("args", ["", ", 2", ", 3", ", axis=1", ", 1", ", np.inf"])
def test_a_norm_at_zero_is_zero(args):
    grad, _ = grad_of(f"return np.sum(np.linalg.norm(x{args}))")
    x = np.zeros((2, 3)) if "axis" in args else np.zeros(3)
    same(quiet(grad, x)[1], np.zeros_like(x))


# ----------------------------------------------------------------------------- ties of reductions and indices


@pytest.mark.parametrize("fn", ["max", "min"])
def test_a_tie_of_max_and_min_splits_evenly(fn):
    grad, _ = grad_of(f"return np.{fn}(x)")
    sign = 1.0 if fn == "max" else -1.0
    same(grad(sign * np.array([1.0, 3.0, 3.0, 3.0]))[1], [0.0, 1 / 3, 1 / 3, 1 / 3])


def test_argmax_picks_the_first_of_a_tie():
    grad, _ = grad_of("return x[np.argmax(x)]")
    same(grad(np.array([1.0, 3.0, 3.0]))[1], [0.0, 1.0, 0.0])


def test_argsort_gives_a_permutation_even_at_ties():
    grad, _ = grad_of("return np.sum(x[np.argsort(x)] * w)", "x, w")
    x, w = np.array([2.0, 1.0, 2.0]), np.array([10.0, 20.0, 30.0])
    _, dx, _ = grad(x, w)
    same(dx, w[np.argsort(np.argsort(x))])  # each element gets the weight of the place it sorts to
    assert sorted(dx) == sorted(w)


@pytest.mark.parametrize("fn", ["sort", "partition"])
def test_a_tie_of_sort_and_partition_splits_evenly(fn):
    call = "np.sort(x)" if fn == "sort" else "np.partition(x, 2)"
    grad, _ = grad_of(f"return np.sum(np.arange(1.0, 6.0) * {call})")
    # sorted 1, 2, 3, 3, 3: the three 3s share the weights 3 + 4 + 5 of their places
    same(grad(np.array([3.0, 1.0, 3.0, 2.0, 3.0]))[1], [4.0, 1.0, 4.0, 2.0, 4.0])
    grad, _ = grad_of("return np.sort(x)[-1]")
    same(grad(np.array([3.0, 1.0, 3.0]))[1], [0.5, 0.0, 0.5])


# ----------------------------------------------------------------------------- remainders, sinc, nan_to_num


@pytest.mark.parametrize("op", ["x % y", "np.mod(x, y)", "np.remainder(x, y)", "np.fmod(x, y)"])
def test_a_remainder_at_a_jump_takes_the_slopes_of_the_piece_returned(op):
    grad, _ = grad_of(f"return np.sum({op})", "x, y")
    x, y = np.array([3.0, -3.0, 4.5, 1.0]), np.array([1.5, 1.5, -1.5, 0.1])
    _, dx, dy = grad(x, y)
    same(dx, [1.0, 1.0, 1.0, 1.0])
    # the quotient of the value returned: 1 % 0.1 is 0.0999... (9 times 0.1), not floor(1 / 0.1) = 10
    same(dy, [-2.0, 2.0, 3.0, -9.0])  # (fmod and mod agree on these: 4.5 / -1.5 is an integer)


def test_sinc_at_zero_is_zero():
    grad, _ = grad_of("return np.sum(np.sinc(x))")
    _, dx = grad(np.array([0.0, 0.5]))
    assert dx[0] == 0.0
    assert np.isclose(dx[1], -4.0 / np.pi, rtol=1e-14)
    grad, _ = grad_of("return np.sinc(x)")
    assert grad(0.0)[1] == 0.0


def test_nan_to_num_gives_nothing_to_what_it_replaced():
    grad, _ = grad_of("return np.sum(np.nan_to_num(x))")
    same(grad(np.array([1.0, np.nan, np.inf, -np.inf]))[1], [1.0, 0.0, 0.0, 0.0])


# ----------------------------------------------------------------------------- std and mean


def test_std_of_one_element_is_zero():
    grad, _ = grad_of("return np.sum(np.std(x, axis=1))")
    same(grad(np.array([[1.0], [2.0]]))[1], [[0.0], [0.0]])
    grad, _ = grad_of("return np.std(x)")
    same(grad(np.array([5.0]))[1], [0.0])


def test_std_of_equal_elements_is_zero():
    grad, _ = grad_of("return np.sum(np.std(x, axis=0))")
    x = np.array([[0.1, 1.0, 2.0], [0.1, 1.0, 4.0], [0.1, 1.0, 0.0]])  # 3 * 0.1 rounds: mean != 0.1
    _, dx = grad(x)
    same(dx[:, :2], np.zeros((3, 2)))
    assert_close(dx[:, 2], np.array([0.0, 2.0, -2.0]) / 3 / np.std([2.0, 4.0, 0.0]), "the third column")
    grad, _ = grad_of("return np.std(x, ddof=1)")
    same(grad(np.full(4, 0.7))[1], np.zeros(4))
    dx = grad(np.full(3, 0.1, np.float32))[1]
    assert dx.dtype == np.float32 and not np.signbit(dx).any()  # +0, in x's dtype


def test_std_away_from_equal_elements_still_matches_finite_differences():
    grad, f = grad_of("return np.sum(np.sin(np.std(x, axis=1, ddof=1, keepdims=True)))")
    x = np.array([[0.1, 1.0, 2.0], [0.1, 1.5, 4.0]])
    assert_close(grad(x)[1], numeric_grad(f, [x], 0), "dx")


def test_the_mean_of_an_empty_array_has_an_empty_gradient():
    grad, _ = grad_of("return np.mean(x)")
    value, dx = quiet(grad, np.zeros(0))
    assert math.isnan(value)
    assert dx.shape == (0,)
    grad, _ = grad_of("return np.sum(np.mean(x, axis=1))")
    for shape in ((3, 0), (0, 3)):
        assert quiet(grad, np.zeros(shape))[1].shape == shape
    grad, _ = grad_of("return np.sum(np.var(x, axis=0))")
    assert quiet(grad, np.zeros((0, 2)))[1].shape == (0, 2)
