"""Scans, sorts, the trapezoidal rule, remainders, sinc and nan_to_num where the generic checks do not reach.

``tests/test_rules.py`` checks each rule through each source name against central differences
at random points (and the elementwise ones against SymPy).  Here: ``np.cumprod`` with zeros
(its gradient divides by nothing), ``np.sort`` and ``np.partition`` with ties (equal elements
share their places' gradients) and against ``verify.check_grads`` at its edge points,
broadcast operands, ``%`` on Python floats and at its jumps, ``np.sinc`` next to 0, and
``np.trapezoid`` with differentiated sample points ``x=``.
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

from yota_s2s.pipeline import generate
from yota_s2s.verify import check_grads

from .gradcheck import assert_close, numeric_grad


def functions(body: str, params: str = "x", name: str = "f"):
    """``(f, grad_f)`` of ``def f(<params>): <body>`` (``np`` imported)."""
    source = f"import numpy as np\n\n\ndef {name}({params}):\n"
    source += "".join(f"    {line}\n" for line in body.splitlines())
    user: dict = {}
    exec(compile(source, "case.py", "exec"), user)  # noqa: S102 - the test's own source
    namespace: dict = {}
    exec(compile(generate(source, "case.py", [name]).text, "grad_case.py", "exec"), namespace)  # noqa: S102
    return user[name], namespace[f"grad_{name}"]


def check_fd(body: str, *args, params: str = "x"):
    """The generated gradient against central differences of the function, for every argument."""
    f, grad = functions(body, params)
    value, *grads = grad(*args)
    assert np.allclose(value, f(*args), rtol=1e-12, atol=1e-12)
    for i, g in enumerate(grads):
        assert_close(g, numeric_grad(f, list(args), i), f"{body}: d{i}")
    return grads


RNG = np.random.default_rng(3)
W = RNG.standard_normal((3, 4))

# ----------------------------------------------------------------------------- cumprod


@pytest.mark.parametrize(
    "x",
    [
        np.array([2.0, 0.0, 3.0, -1.5]),
        np.array([0.0, 1.5, -2.0, 0.5]),
        np.array([1.5, -2.0, 0.5, 0.0]),
        np.array([1.5, 0.0, 0.0, 2.0]),
        np.zeros(4),
        np.array([1.1, -0.9, 1.3, 0.0, 0.7, -1.2, 0.8, 1.4, 0.0, 1.2]),  # past 8: four doubling steps
    ],
)
def test_cumprod_with_zeros_matches_finite_differences(x):
    w = np.linspace(-1.0, 1.5, x.size)
    check_fd("return np.sum(w * np.cumprod(x))", x, w, params="x, w")


@pytest.mark.parametrize("axis", [0, 1, -1, None])
def test_cumprod_of_a_matrix_with_zeros(axis):
    x = RNG.uniform(0.5, 1.5, (3, 4)) * np.array([1.0, -1.0, 1.0, -1.0])
    x[1, 0] = x[0, 2] = x[2, 3] = 0.0
    w = W if axis is not None else W.reshape(-1)
    body = f"return np.sum(w * np.cumprod(x, axis={axis}))"
    check_fd(body, x, w, params="x, w")
    check_fd(f"return np.sum(w * x.cumprod(axis={axis}))", x, w, params="x, w")


def test_cumprod_exact_where_products_underflow():
    # out[1] = 1e-400 underflows to 0; out / x would give d out[2] / d x[0] = 0, it is 1
    x = np.array([1e-200, 1e-200, 1e200])
    _, grad = functions("return np.cumprod(x)[2]")
    _, dx = grad(x)
    assert dx.tolist() == [1.0, 1.0, 1e-400]


def test_cumprod_where_later_products_overflow():
    # out[1] and out[2] overflow to inf, but f reads out[0] only: the gradient is finite
    f, grad = functions("return np.cumprod(x)[0]")
    x = np.array([1e200, 1e200, 1e200])
    with np.errstate(over="ignore"):
        value, dx = grad(x)
        assert value == f(x) == 1e200
    assert dx.tolist() == [1.0, 0.0, 0.0]


def test_cumprod_of_a_broadcast_product_and_of_a_number():
    check_fd(
        "return np.sum(w * np.cumprod(x * y, axis=0))",
        RNG.uniform(0.5, 1.5, (3, 4)),
        RNG.uniform(0.5, 1.5, 4),
        W,
        params="x, y, w",
    )
    check_fd("return np.sum(np.cumprod(x))", 1.7)


def test_cumprod_passes_the_edge_point_checks():
    f, grad = functions("return np.sum(w * np.cumprod(x, axis=1))", "x, w")
    check_grads(f, grad, (RNG.uniform(0.5, 1.5, (3, 4)), W))


# ----------------------------------------------------------------------------- sort


def test_sort_ties_share_their_places_gradients():
    _, grad = functions("return np.sum(w * np.sort(x))", "x, w")
    x = np.array([3.0, 1.0, 3.0, 2.0, 3.0])
    w = np.array([1.0, 2.0, 4.0, 8.0, 16.0])
    _, dx, dw = grad(x, w)
    # sorted: 1, 2, 3, 3, 3: the three 3s share 4 + 8 + 16
    assert dx.tolist() == [28 / 3, 1.0, 28 / 3, 2.0, 28 / 3]
    assert dw.tolist() == [1.0, 2.0, 3.0, 3.0, 3.0]


def test_the_last_of_a_sort_gets_what_max_gets():
    _, grad_sort = functions("return np.sort(x, axis=None)[-1] + np.sort(x, axis=0)[0, 1]")
    _, grad_max = functions("return np.max(x) + np.min(x, axis=0)[1]")
    x = np.array([[1.0, 3.0, 3.0], [2.0, 0.5, 0.0], [0.0, 0.5, 1.0]])
    assert (
        grad_sort(x)[1].tolist()
        == grad_max(x)[1].tolist()
        == [
            [0.0, 0.5, 0.5],
            [0.0, 0.5, 0.0],
            [0.0, 0.5, 0.0],
        ]
    )


@pytest.mark.parametrize("axis", [0, 1, -1, None])
def test_sort_along_an_axis_with_ties(axis):
    x = np.array([[1.0, 2.0, 1.0, 0.5], [2.0, 2.0, -1.0, 2.0], [0.5, 1.0, 0.5, 3.0]])
    f, grad = functions(f"return np.sum(w * np.sort(x, axis={axis}) ** 2)", "x, w")
    w = W if axis is not None else W.reshape(-1)
    s = np.sort(x, axis=axis)
    _, dx, _ = grad(x, w)
    # each element: the mean of 2 * s * w over the places holding its value (in its row/column)
    expected = np.empty_like(x)
    xa = np.moveaxis(x, axis, -1) if axis is not None else x.reshape(1, -1)
    sa = np.moveaxis(s, axis, -1) if axis is not None else s.reshape(1, -1)
    wa = np.moveaxis(w, axis, -1) if axis is not None else w.reshape(1, -1)
    ea = np.empty_like(xa)
    for r in range(xa.shape[0]):
        for i in range(xa.shape[1]):
            places = sa[r] == xa[r, i]
            ea[r, i] = np.mean(2 * sa[r][places] * wa[r][places])
    expected = np.moveaxis(ea, -1, axis) if axis is not None else ea.reshape(x.shape)
    assert np.allclose(dx, expected, rtol=1e-14, atol=0)
    check_grads(f, grad, (RNG.standard_normal((3, 4)), w))


def test_sort_of_a_broadcast_sum_and_along_the_first_axis():
    check_fd(
        "return np.sum(w * np.sort(x + y, axis=0))",
        RNG.standard_normal((3, 4)),
        RNG.standard_normal(4),
        W,
        params="x, y, w",
    )


def test_sort_keeps_nan_last():
    _, grad = functions("return np.sum(w * np.sort(x))", "x, w")
    with np.errstate(invalid="ignore"):
        _, dx, _ = grad(np.array([2.0, np.nan, 1.0]), np.array([1.0, 2.0, 4.0]))
    assert dx.tolist() == [2.0, 4.0, 1.0]


# ----------------------------------------------------------------------------- partition


@pytest.mark.parametrize("kth", [0, 2, 4, -1, (1, 3)])
def test_partition_matches_finite_differences(kth):
    x = RNG.standard_normal(5)
    check_fd(f"return np.sum(w * np.partition(x, {kth}))", x, np.arange(1.0, 6.0), params="x, w")


@pytest.mark.parametrize("axis", [0, 1, None])
def test_partition_along_an_axis(axis):
    w = W if axis is not None else W.reshape(-1)
    check_fd(f"return np.sum(w * np.partition(x, 1, axis={axis}))", RNG.standard_normal((3, 4)), w, params="x, w")


def test_partition_reads_the_places_from_its_result():
    # the smallest k and the kth element: with ties, the sums over each side are exact
    _, grad = functions("p = np.partition(x, 2)\nreturn np.sum(p[:2]) * 3.0 + p[2] * 2.0 + np.sum(p[3:])")
    x = np.array([4.0, 1.0, 4.0, 0.5, 2.0, 1.0])
    _, dx = grad(x)
    # sorted 0.5, 1, 1, 2, 4, 4: kth = 2 holds a 1 tied with the 1 at place 1 (3.0 and 2.0: 2.5 each)
    assert dx.tolist() == [1.0, 2.5, 1.0, 3.0, 1.0, 2.5]


def test_partition_with_ties_passes_the_edge_point_checks():
    f, grad = functions("p = np.partition(x, 3)\nreturn np.sum(p[:3] ** 2) + p[3] * 2.0 + np.sum(np.sin(p[4:]))")
    check_grads(f, grad, (RNG.standard_normal(8),))


# ----------------------------------------------------------------------------- trapezoid


@pytest.mark.parametrize("name", ["trapezoid", "trapz"])
def test_trapezoid_is_written_with_the_name_numpy_has(name):
    source = f"import numpy as np\n\n\ndef f(y):\n    return np.{name}(y, dx=0.5)\n"
    text = generate(source, "case.py", ["f"]).text
    code = [line for line in text.splitlines() if not line.lstrip().startswith("#")]  # (comments quote the source)
    assert not any("np.trapz(" in line for line in code)
    namespace: dict = {}
    exec(compile(text, "grad_case.py", "exec"), namespace)  # noqa: S102
    y = np.array([1.0, 3.0, 2.0, 5.0])
    value, dy = namespace["grad_f"](y)
    assert value == np.trapezoid(y, dx=0.5)
    assert dy.tolist() == [0.25, 0.5, 0.5, 0.25]


def test_trapezoid_of_a_broadcast_product_with_sample_points():
    check_fd(
        "return np.sum(np.trapezoid(x * y, [0.0, 0.5, 2.0], axis=0) * y)",
        RNG.standard_normal((3, 2)),
        RNG.standard_normal(2),
        params="x, y",
    )
    check_fd(
        "return np.sum(np.trapezoid(x * y, dx=0.3) * w)",
        RNG.standard_normal((3, 4)),
        RNG.standard_normal(4),
        W[:, 0],
        params="x, y, w",
    )


def test_trapezoid_of_one_sample_is_zero():
    check_fd("return np.sum(np.trapezoid(x, axis=0)) + np.sum(x)", RNG.standard_normal((1, 3)))


@pytest.mark.parametrize(
    ("body", "shapes"),
    [
        ("np.trapezoid(y, np.cumsum(t ** 2))", [(5,), (5,)]),
        ("np.trapezoid(y, x=np.cumsum(t ** 2), axis=0)", [(5, 2), (5,)]),
        ("np.trapezoid(y, np.cumsum(t ** 2, axis=1))", [(2, 4), (2, 4)]),
        ("np.trapezoid(y, np.cumsum(t ** 2, axis=-1))", [(3, 2, 4), (2, 4)]),  # points broadcast over y
        ("np.trapezoid(y, np.cumsum(t ** 2, axis=0), axis=0)", [(4, 2), (4, 1)]),  # and y over the points
        pytest.param(
            "np.trapz(y, t, 0.5, -1)",
            [(4,), (4,)],
            marks=pytest.mark.skipif(
                not hasattr(np, "trapz"), reason="NumPy 2.4 removed np.trapz (the source cannot run)"
            ),
        ),
        ("np.trapezoid(y * t, t)", [(2, 4), (4,)]),
    ],
)
def test_trapezoid_with_differentiated_sample_points(body, shapes):
    y, t = (RNG.uniform(0.5, 2.0, s) for s in shapes)
    check_fd(f"return np.sum(np.sin(1.0 + {body}))", y, t, params="y, t")


def test_trapezoid_sample_points_at_ties_and_zeros():
    f, grad = functions("return np.sum(np.trapezoid(y, np.cumsum(t), axis=0) ** 2)", "y, t")
    check_grads(f, grad, (RNG.standard_normal((4, 3)), RNG.uniform(0.5, 2.0, 4)))


# ----------------------------------------------------------------------------- remainders


def test_mod_reads_the_quotient_numpy_used():
    # floor(1 / 0.1) is 10, but 1 % 0.1 is 0.0999...: the quotient is 9
    _, grad = functions("return x % y", "x, y")
    value, dx, dy = grad(1.0, 0.1)
    assert (value, dx, dy) == (1.0 % 0.1, 1.0, -9.0)


@pytest.mark.parametrize("op", ["x % y", "np.mod(x, y)", "np.remainder(x, y)", "np.fmod(x, y)"])
def test_remainders_at_their_jumps_take_the_slopes_of_the_piece_given(op):
    # at x == k y the value is 0 (the piece starting there for mod with y > 0, ending for y < 0)
    _, grad = functions(f"return np.sum(w * ({op}))", "x, y, w")
    x = np.array([3.0, -3.0, 4.5, 3.0, -1.0])
    y = np.array([1.5, 1.5, -1.5, -1.5, 0.75])
    w = np.ones(5)
    _, dx, dy, _ = grad(x, y, w)
    assert dx.tolist() == [1.0] * 5
    q = np.trunc(x / y) if "fmod" in op else np.floor_divide(x, y)
    assert dy.tolist() == (-q).tolist()


@pytest.mark.parametrize("op", ["x % y", "np.fmod(x, y)"])
def test_remainders_pass_the_edge_point_checks(op):
    f, grad = functions(f"return np.sum(w * ({op}))", "x, y, w")
    check_grads(f, grad, (RNG.uniform(-3.0, 3.0, (2, 3)), RNG.uniform(0.6, 1.7, 3), W[:2, :3]))


def test_modulo_of_python_floats_and_an_integer_counter():
    grads = check_fd(
        "acc = 0.0\nfor k in range(4):\n    acc = acc + (x * k) % (y + k % 2)\nreturn acc", 2.3, 0.7, params="x, y"
    )
    assert all(type(g) is float or np.ndim(g) == 0 for g in grads)


# ----------------------------------------------------------------------------- sinc, nan_to_num


def test_sinc_at_and_next_to_zero():
    _, grad = functions("return np.sum(np.sinc(x))")
    x = np.array([0.0, 1e-9, -3e-3, 0.019, 0.021, 0.5, 2.0])
    value, dx = grad(x)
    assert value == np.sum(np.sinc(x))
    assert dx[0] == 0.0
    with mpmath.workdps(50):  # (cos(pi x) - sinc(x)) / x, to 50 digits: no cancellation left
        exact = [float((mpmath.cospi(v) - mpmath.sincpi(v)) / v) for v in map(mpmath.mpf, x[1:])]
    assert np.allclose(dx[1:], exact, rtol=1e-12, atol=0)
    _, grad1 = functions("return np.sinc(x)")
    assert grad1(0.0)[1] == 0.0


def test_nan_to_num_passes_finite_values_only():
    f, grad = functions("return np.sum(w * np.nan_to_num(x, posinf=5.0))", "x, w")
    x = np.array([1.0, np.nan, np.inf, -np.inf, -2.0])
    w = np.array([1.0, 2.0, 3.0, 1e-300, 5.0])
    value, dx, dw = grad(x, w)
    assert value == f(x, w)
    assert dx.tolist() == [1.0, 0.0, 0.0, 0.0, 5.0]
    assert dw.tolist() == np.nan_to_num(x, posinf=5.0).tolist()


@pytest.mark.parametrize(
    "body", ["return np.sum(np.deg2rad(x) + np.radians(x) ** 2)", "return np.sum(np.rad2deg(x) * np.degrees(x))"]
)
def test_angle_conversions(body):
    check_fd(body, RNG.standard_normal((2, 3)))
