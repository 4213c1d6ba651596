"""The forward sweeps of ``--jvp`` and ``--sparse`` (issue 36): the JVP by transposition reads the
stand-in adjoints of its VJP only for their shapes, and ``transform.finish.shape_reads`` reads those
from values of the same shape class computed anyway, so ``jvp_NAME`` does tangent work only; a sum
of every part of a concatenation placed is the concatenation (``joined_parts``); the helpers the
sweeps call (``_roll``, ``_rows_concatenate``, ``_rows_take``, ``_rows_getindex``) do what NumPy
does.  Every tangent is checked against central differences of the source function.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

from yota_s2s.codegen.module import HELPERS_BANNER
from yota_s2s.dsl.load import load_rules
from yota_s2s.ir.core import Tape
from yota_s2s.ir.shapes import shape_classes
from yota_s2s.pipeline import generate
from yota_s2s.runtime.rows import _rows_take
from yota_s2s.runtime.rows_parts import _rows_concatenate, _rows_getindex
from yota_s2s.runtime.shape import _roll, _roll_dx

from .test_jacobian import load, numeric_jacobian
from .test_sparse import FAMILIES

RNG = np.random.default_rng(6262)


@functools.cache
def _jvp_text(name: str) -> str:
    text, _, wrt = FAMILIES[name]
    return generate(text, f"{name}.py", wrt=wrt, mode="jvp").text


def _function(text: str, name: str) -> str:
    return text.split(HELPERS_BANNER)[0].split(f"def {name}(")[1].split("\ndef ")[0]


@pytest.mark.parametrize("name", ["bratu", "springs", "arrowhead", "brusselator", "laplace2d"])
@pytest.mark.parametrize("n", [4, 7])
def test_jvp_does_tangent_work_only_and_equals_differences(name, n):
    text = _jvp_text(name)
    body = _function(text, f"jvp_{name}")
    # no stand-in of the VJP's backward sweep: no gradient buffer, no block of one, no sum to a shape
    for stand_in in ("_grad_zeros(", "_concat_part(", "_unbroadcast("):
        assert stand_in not in body, (name, stand_in)
    source, make, wrt = FAMILIES[name]
    plain: dict = {}
    exec(compile(source, f"{name}.py", "exec"), plain)  # noqa: S102 - the test's own source
    args = list(make(n))
    params = list(plain[name].__code__.co_varnames[: len(args)])
    tangents = [RNG.standard_normal(np.shape(args[params.index(w)])) for w in wrt]
    value, dvalue = load(text)[f"jvp_{name}"](*args, *tangents)
    np.testing.assert_allclose(np.ravel(value), np.ravel(plain[name](*args)), rtol=1e-13)
    expected = sum(
        numeric_jacobian(plain[name], args, params.index(w)).reshape(np.size(value), -1) @ np.ravel(t)
        for w, t in zip(wrt, tangents, strict=True)
    )
    np.testing.assert_allclose(np.ravel(dvalue), expected, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name", ["springs", "arrowhead"])
def test_the_parts_of_a_concatenation_are_concatenated(name):
    """``_join_place(a, xs, part=0) + _join_place(b, xs, part=1)`` is ``np.concatenate([a, b])``,
    batched by ``_rows_concatenate`` in the colors' sweep."""
    body = _function(_jvp_text(name), f"jvp_{name}")
    assert "_join_place(" not in body
    assert "dvalue = np.concatenate([" in body
    text, _, wrt = FAMILIES[name]
    sparse_text = generate(text, f"{name}.py", wrt=wrt, mode="jacobian", sparse=True).text
    colors = _function(sparse_text, f"_jvp_{name}_colors")
    assert "_rows_concatenate(" in colors
    assert "_rows_join_place(" not in colors


def test_jac_forward_columns_compute_no_stand_in():
    """``jac_NAME``'s forward columns (a tall Jacobian) read no adjoint of the rows' sweep outside it."""
    source = "import numpy as np\n\n\ndef fit(p, t, y):\n    return p[0] * np.exp(-p[1] * t) - y\n"
    text = generate(source, "fit.py", wrt=["p"], mode="jacobian").text
    columns = _function(text, "jac_fit").split("forward columns")[1]
    assert "_unbroadcast(residual" not in columns and "_unbroadcast(fit," not in columns
    ns = load(text)
    p, t = np.array([1.5, 0.7]), np.linspace(0.0, 2.0, 9)
    y = np.cos(t)
    _, J = ns["jac_fit"](p, t, y)

    def fit(p, t, y):
        return p[0] * np.exp(-p[1] * t) - y

    np.testing.assert_allclose(J, numeric_jacobian(fit, [p, t, y], 0), rtol=1e-6, atol=1e-8)


def test_shape_classes_of_a_broadcast_to_a_shape_and_of_a_concatenations_block():
    table = load_rules()
    tape = Tape("f")
    x, g, a, b = (tape.add_input(n) for n in ("x", "g", "a", "b"))
    shape = tape.add_eqn("shape", [x])
    spread = tape.add_eqn("broadcast_to", [g, shape])
    joined = tape.add_eqn("concatenate", [a, b], {"axis": 0})
    adjoint = tape.add_eqn("grad_zeros", [joined])
    block = tape.add_eqn("concat_part", [adjoint, a, b], {"part": 1, "axis": 0})
    other = tape.add_eqn("concat_part", [g, a, b], {"part": 1, "axis": 0})  # (g: no concatenation's shape)
    tape.outputs = [spread]
    classes = shape_classes(tape, table, scalar_keys=frozenset())
    assert classes.of(spread) == classes.of(x)
    assert classes.of(block) == classes.of(b)
    assert classes.of(other) != classes.of(b)


ROLLS = [((5,), None), ((5,), 0), ((5,), -1), ((4, 6), 0), ((4, 6), 1), ((4, 6), -2), ((2, 3, 4), 1), ((4, 6), None)]


@pytest.mark.parametrize(("shape", "axis"), ROLLS)
@pytest.mark.parametrize("shift", [0, 1, -1, 7, -13])
def test_roll_is_np_roll(shape, axis, shift):
    a = RNG.random(shape)
    for x in (a, a.astype(np.float32), a[..., ::-1], np.asfortranarray(a)):
        got = _roll(x, shift, axis)
        np.testing.assert_array_equal(got, np.roll(x, shift, axis=axis))
        assert got.dtype == x.dtype and not np.shares_memory(got, x)
    np.testing.assert_array_equal(_roll_dx(_roll(a, shift, axis), shift, axis), a)


@pytest.mark.parametrize(
    ("x", "shift", "axis"),
    [([1.0, 2.0, 3.0], 1, None), (3.0, 1, None), (np.ones((0, 3)), 1, 0), (np.ones((2, 3)), (1, 2), (0, 1))],
)
def test_roll_of_other_operands_is_np_roll(x, shift, axis):
    np.testing.assert_array_equal(_roll(x, shift, axis), np.roll(x, shift, axis=axis))


@pytest.mark.parametrize("axis", [0, 1, -1, None])
@pytest.mark.parametrize("rows", [(1, 1), (1, 0), (0, 1)])
def test_rows_concatenate_concatenates_each_row(axis, rows):
    a = RNG.random((4, 2, 3)) if rows[0] else RNG.random((2, 3))
    b = RNG.random((4, 2, 3)) if rows[1] else RNG.random((2, 3))
    expected = np.stack([np.concatenate([a[i] if rows[0] else a, b[i] if rows[1] else b], axis=axis) for i in range(4)])
    np.testing.assert_array_equal(_rows_concatenate(a, b, rows=rows, axis=axis), expected)


@pytest.mark.parametrize("axis", [0, 1, -1, -2])
@pytest.mark.parametrize("index", [0, 1, -1, np.array([2, 0, 0])])
def test_rows_take_takes_each_row(axis, index):
    a = RNG.random((3, 4, 5))
    got = _rows_take(a, index, axis)
    np.testing.assert_array_equal(got, np.stack([np.take(r, index, axis=axis) for r in a]))
    if isinstance(index, int):  # (a view of the block: no copy)
        assert np.shares_memory(got, a)


def test_rows_getindex_of_an_index_array_with_negative_entries():
    a = RNG.random((3, 5))
    index = np.array([[-1, 0], [4, -5]])
    np.testing.assert_array_equal(_rows_getindex(a, index), np.stack([r[index] for r in a]))
