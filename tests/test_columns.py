"""Column blocks: a large sum over columns computed block by block (``columns``, ``runtime._by_columns``).

Which functions get the blocks is checked on the plan; what the blocks compute is checked
against the same module with the blocks switched off and against central differences along
a random direction (the arrays are too large for one difference per element), with the
calls counted so a test cannot pass on the plain path by accident.

The directional difference of a sum of hundreds of thousands of terms is compared with a tolerance
scaled by the size of those terms (``assert_directional``), extrapolated so that its step can be large
enough for rounding to vanish, and the direction is zero near a kink (a step never crosses one):
no draw of the random numbers can fail it, whatever order the tests run in.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

from yota_s2s.codegen.columns import column_plan
from yota_s2s.codegen.module import HELPERS_BANNER
from yota_s2s.dsl.load import load_rules
from yota_s2s.pipeline import generate

from .gradcheck import assert_close, numeric_grad

TABLE = load_rules()
#: Off: the guard's size test never true.
_NEVER = "1 << 62"
#: The guard's size test as generated (``codegen.writer.COLUMNS_FROM``).
_GUARD = "size >= 8192"


def _source(body: str, params: str = "x") -> str:
    return f"import numpy as np\n\n\ndef f({params}):\n" + textwrap.indent(textwrap.dedent(body), "    ")


def plan(body: str, params: str = "x", **options) -> dict | None:
    g = generate(_source(body, params), "t.py", ["f"], **options)
    return column_plan(g.tapes["optimize"][0], TABLE)


def modules(body: str, params: str = "x", **options):
    """(the source function, the generated namespace, the same module with the blocks off, the text)."""
    source = _source(body, params)
    user: dict = {}
    exec(compile(source, "t.py", "exec"), user)  # noqa: S102 - the test's own source
    text = generate(source, "t.py", ["f"], **options).text
    blocked: dict = {}
    exec(compile(text, "grad.py", "exec"), blocked)  # noqa: S102
    plain: dict = {}
    exec(compile(text.replace(_GUARD, f"size >= {_NEVER}"), "plain.py", "exec"), plain)  # noqa: S102
    return user["f"], blocked, plain, text


def counted(namespace: dict) -> list:
    """Record the shape of the first argument of each call of the columns form (one per block)."""
    calls: list = []
    inner = namespace["_grad_f_columns"]

    def columns(*args):
        calls.append(np.shape(args[0]))
        return inner(*args)

    namespace["_grad_f_columns"] = columns
    return calls


#: The step of the directional differences: large enough that the rounding of a sum of a million terms
#: (about 1e-16 of it, divided by the step) stays far below the tolerance; the truncation error, of
#: order STEP ** 4 after extrapolation, too (measured on this file's cases over 20 draws: at most 1.4e-9
#: of the scale, against a tolerance of 1e-6).
STEP = 1e-3


def _central(f, args, i, direction, h) -> float:
    up = [*args[:i], args[i] + h * direction, *args[i + 1 :]]
    down = [*args[:i], args[i] - h * direction, *args[i + 1 :]]
    return (float(f(*up)) - float(f(*down))) / (2 * h)


def directional(f, args, i, direction) -> float:
    """The derivative of ``f`` along ``direction`` (of ``args[i]``): central differences of steps ``STEP``
    and ``2 * STEP``, extrapolated (Richardson: the error of order ``STEP ** 2`` cancels)."""
    return (4 * _central(f, args, i, direction, STEP) - _central(f, args, i, direction, 2 * STEP)) / 3


def away_from(kinks, x, direction):
    """``direction``, zero where a step of the differences (up to ``2 * STEP`` along it) could reach a kink of ``x``."""
    reach = 4 * STEP * np.max(np.abs(direction))
    near = np.zeros(np.shape(x), dtype=bool)
    for k in kinks:
        near |= np.abs(x - k) <= reach
    return np.where(near, 0.0, direction)


def assert_directional(f, args, i, gradient, direction, rtol=1e-6):
    """``gradient`` (of ``args[i]``) along ``direction`` is the directional difference, within ``rtol``
    of the terms' scale, ``|gradient * direction|``: a sum of a million terms of random signs is of
    the order of their root-sum-square, and can be near zero where no single term is."""
    analytic = float(np.sum(gradient * direction))
    numeric = directional(f, args, i, direction)
    scale = float(np.linalg.norm(np.ravel(gradient * direction)))
    assert abs(analytic - numeric) <= rtol * scale, (analytic, numeric, scale)


def check_blocked(body: str, *args, params: str = "x", value: bool = True, blocks: int = 4, wrt=None, kinks=()):
    """The blocked gradient of ``f(*args)`` equals the plain one and central differences (along a
    direction that keeps away from ``kinks``, the points where the source's derivative jumps)."""
    f, blocked, plain, _ = modules(body, params, value=value, wrt=wrt)
    calls = counted(blocked)
    got = blocked["grad_f"](*args)
    assert len(calls) >= blocks, f"not computed by blocks: {calls}"
    assert all(c[-1] < np.shape(args[0])[-1] for c in calls)
    expected = plain["grad_f"](*args)
    assert len(got) == len(expected)
    if value:
        assert np.isclose(got[0], f(*args), rtol=1e-12), (got[0], f(*args))
        assert type(got[0]) is type(expected[0])
    grads, plain_grads = got[value:], expected[value:]
    rng = np.random.default_rng(1)
    for i, (g, e) in enumerate(zip(grads, plain_grads)):
        assert g.shape == e.shape and g.dtype == e.dtype
        np.testing.assert_allclose(g, e, rtol=1e-13, atol=0)
        direction = away_from(kinks, args[i], rng.standard_normal(np.shape(args[i])))
        assert_directional(f, list(args), i, g, direction)
    return got


RNG = np.random.default_rng(0)
LOGISTIC = "return np.sum(1.0 / (1.0 + np.exp(-x)))\n"
ROWS = "return np.sum(x[0] * x[1] ** 3 - 2.0 * x[2] * np.tanh(x[1]) + x[0] / (1.5 + x[2] ** 2))\n"


# --------------------------------------------------------------------------------- which functions


@pytest.mark.parametrize(
    "body, params, expected",
    [
        (LOGISTIC, "x", {"x": 1}),
        (ROWS, "x", {"x": 2}),
        ("return np.sum(x[0, 1:] * x[1, :-1] * x[0, 1:])\n", "x", {"x": 3}),  # two leading axes indexed
        ("return 0.5 * np.sum(np.tanh(x * y) ** 2) - np.sum(np.exp(-y)) / 3\n", "x, y", {"x": 1, "y": 1}),
        ("return np.sum(np.sin(x) * x * x)\n", "x, n", None),  # the gradient of n is a number
        ("u = x[1]\nfor k in range(1):\n    u = u * x[0]\nreturn np.sum(u * u * u)\n", "x", None),  # a loop
        ("return np.mean(np.tanh(x) ** 2)\n", "x", None),  # the count is the block's
        ("return np.sum(np.tanh(x) ** 2) + 1.0\n", "x", None),  # the constant would be added per block
        ("return np.sum(np.tanh(x)) ** 2\n", "x", None),  # not a sum over columns
        ("return np.sum(np.tanh(x) ** 2 / x.shape[-1])\n", "x", None),  # the block's shape
        ("return np.sum(np.tanh(x - np.max(x)) ** 2)\n", "x", None),  # a reduction used elementwise
        ("return np.sum(np.tanh(x - np.sum(x, axis=0)) ** 2)\n", "x", None),  # a reduction along an axis
        ("return np.sum(np.tanh(x @ x.T) ** 2)\n", "x", None),  # a product mixes columns
        ("return np.sum(np.tanh(x) ** 2 * np.ones(8))\n", "x", None),  # an array, not sliced
        ("return np.sum(np.tanh(x[..., 0]) ** 2)\n", "x", None),  # an index on the last axis
        ("return np.sum(np.tanh(x[x > 0]) ** 2)\n", "x", None),  # a mask
        ("return np.sum(np.exp(x))\n", "x", None),  # two passes: nothing to gain
    ],
)
def test_the_plan(body, params, expected):
    assert plan(body, params) == expected


def test_no_blocks_for_cupy_nor_keyword_only_parameters():
    assert "_by_columns" in generate(_source(LOGISTIC), "t.py", ["f"]).text
    assert "_by_columns" not in generate(_source(LOGISTIC), "t.py", ["f"], target="cupy").text
    assert "_by_columns" not in generate(_source(LOGISTIC, "x, *, y=1.0"), "t.py", ["f"]).text


# ------------------------------------------------------------------------------------ what they compute


@pytest.mark.parametrize("value", [True, False])
def test_a_long_vector_by_blocks(value):
    x = RNG.standard_normal(800_003)  # not a multiple of the block
    check_blocked(LOGISTIC, x, value=value, blocks=6)


@pytest.mark.parametrize(
    "body, x",
    [
        (LOGISTIC, RNG.standard_normal(100_000)),  # under four blocks
        (ROWS, RNG.uniform(-1.0, 1.0, (3, 60_001))),
        (LOGISTIC, RNG.standard_normal((300, 500))),  # 300 rows: blocks of 436 columns, 500 of them
        (ROWS, RNG.uniform(-1.0, 1.0, (3, 2_731))),  # just over the guard's 8,192 numbers
    ],
)
def test_fewer_than_four_blocks_are_one_call_of_the_columns_form(body, x):
    """From the guard's size up to four blocks, the columns form runs once on the whole arrays
    (its results written in place): the same gradients as the plain path."""
    f, blocked, plain, _ = modules(body)
    calls = counted(blocked)
    got = blocked["grad_f"](x)
    assert calls == [x.shape]
    assert np.isclose(got[0], f(x), rtol=1e-12)
    np.testing.assert_allclose(got[1], plain["grad_f"](x)[1], rtol=1e-13, atol=0)
    assert_directional(f, [x], 0, got[1], RNG.standard_normal(x.shape))


@pytest.mark.parametrize("value", [True, False])
def test_rows_of_a_matrix_by_blocks(value):
    x = RNG.uniform(-1.0, 1.0, (3, 240_001))
    check_blocked(ROWS, x, value=value)


def test_rows_nobody_reads_are_zero_in_the_joined_gradient():
    """x[0] and x[4] are not read: their gradient rows are zeros, written into the columns of the
    whole gradient (a new, unfilled array) by each block; x[1..3] are assigned, not filled first."""
    body = "return np.sum(x[1] * np.exp(x[2]) - x[3] * x[2] * x[2])\n"
    _, _, _, text = modules(body)
    assert "dx = _grad_rows(x, (1, 2, 3), _out[0])\n    _t4 = np.multiply(x2, x2, out=dx[3])\n" in text
    got = check_blocked(body, RNG.standard_normal((5, 120_000)))
    assert not got[1][[0, 4]].any()


def test_blocks_after_the_first_write_into_the_whole_gradient():
    """The columns form writes a gradient into the columns of the whole one (``_out``): the block
    calls after the first return those very views, so ``_by_columns`` copies nothing back."""
    _, blocked, _, text = modules(LOGISTIC)
    assert "def _grad_f_columns(x, _out):" in text
    assert "_by_columns(_grad_f_columns, (x,), (1,), 1, 1)" in text
    assert "_t5 = np.divide(_t4, _t3, out=_out[0])\n    dx = np.multiply(_t5, _t1, out=_t5)\n" in text
    inner, returned = blocked["_grad_f_columns"], []

    def columns(x, out):
        result = inner(x, out)
        if out[0] is not None:  # the blocks after the first
            returned.append(result[1] is out[0])
        return result

    blocked["_grad_f_columns"] = columns
    x = RNG.standard_normal(800_000)
    value, dx = blocked["grad_f"](x)
    assert len(returned) >= 4 and all(returned)
    plain = blocked["grad_f"]
    np.testing.assert_allclose(dx, plain(x[:600_000])[1].tolist() + plain(x[600_000:])[1].tolist(), rtol=1e-15)
    assert np.isclose(value, np.sum(1.0 / (1.0 + np.exp(-x))), rtol=1e-12)


@pytest.mark.parametrize(
    "body, params, shapes, kinks",
    [
        ("u = np.exp(x)\nv = u * u\nreturn np.sum(v * np.sin(u) + u)\n", "x", [(560_000,)], ()),  # u read again
        ("return np.sum(x * np.exp(x) * x - np.exp(x) / (1.0 + x * x))\n", "x", [(560_000,)], ()),
        ("a = np.tanh(x[0])\nb = a * x[1]\nc = b * b - a\nreturn np.sum(c * a + np.exp(b))\n", "x", [(2, 280_000)], ()),
        (
            "return np.sum(np.tanh(x * y) ** 2 * y) - np.sum(np.exp(-y) * y) / 3\n",
            "x, y",
            [(2, 280_000), (280_000,)],
            (),
        ),
        ("return np.sum((x > 0) * x * x + np.exp(-x) * (x < 1))\n", "x", [(560_000,)], (0.0, 1.0)),  # bool operands
        ("return np.sum(np.sqrt(1.0 + x * x) * np.cos(x) ** 2)\n", "x", [(560_000,)], ()),
    ],
)
def test_the_columns_form_overwrites_only_arrays_nothing_reads_again(body, params, shapes, kinks):
    """Each body writes results into arrays (``out=``) that die there; gradients equal the plain
    ones (each value computed anew) and central differences, by blocks."""
    *_, text = modules(body, params)
    assert "out=_t" in text[text.index("def _grad_f_columns") :]
    rng = np.random.default_rng(0)  # (its own: the module's RNG is drawn in the order tests run, which -n changes)
    args = [rng.uniform(-1.5, 1.5, shape) for shape in shapes]
    check_blocked(body, *args, params=params, kinks=kinks)


def test_the_columns_form_writes_float32_in_place_and_keeps_its_dtype():
    body = "return np.sum(x[0] * np.exp(-x[1]) * x[0] - 2.5 * np.tanh(x[1]))\n"
    _, blocked, plain, text = modules(body, value=False)
    assert "out=dx[" in text
    x = RNG.uniform(-1.0, 1.0, (2, 300_000)).astype(np.float32)
    calls = counted(blocked)
    (g,) = blocked["grad_f"](x)
    assert len(calls) >= 4 and g.dtype == np.float32
    np.testing.assert_allclose(g, plain["grad_f"](x)[0], rtol=1e-6)


FACTORED = "l = x[0] + 3 * x[1] + 2 * x[2] + 5 * x[3]\nreturn np.sum(l ** 4 - l ** 2)\n"


@pytest.mark.parametrize("value", [True, False])
def test_a_named_gradient_row_is_computed_in_its_row(value):
    """dx[0] = dl, dl read again by dx[1..3]: dl is computed in dx[0] (the array made where the
    backward sweep starts), not copied into it after."""
    *_, text = modules(FACTORED, value=value)
    columns = text[text.index("def _grad_f_columns") :]
    backward = columns[columns.index("# backward") :]
    assert backward.index("dx = _grad_rows(x, (0, 1, 2, 3), _out[0])") < backward.index("dl = ")
    assert "out=dx[0])\n" in backward and "dx[0] =" not in backward
    check_blocked(FACTORED, RNG.uniform(-1.0, 1.0, (4, 200_000)), value=value)


@pytest.mark.parametrize(
    "body",
    [
        # row 0 written twice (x[0] and x[-4]): dl is copied into it, then the second added
        "l = x[0] + 3 * x[1] + 2 * x[2] + 5 * x[3]\nreturn np.sum(l ** 4 - l ** 2 + x[-4] * l)\n",
        # row 0 is dl plus another term: dl keeps its own array
        "l = x[0] + 3 * x[1]\nm = x[0] * x[2]\nreturn np.sum(l ** 4 - l ** 2 + np.exp(m) + l * x[2])\n",
    ],
)
def test_a_row_written_twice_keeps_its_own_array(body):
    *_, text = modules(body, value=False)
    assert "dl = np." in text and "out=dx[0])\n    np.multiply(dl" not in text
    check_blocked(body, RNG.uniform(-1.0, 1.0, (4, 200_000)), value=False)


def test_grad_rows_fills_only_the_rows_the_caller_does_not_assign():
    from yota_s2s.runtime.core import _grad_rows

    nan = np.full((4, 3), np.nan)
    g = _grad_rows(np.ones((4, 3)), (1, 2, 3), out=nan.copy())
    assert not g[0].any() and np.isnan(g[1:]).all()  # rows 1..3: the caller's, left as they were
    assert not _grad_rows(np.ones((4, 3)), (1,), out=nan.copy()).any()  # most rows unassigned: all zeros
    assert np.isnan(_grad_rows(np.ones((4, 3)), (0, 1, 2, 3), out=nan.copy())).all()  # none filled
    g = _grad_rows(np.arange(4), (0, 1, 2, 3))  # an integer x: a float gradient, as _grad_zeros
    assert g.shape == (4,) and g.dtype == np.float64
    g = _grad_rows([1.0, 2.0], (0,))  # a list x; row 0 the caller's
    assert g.shape == (2,) and g[1] == 0.0


def test_two_arrays_of_other_ranks_and_an_unused_parameter():
    body = "return 0.5 * np.sum(np.tanh(x * y) ** 2) - np.sum(np.exp(-y)) / 3\n"
    x, y = RNG.standard_normal((2, 280_000)), RNG.standard_normal(280_000)
    check_blocked(body, x, y, params="x, y")
    body = "return np.sum(np.sin(x) * x * x)\n"
    assert plan(body, "x, n", wrt=["x"]) == {"x": 1}  # n unused: passed whole
    got = check_blocked(body, RNG.standard_normal(560_000), 7, params="x, n", blocks=4, wrt=["x"])
    assert len(got) == 2  # value, dx


def test_an_argument_named_type_is_tested_by_its_class():
    body = "return np.sum(1.0 / (1.0 + np.exp(-type)))\n"
    _, _, _, text = modules(body, "type")
    assert "if type.__class__ is np.ndarray and type.size >= 8192:" in text
    check_blocked(body, RNG.standard_normal(800_000), params="type", blocks=5)
    # the same test reads the elements of a 1-D argument as Python floats (type_items)
    f, blocked, _, text = modules("return type[0] * type[1] ** 2\n", "type")
    assert "type.__class__ is np.ndarray and type.shape == (2,)" in text
    x = np.array([0.5, -1.5, 2.0])
    value, dx = blocked["grad_f"](x)
    assert np.isclose(value, f(x))
    assert_close(dx, numeric_grad(f, [x], 0), "dtype")


def test_float32_non_contiguous_and_higher_ranks_keep_their_dtype_and_layout():
    x = RNG.uniform(-1.0, 1.0, (240_001, 3)).T  # columns of a transposed array: strided
    check_blocked(ROWS, x)
    x3 = RNG.uniform(-1.0, 1.0, (3, 2, 120_000))
    check_blocked(ROWS, x3)
    _, blocked, plain, _ = modules(LOGISTIC, value=False)
    x32 = RNG.standard_normal(600_000).astype(np.float32)
    calls = counted(blocked)
    (g,) = blocked["grad_f"](x32)
    assert len(calls) > 4 and g.dtype == np.float32
    np.testing.assert_allclose(g, plain["grad_f"](x32)[0], rtol=1e-6)


@pytest.mark.parametrize(
    "body, args, params",
    [
        (ROWS, [RNG.uniform(-1.0, 1.0, 300_000)], "x"),  # 1-D: x[0] is a number, not a row (rank 2 needed)
        (LOGISTIC, [RNG.standard_normal(8_000)], "x"),  # under the size
        (LOGISTIC, [np.ma.masked_array(RNG.standard_normal((2, 140_000)))], "x"),  # not an ndarray
        ("return np.sum(np.tanh(x * y) ** 2)\n", [RNG.standard_normal(140_000), 2.0], "x, y"),  # y a number
        ("return np.sum(np.tanh(x * y) ** 2)\n", [RNG.standard_normal((2, 140_000)), np.ones((2, 1))], "x, y"),
        ("return np.sum(np.tanh(x * y) ** 2)\n", [RNG.standard_normal(140_000), np.ones(140_000, np.float32)], "x, y"),
    ],
)
def test_arguments_that_do_not_qualify_take_the_plain_path(body, args, params):
    _, blocked, plain, _ = modules(body, params)
    calls = counted(blocked)
    got = blocked["grad_f"](*args)
    assert not calls
    for g, e in zip(got, plain["grad_f"](*args)):
        np.testing.assert_array_equal(g, e)


def test_small_arguments_match_finite_differences_through_the_guard():
    f, blocked, _, text = modules(ROWS)
    x = RNG.uniform(-1.0, 1.0, (3, 4))
    value, dx = blocked["grad_f"](x)
    assert np.isclose(value, f(x))
    assert_close(dx, numeric_grad(f, [x], 0), "dx")
    assert "if type(x) is np.ndarray and x.size >= 8192:" in text


def test_the_buffered_class_uses_whole_arrays(tmp_path):
    source = _source(ROWS)
    text = generate(source, "t.py", ["f"], buffers=True).text
    namespace: dict = {}
    exec(compile(text, "grad.py", "exec"), namespace)  # noqa: S102
    cls_source = text[text.index("class GradF") :].split(HELPERS_BANNER)[0]
    assert "_by_columns" not in cls_source
    x = RNG.uniform(-1.0, 1.0, (3, 240_001))
    instance = namespace["GradF"]()
    for _ in range(2):
        for got, expected in zip(instance(x), namespace["grad_f"](x)):
            np.testing.assert_allclose(got, expected, rtol=1e-12)
    path = tmp_path / "grad.py"
    path.write_text(text)
    ruff = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--isolated", str(path)], check=False)
    assert ruff.returncode == 0
