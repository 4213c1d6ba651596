"""Indexing, joining and shape rules, checked by running the generated code.

Each case is a function of some of the arguments in ``ARGS``; its generated gradient is
compared with central finite differences (``tests/gradcheck.py``) for every float argument,
and an index, a mask or an integer argument must get the gradient ``None``.
"""

from __future__ import annotations

import re
import textwrap

import numpy as np
import pytest

from yota_s2s.dsl.load import load_rules
from yota_s2s.errors import UserError, UserErrors
from yota_s2s.pipeline import generate
from yota_s2s.runtime import shape as runtime_shape

from .gradcheck import assert_close, numeric_grad

_RNG = np.random.default_rng(7)

#: The arguments a case may use, by name; a case's function takes those its body names.
ARGS: dict[str, object] = {
    "x": _RNG.uniform(0.5, 2.0, 7) * np.array([1, -1, 1, 1, -1, 1, -1]),
    "X": _RNG.uniform(0.5, 2.0, (4, 5)) * np.where(_RNG.random((4, 5)) < 0.5, -1.0, 1.0),
    "a": _RNG.uniform(-2.0, 2.0, 3),
    "b": _RNG.uniform(-2.0, 2.0, 2),
    "A": _RNG.uniform(-2.0, 2.0, (2, 3)),
    "B": _RNG.uniform(-2.0, 2.0, (2, 3)),
    "C": _RNG.uniform(-2.0, 2.0, (1, 3)),
    "s": 0.7,
    "t": -1.3,
    "idx": np.array([1, 3, 3, -1, 0, 3]),  # repeats, and a negative index
    "rows": np.array([2, 0, 2]),
    "mask": np.array([True, False, True, True, False, False, True]),
    "M": np.array([[True, False, True, False, True]] * 2 + [[False, True, True, False, False]] * 2),
    "m": np.array([True, False, True, True]),
    "i": 2,
    "j": -1,
}


def _params(body: str) -> list[str]:
    return [name for name in ARGS if re.search(rf"\b{name}\b", body)]


def _source(body: str, params: list[str]) -> str:
    return f"import numpy as np\n\n\ndef f({', '.join(params)}):\n" + textwrap.indent(textwrap.dedent(body), "    ")


def _is_float(value: object) -> bool:
    return isinstance(value, float) or (isinstance(value, np.ndarray) and value.dtype.kind == "f")


def gradients(body: str) -> tuple[dict, list]:
    """Generate the gradient of ``def f(...): body``; return (the user's namespace, (value, *grads))."""
    params = _params(body)
    source = _source(body, params)
    user: dict = {}
    exec(compile(source, "case.py", "exec"), user)  # noqa: S102 - the case's own source
    generated: dict = {}
    exec(compile(generate(source, "case.py", ["f"]).text, "grad_case.py", "exec"), generated)  # noqa: S102
    args = [np.copy(ARGS[p]) if isinstance(ARGS[p], np.ndarray) else ARGS[p] for p in params]
    return user, [args, *generated["grad_f"](*args)]


def check(body: str) -> list:
    """Check the value and every gradient of ``f``; return the gradients by parameter order."""
    user, (args, value, *grads) = gradients(body)
    f = user["f"]
    assert np.allclose(value, f(*args), rtol=1e-12, atol=1e-12)
    assert len(grads) == len(args)
    for k, (name, arg, grad) in enumerate(zip(_params(body), args, grads)):
        if _is_float(arg):
            assert_close(grad, numeric_grad(f, args, k), f"d{name}")
            if isinstance(arg, np.ndarray):
                assert grad.dtype == arg.dtype, f"d{name}: dtype {grad.dtype}"
        else:
            assert grad is None, f"d{name} of an index, a mask or an integer must be None, got {grad!r}"
    return grads


def nonlinear(expr: str) -> str:
    """A body that uses ``expr``'s value nonlinearly, so that a wrong gradient cannot hide."""
    return f"v = {expr}\nreturn np.sum(np.sin(v) * v)\n"


# ============================================================================= basic indexing

SLICES = [
    "x[::2]",
    "x[::-1]",
    "x[-3:-1]",
    "x[1:-1:3]",
    "x[5:1:-2]",
    "x[-1]",
    "x[None]",
    "x[:, None]",
    "x[np.newaxis, :, np.newaxis]",
    "x[...]",
    "x[..., None]",
    "x[2:][::-1][0]",
    "X[1::2, ::-1]",
    "X[::-1, 1]",
    "X[-1, -2]",
    "X[None, 1:, None, ::2]",
    "X[..., 1]",
    "X[1, ...]",
    "X[..., None, ::-2]",
    "X.T[1]",
    "X[1][2]",
]


@pytest.mark.parametrize("expr", SLICES)
def test_basic_indexing(expr):
    check(nonlinear(expr))


def test_a_slice_read_twice_accumulates():
    (dx,) = check("return np.sum(x[1:4]) + np.sum(x[2:]) + np.sum(x[::-1][:2])\n")
    assert dx.tolist() == [0.0, 1.0, 2.0, 2.0, 1.0, 2.0, 2.0]


def test_a_row_read_twice_accumulates():
    (dX,) = check("return np.sum(X[1]) + np.sum(X[1] * 3.0) + np.sum(X[-1, 1:])\n")
    expected = np.zeros((4, 5))
    expected[1] = 4.0
    expected[3, 1:] = 1.0
    assert dX.tolist() == expected.tolist()
    check(nonlinear("X[1] * X[1] + X[2]"))


# ============================================================================= advanced indexing

ADVANCED = [
    "x[[0, 2, 2]]",
    "x[[-1, -1, 0]]",
    "x[idx]",
    "x[idx] * x[idx]",
    "x[idx[::-1]]",
    "x[idx] + x[1]",
    "x[x > 0]",
    "x[mask]",
    "x[mask][::-1]",
    "x[i]",
    "x[i] * x[i] + x[j]",
    "x[-i]",
    "X[[0, 2, 2]]",
    "X[idx]",
    "X[idx, 1:]",
    "X[:, idx]",
    "X[1:, idx][::-1]",
    "X[rows][:, idx]",
    "X[rows, rows]",
    "X[[0, 1], [2, 2]]",
    "X[i]",
    "X[i] * X[i]",
    "X[i, j]",
    "X[i, :] * X[:, j][i]",
    "X[i, idx]",
    "X[None, idx]",
    "X[..., idx]",
    "X[X > 0]",
    "X[M]",
    "X[m]",
    "X[:, X[0] > 0]",
    "X[[3, 3]][:, [0, 0]]",
    "X[np.argmax(X[:, 0])]",
    "X[np.argmin(X[:, 0]), np.argmax(X[0])]",
    "X[np.argsort(X[:, 0])]",
    "x[np.flatnonzero(x > 0)]",
]


@pytest.mark.parametrize("expr", ADVANCED)
def test_advanced_indexing(expr):
    check(nonlinear(expr))


def test_a_constant_index_list_with_repeats_accumulates():
    (dx,) = check("return np.sum(x[[0, 2, 2]])\n")
    assert dx.tolist() == [1.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0]


def test_an_index_parameter_with_repeats_accumulates():
    dx, didx = check("return np.sum(x[idx])\n")
    assert didx is None
    # idx = [1, 3, 3, -1, 0, 3]: x[3] is read three times, x[-1] once
    assert dx.tolist() == [1.0, 1.0, 0.0, 3.0, 0.0, 0.0, 1.0]


def test_rows_read_through_an_index_parameter_accumulate():
    dX, drows = check("return np.sum(X[rows] * 2.0)\n")
    assert drows is None
    assert dX.tolist() == [[2.0] * 5, [0.0] * 5, [4.0] * 5, [0.0] * 5]


def test_a_mask_parameter_gets_no_gradient():
    dx, dmask = check("return np.sum(x[mask] ** 2)\n")
    assert dmask is None
    assert np.array_equal(dx, np.where(ARGS["mask"], 2 * ARGS["x"], 0.0))


def test_an_integer_parameter_as_an_index():
    dx, di = check("return x[i] * x[i] + x[i + 1]\n")
    assert di is None
    expected = np.zeros(7)
    expected[2], expected[3] = 2 * ARGS["x"][2], 1.0
    assert np.allclose(dx, expected)


def test_argmax_argmin_argsort_give_no_gradient():
    for body in ["return np.sum(np.argsort(x) * 1.0)\n", "return np.argmax(x) * 1.0 + np.argmin(X) * 2.0\n"]:
        grads = gradients(body)[1][2:]
        assert grads == [None] * len(grads)


@pytest.mark.parametrize(
    "expr",
    [
        "x[x.argmax()]",
        "X[X.argmin(axis=0), np.arange(5)]",
        "x[x.argsort()]",
        "X[np.argmax(X, axis=1)]",
        "X[np.argsort(X, axis=0)[0]]",
        "X[:, np.argmax(X, axis=0, keepdims=True)[0]]",
    ],
)
def test_computed_indices(expr):
    check(nonlinear(expr))


def test_argwhere_gives_index_rows():
    check("w = np.argwhere(X > 0)\nreturn np.sum(np.sin(X[w[:, 0], w[:, 1]]))\n")


# ============================================================================= joining

JOINS = [
    "np.concatenate([a, b])",
    "np.concatenate((b, a, b), 0)",
    "np.concatenate([A, C])",
    "np.concatenate([A, B], axis=1)",
    "np.concatenate([A, C.T[:2]], axis=-1)",
    "np.concatenate([A, b], axis=None)",
    "np.concatenate([[1.0, 2.0], a])",
    "np.concatenate([np.zeros((2, 1)), A], axis=1)",
    "np.concatenate([x[:2], x[1:]])",
    "np.stack([a, a * 2.0])",
    "np.stack([a, a], axis=1)",
    "np.stack([A, B])",
    "np.stack([A, B], axis=1)",
    "np.stack([A, B], axis=2)",
    "np.stack([A, B, A], axis=-1)",
    "np.stack([A, B], axis=-2)",
    "np.stack([s, t])",
    "np.stack([a, [1.0, 2.0, 3.0]], axis=1)",
    "np.hstack([a, b])",
    "np.hstack([a, b, a])",
    "np.hstack([A, B])",
    "np.hstack([A, C.T[:2]])",
    "np.hstack([s, a, t])",
    "np.hstack([x[0], x[1:3], x[3]])",
    "np.vstack([a, a])",
    "np.vstack([A, B])",
    "np.vstack([A, C, a])",
    "np.vstack([s, t])",
    "np.vstack([x[0], x[1]])",
    "np.vstack([a, [1.0, 2.0, 3.0]])",
]


@pytest.mark.parametrize("expr", JOINS)
def test_joining(expr):
    check(nonlinear(expr))


def test_each_operand_gets_its_own_block():
    da, db = check("return np.sum(np.concatenate([a, b, a]) * np.arange(8.0))\n")
    assert da.tolist() == [0.0 + 5.0, 1.0 + 6.0, 2.0 + 7.0]
    assert db.tolist() == [3.0, 4.0]
    dA, dB = check("return np.sum(np.stack([A, B], axis=-1) * np.arange(12.0).reshape(2, 3, 2))\n")
    assert dA.tolist() == [[0.0, 2.0, 4.0], [6.0, 8.0, 10.0]]
    assert dB.tolist() == [[1.0, 3.0, 5.0], [7.0, 9.0, 11.0]]


# ============================================================================= np.array of computed values

ARRAYS = [
    "np.array([x[0], x[1] * x[2], x[3]])",
    "np.array([x[i], x[j], x[i] * x[j]])",
    "np.array([[x[0], x[1]], [x[2] * x[3], x[0]]])",
    "np.array([[x[0] ** 2, x[0] * x[1]], [x[1], x[2] ** 3]]) @ np.array([x[3], x[2]])",
    "np.array([[1.0, 0.0], [x[0], x[1]]])",
    "np.array([[x[0]], [x[1]]])",
    "np.array([[[x[0], x[1]], [x[2], x[0]]]])",
    "np.asarray([x[0], x[1] * 2])",
    "np.array((x[0], x[1]))",
    "np.array([x[0], 2])",
    "np.array([np.sum(x), np.max(x)])",
    "np.array([a, A[0], a * 2.0])",
    "np.array([s, t])",
    "np.array([[s, t], [t, s * t]])",
]


@pytest.mark.parametrize("expr", ARRAYS)
def test_array_of_computed_values(expr):
    check(nonlinear(expr))


def test_a_jacobian_built_from_scalars():
    body = """
    x0, x1, x2 = x[0], x[1], x[2]
    F = np.array([x0 * x1 - x2, x1**2 + x0])
    J = np.array([[x1, x0, -1.0], [1.0, 2.0 * x1, 0.0]])
    return np.sum(J @ np.array([x2, x0, x1]) * F)
    """
    check(body)


# ============================================================================= builtins


@pytest.mark.parametrize("expr", ["sum([x[0], x[1] * x[2], x[3]])", "sum(A)", "sum(a)", "min(x)", "max(b)"])
def test_builtins(expr):
    check(nonlinear(expr))


@pytest.mark.skipif("numpy.maximum" not in load_rules().names, reason="max(a, b) needs the numpy.maximum rule")
@pytest.mark.parametrize(
    "expr", ["max(x[0], x[1])", "max(s, t)", "min(x[0], x[1], x[2])", "max(s, b[0])", "max([x[0], x[2], x[3]])"]
)
def test_builtin_max_and_min_of_several_values(expr):
    check(nonlinear(expr))


# ============================================================================= the other shape rules


@pytest.mark.parametrize(
    "expr",
    [
        "np.flip(X, axis=(0, 1))[1:, :2]",
        "np.swapaxes(X, 0, 1)[::2]",
        "np.moveaxis(np.stack([A, B]), 0, -1)",
        "np.squeeze(X[:, None, 1:2])",
        "np.expand_dims(a, (0, 2)) * a[:, None]",
        "np.ravel(X)[idx]",
        "X.flatten()[[1, 1, 19]]",
        "np.tile(a, (2, 2)).ravel() * np.repeat(a, 4)",
        "np.repeat(X, (1, 0, 2, 1), axis=0)[::-1]",
        "np.take(x, idx)",
        "X.take(idx, axis=1)",
        "np.fliplr(A) + np.flipud(B)",
        "np.atleast_2d(a).T * np.atleast_1d(s)",
    ],
)
def test_shape_rules_in_context(expr):
    check(nonlinear(expr))


# ============================================================================= differences, splits, pads, selections
# (the rules' own cases, through every source name: tests/rule_specs/shape.py)

SHAPE_CALLS = [
    "np.diff(x, append=s)",
    "np.diff(A, axis=0, prepend=C, append=1.0)",
    "np.diff(A, 2, 0, s)",  # prepend= by position
    "np.diff(A, n=2, prepend=B[:, :1], append=t)",
    "np.diff(a, prepend=a[-1], append=a[:1])",
    "np.diff(a, 4, prepend=s)",  # longer than the axis: empty
    "np.pad(X, ((0, 2), (1, 1)), 'wrap')[::2] * np.pad(x, 3, mode='symmetric')[:3, None]",
    "np.pad(np.pad(a, 2, mode='edge'), 1, mode='reflect') * np.pad(a, (3, 3), constant_values=0.5)",
    "np.roll(X, (1, 7), axis=(1, 0)) * np.rollaxis(np.stack([A, B, B, A]), 2)[1, :, :1]",
    "np.tril(X, 1) @ np.triu(X.T)",
    "np.column_stack([a, A.T, a * a]).T @ np.c_[a, a]",
    "np.r_[a, s, b * b, 2.0, [1.0, 3.0]] * np.r_[x, t, s]",
    "np.r_[A, B, C] * np.c_[s, t, s]",
    "np.c_[A.T, a, A[0]]",
    "np.atleast_3d(a) + np.atleast_3d(A)[..., 0, None]",
    "np.take_along_axis(X, np.argsort(X, axis=0), axis=0)[:2]",  # sorted columns
    "np.take_along_axis(X, np.argmax(X, axis=1, keepdims=True), axis=1)",
    "np.take_along_axis(x, idx, axis=None)",
    "np.select([x > 0.8, x > 0.0, x < -1.0], [x, x * x, s])",  # the first condition that holds wins
    "np.select([X > 0], [X ** 3], default=t)",
    "np.select([A > 0, A < -0.5], [a, s * A], default=b[:1])",  # broadcasting
    "np.select([mask, x > 1.0], [np.sin(x), x])",
]


@pytest.mark.parametrize("expr", SHAPE_CALLS)
def test_shape_calls(expr):
    check(nonlinear(expr))


SPLITS = [
    "p, q = np.split(x[:6], 2)\nreturn np.sum(np.sin(p) * q ** 2)\n",
    "parts = np.split(X, 5, axis=1)\nreturn np.sum(np.sin(parts[1]) * parts[4] + parts[1] * parts[1])\n",
    "p = np.array_split(x, 3)\nreturn np.sum(p[0] ** 2) + np.sum(np.sin(p[1])) + np.sum(p[2] ** 3)\n",  # 3, 2, 2
    "p = np.array_split(a, 5)\nreturn np.sum(p[0] ** 2) + np.sum(p[3] ** 2) + np.sum(p[4])\n",  # empty parts
    "p = np.split(X, [1, 3])\nreturn np.sum(p[0] * p[2][:1] ** 2) + np.sum(p[1] ** 3)\n",
    "p = np.split(X, [2, -1], axis=-1)\nreturn np.sum(p[0] ** 2) + np.sum(p[1] ** 3) * np.sum(p[2])\n",
    "p = np.split(X, [3, 1], axis=1)\nreturn np.sum(p[0] ** 3) + np.sum(p[1]) + np.sum(p[2] ** 2)\n",  # p[1] empty
    "p = np.array_split(X, [1, 10], axis=0)\nreturn np.sum(p[0] ** 3) + np.sum(p[1] ** 2) + np.sum(p[2])\n",
    "p = np.split(X, indices_or_sections=2, axis=-2)\nreturn np.sum(p[0] * p[1] ** 2)\n",
    "p = np.split(a, 1)\nreturn np.sum(p[0] ** 3)\n",
    "return sum(np.sum(p ** 2) * k for k, p in enumerate(np.split(x[1:], 3)))\n",
    "l, r = np.hsplit(X, [2])\nreturn np.sum(l ** 2) * np.sum(r ** 3)\n",
    "p = np.hsplit(x[:6], 3)\nreturn np.sum(p[0] * p[2] ** 2)\n",  # 1-D: along axis 0
    "p = np.vsplit(X, 2)\nreturn np.sum(p[0] * p[1] ** 2)\n",
    "top, rest = np.vsplit(X, [1])\nreturn np.sum(top ** 2 * rest[0]) + np.sum(rest ** 3)\n",
]


@pytest.mark.parametrize("body", SPLITS)
def test_splits(body):
    check(body)


def test_split_parts_share_one_gradient_buffer():
    text = generate(
        _source("p = np.split(X, [1, 3])\nreturn np.sum(p[0] * p[2][:1] + p[1] ** 2)\n", ["X"]), "t.py"
    ).text
    assert text.count("_grad_zeros(X)") == 1 and "_index_add" not in text


def test_an_uneven_split_raises_as_numpy_does():
    _, generated = _modules("p, q = np.split(x, 2)\nreturn np.sum(p * q)\n")
    with pytest.raises(ValueError, match="equal division"):
        generated["grad_f"](ARGS["x"])  # 7 elements


def _modules(body: str, **options) -> tuple[dict, dict]:
    source = _source(body, _params(body))
    user: dict = {}
    exec(compile(source, "case.py", "exec"), user)  # noqa: S102 - the case's own source
    generated: dict = {}
    exec(compile(generate(source, "case.py", ["f"], **options).text, "g.py", "exec"), generated)  # noqa: S102
    return user, generated


@pytest.mark.parametrize(
    "body",
    [
        nonlinear("np.diff(x, 2, prepend=s)"),
        "p, q = np.split(X[:, 1:], 2, axis=-1)\nreturn np.sum(np.pad(p, 1, mode='reflect') ** 2) * np.sum(q)\n",
        nonlinear("np.select([x > 0], [np.roll(x, 2)], default=s) * np.r_[x[1:], t]"),
        nonlinear("np.take_along_axis(X, np.argsort(X), 1) * np.tril(X) + np.c_[a, a, a, a, a][:1]"),
        "p = np.hsplit(A, 3)\nreturn np.sum(np.column_stack(p) ** 2 * p[1])\n",
    ],
)
def test_the_other_forms_run(body):
    """--no-value, --buffers and --target cupy (its names checked against CuPy's API when generating,
    run here with NumPy in its place) give the plain gradients."""
    user, plain = _modules(body)
    args = [np.copy(ARGS[p]) if isinstance(ARGS[p], np.ndarray) else ARGS[p] for p in _params(body)]
    value, *grads = plain["grad_f"](*args)
    assert np.isclose(value, user["f"](*args))
    _, no_value = _modules(body, value=False)
    _, buffered = _modules(body, buffers=True)
    cupy_text = generate(_source(body, _params(body)), "case.py", ["f"], target="cupy").text
    on_numpy: dict = {}
    exec(compile(cupy_text.replace("import cupy as cp", "import numpy as cp"), "c.py", "exec"), on_numpy)  # noqa: S102
    for other in (no_value["grad_f"](*args), buffered["GradF"]()(*args)[1:], on_numpy["grad_f"](*args)[1:]):
        for g, e in zip(other, grads, strict=True):
            np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(
    ("body", "code", "text"),
    [
        (nonlinear("np.pad(x, 2, mode='mean')"), "YS031", "mode='mean' has no derivative rule"),
        (nonlinear("np.pad(x, 2, 'linear_ramp')"), "YS031", "mode='linear_ramp'"),
        (nonlinear("np.pad(x, 2, mode='empty')"), "YS031", "mode='empty'"),
        (nonlinear("np.pad(x, 2, mode='reflect', reflect_type='odd')"), "YS031", "reflect_type"),
        (nonlinear("np.pad(x, 2, mode='maximum', stat_length=2)"), "YS031", "mode='maximum'"),
        (nonlinear("np.pad(x, 2, constant_values=s)"), "YS033", "constant_values= of pad() must be a constant"),
        (nonlinear("np.split(x, i)[0]"), "YS033", "the sections of np.split()"),
        (nonlinear("np.split(x, 0)[0]"), "YS032", "larger than 0"),
        (nonlinear("np.array_split(x, 2, axis=1.5)[0]"), "YS032", "axis= of np.array_split() is an integer"),
        (nonlinear("np.roll(x, i)"), "YS033", "shift= of roll() must be a constant"),
        (nonlinear("np.select([x > 0, x < 0], [x])"), "YS032", "as many choices as conditions"),
        (nonlinear("np.select([], [])"), "YS032", "at least one"),
        (nonlinear("np.select(mask, [x])"), "YS041", "lists of conditions and choices"),
        (nonlinear("np.r_[x, 0:3]"), "YS020", "a range or a directive"),
        (nonlinear("np.r_['0,2', a, a]"), "YS020", "a range or a directive"),
        (nonlinear("np.diff(x, prepend=None)"), "YS032", "prepend= of np.diff() is a number or an array"),
    ],
)
def test_unsupported_forms_are_refused_where_they_are_written(body, code, text):
    err = refusal(body)
    assert (err.code, err.line) == (code, 5), err.format()
    assert text in err.message


def test_forms_without_a_rule_on_constants_are_static_code():
    check("w = np.pad(np.ones(3), 1, mode='mean') + np.r_[0:5]\nreturn np.sum(x[:5] * w) + np.r_[1.0, 2.0][1]\n")


# ============================================================================= the runtime helpers are adjoints
# <helper(g), v> == <g, forward(v)> for random g and v: the gradient helpers are the exact
# adjoints of the forward functions (and the rules' dg formulas, forward(dout), are theirs).

ADJOINTS = [
    ("np.tile(v, (2, 2))", "_tile_dx(g, v, (2, 2))", (3,)),
    ("np.tile(v, 2)", "_tile_dx(g, v, 2)", (2, 3)),
    ("np.tile(v, (3, 1, 2))", "_tile_dx(g, v, (3, 1, 2))", (2, 3)),
    ("np.repeat(v, 2)", "_repeat_dx(g, v, 2, None)", (2, 3)),
    ("np.repeat(v, 3, axis=-1)", "_repeat_dx(g, v, 3, -1)", (2, 3)),
    ("np.repeat(v, (2, 0), 0)", "_repeat_dx(g, v, (2, 0), 0)", (2, 3)),
    ("np.take(v, [5, 0, 5])", "_untake(g, v, (5, 0, 5), None)", (2, 3)),
    ("np.take(v, [2, 2], axis=1)", "_untake(g, v, [2, 2], 1)", (2, 3)),
    ("np.diff(v, 2, 0)", "_diff_dx(g, v, 2, 0)", (5, 3)),
    ("np.diff(v)", "_diff_dx(g, v, 1, -1)", (2, 3)),
    ("np.diff(v, 3)", "_diff_dx(g, v, 3, -1)", (2, 3)),
    ("np.roll(v, (1, -4), (0, 1))", "_roll_dx(g, (1, -4), (0, 1))", (2, 3)),
    ("np.roll(v, 2)", "_roll_dx(g, 2, None)", (2, 3)),
    ("np.rollaxis(v, 2)", "_rollaxis_dx(g, 2, 0)", (2, 3, 4)),
    ("np.rollaxis(v, 0, 3)", "_rollaxis_dx(g, 0, 3)", (2, 3, 4)),
    ("np.rollaxis(v, -2, -1)", "_rollaxis_dx(g, -2, -1)", (2, 3, 4)),
    ("np.pad(v, ((1, 2), (3, 0)))", "_pad_dx(g, v, ((1, 2), (3, 0)), 'constant')", (3, 2)),
    ("np.pad(v, 4, mode='reflect')", "_pad_dx(g, v, 4, 'reflect')", (3, 2)),
    ("np.pad(v, (5, 1), mode='symmetric')", "_pad_dx(g, v, (5, 1), 'symmetric')", (3, 2)),
    ("np.pad(v, ((7,), (1,)), mode='wrap')", "_pad_dx(g, v, ((7,), (1,)), 'wrap')", (3, 2)),
    ("np.pad(v, [[2, 1]], mode='edge')", "_pad_dx(g, v, [[2, 1]], 'edge')", (3, 2)),
    ("np.hsplit(v, [1])[1]", "_split_part_dx(g, v, 1, (1,), 'hsplit')", (2, 3)),
    ("np.vsplit(v, 2)[0]", "_split_part_dx(g, v, 0, 2, 'vsplit')", (4, 3)),
    ("np.take_along_axis(v, np.array([[2, 2, 0]]), 1)", "_take_along_axis_dx(g, v, xp.array([[2, 2, 0]]), 1)", (2, 3)),
]


@pytest.mark.parametrize(("forward", "adjoint", "shape"), ADJOINTS, ids=[f for f, _, _ in ADJOINTS])
def test_gradient_helpers_are_adjoints(forward, adjoint, shape):
    rng = np.random.default_rng(1)
    v = rng.standard_normal(shape)
    out = eval(forward, {"np": np, "v": v})
    g = rng.standard_normal(np.shape(out))
    dv = eval(adjoint, {**vars(runtime_shape), "g": g, "v": v})
    assert np.shape(dv) == shape
    assert np.isclose(np.sum(dv * v), np.sum(g * out))


@pytest.mark.parametrize(
    ("join", "shapes", "part"),
    [
        ("concatenate", [(2, 3), (1, 3)], "_concat_part"),
        ("hstack", [(2,), (), (3,)], "_hstack_part"),
        ("hstack", [(2, 1), (2, 3)], "_hstack_part"),
        ("vstack", [(3,), (2, 3), (1, 3)], "_vstack_part"),
        ("vstack", [(), ()], "_vstack_part"),
        ("column_stack", [(2,), (2, 3), (2, 1)], "_column_stack_part"),
        ("column_stack", [(), ()], "_column_stack_part"),
    ],
)
def test_join_parts_are_adjoints(join, shapes, part):
    rng = np.random.default_rng(2)
    xs = [rng.standard_normal(s) for s in shapes]
    g = rng.standard_normal(np.shape(getattr(np, join)(xs)))
    for k, x in enumerate(xs):
        block = (
            getattr(runtime_shape, part)(g, xs, k, 0)
            if part == "_concat_part"
            else getattr(runtime_shape, part)(g, xs, k)
        )
        assert np.shape(block) == np.shape(x)
        others = [np.zeros_like(y) if j != k else y for j, y in enumerate(xs)]
        assert np.isclose(np.sum(block * x), np.sum(g * getattr(np, join)(others)))


@pytest.mark.parametrize(
    ("kind", "shapes"),
    [
        ("r", [(2,), (), (3,)]),
        ("r", [(2, 3), (1, 3)]),
        ("c", [(2,), (2, 3)]),
        ("c", [(), ()]),
        ("c", [(2, 2, 3), (2, 2, 1)]),
    ],
)
def test_index_join_parts_are_adjoints(kind, shapes):
    rng = np.random.default_rng(3)
    xs = [rng.standard_normal(s) for s in shapes]
    join = np.r_ if kind == "r" else np.c_
    g = rng.standard_normal(np.shape(runtime_shape._index_join(xs, kind)))
    for k, x in enumerate(xs):
        block = runtime_shape._index_join_part(g, xs, k, kind)
        assert np.shape(block) == np.shape(x)
        others = tuple(np.zeros_like(y) if j != k else y for j, y in enumerate(xs))
        assert np.isclose(np.sum(block * x), np.sum(g * join[others]))


def test_float32_stays_float32():
    body = (
        "p, q = np.split(np.r_[v, 1.0], 2)\nw = np.diff(np.pad(p, 2, mode='wrap'), prepend=0.0)\n"
        "return np.sum(w ** 2) + np.sum(np.take_along_axis(q, np.argsort(q), 0) * np.roll(q, 1))\n"
    )
    source = _source(body, ["v"])
    user: dict = {}
    exec(compile(source, "case.py", "exec"), user)  # noqa: S102 - the case's own source
    generated: dict = {}
    exec(compile(generate(source, "case.py").text, "g.py", "exec"), generated)  # noqa: S102 - our output
    v = np.array([0.5, -1.0, 2.0, 1.5, -0.25], dtype=np.float32)
    value, dv = generated["grad_f"](v)
    assert dv.dtype == np.float32 and np.isclose(value, user["f"](v), rtol=1e-6)
    _, expected = generated["grad_f"](v.astype(np.float64))
    np.testing.assert_allclose(dv, expected, rtol=1e-5)


def test_generated_gradient_names_the_helpers():
    text = generate(_source("return np.sum(np.concatenate([a, b]) * np.tile(a, 3).sum())\n", ["a", "b"]), "t.py").text
    assert "def _concat_part(g, xs, part, axis):" in text
    assert "def _tile_dx(g, x, reps):" in text
    assert "xp." not in text


# ============================================================================= known gaps of the tool
# Each is expected to fail until the tool is fixed (strict: a fix makes the test fail until removed).


def refusal(body: str) -> UserError:
    with pytest.raises((UserError, UserErrors)) as info:
        generate(_source(body, _params(body)), "case.py")
    err = info.value
    return err.errors[0] if isinstance(err, UserErrors) else err


def test_a_nested_constant_index_list():
    check(nonlinear("np.take(X, [[0, 5], [5, 1]])"))


def test_lists_of_computed_values_inside_a_join():
    check(nonlinear("np.concatenate([[s], [t], a])"))


def test_a_list_of_integer_parameters_as_an_index():
    check(nonlinear("x[[i, i, j]]"))


@pytest.mark.parametrize("view", ["np.swapaxes(X, 0, 1)", "X.ravel()", "np.flip(X)", "np.expand_dims(X, 0)"])
def test_augmented_assignment_on_a_view_of_a_shape_rule_is_refused(view):
    err = refusal(f"r = {view}\nr += 1.0\nreturn np.sum(X * r)\n")
    assert err.code == "YS017"
