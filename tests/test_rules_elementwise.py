"""Elementwise and scipy.special rules: what the generic checks of test_rules.py cannot see.

Extreme inputs where the form of a rule matters (``out`` reused, no overflow), ties of the
extrema, clip at its bounds, where with a comparison, xlogy at x == 0, the zero-gradient steps,
and dtypes. Each test generates a gradient module, runs it, and compares its values with exact
values or finite differences.
"""

from __future__ import annotations

import math
import warnings

import mpmath
import numpy as np
import pytest
import scipy.special

from yota_s2s.pipeline import generate

from .gradcheck import assert_close, numeric_grad

HEADER = "import math\n\nimport numpy as np\nimport scipy.special\n\n\n"


def compile_grad(expr: str, params: str = "x"):
    """``f(params) = expr`` and its generated ``grad_f``, with the generated text."""
    source = f"{HEADER}def f({params}):\n    return {expr}\n"
    primal: dict = {}
    exec(compile(source, "case.py", "exec"), primal)  # noqa: S102 - the function under test
    text = generate(source, "case.py").text
    generated: dict = {}
    exec(compile(text, "generated.py", "exec"), generated)  # noqa: S102 - the code under test
    return primal["f"], generated["grad_f"], text


def check_numeric(f, args: list, grads: list, skip: tuple[int, ...] = ()) -> None:
    for i, grad in enumerate(grads):
        if i not in skip:
            assert_close(grad, numeric_grad(f, args, i), f"d{i}")


@pytest.fixture
def strict():
    """Overflow, 0/0, x/0 and every warning are errors (underflow to 0 is fine)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(over="raise", invalid="raise", divide="raise"):
            yield


# ============================================================================= extreme inputs


def test_expit_at_800_is_finite(strict):
    _, grad_f, text = compile_grad("np.sum(w * scipy.special.expit(x))", "x, w")
    assert "import scipy.special\n" in text
    x = np.array([-800.0, -30.0, 0.0, 30.0, 800.0])
    w = np.array([1.0, 2.0, 4.0, 8.0, 16.0])
    value, dx, dw = grad_f(x, w)
    s = scipy.special.expit(x)
    assert value == np.sum(w * s)
    assert np.array_equal(dx, w * s * (1.0 - s))
    assert dx[2] == 1.0 and dx[0] == 0.0 and dx[-1] == 0.0
    assert np.array_equal(dw, s)


@pytest.mark.parametrize(("fn", "log_base"), [("logaddexp", 1.0), ("logaddexp2", np.log(2.0))])
def test_logaddexp_at_800_is_finite(strict, fn, log_base):
    _, grad_f, _ = compile_grad(f"np.sum(np.{fn}(x, y))", "x, y")
    x = np.array([800.0, -800.0, 800.0, -800.0, 0.0, 1000.0])
    y = np.array([800.0, -800.0, -800.0, 800.0, 1.0, 999.0])
    value, dx, dy = grad_f(x, y)
    assert np.isfinite(value)
    # d/dx log_b(b**x + b**y) = 1 / (1 + b**(y - x))
    expected = scipy.special.expit((x - y) * log_base)
    assert np.allclose(dx, expected, rtol=1e-12, atol=0.0)
    assert np.allclose(dy, 1.0 - expected, rtol=1e-12, atol=0.0)


def test_sinh_gradient_is_finite_where_its_square_overflows(strict):
    _, grad_f, _ = compile_grad("np.sum(np.sinh(x))")
    x = np.array([400.0, -400.0, 0.5])
    _, dx = grad_f(x)
    assert np.array_equal(dx, np.cosh(x))
    assert np.all(np.isfinite(dx))


def test_arcsinh_gradient_for_huge_x(strict):
    # 1 / sqrt(x*x + 1) would overflow in x*x
    _, grad_f, _ = compile_grad("np.sum(np.arcsinh(x))")
    _, dx = grad_f(np.array([1e200, -1e200, 0.0]))
    assert np.allclose(dx, [1e-200, 1e-200, 1.0], rtol=1e-15, atol=0.0)


@pytest.mark.parametrize(
    ("fn", "x", "exact"),
    [
        # derivatives near the edges of the domains, where 1 - x*x or x*x - 1 cancel
        ("arcsin", 1.0 - 1e-12, lambda x: 1 / mpmath.sqrt(1 - x * x)),
        ("arccos", -1.0 + 1e-12, lambda x: -1 / mpmath.sqrt(1 - x * x)),
        ("arctanh", 1.0 - 1e-12, lambda x: 1 / (1 - x * x)),
        ("arccosh", 1.0 + 1e-12, lambda x: 1 / mpmath.sqrt(x * x - 1)),
        # exp(x) from out + 1, with out = expm1(x) exact near 0
        ("expm1", 1e-12, mpmath.exp),
    ],
)
def test_derivative_near_the_edge_is_accurate(fn, x, exact):
    _, grad_f, _ = compile_grad(f"np.{fn}(x)")
    _, dx = grad_f(x)
    with mpmath.workdps(50):
        reference = float(exact(mpmath.mpf(x)))
    assert dx == pytest.approx(reference, rel=1e-12)


def test_hypot_gradient_for_huge_operands(strict):
    _, grad_f, _ = compile_grad("np.sum(np.hypot(x, y))", "x, y")
    x, y = np.array([3e200, 0.0, -3.0]), np.array([4e200, 2.0, 4.0])
    _, dx, dy = grad_f(x, y)
    assert np.allclose(dx, [0.6, 0.0, -0.6], rtol=1e-15, atol=0.0)
    assert np.allclose(dy, [0.8, 1.0, 0.8], rtol=1e-15, atol=0.0)


# ============================================================================= extrema: ties split evenly


@pytest.mark.parametrize(("fn", "sign"), [("maximum", 1.0), ("fmax", 1.0), ("minimum", -1.0), ("fmin", -1.0)])
def test_ties_split_the_gradient_evenly(fn, sign):
    f, grad_f, _ = compile_grad(f"np.sum(w * np.{fn}(x, y))", "x, y, w")
    x = sign * np.array([1.0, 2.0, 3.0, -0.0])
    y = sign * np.array([1.0, 3.0, 2.0, 0.0])  # -0.0 == 0.0: a tie too
    w = np.array([1.0, 2.0, 4.0, 8.0])
    _, dx, dy, dw = grad_f(x, y, w)
    assert dx.tolist() == [0.5, 0.0, 4.0, 4.0]
    assert dy.tolist() == [0.5, 2.0, 0.0, 4.0]
    assert np.array_equal(dw, getattr(np, fn)(x, y))
    # away from the ties, finite differences agree
    check_numeric(f, [x[1:3], y[1:3], w[1:3]], list(grad_f(x[1:3], y[1:3], w[1:3])[1:]))


@pytest.mark.parametrize("fn", ["maximum", "fmax"])
def test_relu_ties_with_a_broadcast_scalar(fn):
    _, grad_f, _ = compile_grad(f"np.sum(np.{fn}(x, t))", "x, t")
    x = np.array([[0.0, 1.0, -1.0], [0.0, 2.0, 0.0]])
    _, dx, dt = grad_f(x, 0.0)
    assert dx.tolist() == [[0.5, 1.0, 0.0], [0.5, 1.0, 0.5]]
    assert dt == 1.0 + 3 * 0.5


def test_builtin_max_of_two_numbers_splits_a_tie():
    _, grad_f, _ = compile_grad("max(x, y) + 2.0 * min(x, y)", "x, y")
    assert grad_f(1.5, 1.5)[1:] == (1.5, 1.5)
    assert grad_f(2.0, 1.0)[1:] == (1.0, 2.0)


def test_fmax_and_fmin_send_the_gradient_past_a_nan():
    _, grad_f, _ = compile_grad("np.sum(np.fmax(x, y) + 2.0 * np.fmin(x, y))", "x, y")
    x, y = np.array([np.nan, 1.0]), np.array([2.0, np.nan])
    value, dx, dy = grad_f(x, y)
    assert value == 9.0
    assert dx.tolist() == [0.0, 3.0]
    assert dy.tolist() == [3.0, 0.0]


def test_maximum_of_a_nan_gives_no_gradient():
    _, grad_f, _ = compile_grad("np.sum(np.maximum(x, y))", "x, y")
    _, dx, dy = grad_f(np.array([np.nan, 1.0]), np.array([2.0, 0.0]))
    assert dx.tolist() == [0.0, 1.0]
    assert dy.tolist() == [0.0, 0.0]


# ============================================================================= clip


def test_clip_at_and_beyond_the_bounds():
    _, grad_f, _ = compile_grad("np.sum(w * np.clip(x, lo, hi))", "x, lo, hi, w")
    x = np.array([-2.0, -1.0, 0.0, 1.0, 2.0])
    w = np.array([1.0, 2.0, 4.0, 8.0, 16.0])
    value, dx, dlo, dhi, dw = grad_f(x, -1.0, 1.0, w)
    assert value == -1.0 - 2.0 + 8.0 + 16.0
    assert dx.tolist() == [0.0, 2.0, 4.0, 8.0, 0.0]  # the closed interval: bounds included
    assert (dlo, dhi) == (1.0, 16.0)
    assert dw.tolist() == [-1.0, -1.0, 0.0, 1.0, 1.0]


def test_clip_with_bounds_the_wrong_way_round():
    # NumPy: minimum(maximum(x, a_min), a_max), so a_min > a_max gives a_max everywhere
    f, grad_f, _ = compile_grad("np.sum(w * np.clip(x, lo, hi))", "x, lo, hi, w")
    args = [np.array([-2.0, 0.3, 2.0]), 1.0, -1.0, np.array([1.0, 2.0, 4.0])]
    value, *grads = grad_f(*args)
    assert value == -7.0
    assert grads[0].tolist() == [0.0, 0.0, 0.0]
    assert (grads[1], grads[2]) == (0.0, 7.0)
    check_numeric(f, args, grads)


def test_clip_to_a_single_value_counts_the_bound_once():
    # a_min == a_max: a tie; the gradient goes to one bound, so c gets it once, not twice
    f, grad_f, _ = compile_grad("np.sum(w * np.clip(x, c, c))", "x, c, w")
    args = [np.array([-1.0, 0.2, 3.0]), 0.5, np.array([1.0, 2.0, 4.0])]
    value, *grads = grad_f(*args)
    assert value == 3.5
    assert grads[0].tolist() == [0.0, 0.0, 0.0]
    assert grads[1] == 7.0
    check_numeric(f, args, grads)


def test_clip_of_nan_gives_no_gradient():
    _, grad_f, _ = compile_grad("np.sum(np.clip(x, lo, hi))", "x, lo, hi")
    _, dx, dlo, dhi = grad_f(np.array([np.nan, 0.0]), -1.0, 1.0)
    assert dx.tolist() == [0.0, 1.0]
    assert (dlo, dhi) == (0.0, 0.0)


@pytest.mark.parametrize("expr", ["np.clip(x, lo, None)", "x.clip(lo, None)", "np.clip(x, a_min=lo, a_max=None)"])
def test_clip_with_one_bound(expr):
    f, grad_f, _ = compile_grad(f"np.sum(w * {expr})", "x, lo, w")
    args = [np.array([-2.0, -0.5, 2.0]), -1.0, np.array([1.0, 2.0, 4.0])]
    value, *grads = grad_f(*args)
    assert value == f(*args)
    assert grads[0].tolist() == [0.0, 2.0, 4.0]
    assert grads[1] == 1.0
    check_numeric(f, args, grads)


def test_clip_of_a_sum_keeps_a_float_gradient():
    # dout is the constant 1.0 here: the gradient must still be floats, not the boolean mask
    _, grad_f, _ = compile_grad("np.sum(np.clip(x, -1.0, 1.0))")
    _, dx = grad_f(np.array([-2.0, 0.5, 2.0]))
    assert dx.dtype == np.float64
    assert dx.tolist() == [0.0, 1.0, 0.0]


# ============================================================================= where


def test_where_with_a_comparison_condition():
    f, grad_f, _ = compile_grad("np.sum(w * np.where(x > 0, x, 0.1 * x))", "x, w")
    x = np.array([-1.5, -0.2, 0.3, 2.0])
    w = np.array([1.0, 2.0, 4.0, 8.0])
    value, dx, dw = grad_f(x, w)
    assert value == f(x, w)
    assert np.allclose(dx, w * np.where(x > 0, 1.0, 0.1), rtol=1e-15, atol=0.0)
    check_numeric(f, [x, w], [dx, dw])


def test_where_gives_no_gradient_to_its_condition():
    _, grad_f, _ = compile_grad("np.sum(np.where(c, x, y))", "c, x, y")
    c = np.array([True, False, True])
    _, dc, dx, dy = grad_f(c, np.array([1.0, 2.0, 3.0]), 5.0)
    assert dc is None
    assert dx.tolist() == [1.0, 0.0, 1.0]
    assert dy == 1.0  # broadcast: summed back to the scalar


# ============================================================================= xlogy


def test_xlogy_at_x_zero():
    f, grad_f, _ = compile_grad("np.sum(scipy.special.xlogy(x, y))", "x, y")
    args = [np.array([0.0, 0.0, 0.5]), np.array([2.0, 0.5, 1.5])]
    value, dx, dy = grad_f(*args)
    assert value == 0.5 * np.log(1.5)
    assert np.allclose(dx, np.log(args[1]), rtol=1e-15, atol=0.0)
    assert dy.tolist() == [0.0, 0.0, 0.5 / 1.5]  # xlogy(0, y) = 0 for every y
    check_numeric(f, args, [dx, dy])


def test_xlogy_at_zero_zero():
    _, grad_f, _ = compile_grad("np.sum(scipy.special.xlogy(x, y))", "x, y")
    with np.errstate(divide="ignore", invalid="raise"):  # log(0) is -inf; no 0 / 0
        value, dx, dy = grad_f(np.array([0.0]), np.array([0.0]))
    assert value == 0.0
    assert dy.tolist() == [0.0]
    assert dx.tolist() == [-np.inf]  # d/dx x * log(0): the convention stops at the value


# ============================================================================= zero-gradient steps


@pytest.mark.parametrize(
    "expr",
    [
        "np.sum(np.floor(x))",
        "np.sum(np.ceil(x))",
        "np.sum(np.round(x))",
        "np.sum(np.around(x, 1))",
        "np.sum(x.round(2))",
        "np.sum(np.round(x, decimals=1))",
        "np.sum(np.floor(x) * np.ceil(x))",
    ],
)
def test_steps_give_no_gradient(expr):
    f, grad_f, _ = compile_grad(expr)
    x = np.array([0.26, -1.7, 2.6])
    value, dx = grad_f(x)
    assert value == f(x)
    assert dx is None


@pytest.mark.parametrize("call", ["math.floor", "math.ceil", "round"])
def test_int_valued_steps_are_static_code(call):
    # they return an int, which may index (x[i]): static code, written as the source wrote it, no gradient
    source = f"{HEADER}def f(x, t):\n    i = {call}(t)\n    return x[i] * 2.0\n"
    text = generate(source, "case.py").text
    assert f"{call}(t)" in text
    namespace: dict = {}
    exec(compile(text, "grad_case.py", "exec"), namespace)  # noqa: S102 - the code under test
    i = {"math.floor": math.floor, "math.ceil": math.ceil, "round": round}[call](1.6)
    value, dx, dt = namespace["grad_f"](np.array([1.0, 2.0, 3.0, 4.0]), 1.6)
    assert value == 2.0 * [1.0, 2.0, 3.0, 4.0][i]
    assert dx.tolist() == [2.0 * (k == i) for k in range(4)] and dt in (None, 0.0)


def test_a_step_is_a_constant_factor():
    f, grad_f, _ = compile_grad("np.sum(np.floor(x) * y + x * np.round(x))", "x, y")
    x, y = np.array([0.26, -1.7, 2.6]), np.array([1.0, 2.0, 3.0])
    _, dx, dy = grad_f(x, y)
    assert dx.tolist() == [0.0, -2.0, 3.0]  # round(x): only the direct path of x
    assert dy.tolist() == [0.0, -2.0, 2.0]
    check_numeric(f, [x, y], [dx, dy])


# ============================================================================= complex parts of real values


@pytest.mark.parametrize(
    "expr", ["np.real(x)", "x.conj()", "np.conjugate(x)", "x.real", "np.imag(x)", "x.imag", "np.conj(x)"]
)
def test_complex_parts_of_a_real_differentiated_value(expr):
    """Of a real x, np.real(x) and np.conj(x) are x and np.imag(x) is 0 (refused, YS023, before complex
    differentiation: tests/test_complex.py has them of complex values).  Of a value that is not
    differentiated, they run."""
    f, grad_f, _ = compile_grad(f"np.sum(w * {expr})", "x, w")
    x, w = np.array([0.5, -1.0, 2.0]), np.array([1.0, 3.0, -0.5])
    value, dx, dw = grad_f(x, w)
    assert value == f(x, w)
    assert dx.tolist() == ([0.0, 0.0, 0.0] if "imag" in expr else w.tolist())
    check_numeric(f, [x, w], [dx, dw])
    source = f"{HEADER}def f(w, c):\n    return np.sum(w * {expr.replace('x', 'c')})\n"
    namespace: dict = {}
    exec(compile(source, "case.py", "exec"), namespace)  # noqa: S102 - the function under test
    exec(compile(generate(source, "case.py", wrt=["w"]).text, "generated.py", "exec"), namespace)  # noqa: S102
    w, c = np.array([1.0, 3.0]), np.array([0.5, -1.0])
    value, dw = namespace["grad_f"](w, c)
    assert value == namespace["f"](w, c)
    assert dw.tolist() == (np.imag(c) if "imag" in expr else c).tolist()


# ============================================================================= scipy.special in the generated module


@pytest.mark.parametrize(
    ("imports", "call"),
    [
        ("import scipy.special", "scipy.special.expit"),
        ("from scipy.special import expit", "expit"),
        ("from scipy import special", "special.expit"),
        ("from scipy import special as sp", "sp.expit"),
    ],
)
def test_scipy_special_however_imported(imports, call):
    # (expit: erf, erfc and the gamma family are written in NumPy, runtime/special.py)
    source = f"import numpy as np\n{imports}\n\n\ndef f(x):\n    return np.sum({call}(x) * x)\n"
    text = generate(source, "case.py").text
    assert "import scipy.special\n" in text
    namespace: dict = {}
    exec(compile(text, "generated.py", "exec"), namespace)  # noqa: S102 - the code under test
    x = np.array([0.3, -1.2])
    value, dx = namespace["grad_f"](x)
    s = scipy.special.expit(x)
    assert value == np.sum(s * x)
    assert np.allclose(dx, s + x * s * (1.0 - s), rtol=1e-14, atol=0.0)


def test_erf_is_written_in_numpy_however_imported():
    source = "import numpy as np\nfrom scipy.special import erf, erfc\n\n\ndef f(x):\n    return np.sum(erf(x) * x + erfc(x))\n"
    text = generate(source, "case.py").text
    assert "scipy" not in text.split("def ")[0] and "_erf(x)" in text
    namespace: dict = {}
    exec(compile(text, "generated.py", "exec"), namespace)  # noqa: S102 - the code under test
    x = np.array([0.3, -1.2, 2.5])
    value, dx = namespace["grad_f"](x)
    assert np.isclose(value, np.sum(scipy.special.erf(x) * x + scipy.special.erfc(x)), rtol=1e-14)
    assert np.allclose(dx, scipy.special.erf(x) + (x - 1.0) * 2 / np.sqrt(np.pi) * np.exp(-x * x), rtol=1e-13)


def test_no_scipy_import_without_a_special_function():
    assert "scipy" not in compile_grad("np.sum(np.exp2(x))")[2]


def test_digamma_gradient_is_trigamma():
    f, grad_f, text = compile_grad("np.sum(scipy.special.gammaln(x) + scipy.special.digamma(x))")
    assert "_polygamma(1, x)" in text and "import scipy" not in text  # the gamma family is written in NumPy
    x = np.array([0.5, 1.0, 3.5])
    _, dx = grad_f(x)
    assert np.allclose(dx, scipy.special.digamma(x) + scipy.special.polygamma(1, x), rtol=1e-13, atol=0.0)
    check_numeric(f, [x], [dx])


# ============================================================================= dtypes

FLOAT32_CASES = {
    "exp2": "np.exp2(x)",
    "expm1": "np.expm1(x)",
    "log2": "np.log2(x)",
    "log10": "np.log10(x)",
    "log1p": "np.log1p(x)",
    "cbrt": "np.cbrt(x)",
    "square": "np.square(x)",
    "reciprocal": "np.reciprocal(x)",
    "tan": "np.tan(x)",
    "arcsin": "np.arcsin(x)",
    "arccos": "np.arccos(x)",
    "arctan": "np.arctan(x)",
    "arctan2": "np.arctan2(x, y)",
    "sinh": "np.sinh(x)",
    "cosh": "np.cosh(x)",
    "arcsinh": "np.arcsinh(x)",
    "arccosh": "np.arccosh(x + 1.5)",
    "arctanh": "np.arctanh(x)",
    "maximum": "np.maximum(x, y)",
    "minimum": "np.minimum(x, y)",
    "fmax": "np.fmax(x, y)",
    "fmin": "np.fmin(x, y)",
    "clip": "np.clip(x, y, y + 0.2)",
    "where": "np.where(x > 0.5, x, y)",
    "logaddexp": "np.logaddexp(x, y)",
    "logaddexp2": "np.logaddexp2(x, y)",
    "hypot": "np.hypot(x, y)",
    "expit": "scipy.special.expit(x)",
    "logit": "scipy.special.logit(x)",
    "erf": "scipy.special.erf(x)",
    "erfc": "scipy.special.erfc(x)",
    "gammaln": "scipy.special.gammaln(x)",
    "xlogy": "scipy.special.xlogy(x, y)",
}
# Not here: float_power computes in float64 by definition, and scipy.special.polygamma (the
# gradient of digamma) returns float64 for float32 input.


@pytest.mark.parametrize("weighted", [False, True], ids=["sum", "weighted"])
@pytest.mark.parametrize("prim", sorted(FLOAT32_CASES))
def test_float32_in_float32_gradients_out(prim, weighted):
    expr = FLOAT32_CASES[prim]
    _, grad_f, _ = compile_grad(f"np.sum(w * {expr})" if weighted else f"np.sum({expr})", "x, y, w")
    rng = np.random.default_rng(1)
    x, y = (rng.uniform(0.2, 0.8, 3).astype(np.float32) for _ in range(2))
    _, *grads = grad_f(x, y, np.full(3, 0.5, np.float32))
    for grad in grads:
        if grad is not None:
            assert grad.dtype == np.float32
