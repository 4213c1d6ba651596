"""The rules that first-order helpers have for their own operands (``runtime/second.py``): the parts of a
join (``np.concatenate``, ``np.hstack``, ``np.vstack``, ``np.column_stack``, ``np.r_``, ``np.c_``), the
gradient of ``np.linalg.norm`` and of ``np.sort``.  They are what ``--hvp``, ``--hessian`` and ``--jvp``
(which transposes the reverse sweep) need of those helpers.

Each adjoint pair is checked exact (``<A g, d> == <g, A.T d>`` for random ``g`` and ``d``); each
Hessian against central differences of the gradient and symmetric; each JVP against the Jacobian's
columns from central differences of the function.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.test_hessian import numeric_hessian
from yota_s2s.errors import UserError
from yota_s2s.pipeline import generate
from yota_s2s.runtime.core import _sort_dx
from yota_s2s.runtime.linalg import _norm_dx
from yota_s2s.runtime.second import _join_part, _join_place, _norm_dx_dg, _sort_dx_dg
from yota_s2s.runtime.shape import _index_join

RNG = np.random.default_rng(3131)


def _joined(xs, join, axis):
    if join == "concatenate":
        return np.concatenate(xs, axis=axis)
    if join in ("r", "c"):
        return _index_join(xs, join)
    return {"hstack": np.hstack, "vstack": np.vstack, "column_stack": np.column_stack}[join](xs)


@pytest.mark.parametrize(
    ("join", "shapes", "axis"),
    [
        ("concatenate", [(2, 3), (1, 3), (4, 3)], 0),
        ("concatenate", [(2, 3), (2, 1)], -1),
        ("concatenate", [(2, 3), (5,)], None),
        ("hstack", [(3,), (2,), ()], 0),
        ("hstack", [(2, 3), (2, 1)], 0),
        ("vstack", [(3,), (2, 3)], 0),
        ("column_stack", [(3,), (3, 2)], 0),
        ("r", [(3,), (), (2,)], 0),
        ("c", [(3,), (3, 2)], 0),
    ],
)
def test_the_parts_of_a_join_and_their_adjoints_are_exact(join, shapes, axis):
    xs = [RNG.standard_normal(s) if s else float(RNG.standard_normal()) for s in shapes]
    g = RNG.standard_normal(np.shape(_joined(xs, join, axis)))
    for part, x in enumerate(xs):
        d = RNG.standard_normal(np.shape(x))
        block = _join_part(g, xs, part, join, axis)
        placed = _join_place(d, xs, part, join, axis)
        assert np.shape(block) == np.shape(x) and np.shape(placed) == np.shape(g)
        assert np.isclose(np.sum(block * d), np.sum(g * placed), rtol=1e-13)
        # the block is the part itself when g is the join of the parts
        assert np.array_equal(_join_part(_joined(xs, join, axis), xs, part, join, axis), np.asarray(x))


@pytest.mark.parametrize(
    ("shape", "ord", "axis", "keepdims"),
    [
        ((5,), None, None, False),
        ((3, 4), None, None, True),
        ((3, 4), "fro", None, False),
        ((3, 4), 2, 1, False),
        ((3, 4), None, 0, True),
        ((5,), np.inf, None, False),
        ((3, 4), 1, None, False),
        ((5,), 3, None, False),
        ((3, 4), "nuc", None, False),
    ],
)
def test_the_adjoint_of_the_norms_gradient_in_g_is_exact(shape, ord, axis, keepdims):
    x = RNG.standard_normal(shape)
    n = np.linalg.norm(x, ord, axis, keepdims)
    g, d = RNG.standard_normal(np.shape(n)), RNG.standard_normal(shape)
    left = np.sum(_norm_dx(g, x, n, ord, axis, keepdims) * d)
    assert np.isclose(left, np.sum(g * _norm_dx_dg(d, x, n, ord, axis, keepdims)), rtol=1e-12)


@pytest.mark.parametrize("axis", [-1, 0, None])
def test_the_adjoint_of_the_sorts_gradient_is_exact_with_ties(axis):
    x = RNG.standard_normal((4, 5))
    x[1, 1] = x[1, 3] = x[2, 0] = x[0, 0]  # ties in a row, in a column, and across rows
    s = np.sort(x, axis=axis)
    g, d = RNG.standard_normal(s.shape), RNG.standard_normal(x.shape)
    left = np.sum(_sort_dx(g, x, s, axis) * d)
    assert np.isclose(left, np.sum(g * _sort_dx_dg(d, x, s, axis)), rtol=1e-12)


SOURCE = """\
import numpy as np


def cubed_norm(x):
    return np.linalg.norm(x) ** 3 + np.sum(np.tanh(x) * x[::-1])


def row_norms(X):
    return np.sum(np.linalg.norm(X, axis=1) ** 2 * np.arange(1.0, 4.0)) + np.linalg.norm(X, "fro")


def kept(X):
    n = np.linalg.norm(X, 2, axis=0, keepdims=True)
    return np.sum(np.exp(-n) * X)


def max_norm(x):
    return np.linalg.norm(x, np.inf) * np.sum(x**2) + np.linalg.norm(x, 1) * x[0]


def joined(x):
    y = np.concatenate([x, x * x, np.sin(x[:2])])
    return np.sum(y * y * np.arange(1.0, y.size + 1))


def stacks(x):
    a = np.hstack([x * 2.0, np.exp(x)])
    b = np.vstack([x, x**2])
    c = np.column_stack([x, np.cos(x)])
    d = np.r_[x[:2], 1.0, x**3]
    return np.sum(np.cos(a) * a) + np.sum(b * b.T @ b) + np.sum(c**3) + np.sum(d * d)


def sorted_weights(x):
    s = np.sort(x * x + x)
    return np.sum(s * np.arange(1.0, 6.0)) + np.sum(s**3)
"""

CASES = {
    "cubed_norm": (5,),
    "row_norms": (3, 4),
    "kept": (3, 4),
    "max_norm": (5,),
    "joined": (5,),
    "stacks": (2,),
    "sorted_weights": (5,),
}


@pytest.fixture(scope="module")
def modules() -> dict:
    out = {}
    for mode in ("grad", "hvp", "hessian"):
        namespace: dict = {}
        exec(compile(generate(SOURCE, "second.py", list(CASES), mode=mode).text, mode, "exec"), namespace)  # noqa: S102
        out[mode] = namespace
    return out


@pytest.mark.parametrize("name", list(CASES))
def test_hessians_through_the_helpers_against_finite_differences(modules, name):
    x = RNG.standard_normal(CASES[name])
    value, g, H = modules["hessian"]["hess_" + name](x)
    f_value, f_grad = modules["grad"]["grad_" + name](x)
    assert np.isclose(value, f_value, rtol=1e-13) and np.allclose(g, f_grad, rtol=1e-13, atol=1e-15)
    expected = numeric_hessian(modules["grad"]["grad_" + name], (x,), 0)
    scale = max(1.0, np.abs(expected).max())
    assert np.abs(H - expected).max() <= 1e-6 * scale, (name, np.abs(H - expected).max())
    square = np.reshape(H, (x.size, x.size))
    assert np.abs(square - square.T).max() <= 1e-12 * scale
    v = RNG.standard_normal(x.shape)
    hv = modules["hvp"]["hvp_" + name](x, v)[2]
    assert np.allclose(hv, np.tensordot(H, v, axes=v.ndim), rtol=1e-12, atol=1e-12 * scale)


def test_the_two_norm_has_no_second_derivative_at_zero():
    """NaN there, as JAX gives: the primitive's second derivative does not exist at 0, even where the
    function's does (norm(x)**2 is sum(x*x)): never a finite number that may be wrong."""
    source = "import numpy as np\n\n\ndef f(x):\n    return np.linalg.norm(x) ** 2\n"
    namespace: dict = {}
    exec(compile(generate(source, "f.py", mode="hessian").text, "f", "exec"), namespace)  # noqa: S102
    assert np.allclose(namespace["hess_f"](np.array([0.5, -1.0, 2.0]))[2], 2.0 * np.eye(3), rtol=1e-12)
    assert np.isnan(namespace["hess_f"](np.zeros(3))[2]).all()


@pytest.mark.parametrize(
    ("call", "reason"),
    [
        ('np.linalg.norm(x, "nuc")', "ord='nuc'"),
        ("np.linalg.norm(x, 3)", "ord=3"),
        ("np.linalg.norm(x, 2, axis=(0, 1))", "ord=2"),
    ],
)
def test_second_derivatives_of_other_norms_are_refused_where_written(call, reason):
    source = f"import numpy as np\n\n\ndef f(x):\n    return {call} + np.sum(x * x)\n"
    with pytest.raises(UserError) as info:
        generate(source, "f.py", mode="hessian")
    assert info.value.code == "YS107" and reason in info.value.message and info.value.line == 5


JVP_SOURCE = """\
import numpy as np


def joined(x):
    return np.concatenate([x, x * x, np.sin(x[:2])])


def stacked(x):
    return np.hstack([x[0] * x, np.exp(x)]) + np.r_[x, x[::-1]] * 2.0


def normalized(X):
    return X / np.linalg.norm(X, axis=1, keepdims=True)


def ranked(x):
    return np.sort(x**3 - x)
"""


@pytest.mark.parametrize(
    ("name", "shape"), [("joined", (4,)), ("stacked", (3,)), ("normalized", (3, 2)), ("ranked", (5,))]
)
def test_jvp_through_the_helpers_against_finite_differences(name, shape):
    namespace: dict = {}
    exec(compile(generate(JVP_SOURCE, "f.py", [name], mode="jvp").text, "f", "exec"), namespace)  # noqa: S102
    exec(compile(JVP_SOURCE, "f.py", "exec"), namespace)  # noqa: S102
    f = namespace[name]
    x, t = RNG.standard_normal(shape), RNG.standard_normal(shape)
    value, dvalue = namespace["jvp_" + name](x, t)
    eps = 1e-6
    numeric = (f(x + eps * t) - f(x - eps * t)) / (2 * eps)
    assert np.allclose(value, f(x), rtol=1e-14) and np.allclose(dvalue, numeric, rtol=1e-6, atol=1e-8)


PRODUCTS = """\
import numpy as np


def monomials(x):
    return np.prod(x**2 + 0.5) + np.sum(np.prod(x.reshape(2, 3), axis=1) ** 2)


def with_zeros(x):
    return np.prod(x) * np.sum(x) + np.prod(x[:3], keepdims=True)[0]


def growth(r):
    return np.sum(np.cumprod(1.0 + r) * np.arange(1.0, 7.0))


def growth_axis(r):
    c = np.cumprod(r.reshape(3, 2), axis=0)
    return np.sum(c * c) + np.sum(np.cumprod(r) ** 2)
"""


@pytest.mark.parametrize("name", ["monomials", "with_zeros", "growth", "growth_axis"])
@pytest.mark.parametrize("zeros", [False, True])
def test_hessians_of_products_are_exact_where_x_holds_zeros(name, zeros):
    namespace: dict = {}
    exec(compile(PRODUCTS, "p.py", "exec"), namespace)  # noqa: S102
    hess = {}
    exec(compile(generate(PRODUCTS, "p.py", [name], mode="hessian").text, "h", "exec"), hess)  # noqa: S102
    f = namespace[name]
    x = RNG.uniform(-1.5, 1.5, 6)
    if zeros:
        x[[1, 4]] = 0.0  # two zeros: each product of the others but one is 0, some second derivatives are not
    value, _, H = hess["hess_" + name](x)
    eps, n = 1e-4, x.size
    expected = np.empty((n, n))  # central differences of f itself, exact for a cubic in each pair
    for i in range(n):
        for j in range(n):
            ei, ej = np.eye(n)[i] * eps, np.eye(n)[j] * eps
            expected[i, j] = (f(x + ei + ej) - f(x + ei - ej) - f(x - ei + ej) + f(x - ei - ej)) / (4 * eps * eps)
    assert value == pytest.approx(f(x), rel=1e-13)
    assert np.allclose(H, expected, rtol=1e-6, atol=1e-6), np.abs(H - expected).max()
    assert np.allclose(H, H.T, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("axis", [None, 0, 1])
def test_the_adjoint_of_the_cumprods_gradient_is_exact(axis):
    from yota_s2s.runtime.core import _cumprod_dx
    from yota_s2s.runtime.second import _cumprod_dx_adj

    x = RNG.standard_normal((3, 4))
    x[1, 2] = 0.0
    c = np.cumprod(x, axis=axis)
    g, d = RNG.standard_normal(c.shape), RNG.standard_normal(x.shape)
    left = np.sum(_cumprod_dx(g, x, c, axis) * d)
    assert np.isclose(left, np.sum(g * _cumprod_dx_adj(d, g, x, c, "g", axis)), rtol=1e-12)
    eps = 1e-6  # the parts in x and c: directional derivatives of <_cumprod_dx(g, x, c), d>
    for part, (dx, dc) in {"x": (RNG.standard_normal(x.shape), 0.0), "c": (0.0, RNG.standard_normal(c.shape))}.items():
        up = np.sum(_cumprod_dx(g, x + eps * dx, c + eps * dc, axis) * d)
        down = np.sum(_cumprod_dx(g, x - eps * dx, c - eps * dc, axis) * d)
        exact = np.sum(_cumprod_dx_adj(d, g, x, c, part, axis) * (dx if part == "x" else dc))
        assert np.isclose(exact, (up - down) / (2 * eps), rtol=1e-7, atol=1e-9), part
