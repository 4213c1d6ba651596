"""Numerical-analysis rules (``rules/numerics.py``): what the templates of ``tests/rule_specs/numerics.py``
cannot say.

- ``np.interp`` on and outside its knots (the exact weights, the slope convention), ``left=`` /
  ``right=``, and its refusals (a differentiated ``xp``, ``period=``);
- ``np.convolve`` and ``np.correlate`` for every pair of lengths 1..6, both orders, every mode
  (the helpers against finite differences and the window NumPy computes);
- ``np.gradient``'s adjoint against the transposed stencil matrix, both edge orders, uniform and
  unequal spacings, its spacing's gradient, and its refusals (several axes);
- ``np.kron`` at every pair of ranks up to 3, ``np.cross`` of 2-vectors and mixed 2/3-vectors;
- the helper primitives' own rules (second derivatives) on hand-built tapes, and the second
  derivatives refused with a reason.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from yota_s2s.codegen.interp import evaluate
from yota_s2s.dsl.load import load_rules
from yota_s2s.errors import UserError
from yota_s2s.ir.core import Param, Tape
from yota_s2s.pipeline import generate
from yota_s2s.runtime import numerics as rt
from yota_s2s.transform.differentiate import differentiate

from .gradcheck import assert_close, numeric_grad

HEADER = "import numpy as np\n\n\n"
KNOTS = np.array([-1.0, 0.0, 0.5, 1.5])


def compile_grad(body: str, names: list[str]) -> tuple[object, object]:
    """``f(*names)`` returning ``body`` (an expression), and its generated ``grad_f``."""
    source = HEADER + f"def f({', '.join(names)}):\n    return {body}\n"
    user: dict = {}
    exec(compile(source, "case.py", "exec"), user)  # noqa: S102 - the test's own source
    generated: dict = {}
    exec(compile(generate(source, "case.py", ["f"]).text, "grad_case.py", "exec"), generated)  # noqa: S102
    return user["f"], generated["grad_f"]


def check(body: str, **args: object) -> list:
    """Every gradient of ``f(**args) = body`` against central finite differences; the gradients."""
    names = list(args)
    f, grad_f = compile_grad(body, names)
    values = list(args.values())
    value, *grads = grad_f(*values)
    assert np.allclose(value, f(*values), rtol=1e-12, atol=1e-12)
    for i, (name, grad) in enumerate(zip(names, grads)):
        assert_close(grad, numeric_grad(f, values, i), f"{body}: d{name}")
    return grads


def refusal(body: str, names: list[str]) -> UserError:
    source = HEADER + f"def f({', '.join(names)}):\n    return {body}\n"
    with pytest.raises(UserError) as info:
        generate(source, "case.py", ["f"])
    assert (info.value.line, info.value.path) == (5, "case.py")
    return info.value


def fd(fun, x: np.ndarray) -> np.ndarray:
    return numeric_grad(lambda v: float(np.sum(fun(v))), [x], 0)


# ============================================================================= np.interp


def test_interp_on_the_knots_gives_each_knot_its_own_value():
    # x on every knot, below and above: the weights are exactly one-hot (the value is fp[j] there)
    x = np.array([-1.0, 0.0, 0.5, 1.5, -3.0, 4.0, 0.25])
    fp = np.array([2.0, -1.0, 0.5, 3.0])
    _, grad_f = compile_grad("np.sum(w * np.interp(x, np.array([-1.0, 0.0, 0.5, 1.5]), fp))", ["x", "fp", "w"])
    w = np.array([1.0, 10.0, 100.0, 1000.0, 1e4, 1e5, 1e6])
    _, dx, dfp, _ = grad_f(x, fp, w)
    # below -> fp[0], above -> fp[-1], 0.25 -> half to fp[1] and fp[2]
    assert dfp.tolist() == [1.0 + 1e4, 10.0 + 0.5e6, 100.0 + 0.5e6, 1000.0 + 1e5]
    # the slope of the segment to the right of a knot, of the last segment at the last knot, 0 outside
    slopes = np.diff(fp) / np.diff(KNOTS)
    expected = w * np.array([slopes[0], slopes[1], slopes[2], slopes[2], 0.0, 0.0, slopes[1]])
    assert np.allclose(dx, expected)


@pytest.mark.parametrize("left_right", ["", ", left=-2.0", ", right=7.0", ", left=-2.0, right=7.0"])
def test_interp_outside_the_knots(left_right):
    # a given left= / right= is a constant: nothing flows to fp[0] / fp[-1] from the points outside
    x = np.array([-2.5, -1.2, 0.3, 1.0, 2.0, 3.5, 0.3])  # 0.3 twice: the weights accumulate
    fp = np.array([2.0, -1.0, 0.5, 3.0])
    _, dfp = check(f"np.sum(np.sin(np.interp(x, np.array([-1.0, 0.0, 0.5, 1.5]), fp{left_right})))", x=x, fp=fp)
    w = np.cos(np.interp(x, KNOTS, fp))
    outside_first = w[:2].sum() if "left" not in left_right else 0.0
    outside_last = w[4:6].sum() if "right" not in left_right else 0.0
    assert dfp[0] == pytest.approx(outside_first, abs=1e-12)
    assert dfp[-1] == pytest.approx(outside_last + 0.5 * w[3], abs=1e-12)  # x = 1.0: halfway from 0.5 to 1.5


def test_interp_of_a_number_and_a_list_of_knots():
    dx, dfp = check("np.interp(x, [0.0, 1.0, 3.0], fp) ** 2", x=0.4, fp=np.array([1.0, 2.0, -1.0]))
    assert isinstance(dx, float)
    assert dfp.shape == (3,)


def test_interp_with_one_knot():
    # every x is below, on or above the only knot: the value fp[0] (or left= / right=), no slope
    x = np.array([0.2, 0.5, 0.9])
    dx, dfp = check("np.sum(np.interp(x, [0.5], fp) ** 2)", x=x, fp=np.array([1.5]))
    assert dx.tolist() == [0.0, 0.0, 0.0] and dfp.tolist() == [9.0]
    # left=0.0 makes a jump at the knot (no derivative there): x away from it
    _, dfp = check("np.sum(np.interp(x, [0.5], fp, left=0.0) ** 2)", x=np.array([0.2, 0.7, 0.9]), fp=np.array([1.5]))
    assert dfp.tolist() == [6.0]


def test_interp_refuses_differentiated_knots_and_period():
    error = refusal("np.sum(np.interp(x, np.cumsum(grid), fp))", ["x", "grid", "fp"])
    assert error.code == "YS107" and "knots xp" in error.message
    error = refusal("np.sum(np.interp(x, np.array([0.0, 1.0]), fp, period=2.0))", ["x", "fp"])
    assert error.code == "YS032" and "period" in error.message
    # left= / right= are constants: a computed one is refused, never differentiated as a constant
    error = refusal("np.sum(np.interp(x, np.array([0.0, 1.0]), fp, left=fp[0] * 2.0))", ["x", "fp"])
    assert error.code == "YS033" and "left=" in error.message


def test_interp_with_constant_knots_computed_from_constants():
    # knots that depend on no parameter are not differentiated: no refusal
    x = np.array([0.2, 1.7, 2.6])
    check("np.sum(np.interp(x, np.linspace(0.0, 3.0, 4), fp) ** 2)", x=x, fp=np.array([1.0, -2.0, 0.5, 3.0]))


# ============================================================================= np.convolve, np.correlate


@pytest.mark.parametrize("mode", ["full", "same", "valid", 0, 1, 2])
@pytest.mark.parametrize("fn", ["convolve", "correlate"])
def test_convolutions_for_every_pair_of_lengths(fn, mode):
    rng = np.random.default_rng(5)
    op = getattr(np, fn)
    for m in range(1, 7):
        for n in range(1, 7):
            a, v = rng.standard_normal(m), rng.standard_normal(n)
            g = rng.standard_normal(op(a, v, mode).shape)
            start, length = rt._conv_window(m, n, mode, fn == "correlate")
            full = np.convolve(a, v if fn == "convolve" else v[::-1], "full")
            assert np.allclose(full[start : start + length], op(a, v, mode)), (m, n)
            if fn == "convolve":
                da, dv = rt._convolve_dx(g, a, v, mode=mode), rt._convolve_dx(g, v, a, mode=mode)
            else:
                da, dv = rt._correlate_dx(g, a, v, mode=mode), rt._correlate_dy(g, a, v, mode=mode)
            assert_close(da, fd(lambda t, v=v, g=g: g * op(t, v, mode), a), f"{fn} {m} {n} {mode}: da")
            assert_close(dv, fd(lambda t, a=a, g=g: g * op(a, t, mode), v), f"{fn} {m} {n} {mode}: dv")


@pytest.mark.parametrize("fn", ["convolve", "correlate"])
@pytest.mark.parametrize("mode", ["'full'", "'same'", "'valid'"])
def test_convolutions_of_unequal_lengths_both_orders(fn, mode):
    rng = np.random.default_rng(6)
    short, long = rng.standard_normal(2), rng.standard_normal(5)
    check(f"np.sum(np.sin(np.{fn}(a, v, {mode})))", a=short, v=long)
    check(f"np.sum(np.sin(np.{fn}(a, v, {mode})))", a=long, v=short)


def test_a_bad_mode_fails_as_numpy_does():
    with pytest.raises(ValueError, match="'valid', 'same', or 'full'"):
        rt._convolve_dx(np.ones(2), np.ones(2), np.ones(3), mode="middle")


# ============================================================================= np.gradient


def stencil(n: int, h: object, edge_order: int) -> np.ndarray:
    """The matrix of np.gradient along an axis of n points: column j is the gradient of e_j."""
    return np.gradient(np.eye(n), h, axis=0, edge_order=edge_order)


@pytest.mark.parametrize("edge_order", [1, 2])
@pytest.mark.parametrize("n", [2, 3, 4, 7])
@pytest.mark.parametrize("spacing", ["uniform", "unequal"])
def test_gradient_adjoint_is_the_transposed_stencil(edge_order, n, spacing):
    if n < edge_order + 1:
        pytest.skip("NumPy needs edge_order + 1 points")
    rng = np.random.default_rng(n)
    h = 0.7 if spacing == "uniform" else np.cumsum(rng.uniform(0.3, 1.5, n))
    g = rng.standard_normal(n)
    df = rt._gradient_df(g, np.zeros(n), h, axis=None, edge_order=edge_order)
    assert np.allclose(df, stencil(n, h, edge_order).T @ g)
    # along an axis of a 3-D array: the same, column by column
    G = rng.standard_normal((2, n, 3))
    dF = rt._gradient_df(G, np.zeros((2, n, 3)), h, axis=1, edge_order=edge_order)
    assert np.allclose(dF, np.einsum("ij,aib->ajb", stencil(n, h, edge_order), G))


@pytest.mark.parametrize("edge_order", [1, 2])
def test_gradient_of_the_spacing(edge_order):
    rng = np.random.default_rng(8)
    u = rng.standard_normal(6)
    # a scalar spacing computed from a parameter (a grid length), and unequal coordinates
    check(f"np.sum(np.gradient(u, L / 5.0, edge_order={edge_order}) ** 2)", u=u, L=2.5)
    check(f"np.sum(np.sin(np.gradient(u, np.cumsum(s), edge_order={edge_order})))", u=u, s=rng.uniform(0.4, 1.2, 6))
    # equal coordinates: NumPy takes its uniform branch, the derivative is the unequal formula's
    check(f"np.sum(np.sin(np.gradient(u, c, edge_order={edge_order})))", u=u, c=np.arange(6.0) * 0.5)


def test_gradient_of_constant_coordinates_and_of_each_axis():
    rng = np.random.default_rng(10)
    check("np.sum(np.gradient(u, [0.0, 0.1, 0.3, 0.7, 1.0], edge_order=2) ** 2)", u=rng.standard_normal(5))
    # the two axes one call each (a Laplacian-like energy), one differentiated spacing
    check(
        "np.sum(np.gradient(u, h, axis=0) ** 2 + np.gradient(u, h, axis=1) ** 2)", u=rng.standard_normal((4, 5)), h=0.3
    )


def test_gradient_along_an_axis_of_a_float32_array():
    u = np.random.default_rng(9).standard_normal((3, 4)).astype(np.float32)
    _, grad_f = compile_grad("np.sum(np.gradient(u, axis=0, edge_order=2) * w)", ["u", "w"])
    w = np.ones((3, 4), dtype=np.float32)
    _, du, _ = grad_f(u, w)
    assert du.dtype == np.float32
    assert np.allclose(du, np.einsum("ij,ib->jb", stencil(3, 1.0, 2), w), atol=1e-6)


def test_gradient_refuses_several_axes():
    error = refusal("np.sum(np.gradient(u, 0.1, 0.2)[0])", ["u"])
    assert error.code == "YS032" and "one axis at a time" in error.message
    error = refusal("np.sum(np.gradient(u, axis=(0, 1))[0])", ["u"])
    assert error.code == "YS032" and "one axis at a time" in error.message
    # a 2-D array without axis=: the rank is known at run time only, where the gradient refuses it
    _, grad_f = compile_grad("np.sum(np.gradient(u)[0])", ["u"])
    with pytest.raises(ValueError, match="2-D array over every axis returns a list"):
        grad_f(np.ones((3, 4)))


def test_gradient_is_linear_and_exact():
    # the gradient of sum(w * gradient(u)) is the transposed stencil of w, whatever u
    w = np.array([1.0, -2.0, 0.5, 3.0, 1.5])
    _, grad_f = compile_grad("np.sum(w * np.gradient(u, 0.5, edge_order=2))", ["u", "w"])
    _, du, dw = grad_f(np.zeros(5), w)
    assert np.allclose(du, stencil(5, 0.5, 2).T @ w)
    assert np.allclose(dw, 0.0)


# ============================================================================= np.kron, np.cross


SHAPES = [(), (2,), (3,), (2, 3), (1, 2), (2, 1, 2)]


@pytest.mark.parametrize("sa", SHAPES, ids=str)
@pytest.mark.parametrize("sb", SHAPES, ids=str)
def test_kron_at_every_pair_of_ranks(sa, sb):
    rng = np.random.default_rng(10)
    a, b = rng.standard_normal(sa), rng.standard_normal(sb)
    g = rng.standard_normal(np.shape(np.kron(a, b)))
    da, db = rt._kron_da(g, a, b), rt._kron_db(g, a, b)
    assert da.shape == np.shape(a) and db.shape == np.shape(b)
    assert_close(da, fd(lambda t: g * np.kron(t, b), a), "da")
    assert_close(db, fd(lambda t: g * np.kron(a, t), b), "db")


def test_kron_through_the_generated_code():
    rng = np.random.default_rng(11)
    check("np.sum(np.sin(np.kron(a, b)))", a=rng.standard_normal((2, 3)), b=rng.standard_normal((3, 1)))
    check("np.sum(np.sin(np.kron(a, b)))", a=rng.standard_normal(3), b=rng.standard_normal((2, 2)))


@pytest.mark.parametrize(
    ("sa", "sb"),
    [((2,), (2,)), ((4, 2), (2,)), ((2,), (3,)), ((3,), (2,)), ((4, 2), (4, 3)), ((1, 3), (2, 2))],
    ids=str,
)
def test_cross_of_2_vectors(sa, sb):
    # NumPy 2 deprecates 2-vectors (their product is the z component); still computed, and so is the gradient
    rng = np.random.default_rng(12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        check("np.sum(np.sin(np.cross(a, b)))", a=rng.standard_normal(sa), b=rng.standard_normal(sb))


def test_cross_along_other_axes():
    # axisa=, axisb=, axisc=, axis=: np.cross of the operands' vectors moved last (frontend/adapters_shape.py)
    rng = np.random.default_rng(12)
    check("np.sum(np.cross(a, b, axis=0) ** 2)", a=rng.standard_normal((3, 4)), b=rng.standard_normal((3, 4)))
    check("np.sum(np.cross(a, b, axisa=0, axisc=0) ** 2)", a=rng.standard_normal((3, 4)), b=rng.standard_normal((4, 3)))


def test_cross_torque():
    # r x F, summed over particles, squared: a stack against a stack
    rng = np.random.default_rng(13)
    check("np.sum(np.sum(np.cross(r, F), axis=0) ** 2)", r=rng.standard_normal((5, 3)), F=rng.standard_normal((5, 3)))


# ============================================================================= the helpers' own rules


def helper_tape(prim: str, names: list[str], params: dict) -> Tape:
    """``sum(w * prim(*names, **params))``."""
    tape = Tape("f")
    args = [tape.add_input(n) for n in names]
    w = tape.add_input("w")
    tape.params = [Param(n) for n in [*names, "w"]]
    y = tape.add_eqn(prim, args, params)
    tape.outputs = [tape.add_eqn("sum", [tape.add_eqn("mul", [w, y])], {"axis": None, "keepdims": False})]
    return tape


_R = np.random.default_rng(14)
_V = {
    "g5": _R.standard_normal(5),
    "g3": _R.standard_normal(3),
    "g43": _R.standard_normal((4, 3)),
    "g4": _R.standard_normal(4),
    "f5": _R.standard_normal(5),
    "v3": _R.standard_normal(3),
    "v2": _R.standard_normal(2),
    "a43": _R.standard_normal((4, 3)),
    "x6": np.array([-1.4, -0.7, 0.2, 0.8, 1.1, 2.0]),
    "g6": _R.standard_normal(6),
    "fp4": _R.standard_normal(4),
    "k6": _R.standard_normal(6),
    "m23": _R.standard_normal((2, 3)),
    "m22": _R.standard_normal((2, 2)),
    "g46": _R.standard_normal((4, 6)),
    "coords": np.cumsum(_R.uniform(0.4, 1.2, 5)),
}

#: (primitive, its operands by name in _V, static parameters, the operands to differentiate)
HELPERS = [
    ("gradient_df", ["g5", "f5", "coords"], {"axis": None, "edge_order": 2}, ["g5"]),
    ("gradient_df", ["g5", "f5", 0.7], {"axis": None, "edge_order": 1}, ["g5"]),
    ("cross_da", ["g43", "a43", "v3"], {}, ["g43", "v3"]),
    ("cross_db", ["g43", "a43", "v3"], {}, ["g43", "a43"]),
    ("convolve_dx", ["g6", "f5", "v2"], {"mode": "full"}, ["g6", "v2"]),
    ("convolve_dx", ["g5", "f5", "v2"], {"mode": "same"}, ["g5", "v2"]),
    ("correlate_dx", ["g4", "f5", "v2"], {"mode": "valid"}, ["g4", "v2"]),
    ("correlate_dy", ["g5", "v2", "f5"], {"mode": "same"}, ["g5", "v2"]),
    ("correlate_dy", ["g6", "v2", "f5"], {"mode": "full"}, ["g6", "v2"]),
    ("interp_dfp", ["g6", "x6", KNOTS, "fp4"], {"left": None, "right": None}, ["g6", "x6"]),
    ("interp_dfp", ["g6", "x6", KNOTS, "fp4"], {"left": 1.0, "right": -1.0}, ["g6", "x6"]),
    ("interp_fixed", ["x6", KNOTS, "fp4"], {"left": 1.0, "right": None}, ["x6", "fp4"]),
    ("interp_fixed", ["x6", KNOTS, "fp4"], {"left": None, "right": 2.0}, ["x6", "fp4"]),
    ("interp_slope", ["x6", KNOTS, "fp4"], {}, ["fp4"]),
    ("interp_slope_dfp", ["g6", "x6", KNOTS, "fp4"], {}, ["g6"]),
    ("kron_da", ["g46", "m23", "m22"], {}, ["g46", "m22"]),
    ("kron_db", ["g46", "m23", "m22"], {}, ["g46", "m23"]),
]


def _value(name: object) -> object:
    return _V[name] if isinstance(name, str) else name


@pytest.mark.parametrize(("prim", "names", "params", "wrt"), HELPERS, ids=lambda v: str(v)[:40])
def test_helper_rules_match_finite_differences(prim, names, params, wrt):
    """Each helper's rule (what a second derivative splices) against finite differences of the helper."""
    table = load_rules()
    labels = [n if isinstance(n, str) else f"c{k}" for k, n in enumerate(names)]
    values = [_value(n) for n in names]
    tape = helper_tape(prim, labels, params)
    w = np.random.default_rng(15).standard_normal(np.shape(_run(prim, labels, params, values, table)))
    inputs = _inputs(labels, values, w)

    def f(*vs):
        return evaluate(tape, _inputs(labels, list(vs), w), table)[0]

    for name in wrt:
        k = labels.index(name)
        grad = differentiate(tape, [name], table)
        _, dv = evaluate(grad, inputs, table)
        assert_close(dv, numeric_grad(f, values, k), f"{prim}: d{name}")


def _inputs(labels: list[str], values: list, w: object) -> dict:
    return {**{(n,): v for n, v in zip(labels, values)}, ("w",): w}


def _run(prim: str, labels: list[str], params: dict, values: list, table) -> object:
    """The value of ``prim`` itself (the tape's ``w * prim(...)`` with w = 1, before the sum)."""
    tape = Tape("p")
    args = [tape.add_input(n) for n in labels]
    tape.params = [Param(n) for n in labels]
    tape.outputs = [tape.add_eqn(prim, args, params)]
    return evaluate(tape, {(n,): v for n, v in zip(labels, values)}, table)[0]


@pytest.mark.parametrize(
    ("prim", "names", "params", "wrt", "why"),
    [
        ("gradient_dh", ["g5", "f5", 0.7, "f5"], {"axis": None, "edge_order": 1}, "g5", "spacing of np.gradient"),
        ("interp_dfp", ["g6", "x6", "k6", "fp4"], {"left": None, "right": None}, "k6", "knots xp"),
    ],
)
def test_second_derivatives_refused_with_a_reason(prim, names, params, wrt, why):
    labels = [n if isinstance(n, str) else f"c{k}" for k, n in enumerate(names)]
    labels = [f"{n}_{k}" if labels.count(n) > 1 else n for k, n in enumerate(labels)]
    tape = helper_tape(prim, labels, params)
    with pytest.raises(UserError) as info:
        differentiate(tape, [wrt], load_rules())
    assert info.value.code == "YS107" and why in info.value.message
