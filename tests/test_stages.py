"""Unit tests per pipeline stage, through each module's Python API.

ir.verify, printer.format_tape, interp.evaluate, optimize (meaning kept, named
rewrites happen), shapes.shape_classes, fence (entry points, located refusals)
and the seed document's requirements on the generated text.
"""

from __future__ import annotations

import ast
import inspect
import random
import re
import textwrap
from pathlib import Path

import numpy as np
import pytest

from yota_s2s.codegen.interp import evaluate
from yota_s2s.dsl.load import load_rules
from yota_s2s.errors import UserError, UserErrors
from yota_s2s.frontend.fence import fence
from yota_s2s.frontend.lower import lower
from yota_s2s.ir.core import Eqn, IRError, Lit, Param, Slice, Span, Tape, Var, verify
from yota_s2s.ir.printer import format_tape
from yota_s2s.ir.shapes import SCALAR, shape_classes
from yota_s2s.pipeline import generate
from yota_s2s.transform.dce import dce
from yota_s2s.transform.differentiate import differentiate
from yota_s2s.transform.factor import common_factors
from yota_s2s.transform.finish import drop_value
from yota_s2s.transform.optimize import optimize

from . import corpus
from .gradcheck import numeric_grad, plain_form

TABLE = load_rules()
ROOT = Path(__file__).resolve().parent.parent
CORPUS_SOURCE = Path(corpus.__file__).read_text(encoding="utf-8")


def src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def prims(tape: Tape) -> list[str]:
    return [e.prim for e in tape.eqns]


def run_source(text: str, namespace: dict | None = None, filename: str = "generated.py") -> dict:
    """Execute source text (a test function or a generated module) into ``namespace``."""
    namespace = {} if namespace is None else namespace
    exec(compile(text, filename, "exec"), namespace)  # noqa: S102 - the code under test
    return namespace


# ----------------------------------------------------------------------------- ir.verify


def good_tape() -> Tape:
    t = Tape("f")
    t.params = [Param("x")]
    x = t.add_input("x")
    e = t.add_eqn("exp", [x])
    t.outputs = [t.add_eqn("sum", [e], {"axis": None, "keepdims": False})]
    return t


def test_verify_accepts_a_good_tape():
    assert verify(good_tape()) is None


def test_verify_rejects_a_variable_used_before_its_definition():
    t = Tape("f")
    x = t.add_input("x")
    later = Var()
    t.add_eqn("mul", [x, later])
    t.eqns.append(Eqn("exp", [x], {}, [later]))
    t.outputs = [later]
    with pytest.raises(IRError, match="used before it is defined"):
        verify(t)


def test_verify_rejects_an_undefined_output():
    t = good_tape()
    t.outputs = [Var()]
    with pytest.raises(IRError, match="outputs: .* used before it is defined"):
        verify(t)


def test_verify_rejects_a_variable_defined_twice():
    t = good_tape()
    first = t.eqns[0]
    t.eqns.insert(1, Eqn("sin", [t.inputs[0].var], {}, [first.out]))
    with pytest.raises(IRError, match="redefines"):
        verify(t)


def test_verify_rejects_an_input_defined_twice():
    t = good_tape()
    t.inputs.append(t.inputs[0])
    with pytest.raises(IRError, match="defined twice"):
        verify(t)


def test_verify_rejects_an_unhashable_param():
    t = Tape("f")
    x = t.add_input("x")
    t.outputs = [t.add_eqn("getindex", [x], {"index": [0, 1]})]
    with pytest.raises(IRError, match="unhashable params"):
        verify(t)


def test_verify_rejects_an_argument_that_is_neither_var_nor_lit():
    t = Tape("f")
    x = t.add_input("x")
    t.outputs = [t.add_eqn("mul", [x, 2.0])]
    with pytest.raises(IRError, match="neither Var nor Lit"):
        verify(t)


# ----------------------------------------------------------------------------- printer


def test_format_tape_prints_the_documented_grammar():
    t = Tape("f")
    t.params = [Param("x"), Param("m")]
    x = t.add_input("x")
    w = t.add_input("m_W", ("m", "W"))
    line3 = Span("f.py", 3, 5, "h = np.sum(x, axis=1)[:, None]")
    a = t.add_eqn("sum", [x], {"axis": 1}, span=line3)
    b = t.add_eqn("getindex", [a], {"index": (Slice(), None)}, span=line3)
    line4 = Span("f.py", 4, 5, "return np.sum(h * m.W * 2.0)")
    c = t.add_eqn("mul", [b, w], span=line4)
    d = t.add_eqn("mul", [c, Lit(2.0)], span=line4)
    e = t.add_eqn("sum", [d], {"axis": None, "keepdims": False}, span=line4)
    g = t.add_eqn("mul", [e, Lit(1.0)], section="backward")
    t.outputs = [e, g]
    assert format_tape(t) == (
        "tape f(x, m)\n"
        "  inp %1 x\n"
        "  inp %2 m.W\n"
        "  %3 = sum(%1, axis=1)                       # f.py:3  h = np.sum(x, axis=1)[:, None]\n"
        "  %4 = getindex(%3, index=[:, None])         # f.py:3\n"
        "  %5 = mul(%4, %2)                           # f.py:4  return np.sum(h * m.W * 2.0)\n"
        "  %6 = mul(%5, 2.0)                          # f.py:4\n"
        "  %7 = sum(%6, axis=None, keepdims=False)    # f.py:4\n"
        "  -- backward --\n"
        "  %8 = mul(%7, 1.0)\n"
        "  out %7, %8\n"
    )


def test_format_tape_prints_slices_ellipsis_and_attribute_gradients():
    t = Tape("f")
    t.params = [Param("x")]
    x = t.add_input("x")
    a = t.add_eqn("getindex", [x], {"index": (Ellipsis, Slice(1, None), Slice(None, None, -1), 0)})
    t.outputs = [a, a, a]
    t.out_tree = [0, {"W": 1, "layer": {"b": 2}}]
    text = format_tape(t)
    assert "  %2 = getindex(%1, index=[..., 1:, ::-1, 0])\n" in text
    assert text.endswith("  out %2, {W: %2, layer: {b: %2}}\n")


def test_dump_of_a_real_tape_numbers_variables_in_order():
    g = generate("import numpy as np\n\n\ndef f(x):\n    return np.sum(np.exp(x))\n", "f.py")
    assert format_tape(g.tapes["lower"][0]) == (
        "tape f(x)\n"
        "  inp %1 x\n"
        "  %2 = exp(%1)                               # f.py:5  return np.sum(np.exp(x))\n"
        "  %3 = sum(%2, axis=None, keepdims=False)    # f.py:5\n"
        "  out %3\n"
    )


# ----------------------------------------------------------------------------- interp


def test_evaluate_exp():
    t = Tape("f")
    x = t.add_input("x")
    t.outputs = [t.add_eqn("exp", [x])]
    v = np.array([0.0, 1.0, -2.0])
    (out,) = evaluate(t, {("x",): v}, TABLE)
    assert np.array_equal(out, np.exp(v))


def test_evaluate_sum_with_axis_and_keepdims():
    t = Tape("f")
    x = t.add_input("x")
    a = t.add_eqn("sum", [x], {"axis": 1, "keepdims": False})
    b = t.add_eqn("sum", [x], {"axis": 0, "keepdims": True})
    c = t.add_eqn("sum", [x], {"axis": None, "keepdims": False})
    t.outputs = [a, b, c]
    v = np.arange(6.0).reshape(2, 3)
    out = evaluate(t, {("x",): v}, TABLE)
    assert out[0].tolist() == [3.0, 12.0]
    assert out[1].tolist() == [[3.0, 5.0, 7.0]]
    assert out[2] == 15.0 and isinstance(out[2], float)


def test_evaluate_getindex():
    t = Tape("f")
    x = t.add_input("x")
    a = t.add_eqn("getindex", [x], {"index": (1,)})
    b = t.add_eqn("getindex", [x], {"index": (Slice(), None, 2)})
    c = t.add_eqn("getindex", [x], {"index": (Ellipsis, Slice(None, None, -1))})
    t.outputs = [a, b, c]
    v = np.arange(6.0).reshape(2, 3)
    out = evaluate(t, {("x",): v}, TABLE)
    assert out[0].tolist() == [3.0, 4.0, 5.0]
    assert out[1].tolist() == [[2.0], [5.0]]
    assert out[2].tolist() == [[2.0, 1.0, 0.0], [5.0, 4.0, 3.0]]


def test_evaluate_matmul_and_literals():
    t = Tape("f")
    a = t.add_input("a")
    b = t.add_input("b")
    m = t.add_eqn("matmul", [a, b])
    t.outputs = [t.add_eqn("mul", [m, Lit(2)]), Lit(None), Lit(3.5)]
    va, vb = np.arange(6.0).reshape(2, 3), np.arange(3.0)
    out = evaluate(t, {("a",): va, ("b",): vb}, TABLE)
    assert out[0].tolist() == [10.0, 28.0]
    assert out[1] is None and out[2] == 3.5


def test_evaluate_reads_object_inputs_by_path():
    t = Tape("f")
    w = t.add_input("m_W", ("m", "W"))
    t.outputs = [t.add_eqn("neg", [w])]
    assert evaluate(t, {("m", "W"): 2.0}, TABLE) == [-2.0]


# ----------------------------------------------------------------------------- optimize keeps meaning

#: Small functions aimed at the optimizer's rewrites (identities, lazy scalars, buffers, CSE).
EXTRA_SOURCE = src(
    """
    import numpy as np


    def negs(x, y):
        return np.sum(-(-x) * y - (-y) + x / (-y) + (x - y) * -1.0 - (-(x - y)))


    def consts(x):
        return np.sum(x * 1.0 + 0.0 + 2.0 * (3.0 * x) - x ** 1 + (2 * 3) * x / 1.0)


    def same_twice(x):
        return np.sum(np.exp(x) + np.exp(x)) + np.sum(x) * np.sum(x)


    def lazy(A, b):
        return np.sum(A * b) + np.mean(A, axis=1, keepdims=True).sum() * 2.0 - np.sum(A - 1.0) / 3.0


    def rows(A):
        return np.sum(A[0] * A[1] + A[0] ** 2) - np.sum(-A[:, 1])


    def scalars(a, b):
        return (a - b) * (a - b) / (1.0 + a * a) - (-a) * 3.0 + a * 1 + 0 * b


    def zero_add(A, b):
        return np.sum((A + 0.0) * b + (0.0 - A) * 2.0)
    """
)

EXTRA_CASES = {
    "negs": lambda r: {"x": r.standard_normal(3), "y": r.uniform(0.5, 2.0, 3)},
    "consts": lambda r: {"x": r.standard_normal((2, 3))},
    "same_twice": lambda r: {"x": r.standard_normal(4)},
    "lazy": lambda r: {"A": r.standard_normal((2, 3)), "b": r.standard_normal(3)},
    "rows": lambda r: {"A": r.standard_normal((3, 4))},
    "scalars": lambda r: {"a": float(r.standard_normal()), "b": float(r.standard_normal())},
    "zero_add": lambda r: {"A": r.standard_normal((2, 3)), "b": r.standard_normal((1, 3))},
}


def unoptimized(source: str, name: str) -> tuple[Tape, Tape]:
    """(primal, gradient) tapes straight from lower and differentiate, with no optimize at all."""
    module = fence(source, "t.py", [name])
    primal = lower(module, name, TABLE)
    verify(primal)
    grad = differentiate(primal, [p.name for p in primal.params], TABLE)
    verify(grad)
    return primal, grad


def tape_inputs(tape: Tape, values: dict[str, object]) -> dict[tuple[str, ...], object]:
    out = {}
    for inp in tape.inputs:
        v = values[inp.path[0]]
        for part in inp.path[1:]:
            v = getattr(v, part)
        out[inp.path] = v
    return out


def assert_same_outputs(before: list, after: list, what: str) -> None:
    assert len(before) == len(after), what
    for i, (b, a) in enumerate(zip(before, after)):
        if b is None or a is None:
            assert b is None and a is None, f"{what}: output {i}: {b!r} vs {a!r}"
            continue
        assert np.shape(b) == np.shape(a), f"{what}: output {i} shape {np.shape(b)} != {np.shape(a)}"
        assert np.allclose(b, a, rtol=1e-10, atol=1e-12), f"{what}: output {i} changed"


def _corpus_values(name: str, rng) -> dict[str, object]:
    bound = inspect.signature(getattr(corpus, name)).bind(*corpus.CASES[name](rng))
    bound.apply_defaults()
    return dict(bound.arguments)


OPT_CASES = [("corpus", n) for n in sorted(corpus.CASES)] + [("extra", n) for n in EXTRA_CASES]


@pytest.mark.parametrize(("kind", "name"), OPT_CASES, ids=[n for _, n in OPT_CASES])
def test_optimize_and_dce_keep_the_values(kind, name):
    source = CORPUS_SOURCE if kind == "corpus" else EXTRA_SOURCE
    primal, grad = unoptimized(source, name)
    optimized = optimize(grad, TABLE)
    variants = {
        "optimize(primal)": (primal, optimize(primal, TABLE)),
        "dce(primal)": (primal, dce(primal, TABLE)),
        "optimize(grad)": (grad, optimized),
        "dce(grad)": (grad, dce(grad, TABLE)),
        "common_factors": (optimized, common_factors(optimized, TABLE)),
    }
    if isinstance(optimized.outputs[0], Var):  # and without the value (more products read once)
        kept = drop_value(optimized, TABLE)
        variants["common_factors, no value"] = (kept, common_factors(kept, TABLE))
    for seed in range(3):
        rng = np.random.default_rng(seed)
        values = _corpus_values(name, rng) if kind == "corpus" else EXTRA_CASES[name](rng)
        for what, (before, after) in variants.items():
            verify(after)
            assert_same_outputs(
                evaluate(before, tape_inputs(before, values), TABLE),
                evaluate(after, tape_inputs(after, values), TABLE),
                f"{name} {what} seed {seed}",
            )


def test_optimize_shrinks_the_extra_gradients():
    for name in EXTRA_CASES:
        _, grad = unoptimized(EXTRA_SOURCE, name)
        assert len(optimize(grad, TABLE).eqns) < len(grad.eqns), name


# ----------------------------------------------------------------------------- optimize: named rewrites


def test_constant_folding():
    t = Tape("f")
    x = t.add_input("x")
    six = t.add_eqn("mul", [Lit(2), Lit(3)])
    t.outputs = [t.add_eqn("mul", [x, six])]
    opt = optimize(t, TABLE)
    assert prims(opt) == ["mul"]
    assert {a.value for a in opt.eqns[0].args if isinstance(a, Lit)} == {6}
    assert all(not all(isinstance(a, Lit) for a in e.args) for e in opt.eqns)


def test_constant_folding_chains_constant_factors():
    t = Tape("f")
    x = t.add_input("x")
    a = t.add_eqn("mul", [Lit(3.0), x])
    t.outputs = [t.add_eqn("mul", [Lit(2.0), a])]
    opt = optimize(t, TABLE)
    assert prims(opt) == ["mul"]
    assert [a.value for a in opt.eqns[0].args if isinstance(a, Lit)] == [6.0]


def test_mul_by_one_is_removed():
    t = Tape("f")
    x = t.add_input("x")
    e = t.add_eqn("exp", [x])
    t.outputs = [t.add_eqn("mul", [e, Lit(1)])]
    opt = optimize(t, TABLE)
    assert prims(opt) == ["exp"]
    assert opt.outputs == [opt.eqns[0].out]


def test_mul_by_float_one_is_removed_only_in_the_backward_sweep():
    # x * 1.0 promotes an int x to float: the forward sweep keeps it, gradients (floats) drop it
    for section, expected in (("forward", ["exp", "mul"]), ("backward", ["exp"])):
        t = Tape("f")
        x = t.add_input("x")
        e = t.add_eqn("exp", [x])
        t.outputs = [t.add_eqn("mul", [e, Lit(1.0)], section=section)]
        assert prims(optimize(t, TABLE)) == expected, section


def test_mul_by_zero_is_not_folded_to_a_scalar():
    # y * 0.0 has y's shape (and is nan where y is): folding it to 0 would change the value.
    t = Tape("f")
    x = t.add_input("x")
    y = t.add_input("y")
    z = t.add_eqn("mul", [y, Lit(0.0)])
    t.outputs = [t.add_eqn("add", [x, z])]
    assert prims(optimize(t, TABLE)) == ["mul", "add"]


def test_cse_merges_two_identical_exp():
    t = Tape("f")
    x = t.add_input("x")
    a = t.add_eqn("exp", [x])
    b = t.add_eqn("exp", [x])
    t.outputs = [t.add_eqn("sub", [a, b])]
    opt = optimize(t, TABLE)
    assert prims(opt).count("exp") == 1
    (sub,) = [e for e in opt.eqns if e.prim == "sub"]
    assert sub.args[0] is sub.args[1]


def test_cse_orders_commutative_arguments():
    t = Tape("f")
    x = t.add_input("x")
    y = t.add_input("y")
    a = t.add_eqn("mul", [x, y])
    b = t.add_eqn("mul", [y, x])
    t.outputs = [t.add_eqn("truediv", [a, b])]
    assert prims(optimize(t, TABLE)).count("mul") == 1


def test_cse_keeps_different_static_params_apart():
    t = Tape("f")
    x = t.add_input("x")
    a = t.add_eqn("sum", [x], {"axis": 0, "keepdims": False})
    b = t.add_eqn("sum", [x], {"axis": 1, "keepdims": False})
    t.outputs = [t.add_eqn("sum", [t.add_eqn("add", [a, b])], {"axis": None, "keepdims": False})]
    assert prims(optimize(t, TABLE)).count("sum") == 3


def test_dce_drops_an_unused_equation():
    t = Tape("f")
    x = t.add_input("x")
    used = t.add_eqn("exp", [x])
    t.add_eqn("sin", [x])
    t.outputs = [used]
    assert prims(dce(t, TABLE)) == ["exp"]
    assert prims(optimize(t, TABLE)) == ["exp"]


def test_double_negation_is_removed():
    t = Tape("f")
    x = t.add_input("x")
    t.outputs = [t.add_eqn("neg", [t.add_eqn("neg", [x])])]
    opt = optimize(t, TABLE)
    assert opt.eqns == [] and opt.outputs == [x]


def test_unbroadcast_of_equal_shape_classes_is_removed():
    t = Tape("f")
    x = t.add_input("x")
    g = t.add_eqn("exp", [x])
    t.outputs = [t.add_eqn("unbroadcast", [g, x])]
    assert prims(optimize(t, TABLE)) == ["exp"]


def test_unbroadcast_of_a_broadcast_is_kept():
    t = Tape("f")
    a = t.add_input("A")
    b = t.add_input("b")
    g = t.add_eqn("add", [a, b])
    t.outputs = [t.add_eqn("sum", [t.add_eqn("unbroadcast", [g, b])], {"axis": None, "keepdims": False})]
    assert "unbroadcast" in prims(optimize(t, TABLE))


SCALAR_POLY = src(
    """
    def f(x):
        return x[3] * x[8] ** 3 - 3 * x[3] * x[8] * x[6] ** 2 - x[1] * x[6] ** 3 + 2.5 * x[1]
    """
)


def test_scalar_polynomial_has_no_unbroadcast():
    g = generate(SCALAR_POLY, "p.py")
    assert "unbroadcast" not in prims(g.tapes["optimize"][0])
    assert "unbroadcast" in prims(g.tapes["differentiate"][0])  # the rules did produce them
    assert "_unbroadcast" not in g.text


def test_poly_example_gradient_uses_one_buffer():
    source = (ROOT / "examples" / "poly.py").read_text(encoding="utf-8")
    g = generate(source, "examples/poly.py")
    (tape,) = g.tapes["optimize"]
    assert prims(tape).count("grad_zeros") == 1
    assert "unbroadcast" not in prims(tape)
    assert "_unbroadcast" not in g.text
    body = g.text[g.text.index("def grad_f") :]
    assert body.count("_grad_stack(x, dx)") == 1  # one array, made once from the rows dx1, ..., dx8
    assert "dx = [0.0, dx1, dx2, dx3, dx4, dx5, dx6, dx7, dx8]\n" in body
    assert "_index_add" not in g.text
    namespace = run_source(g.text)
    x = np.random.default_rng(0).uniform(-1, 1, 9)
    value, dx = namespace["grad_f"](x)
    assert np.isclose(value, run_source(source)["f"](x))
    assert dx.shape == (9,) and dx[0] == 0.0


ELEMENT_POLY = src(
    """
    import numpy as np


    def f(x):
        return np.sum(x[0] * x[2] ** 2 + x[-1] * x[0] - 2.0 * x[2] + x[1] * x[-1])
    """
)


@pytest.mark.parametrize(
    "x",
    [
        np.array([0.5, -1.5, 2.0, 0.75]),  # x[-1] is x[3]
        np.array([0.5, -1.5, 2.0, 0.75, 3.0, -0.25]),  # an element nobody reads: dx[4] == 0
        np.array([0.5, -1.5, 2.0, 0.75], dtype=np.float32),
        np.arange(12.0).reshape(4, 3) / 7,  # rows: dx[2] is a row of the array
    ],
    ids=["1-D", "longer", "float32", "rows"],
)
def test_element_gradient_is_built_as_a_list(x):
    """The gradient of x[0], x[2], x[-1] of a 1-D x is a list of Python floats made an array once
    (np.zeros_like and item writes into it cost more than the whole scalar gradient); a 2-D x
    has rows, written into an array as before. Both give the gradient of the function."""
    g = generate(ELEMENT_POLY, "p.py")
    text = plain_form(g.text)
    # rows assigned before the x[-1] write (which ends what is known of the rows): x[1] only
    assert "dx_items = [0.0] * len(x_items) if x_items is not x else _grad_rows(x, (1,))" in text
    assert "dx = np.fromiter(dx_items, x.dtype, 3) if x_items is not x else dx_items" in text
    assert "dx_items[0] = dx_items[0] + " in text  # x[0] twice: the second adds
    assert "+=" not in text  # a list item may be an array other names refer to
    f, grad_f = run_source(ELEMENT_POLY)["f"], run_source(g.text)["grad_f"]
    value, dx = grad_f(x.copy())
    assert np.allclose(value, f(x))
    assert dx.shape == x.shape and dx.dtype == x.dtype and type(dx) is np.ndarray
    wide = x.astype(np.float64)
    expected = numeric_grad(lambda v: float(np.sum(f(v))), [wide], 0)
    assert np.allclose(dx, expected, rtol=1e-4 if x.dtype == np.float32 else 1e-6, atol=1e-6)


NAMED_ROWS = src(
    """
    import numpy as np


    def f(x):
        return np.sum(x[3] * x[1] ** 2 - 2.0 * x[1] * x[0] + x[3] * x[3])


    def g(x):
        return np.sum(x[2] / x[0] + x[1] * x[2])
    """
)


@pytest.mark.parametrize(
    "x",
    [
        np.array([0.5, -1.5, 2.0, 0.75]),  # x.shape == (4,): the list of Python floats
        np.array([0.5, -1.5, 2.0, 0.75, 3.0]),  # longer than its reads: the NumPy scalars x[k]
        np.array([0.5, -1.5, 2.0, 0.75], dtype=np.float32),
        np.arange(12.0).reshape(4, 3) / 7,  # rows
        [0.5, -1.5, 2.0, 0.75],  # a list
        (0.5, -1.5, 2.0, 0.75),  # a tuple
        np.array([0.5, -1.5, 2.0, 0.75], dtype=np.float16),  # not in _FLOATS: NumPy's float16 scalars
    ],
    ids=["1-D", "longer", "float32", "rows", "list", "tuple", "float16"],
)
def test_element_reads_and_gradient_rows_are_named(x):
    """x[0], x[1], x[3] are read at once, first, and the gradient of each is a name (dx0, dx1,
    dx3), made one array after the last write: the gradient for every kind of x that indexes."""
    g = generate(NAMED_ROWS, "p.py")
    text = plain_form(g.text)
    body = text[text.index("def grad_f(") : text.index("def grad_g(")]
    assert "x_items = x.tolist() if type(x) is np.ndarray and x.shape == (4,) and (x.dtype in _FLOATS) else x" in body
    assert "x0, x1, _, x3 = x_items if x_items is not x else (x[0], x[1], None, x[3])\n" in body
    assert "dx = [dx0, dx1, 0.0, dx3]\n" in body
    assert "dx = np.fromiter(dx, x.dtype, 4) if x_items is not x else _grad_stack(x, dx)\n" in body
    assert "+=" not in body and "x_items[" not in body
    # a division by x[0] (0 raises ZeroDivisionError on Python floats): NumPy's scalars, read at once
    body = text[text.index("def grad_g(") :]
    assert "tolist" not in body and "x0, x1, x2 = (x[0], x[1], x[2])\n" in body
    assert "dx = _grad_stack(x, dx)\n" in body
    namespace, user = run_source(g.text), run_source(NAMED_ROWS)
    value, dx = namespace["grad_f"](x)
    assert np.allclose(value, user["f"](x))
    assert type(dx) is np.ndarray and dx.shape == np.shape(x)
    assert dx.dtype == (x.dtype if isinstance(x, np.ndarray) and x.dtype.kind == "f" else np.float64)
    wide = np.asarray(x, dtype=np.float64)
    rtol = {np.float32: 1e-4, np.float16: 1e-2}.get(getattr(x, "dtype", np.dtype(float)).type, 1e-6)
    expected = numeric_grad(lambda v: float(np.sum(user["f"](v))), [wide], 0)
    assert np.allclose(dx, expected, rtol=rtol, atol=max(rtol, 1e-5))
    shifted = wide + 3.0  # no 0 to divide by
    value, dx = namespace["grad_g"](shifted)
    assert np.allclose(value, user["g"](shifted)) and dx.shape == shifted.shape
    assert np.allclose(dx, numeric_grad(lambda v: float(np.sum(user["g"](v))), [shifted], 0), rtol=1e-6, atol=1e-6)


def test_grad_stack_makes_the_array_from_numbers_or_rows():
    from yota_s2s.runtime.core import _grad_stack

    g = _grad_stack(np.arange(5), [1.5, 0.0, 2])  # an integer x: a float gradient, zeros past the rows
    assert g.dtype == np.float64 and g.tolist() == [1.5, 0.0, 2.0, 0.0, 0.0]
    x = np.ones((3, 2), np.float32)
    g = _grad_stack(x, [np.array([1.0, 2.0]), 0.0])
    assert g.dtype == np.float32 and g.tolist() == [[1.0, 2.0], [0.0, 0.0], [0.0, 0.0]]
    assert _grad_stack([1.0, 2.0], [3.0, 4.0]).tolist() == [3.0, 4.0]  # a list x


FLOAT_LITERALS = src(
    """
    import numpy as np


    def poly(x):
        return 3 * x[0] * x[1] ** 2 + x[1] * 5


    def looped(x, n):
        s = 0.0
        for i in range(1, n):
            s = s + x[i] * x[i - 1] * 2
        return s
    """
)


@pytest.mark.parametrize("x", [np.array([0.5, -1.5, 2.0]), [0.5, -1.5, 2.0]])
def test_integer_constants_of_gradient_terms_are_floats(x):
    """The backward terms' constants are floats (a gradient is a float); the forward's stay as
    written, and so does the index arithmetic of a loop."""
    g = generate(FLOAT_LITERALS, "p.py")
    text = plain_form(g.text)
    poly = text[text.index("def grad_poly(") : text.index("def grad_looped(")]
    forward, backward = poly.split("# backward")
    assert "3 * x0" in forward and "3.0" not in forward
    assert "dx1 = 5.0 + 6.0 * x0 * x1\n" in backward and "dx0 = _t1 * 3.0\n" in backward
    assert "_t2 = i - 1\n" in text[text.index("def grad_looped(") :]  # an index (a loop is left as it is)
    namespace, user = run_source(g.text), run_source(FLOAT_LITERALS)
    value, dx = namespace["grad_poly"](x)
    assert value == user["poly"](x) and type(value) is type(user["poly"](x))  # an integer x: an integer value
    assert dx.dtype == np.float64
    assert np.allclose(dx, numeric_grad(user["poly"], [np.asarray(x, float)], 0))
    value, dx, dn = namespace["grad_looped"](x, 3)
    assert np.isclose(value, user["looped"](x, 3)) and dn is None
    assert np.allclose(dx, numeric_grad(lambda v: user["looped"](v, 3), [np.asarray(x, float)], 0))


def test_float_literals_keep_constants_read_as_anything_but_a_gradient_term():
    from yota_s2s.transform.finish import float_literals

    t = Tape("f")
    x = t.add_input("x")
    n = t.add_eqn("size", [x], section="backward")
    k = t.add_eqn("mul", [n, Lit(2)], section="backward")  # read as an index: stays an int
    row = t.add_eqn("getindex", [x, k], {"index": (None,)}, section="backward")
    g = t.add_eqn("mul", [row, Lit(3)], section="backward")  # a gradient term: a float
    forward = t.add_eqn("mul", [x, Lit(4)])  # the forward: as written
    t.outputs = [forward, g]
    out = float_literals(t)
    assert [type(a.value) for e in out.eqns for a in e.args if isinstance(a, Lit)] == [int, float, int]


def test_common_factors_take_a_factor_out_of_two_terms_only_where_it_saves_a_product():
    def tape(build):
        t = Tape("f")
        x, y = t.add_input("x"), t.add_input("y")
        t.outputs = [build(t, x, y)]
        return t, x

    def sum_of(t, x, y, hint=None):  # x * y * 2.0 + x * 3.0 -> x * (y * 2.0 + 3.0)
        p = t.add_eqn("mul", [x, y], section="backward", hint=hint)
        q = t.add_eqn("mul", [p, Lit(2.0)], section="backward")
        r = t.add_eqn("mul", [x, Lit(3.0)], section="backward")
        return t.add_eqn("add", [q, r], section="backward")

    def masked(t, x, y):  # x * (y > 0) + x * (y < 1): True + True is True, the sum stays
        above = t.add_eqn("greater", [y, Lit(0)], section="backward")
        below = t.add_eqn("less", [y, Lit(1)], section="backward")
        u = t.add_eqn("mul", [x, above], section="backward")
        return t.add_eqn("add", [u, t.add_eqn("mul", [x, below], section="backward")], section="backward")

    def bare(t, x, y):  # x + x * y: x * (1 + y) would be as many operations
        return t.add_eqn("add", [x, t.add_eqn("mul", [x, y], section="backward")], section="backward")

    def forward(t, x, y):  # the forward sweep computes what the user wrote
        return t.add_eqn("add", [t.add_eqn("mul", [x, y]), t.add_eqn("mul", [x, Lit(3.0)])])

    t, x = tape(sum_of)
    out = common_factors(t, TABLE)
    assert prims(out) == ["mul", "add", "mul"] and out.eqns[-1].args[0] is x  # 4 operations -> 3
    assert out.eqns[-1].outs[0] is t.outputs[0]  # the sum's own variable
    values = {("x",): np.array([0.5, -1.5, 2.0]), ("y",): np.array([1.0, 0.25, -3.0])}
    assert np.allclose(evaluate(out, values, TABLE)[0], evaluate(t, values, TABLE)[0], rtol=1e-15)
    for build in (masked, bare, forward, lambda t, x, y: sum_of(t, x, y, hint="p")):  # a named product: kept
        t, _ = tape(build)
        assert common_factors(t, TABLE) is t


FACTORED = src(
    """
    import numpy as np


    def quartic(x):
        return np.sum(x ** 4 - x ** 2)


    def nested(a, b, c, d):
        return a * b * c * c + a * b * c * d - 2.0 * a * a * b


    def factored(x):
        return (x[0] + 3 * x[1]) ** 4 - (x[0] + 3 * x[1]) ** 2
    """
)


@pytest.mark.parametrize("value", [True, False])
def test_gradients_with_common_factors_taken_out(value):
    """l ** 4 - l ** 2 differentiates to l * (4.0 * l * l - 2.0); a negated term joins the sum
    (-(b * _t3) + d_t1 * b); the gradients equal central differences."""
    g = generate(FACTORED, "p.py", value=value)
    text = plain_form(g.text)
    assert "dx = x * (4.0 * _t1 - 2.0)\n" in text if value else "dx = x * (4.0 * x * x - 2.0)\n" in text
    assert "da = -(b * (_t3 - d_t1)) - _t1 * 2.0\n" in text
    assert "d_t1 = _t1 * (4.0 * " in text[text.index("def grad_factored(") :]
    namespace, user = run_source(g.text), run_source(FACTORED)
    rng = np.random.default_rng(3)
    x = rng.standard_normal(5)
    *_, dx = namespace["grad_quartic"](x)
    assert np.allclose(dx, numeric_grad(user["quartic"], [x], 0))
    args = [float(v) for v in rng.standard_normal(4)]
    grads = namespace["grad_nested"](*args)[value:]
    for i, got in enumerate(grads):
        assert np.isclose(got, numeric_grad(user["nested"], [np.asarray(a) for a in args], i), rtol=1e-6)
    x = np.array([0.5, -0.25])
    *_, dx = namespace["grad_factored"](x)
    assert np.allclose(dx, numeric_grad(user["factored"], [x], 0))


def _random_polynomial(seed: int) -> str:
    """2 to 25 monomials ``c * x[i] ** p * x[j] ...`` over x[0..5]: sums whose terms share factors."""
    rng = random.Random(seed)
    terms = []
    for _ in range(rng.randint(2, 25)):
        factors = [
            f"x[{rng.randrange(6)}]" + (f" ** {rng.randint(1, 4)}" if rng.random() < 0.4 else "")
            for _ in range(rng.randint(1, 4))
        ]
        terms.append(" * ".join([repr(rng.choice([1, 2, 3, -1, 0.5, -2.5])), *factors]))
    return " + ".join(terms)


@pytest.mark.parametrize("seed", range(12))
def test_random_polynomials_with_common_factors_match_sympy(seed):
    """The gradient of a random polynomial, scalar and by blocks of columns, with and without the
    value, equals sympy.diff's exactly evaluated (common factors regroup its sums)."""
    import sympy

    body = _random_polynomial(seed)
    xs = sympy.symbols("x0:6")
    user = run_source(f"def f(x):\n    return {body}\n")
    expr = user["f"](list(xs))
    exact = [sympy.lambdify(xs, sympy.diff(expr, s)) for s in xs]
    rng = np.random.default_rng(seed)
    x, batch = rng.uniform(-1.5, 1.5, 6), rng.uniform(-1.5, 1.5, (6, 3000))  # 18,000 numbers: by columns
    for value in (True, False):
        scalar = run_source(generate(f"def f(x):\n    return {body}\n", "p.py", value=value).text)
        batched = run_source(
            generate(f"import numpy as np\n\n\ndef f(x):\n    return np.sum({body})\n", "p.py", value=value).text
        )
        assert np.allclose(scalar["grad_f"](x)[-1], [float(d(*x)) for d in exact], rtol=1e-12, atol=1e-12)
        columns = batched["grad_f"](batch)[-1]
        expected = np.array([np.broadcast_to(d(*batch), batch.shape[1:]) for d in exact])
        assert np.allclose(columns, expected, rtol=1e-12, atol=1e-12), body


def test_element_gradient_written_in_a_loop_stays_an_array():
    """A write into the gradient of x inside a loop (dx[i] with the loop's i) keeps the array."""
    source = src(
        """
        def f(x):
            s = x[0] * x[1]
            for i in range(3):
                s = s + x[i] * x[i]
            return s
        """
    )
    g = generate(source, "p.py")
    assert "dx_items" not in g.text and "_grad_zeros(x)" in g.text
    x = np.array([0.5, -1.5, 2.0, 0.75])
    _, dx = run_source(g.text)["grad_f"](x)
    assert np.allclose(dx, numeric_grad(run_source(source)["f"], [x], 0))


INTEGER_READS = src(
    """
    import numpy as np


    def elements(x):
        return x[0] * x[1] + 0.5 * x[1]


    def rows(x):
        return np.sum(x[0] * 0.5 + x[1] * x[0])


    def a_slice(x):
        return np.sum(x[1:] * 0.5) + x[0] * 1.5


    def in_a_loop(x, n):
        s = 0
        for i in range(n):
            s = s + x[i] * 0.5
        return s
    """
)


@pytest.mark.parametrize(
    ("func", "args"),
    [
        ("elements", (np.array([2, 3]),)),
        ("rows", (np.array([[1, 2], [3, 4]]),)),
        ("a_slice", (np.array([2, 3, 4]),)),
        ("in_a_loop", (np.array([2, 3, 4]), 3)),
        ("elements", (np.array([True, True]),)),
    ],
    ids=["elements", "rows", "slice", "loop", "bool"],
)
def test_an_integer_or_boolean_argument_is_refused(func, args):
    """The rules are proven for floating values (an integer program overflows, x + x of booleans
    is a logical or): an integer or boolean array argument with a gradient is a TypeError naming
    it (as JAX's grad), in every form of the code; its float values are differentiated."""
    g = generate(INTEGER_READS, "p.py")
    grad = run_source(g.text)[f"grad_{func}"]
    f = run_source(INTEGER_READS)[func]
    x, *rest = args
    kind = "boolean" if x.dtype == bool else "integer"
    with pytest.raises(TypeError, match=rf"grad_{func}\(\): the argument x is {kind} \({x.dtype}\)"):
        grad(x, *rest)
    wide = x.astype(np.float64)
    value, dx, *_ = grad(wide, *rest)
    assert value == f(wide, *rest)
    assert dx.dtype == np.float64 and dx.shape == x.shape
    assert np.allclose(dx, numeric_grad(lambda v: float(f(v, *rest)), [wide], 0))


REDUCTIONS_OF_ALL_KINDS = src(
    """
    import numpy as np


    def f(x, z):
        a = x[0] * 2.0
        s = 0.0
        for i in range(3):
            s = s * 0.5 + a
        e = np.exp(z)
        return np.sum(s) + np.sum(a * a) + np.sum(x[1]) + np.sum(e.sum(axis=0) * np.exp(z[0]))
    """
)


def test_reductions_are_methods_only_of_numpy_values():
    """np.sum's Python wrapper costs about 1 µs; the method does the same reduction. It is written
    only for a value that is surely a NumPy value: a loop's result, an element read from
    x.tolist() and Python arithmetic on them may be Python floats, which have no .sum()."""
    g = generate(REDUCTIONS_OF_ALL_KINDS, "p.py")
    text = g.text[g.text.index("def grad_f") :]
    assert "e = np.exp(z)" in text
    assert "e.sum(axis=0)" in text
    assert "_t4.sum()" in text  # of a product of NumPy values
    assert "np.sum(s)" in text  # a loop's result: a Python float here
    assert "x_items = x.tolist()" in text
    assert "np.sum(a * a)" in text and "np.sum(x1)" in text  # Python floats from x.tolist()
    f, grad_f = run_source(REDUCTIONS_OF_ALL_KINDS)["f"], run_source(g.text)["grad_f"]
    rng = np.random.default_rng(3)
    for x in (rng.uniform(-1, 1, 4), rng.uniform(-1, 1, (4, 2))):  # Python floats, then rows
        z = rng.uniform(-1, 1, (3, 2))
        value, dx, dz = grad_f(x, z)
        assert np.allclose(value, f(x, z))
        assert np.allclose(dx, numeric_grad(lambda *a: np.sum(f(*a)), [x, z], 0), atol=1e-6)
        assert np.allclose(dz, numeric_grad(lambda *a: np.sum(f(*a)), [x, z], 1), atol=1e-6)


# ----------------------------------------------------------------------------- shapes


def _indexed_tape() -> tuple[Tape, list[Var]]:
    t = Tape("f")
    x = t.add_input("x")
    a = t.add_eqn("getindex", [x], {"index": (3,)})
    b = t.add_eqn("getindex", [x], {"index": (8,)})
    c = t.add_eqn("getindex", [x], {"index": (Slice(1, None),)})
    s = t.add_eqn("sum", [t.add_eqn("mul", [a, b])], {"axis": None, "keepdims": False})
    t.outputs = [s]
    return t, [x, a, b, c]


def test_shape_classes_integer_indices_share_a_class():
    t, (x, a, b, c) = _indexed_tape()
    sc = shape_classes(t, TABLE)
    assert sc.of(a) == sc.of(b)
    assert sc.of(a) != sc.of(x)
    assert sc.of(c) != sc.of(a)  # a slice keeps the axis


def test_shape_classes_broadcast_differs_from_each_input():
    t = Tape("f")
    a = t.add_input("A")  # (2, 3)
    b = t.add_input("b")  # (3,)
    c = t.add_eqn("add", [a, b])
    t.outputs = [t.add_eqn("sum", [c], {"axis": None, "keepdims": False})]
    sc = shape_classes(t, TABLE)
    assert sc.of(c) != sc.of(a)
    assert sc.of(c) != sc.of(b)
    assert sc.of(c) == sc.of(a) | sc.of(b)
    assert sc.of(t.outputs[0]) == SCALAR


def test_shape_classes_elementwise_of_one_input_keeps_its_class():
    t = Tape("f")
    x = t.add_input("x")
    e = t.add_eqn("exp", [x])
    m = t.add_eqn("mul", [e, Lit(2.0)])
    t.outputs = [t.add_eqn("sum", [m], {"axis": None, "keepdims": False})]
    sc = shape_classes(t, TABLE)
    assert sc.of(e) == sc.of(m) == sc.of(x) != SCALAR


def test_shape_classes_assume_a_scalar_output():
    t = Tape("f")
    x = t.add_input("x")
    a = t.add_eqn("getindex", [x], {"index": (3,)})
    t.outputs = [t.add_eqn("mul", [a, a])]
    sc = shape_classes(t, TABLE)
    assert sc.of(a) == SCALAR
    assert sc.of(x) != SCALAR


# ----------------------------------------------------------------------------- fence


def refusals(source: str, funcs: list[str] | None = None) -> list[tuple[str, int, int]]:
    with pytest.raises((UserErrors, UserError)) as info:
        fence(source, "t.py", funcs)
    errors = getattr(info.value, "errors", [info.value])
    assert all(e.path == "t.py" for e in errors)
    return [(e.code, e.line, e.col) for e in errors]


ENTRY_SOURCE = src(
    """
    import numpy as np


    def helper(x):
        return x * x


    def _private(x):
        return np.exp(x)


    def loss(x):
        return np.sum(helper(x)) + np.sum(_private(x))


    class Model:
        def forward(self, x):
            return scale(x)


    def scale(x):
        return 2.0 * x


    def energy(m, x):
        return np.sum(m.forward(x))
    """
)


def test_entry_points_are_public_functions_nobody_calls():
    assert fence(ENTRY_SOURCE, "t.py").selected == ["loss", "energy"]


def test_func_selects_any_function_including_helpers():
    assert fence(ENTRY_SOURCE, "t.py", ["helper", "_private"]).selected == ["helper", "_private"]


def test_unknown_func_is_ys003():
    with pytest.raises(UserError) as info:
        fence(ENTRY_SOURCE, "t.py", ["nope"])
    assert info.value.code == "YS003"
    assert "nope" in info.value.message and "loss" in info.value.message


def test_no_entry_point_is_ys003():
    with pytest.raises(UserError) as info:
        fence("def _f(x):\n    return x\n", "t.py")
    assert info.value.code == "YS003"


def test_fence_checks_only_reachable_functions():
    source = ENTRY_SOURCE + src(
        """


        def unused_broken(x):
            for i in range(3):
                x = x + 1
            return x
        """
    )
    assert fence(source, "t.py", ["loss"]).selected == ["loss"]


def test_fence_checks_helpers_and_methods_reached_by_the_selection():
    source = src(
        """
        class Model:
            def forward(self, x):
                with x:
                    x = x - 1
                return x


        def helper(x):
            global G
            return x


        def loss(m, x):
            return helper(x) + m.forward(x)
        """
    )
    assert refusals(source) == [("YS013", 3, 9), ("YS015", 9, 5)]


def test_a_library_call_does_not_hide_a_same_named_entry_point():
    source = src(
        """
        import numpy as np


        def mean(x):
            return np.sum(x) / 3.0


        def loss(x):
            return np.mean(x * x)
        """
    )
    assert fence(source, "t.py").selected == ["mean", "loss"]


def test_a_library_call_does_not_reach_a_same_named_function():
    source = src(
        """
        import numpy as np


        def mean(x):
            for i in range(3):
                x = x + 1
            return x


        def loss(x):
            return np.mean(x * x)
        """
    )
    assert fence(source, "t.py", ["loss"]).selected == ["loss"]


REFUSALS = {
    "early return": ("def f(x):\n    return x\n    return -x\n", [("YS012", 2, 5)]),
    "with": ("def f(x):\n    with g():\n        y = x\n    return y\n", [("YS013", 2, 5)]),
    "global": ("def f(x):\n    global G\n    return x\n", [("YS015", 2, 5)]),
    "yield": ("def f(x):\n    y = yield x\n    return y\n", [("YS016", 2, 9)]),
    "subscript store": ("def f(x):\n    x[0][1] = 1\n    return x\n", [("YS017", 2, 5)]),
    "attribute store": ("def f(m):\n    m.w = 1\n    return m.w\n", [("YS042", 2, 5)]),
    "kwargs": ("def f(x, **kw):\n    return x\n", [("YS010", 1, 1)]),
}


@pytest.mark.parametrize("case", sorted(REFUSALS))
def test_fence_refusals_carry_exact_locations(case):
    source, expected = REFUSALS[case]
    assert sorted(refusals(source)) == sorted(expected)


def test_fence_reports_every_refusal_in_line_order():
    source = src(
        """
        def f(x):
            x[0][1] = 1
            with open_log():
                x = x + 1
            return x


        def g(x):
            global G
            y = yield x
            return f(x)
        """
    )
    assert refusals(source, ["g"]) == [
        ("YS017", 2, 5),
        ("YS013", 3, 5),
        ("YS015", 9, 5),
        ("YS016", 10, 9),
    ]


def test_fence_columns_count_characters_not_bytes():
    # (a walrus that always runs is served: these are after the first operand of `and`)
    source = 'def f(x):\n    y = "ééé" + x\n    return x and (z := y)\n'
    assert refusals(source) == [("YS020", 3, 19)]
    source = 'def f(x):\n    y = "ééé" + (x and (z := x))\n    return y\n'
    assert refusals(source) == [("YS020", 2, 25)]


def test_syntax_error_is_located():
    with pytest.raises(UserError) as info:
        fence("def f(x):\n    return (x + 1\n", "t.py")
    e = info.value
    assert (e.code, e.path, e.line, e.col) == ("YS001", "t.py", 2, 12)
    assert e.source_line == "    return (x + 1"


def test_lowering_errors_are_located():
    cases = {
        "def f(x):\n    return x * bar\n": ("YS030", 2, 16),
        "class C:\n    def g(self, x):\n        return self.g(x)\n\n\ndef f(c, x):\n    return c.g(x)\n": (
            "YS035",
            3,
            16,
        ),
        "def f(m):\n    return m.W * m\n": ("YS036", 2, 12),
    }
    for source, expected in cases.items():
        module = fence(source, "t.py")
        with pytest.raises(UserError) as info:
            lower(module, module.selected[0], TABLE)
        assert (info.value.code, info.value.line, info.value.col) == expected, source


def test_static_code_on_a_differentiated_value_is_refused_when_differentiating():
    # lowering keeps them as static code; the differentiator refuses them where x has a gradient
    cases = {
        "import numpy as np\n\n\ndef f(x):\n    return np.sum(np.foo(x))\n": ("YS031", 5, 19),
        "import numpy as np\n\n\ndef f(x, a):\n    return np.sum(x, axis=a)\n": ("YS033", 5, 12),
    }
    for source, expected in cases.items():
        with pytest.raises(UserError) as info:
            generate(source, "t.py", ["f"])
        assert (info.value.code, info.value.line, info.value.col) == expected, source


# ----------------------------------------------------------------------------- the seed document, on generated text


def calls(text: str, dotted: str) -> int:
    """How many times the code (not the comments) of ``text`` calls ``dotted`` (e.g. ``np.exp``)."""
    module, name = dotted.split(".")
    return sum(
        1
        for n in ast.walk(ast.parse(plain_form(text)))
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr == name
        and isinstance(n.func.value, ast.Name)
        and n.func.value.id == module
    )


def grad_function(text: str, name: str) -> ast.FunctionDef:
    (fn,) = [n for n in ast.parse(text).body if isinstance(n, ast.FunctionDef) and n.name == f"grad_{name}"]
    return fn


def code_only(text: str) -> str:
    """The generated code without comments."""
    return ast.unparse(ast.parse(text))


SEED = src(
    """
    import numpy as np


    def foo(x):
        return np.exp(x)


    def logistic(x):
        return 1.0 / (1.0 + np.exp(-x))


    def logistic_sum(x):
        return np.sum(logistic(x))


    def l(x):
        return x[0] + 3 * x[1]


    def factored(x):
        return l(x) ** 4 - l(x) ** 2


    def power_const(x):
        return np.sum(x ** 2.0)


    def power_both(x, y):
        return np.sum(x ** y)
    """
)


def seed_text(name: str) -> str:
    return generate(SEED, "seed.py", [name]).text


def test_seed_exp_computed_once_and_no_times_one():
    text = seed_text("foo")
    assert calls(text, "np.exp") == 1
    assert "* 1.0" not in code_only(text)
    assert "1.0 *" not in code_only(text)


def test_seed_logistic_backward_reuses_forward_exp():
    text = seed_text("logistic_sum")
    assert calls(text, "np.exp") == 1
    namespace = run_source(text)
    x = np.linspace(-2.0, 2.0, 5)
    value, dx = namespace["grad_logistic_sum"](x)
    s = 1.0 / (1.0 + np.exp(-x))
    assert np.isclose(value, np.sum(s))
    assert np.allclose(dx, s * (1.0 - s))


def test_seed_factored_polynomial_computes_l_once_and_is_not_expanded():
    text = seed_text("factored")
    fn = grad_function(text, "factored")
    # l(x) = x[0] + 3 * x[1]: exactly one `a + 3 * b` in the code
    lin = [
        n
        for n in ast.walk(fn)
        if isinstance(n, ast.BinOp)
        and isinstance(n.op, ast.Add)
        and isinstance(n.right, ast.BinOp)
        and isinstance(n.right.op, ast.Mult)
        and isinstance(n.right.left, ast.Constant)
        and n.right.left.value == 3
    ]
    assert len(lin) == 1
    (assign,) = [n for n in ast.walk(fn) if isinstance(n, ast.Assign) and n.value is lin[0]]
    l_name = assign.targets[0].id
    # every power is of l, never of x[0] or x[1] (no expansion of (x0 + 3 x1) ** 4); small integer
    # powers are written as products: l * l, then (l * l) * (l * l)
    bases = {ast.unparse(n.left) for n in ast.walk(fn) if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Pow)}
    assert bases <= {l_name}
    squares = [n for n in ast.walk(fn) if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mult)]
    assert sum(ast.unparse(n) == f"{l_name} * {l_name}" for n in squares) == 1  # l ** 2 once, shared
    assert sum(isinstance(n, ast.BinOp) for n in ast.walk(fn)) <= 20  # an expansion would have dozens
    namespace = run_source(text)
    x = np.array([0.3, -0.2])
    value, dx = namespace["grad_factored"](x)
    lv = x[0] + 3 * x[1]
    assert np.isclose(value, lv**4 - lv**2)
    assert np.allclose(dx, (4 * lv**3 - 2 * lv) * np.array([1.0, 3.0]))


def test_seed_constant_power_has_no_log():
    text = seed_text("power_const")
    assert calls(text, "np.log") == 0
    assert "np.log" not in text


def test_seed_variable_power_has_log():
    assert calls(seed_text("power_both"), "np.log") == 1


# ----------------------------------------------------------------------------- bugs found by these tests


def _compiled(source: str, name: str = "f", wrt: list[str] | None = None) -> dict:
    namespace = run_source(source, filename="t.py")
    return run_source(generate(source, "t.py", [name], wrt).text, namespace)


def test_times_one_keeps_the_float_promotion_of_integer_inputs():
    # (an integer argument with a gradient is refused: k is one without)
    ns = _compiled("import numpy as np\n\n\ndef f(x, k):\n    return np.sum((k * 1.0) ** 3 * x)\n", wrt=["x"])
    k = np.array([3_000_000])
    value, dx = ns["grad_f"](1.0, k)
    assert value == ns["f"](1.0, k) == 2.7e19
    assert np.allclose(dx, (k * 1.0) ** 3)


def test_times_one_keeps_the_value_type():
    ns = _compiled("import numpy as np\n\n\ndef f(x):\n    return np.size(x) * 1.0\n")
    value, _ = ns["grad_f"](np.ones(6))
    assert type(value) is type(ns["f"](np.ones(6)))


def test_a_repeated_func_is_generated_once():
    text = generate("def f(x):\n    return x * x\n", "t.py", ["f", "f"]).text
    assert len(re.findall(r"^def grad_f\(", text, flags=re.MULTILINE)) == 1


def test_a_repeated_wrt_gives_the_gradient_twice_or_is_refused():
    source = "def f(x, y):\n    return x * x * y\n"
    try:
        ns = _compiled(source, wrt=["x", "x"])
    except UserError as exc:
        assert exc.code in ("YS004", "YS005")
        return
    value, d1, d2 = ns["grad_f"](3.0, 2.0)
    assert value == 18.0
    assert d1 == d2 == 12.0
