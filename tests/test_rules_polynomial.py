"""Polynomial rules (``rules/polynomial.py``), run through generated modules.

``tests/test_rules.py`` checks every source name on the shapes of ``tests/rule_specs/polynomial.py``;
this file covers what those tables cannot say: ``x == 0`` (where a power ``x ** (k - 1)`` would
be ``0 ** -1``), coefficient vectors of every degree from 0 to 6, float32 operands, batched ``x``,
the import forms of ``numpy.polynomial``, the derivatives against ``sympy.diff`` of the
polynomial, the runtime evaluators against NumPy's, and the refused second derivatives.
"""

from __future__ import annotations

import numpy as np
import numpy.polynomial as npp
import pytest
import sympy

from yota_s2s.dsl.load import load_rules
from yota_s2s.errors import UserError
from yota_s2s.ir.core import Param, Tape
from yota_s2s.pipeline import generate
from yota_s2s.runtime import polynomial as runtime
from yota_s2s.transform.differentiate import differentiate

from .gradcheck import assert_close, numeric_grad

HEADER = "import numpy as np\n\n\n"

#: primitive -> (the call in the generated test, NumPy's function, SymPy's basis polynomial k)
x_ = sympy.Symbol("x", real=True)
SERIES = {
    "polynomial_polyval": ("np.polynomial.polynomial.polyval", npp.polynomial.polyval, lambda k: x_**k),
    "chebval": ("np.polynomial.chebyshev.chebval", npp.chebyshev.chebval, lambda k: sympy.chebyshevt(k, x_)),
    "legval": ("np.polynomial.legendre.legval", npp.legendre.legval, lambda k: sympy.legendre(k, x_)),
    "hermval": ("np.polynomial.hermite.hermval", npp.hermite.hermval, lambda k: sympy.hermite(k, x_)),
    "hermeval": ("np.polynomial.hermite_e.hermeval", npp.hermite_e.hermeval, lambda k: sympy.hermite_prob(k, x_)),
    "lagval": ("np.polynomial.laguerre.lagval", npp.laguerre.lagval, lambda k: sympy.laguerre(k, x_)),
}
#: x with zeros in it, and points on both sides
X_WITH_ZERO = np.array([0.0, -0.7, 0.4, 0.0, 0.9])


def compile_grad(body: str, names: list[str], header: str = HEADER) -> tuple:
    """``f(*names)`` returning ``body``, its generated ``grad_f``, and the generated text."""
    source = header + f"def f({', '.join(names)}):\n    return {body}\n"
    user: dict = {}
    exec(compile(source, "case.py", "exec"), user)  # noqa: S102 - the test's own source
    text = generate(source, "case.py", ["f"]).text
    generated: dict = {}
    exec(compile(text, "grad_case.py", "exec"), generated)  # noqa: S102 - the code under test
    return user["f"], generated["grad_f"], text


def weights(expr: str, args: list, header: str = HEADER) -> object:
    """Random weights of the shape of ``expr``'s value (a float for a 0-d value)."""
    names = ["x", "y"][: len(args)]
    user: dict = {}
    exec(compile(header + f"def e({', '.join(names)}):\n    return {expr}\n", "e.py", "exec"), user)  # noqa: S102
    shape = np.shape(user["e"](*args))
    rng = np.random.default_rng(5)
    return rng.standard_normal(shape) if shape else float(rng.standard_normal())


def check(expr: str, *args: object, header: str = HEADER, rtol: float = 1e-5) -> list:
    """Every gradient of ``sum(w * sin(expr))`` (operands x, y; ``w`` random of the shape of
    ``expr``) against central finite differences."""
    names = ["x", "y"][: len(args)]
    f, grad_f, _ = compile_grad(f"np.sum(w * np.sin({expr}))", [*names, "w"], header=header)
    w = weights(expr, list(args), header)
    full = [*args, w]
    value, *grads = grad_f(*full)
    assert np.allclose(value, f(*full), rtol=1e-12, atol=1e-12)
    for i, (name, grad) in enumerate(zip([*names, "w"], grads)):
        assert np.all(np.isfinite(grad)), f"{expr}: d{name} is not finite: {grad}"
        assert_close(grad, numeric_grad(f, full, i), f"{expr}: d{name}", rtol=rtol)
        if isinstance(full[i], np.ndarray):
            assert grad.dtype == full[i].dtype
    return grads


# ----------------------------------------------------------------------------- x == 0


@pytest.mark.parametrize("n", [None, 0, 1, 2, 5])
@pytest.mark.parametrize("increasing", [False, True])
def test_vander_at_zero(n, increasing):
    expr = f"np.vander(x, {n}, increasing={increasing})"
    dx, _ = check(expr, X_WITH_ZERO)
    if n is None or n >= 2:  # at x == 0 only the column x ** 1 has a slope, 1: dx is its weight there
        col = 1 if increasing else (len(X_WITH_ZERO) if n is None else n) - 2
        w = weights(expr, [X_WITH_ZERO])
        assert dx[0] == pytest.approx(w[0, col]) and dx[3] == pytest.approx(w[3, col])
    else:
        assert np.all(dx == 0.0)


@pytest.mark.parametrize("degree", range(7))
def test_polyval_at_zero_and_every_degree(degree):
    p = np.random.default_rng(degree).uniform(-1.0, 1.0, degree + 1)
    check("np.polyval(x, y)", p, X_WITH_ZERO)
    _, dx0, _ = check("np.polyval(x, y)", p, 0.0)
    # p(0) = p[-1], p'(0) = p[-2]: dx = w cos(p[-1]) p[-2]
    assert dx0 == pytest.approx(weights("x", [0.0]) * np.cos(p[-1]) * (p[-2] if degree else 0.0))


@pytest.mark.parametrize("prim", sorted(SERIES))
@pytest.mark.parametrize("degree", range(7))
def test_series_at_zero_and_every_degree(prim, degree):
    call = SERIES[prim][0]
    c = np.random.default_rng(degree).uniform(-1.0, 1.0, degree + 1)
    check(f"{call}(x, y)", X_WITH_ZERO, c)
    check(f"{call}(x, y)", 0.0, c)
    check(f"{call}(x, y)", np.zeros((2, 3)), c)


# ----------------------------------------------------------------------------- batched x, N-D coefficients


@pytest.mark.parametrize("prim", sorted(SERIES))
def test_series_batched(prim):
    call = SERIES[prim][0]
    rng = np.random.default_rng(11)
    x = rng.uniform(-1.0, 1.0, (4, 3))
    x[1, 2] = 0.0
    check(f"{call}(x, y)", x, rng.uniform(-1.0, 1.0, 5))  # (4, 3)
    check(f"{call}(x, y)", x, rng.uniform(-1.0, 1.0, (5, 2)))  # tensor: (2, 4, 3)
    check(f"{call}(x, y, tensor=False)", x, rng.uniform(-1.0, 1.0, (5, 3)))  # broadcast: (4, 3)
    check(f"{call}(x, y, tensor=False)", x, rng.uniform(-1.0, 1.0, (5, 4, 1)))


def test_polyval_batched():
    rng = np.random.default_rng(12)
    x = rng.uniform(-1.0, 1.0, (4, 3))
    x[0, 0] = 0.0
    check("np.polyval(x, y)", rng.uniform(-1.0, 1.0, 6), x)
    check("np.polyval(x, y)", rng.uniform(-1.0, 1.0, (6, 3)), x)  # p[k] broadcasts against x


# ----------------------------------------------------------------------------- SymPy's derivative


@pytest.mark.parametrize("p", [[3.0], [2.0, -1.0], [1.0, 0.0, -2.0, 0.5], [0.5, -1.5, 0.0, 2.0, 1.0, -0.25, 3.0]])
def test_polyval_against_sympy(p):
    poly = sum(sympy.nsimplify(c) * x_ ** (len(p) - 1 - k) for k, c in enumerate(p))
    points = np.array([-1.3, 0.0, 0.4, 2.0])
    _, grad_f, _ = compile_grad("np.sum(np.polyval(p, x))", ["p", "x"])
    _, dp, dx = grad_f(np.array(p), points)
    expected_dx = [float(sympy.diff(poly, x_).subs(x_, v)) for v in points]
    assert np.allclose(dx, expected_dx, rtol=1e-13, atol=1e-13)
    coeffs = sympy.symbols(f"c0:{len(p)}")
    symbolic = sum(c * x_ ** (len(p) - 1 - k) for k, c in enumerate(coeffs))
    expected_dp = [sum(float(sympy.diff(symbolic, c).subs(x_, v)) for v in points) for c in coeffs]
    assert np.allclose(dp, expected_dp, rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("prim", sorted(SERIES))
def test_series_against_sympy(prim):
    call, _, basis = SERIES[prim]
    c = [0.5, -1.0, 0.25, 2.0, 0.0, -0.75, 1.5]  # degree 6
    series = sum(sympy.nsimplify(ck) * basis(k) for k, ck in enumerate(c))
    points = np.array([-0.9, 0.0, 0.3, 1.1])
    _, grad_f, _ = compile_grad(f"np.sum({call}(x, c))", ["x", "c"])
    _, dx, dc = grad_f(points, np.array(c))
    expected_dx = [float(sympy.diff(series, x_).subs(x_, v)) for v in points]
    expected_dc = [sum(float(basis(k).subs(x_, v)) for v in points) for k in range(len(c))]
    assert np.allclose(dx, expected_dx, rtol=1e-12, atol=1e-12)
    assert np.allclose(dc, expected_dc, rtol=1e-12, atol=1e-12)


# ----------------------------------------------------------------------------- float32


@pytest.mark.parametrize("call", ["np.polyval(y, x)", *(f"{s[0]}(x, y)" for s in SERIES.values())])
def test_float32_in_float32_out(call):
    rng = np.random.default_rng(13)
    x, c = rng.uniform(-1.0, 1.0, (3, 4)), rng.uniform(-1.0, 1.0, 5)
    x[0, 0] = 0.0
    f, grad_f, _ = compile_grad(f"np.sum({call} * {call})", ["x", "y"])
    _, dx64, dc64 = grad_f(x, c)
    v32, dx32, dc32 = grad_f(x.astype(np.float32), c.astype(np.float32))
    assert np.asarray(f(x.astype(np.float32), c.astype(np.float32))).dtype == np.float32
    assert np.asarray(v32).dtype == np.float32 and dx32.dtype == np.float32 and dc32.dtype == np.float32
    assert np.allclose(dx32, dx64, rtol=1e-4, atol=1e-4) and np.allclose(dc32, dc64, rtol=1e-4, atol=1e-4)
    # a float32 x with float64 coefficients: NumPy computes in float64, so does the gradient
    _, dx_mixed, dc_mixed = grad_f(x.astype(np.float32), c)
    assert dc_mixed.dtype == np.float64 and np.allclose(dx_mixed, dx64, rtol=1e-5, atol=1e-5)


def test_vander_float32():
    _, grad_f, _ = compile_grad("np.sum(w * np.vander(x, 4))", ["x", "w"])
    x = np.array([0.0, 0.5, -2.0], np.float32)
    w = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    _, dx, _ = grad_f(x, w)
    # np.vander promotes x's dtype with int: a float32 x gives a float64 matrix, and so a float64
    # gradient (the dtype of x + g, as every rule's)
    assert np.vander(x).dtype == np.float64 and dx.dtype == np.float64
    assert np.allclose(dx, (w * np.array([3 * x**2, 2 * x, np.ones(3), np.zeros(3)]).T).sum(1))


# ----------------------------------------------------------------------------- names, forms, evaluators


@pytest.mark.parametrize(
    ("imports", "call"),
    [
        ("from numpy.polynomial import polynomial as P\n", "P.polyval(x, y)"),
        ("import numpy.polynomial.polynomial as P\n", "P.polyval(x, y)"),
        ("from numpy.polynomial.polynomial import polyval\n", "polyval(x, y)"),
        ("", "np.polynomial.polynomial.polyval(x, y)"),
        ("from numpy.polynomial.chebyshev import chebval\n", "chebval(x, y)"),
        ("from numpy.polynomial import chebyshev as C\n", "C.chebval(x, y)"),
        ("from numpy.polynomial import hermite_e\n", "hermite_e.hermeval(x, y)"),
        ("from numpy import polyval, vander\n", "polyval(y, x) + vander(x, 2)[:, 0]"),
    ],
)
def test_source_names_resolve(imports, call):
    header = "import numpy as np\n" + imports + "\n\n"
    check(call, np.array([0.0, 0.5, -0.3]), np.array([1.0, -2.0, 0.5]), header=header)


@pytest.mark.parametrize("prim", sorted(SERIES))
@pytest.mark.parametrize(
    ("x_shape", "c_shape", "tensor"),
    [((), (1,), True), ((4,), (3,), True), ((2, 3), (6, 2), True), ((2, 3), (4, 1, 3), False), ((5,), (), True)],
)
def test_runtime_evaluators_give_numpys_values(prim, x_shape, c_shape, tensor):
    rng = np.random.default_rng(14)
    x = rng.uniform(-1.0, 1.0, x_shape) if x_shape else 0.3
    c = rng.uniform(-1.0, 1.0, c_shape)
    ours = getattr(runtime, f"_{prim}")(x, c, tensor=tensor)
    theirs = SERIES[prim][1](x, c, tensor=tensor)
    # (summed over the recurrences' basis values: NumPy's Clenshaw values up to rounding)
    assert np.shape(ours) == np.shape(theirs) and np.allclose(ours, theirs, rtol=1e-13, atol=1e-13)
    ints = getattr(runtime, f"_{prim}")(x, [1, 2, 3], tensor=tensor)  # integer coefficients: as floats
    assert np.allclose(ints, SERIES[prim][1](x, [1, 2, 3], tensor=tensor), rtol=1e-13, atol=1e-13)


def test_the_cupy_target_writes_them_from_what_cupy_has():
    source = (
        "import numpy as np\nfrom numpy.polynomial import chebyshev as C\n\n\n"
        "def f(x, c, p):\n    return np.sum(C.chebval(x, c)) + np.sum(np.polyval(p, x)) + np.sum(np.vander(x, 3))\n"
    )
    text = generate(source, "case.py", ["f"], target="cupy").text
    assert "cp.polynomial" not in text and "_chebval(" in text and "cp.polyval(" in text and "cp.vander(" in text


@pytest.mark.parametrize(
    ("prim", "operands", "params", "why"),
    [
        ("vander_dx", 2, {"N": None, "increasing": False}, "second derivatives through vander"),
        ("polyval_dx", 3, {}, "second derivatives through polyval"),
        ("polyval_dp", 3, {}, "second derivatives through polyval"),
        ("series_dx", 3, {"kind": "cheb", "tensor": True}, "second derivatives through a numpy.polynomial series"),
        ("series_dc", 3, {"kind": "lag", "tensor": True}, "second derivatives through a numpy.polynomial series"),
    ],
)
def test_second_derivatives_are_refused_with_a_reason(prim, operands, params, why):
    table = load_rules()
    tape = Tape("f")
    names = ["g", "a", "b"][:operands]
    inputs = [tape.add_input(n) for n in names]
    tape.params = [Param(n) for n in names]
    y = tape.add_eqn(prim, inputs, params)
    tape.outputs = [tape.add_eqn("sum", [y], {"axis": None, "keepdims": False})]
    with pytest.raises(UserError) as info:
        differentiate(tape, ["g"], table)
    assert info.value.code == "YS107" and why in info.value.message


# ----------------------------------------------------------------------------- polyval2d, polyval3d


@pytest.mark.parametrize("degrees", [(0, 0), (1, 0), (0, 3), (2, 2), (6, 1)])
def test_polyval2d_at_zero_and_degrees(degrees):
    c = np.random.default_rng(sum(degrees)).uniform(-1.0, 1.0, (degrees[0] + 1, degrees[1] + 1))
    xy = np.array([[0.0, 0.5, 0.0, -0.8], [0.0, 0.0, 0.7, -0.4]])
    check("np.polynomial.polynomial.polyval2d(x[0], x[1], y)", xy, c)
    check("np.polynomial.polynomial.polyval2d(x[0], x[1], y)", np.zeros((2, 3, 2)), c)


@pytest.mark.parametrize("shape", [(1, 1, 1), (2, 3, 4), (4, 1, 2), (3, 2, 2, 2)])
def test_polyval3d_at_zero_and_degrees(shape):
    c = np.random.default_rng(len(shape)).uniform(-1.0, 1.0, shape)
    xyz = np.array([[0.0, 0.5, -0.3], [0.0, 0.0, 0.9], [0.0, -0.6, 0.0]])
    check("np.polynomial.polynomial.polyval3d(x[0], x[1], x[2], y)", xyz, c)


def test_polyval2d_3d_against_sympy():
    y_, z_ = sympy.symbols("y z", real=True)
    c = np.array([[[1.0, -2.0], [0.5, 0.0]], [[0.0, 3.0], [-1.5, 0.25]], [[2.0, 0.0], [1.0, -1.0]]])
    poly = sum(
        sympy.nsimplify(c[i, j, k]) * x_**i * y_**j * z_**k for i in range(3) for j in range(2) for k in range(2)
    )
    pts = np.array([[0.0, 0.4], [-0.7, 0.0], [1.2, 0.3]])
    _, grad_f, _ = compile_grad("np.sum(np.polynomial.polynomial.polyval3d(x, y, z, c))", ["x", "y", "z", "c"])
    _, dx, dy, dz, dc = grad_f(pts[0], pts[1], pts[2], c)
    for var, grad in ((x_, dx), (y_, dy), (z_, dz)):
        expected = [float(sympy.diff(poly, var).subs({x_: a, y_: b, z_: e})) for a, b, e in pts.T]
        assert np.allclose(grad, expected, rtol=1e-13, atol=1e-13)
    expected_dc = np.zeros_like(c)
    for a, b, e in pts.T:
        expected_dc += np.multiply.outer(np.multiply.outer(a ** np.arange(3), b ** np.arange(2)), e ** np.arange(2))
    assert np.allclose(dc, expected_dc, rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("c_shape", [(3, 2), (2, 4, 3), (1, 1)])
@pytest.mark.parametrize("x_shape", [(), (4,), (2, 3)])
def test_runtime_polyval2d_3d_are_numpys(c_shape, x_shape):
    rng = np.random.default_rng(15)
    x, y, z = (rng.uniform(-1.0, 1.0, x_shape) for _ in range(3))
    c = rng.uniform(-1.0, 1.0, c_shape)
    assert np.array_equal(runtime._polynomial_polyval2d(x, y, c), npp.polynomial.polyval2d(x, y, c))
    c3 = rng.uniform(-1.0, 1.0, (*c_shape, 2))
    assert np.array_equal(runtime._polynomial_polyval3d(x, y, z, c3), npp.polynomial.polyval3d(x, y, z, c3))


def test_polyval2d_float32():
    _, grad_f, _ = compile_grad("np.sum(np.polynomial.polynomial.polyval2d(x, y, c))", ["x", "y", "c"])
    x, y = np.array([0.0, 0.5], np.float32), np.array([0.2, 0.0], np.float32)
    c = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    value, dx, dy, dc = grad_f(x, y, c)
    assert {np.asarray(value).dtype, dx.dtype, dy.dtype, dc.dtype} == {np.dtype(np.float32)}
    _, dx64, dy64, dc64 = grad_f(x.astype(float), y.astype(float), c.astype(float))
    assert np.allclose(dx, dx64, rtol=1e-6) and np.allclose(dy, dy64, rtol=1e-6) and np.allclose(dc, dc64, rtol=1e-6)


@pytest.mark.parametrize(
    ("call", "args", "message"),
    [
        ("polyval2d(x, y, c)", (np.ones(2), np.ones(2), np.ones(3)), "need 2 axes, not 1"),
        ("polyval3d(x, y, x, c)", (np.ones(2), np.ones(2), np.ones((2, 2))), "need 3 axes, not 2"),
        ("polyval2d(x, y, c)", (np.ones(2), np.ones(3), np.ones((2, 2))), "x, y are incompatible"),
    ],
)
def test_a_series_grid_numpy_would_read_otherwise_is_refused_at_run_time(call, args, message):
    # NumPy evaluates a 1-D c of polyval2d along x, then reads the values as coefficients in y:
    # the generated module refuses it rather than differentiate something else
    _, grad_f, _ = compile_grad(f"np.sum(np.polynomial.polynomial.{call})", ["x", "y", "c"])
    with pytest.raises(ValueError, match=message):
        grad_f(*args)
