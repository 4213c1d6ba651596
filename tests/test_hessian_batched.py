"""hess_NAME's batched second sweep (codegen/batched.py, runtime/rows.py): all unit seeds at once.

Every batched Hessian is compared with central finite differences of the gradient, checked
symmetric, and compared with the loop form's (``batched.BATCH_ROWS`` False: one sweep per unit
vector), for vector, matrix and 0-d parameters, in one block of rows and in several; a sweep with
a primitive that has no batching rule keeps the loop.  The runtime helpers are checked against
the unbatched operation applied row by row.
"""

from __future__ import annotations

import numpy as np
import pytest

from yota_s2s.codegen import batched
from yota_s2s.pipeline import generate
from yota_s2s.runtime import core, linalg, rows

from .test_hessian import PLACE, SOURCE, WRT, arguments, numeric_hessian

RNG = np.random.default_rng(2425)

MORE = """\
import numpy as np


def rosen(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def chain(x):
    return np.sum(x[1:] ** 2 * x[:-1] ** 3 - x[1:] * x[:-1]) + np.sum(x**4)


def grid(U):
    return np.sum((U[1:, :] - U[:-1, :]) ** 2 * U[1:, :]) + np.sum(U[:, 1:] ** 3 * U[:, :-1]) + np.sum(U**4)


def cumulative(x):
    return np.sum(np.cumsum(x * x) ** 2)


def picked(x):
    return np.sum(x[[0, 2, 2]] ** 3 * x[1:4]) + np.sum(x[..., None] ** 2 * x[None, :] ** 2)


def outer(x):
    return np.sum(x[..., None] ** 2 * x[None, :] ** 3) + np.sum(np.transpose(x) ** 3 * x.T)
"""

MORE_WRT = {"rosen": ["x"], "chain": ["x"], "grid": ["U"], "cumulative": ["x"], "picked": ["x"], "outer": ["x"]}
MORE_ARGS = {
    "rosen": lambda: (RNG.normal(size=12),),
    "chain": lambda: (RNG.normal(size=7),),
    "grid": lambda: (RNG.normal(size=(4, 3)),),
    "cumulative": lambda: (RNG.normal(size=5),),
    "picked": lambda: (RNG.normal(size=5),),
    "outer": lambda: (RNG.normal(size=(3, 3)),),
}


def _load(source: str, wrt: dict, mode: str) -> tuple[dict, str]:
    # (--form rows: the batched sweep, also where the Hessian is banded: tests/test_hessian_banded.py)
    text = generate(source, "second.py", list(wrt), wrt, mode=mode, form="rows" if mode == "hessian" else "auto").text
    namespace: dict = {}
    exec(compile(text, f"<{mode}>", "exec"), namespace)  # noqa: S102 - the tool's output
    return namespace, text


def _body(text: str, name: str) -> str:
    return text.split(f"def hess_{name}(")[1].split("\ndef ")[0]


@pytest.fixture(scope="module")
def forms() -> dict:
    """For SOURCE and MORE: (grad, batched hess, loop hess, batched text)."""
    out = {}
    for source, wrt in ((SOURCE, WRT), (MORE, MORE_WRT)):
        grad, _ = _load(source, wrt, "grad")
        hess, text = _load(source, wrt, "hessian")
        batched.BATCH_ROWS = False
        try:
            loop, loop_text = _load(source, wrt, "hessian")
        finally:
            batched.BATCH_ROWS = True
        assert "_rows_seed" not in loop_text
        for name in wrt:
            out[name] = (grad, hess, loop, text)
    return out


BATCHED = [
    "rosen",
    "mlp",
    "energy",
    "quadratic",
    "gram",
    "softplus_rows",
    "vector_matrix",
    "scalar",
    "broadcasting",
    "chain",
    "grid",
    "outer",
]


def _args(name: str) -> tuple:
    return MORE_ARGS[name]() if name in MORE_ARGS and name != "rosen" else arguments(name)


@pytest.mark.parametrize("name", BATCHED)
def test_batched_hessian_against_finite_differences_and_the_loop(forms, name):
    grad, hess, loop, text = forms[name]
    body = _body(text, name)
    assert "v = _rows_seed(" in body and "one second sweep per row" not in body
    args = _args(name)
    i = PLACE.get(name, 0)
    value, g, H = hess["hess_" + name](*args)
    f_value, f_grad = grad["grad_" + name](*args)
    assert np.isclose(value, f_value, rtol=1e-13) and np.allclose(g, f_grad, rtol=1e-13, atol=1e-15)
    x = np.asarray(args[i])
    assert np.shape(H) == x.shape + x.shape
    expected = numeric_hessian(grad["grad_" + name], args, i)
    scale = max(1.0, np.abs(expected).max())
    assert np.abs(H - expected).max() <= 1e-6 * scale, (name, np.abs(H - expected).max())
    square = np.reshape(H, (x.size, x.size))
    assert np.abs(square - square.T).max() <= 1e-12 * scale
    H_loop = loop["hess_" + name](*args)[2]
    assert np.shape(H_loop) == np.shape(H)
    assert np.abs(H - H_loop).max() <= 1e-13 * scale


@pytest.mark.parametrize("name", ["rosen", "mlp", "grid", "broadcasting"])
def test_blocks_of_rows(forms, name, monkeypatch):
    """A larger x runs the sweep on blocks of rows (``_ROWS_BLOCK`` numbers each): the same H."""
    _, hess, _, _ = forms[name]
    args = _args(name)
    whole = hess["hess_" + name](*args)[2]
    size = np.size(args[PLACE.get(name, 0)])
    for block in (size, 2 * size + 1, 3 * size):  # one row, two, three a block (the last one short)
        monkeypatch.setitem(hess, "_ROWS_BLOCK", block)
        np.testing.assert_allclose(hess["hess_" + name](*args)[2], whole, rtol=1e-14, atol=1e-14)


def test_rosenbrock_100_is_batched_and_exact(forms):
    _, hess, loop, _ = forms["rosen"]
    x = RNG.normal(size=100)
    H = hess["hess_rosen"](x)[2]
    assert np.allclose(H, loop["hess_rosen"](x)[2], rtol=1e-14, atol=1e-12)
    diag = 1200.0 * x[:-1] ** 2 - 400.0 * x[1:] + 2.0
    assert np.allclose(np.diag(H)[:-1], diag + np.r_[0.0, np.full(98, 200.0)], rtol=1e-12)
    assert np.allclose(np.diag(H, 1), -400.0 * x[:-1], rtol=1e-13)
    assert not np.triu(H, 2).any()


def test_a_primitive_without_a_batching_rule_keeps_the_loop(forms):
    """cumsum's adjoint (a reversed cumsum with an axis) has no batching rule: the loop form, still right."""
    grad, hess, _, text = forms["cumulative"]
    body = _body(text, "cumulative")
    assert "one second sweep per row" in body and "_rows_seed" not in body
    (x,) = MORE_ARGS["cumulative"]()
    H = hess["hess_cumulative"](x)[2]
    expected = numeric_hessian(grad["grad_cumulative"], (x,), 0)
    assert np.abs(H - expected).max() <= 1e-6 * max(1.0, np.abs(expected).max())


def test_an_index_array_and_a_new_axis(forms):
    """x[[0, 2, 2]] (an index array, a repeated index) and x[..., None]: batched or looped, the H of
    central differences and of the loop form."""
    grad, hess, loop, _ = forms["picked"]
    (x,) = MORE_ARGS["picked"]()
    H = hess["hess_picked"](x)[2]
    expected = numeric_hessian(grad["grad_picked"], (x,), 0)
    assert np.abs(H - expected).max() <= 1e-6 * max(1.0, np.abs(expected).max())
    assert np.allclose(H, loop["hess_picked"](x)[2], rtol=1e-13, atol=1e-13) and np.allclose(H, H.T, atol=1e-12)


def test_the_batched_text_is_clean_and_deterministic():
    wrt = {"rosen": ["x"], "mlp": ["W1"]}
    text = generate(SOURCE, "second.py", list(wrt), wrt, mode="hessian").text
    assert text == generate(SOURCE, "second.py", list(wrt), wrt, mode="hessian").text
    assert "for _k in range(0, np.size(x), _step):  # the second sweep on a block of rows at once" in text
    assert "H[_k:_k + len(v)] = " in text and "def _rows_seed(x, start, step):" in text
    cupy = generate(SOURCE, "second.py", list(wrt), wrt, mode="hessian", target="cupy").text
    assert "cp.zeros((k, n))" in cupy and "import numpy" not in cupy and "_rows_seed(x, _k, _step)" in cupy


# ---------------------------------------------------------------------------- the runtime helpers


def _each(f, flags, *args):
    """``f`` row by row (the reference of a batched helper)."""
    k = next(a.shape[0] for a, r in zip(args, flags, strict=True) if r)
    return np.stack([f(*(a[i] if r else a for a, r in zip(args, flags, strict=True))) for i in range(k)])


@pytest.mark.parametrize(
    ("a", "b"),
    [((3, 4), (4, 5)), ((4,), (4, 5)), ((3, 4), (4,)), ((4,), (4,)), ((2, 3, 4), (4, 5)), ((3, 4), (2, 4, 5))],
)
@pytest.mark.parametrize("flags", [(1, 0), (0, 1), (1, 1)])
def test_rows_matmul_and_dot(a, b, flags):
    k = 3
    A = RNG.normal(size=((k,) if flags[0] else ()) + a)
    B = RNG.normal(size=((k,) if flags[1] else ()) + b)
    np.testing.assert_allclose(rows._rows_matmul(A, B, *flags), _each(np.matmul, flags, A, B), rtol=1e-13)
    if len(a) <= 2 and len(b) <= 2:
        np.testing.assert_allclose(rows._rows_dot(A, B, *flags), _each(np.dot, flags, A, B), rtol=1e-13)


@pytest.mark.parametrize(("x", "y"), [((3, 4), (4, 5)), ((4,), (4,)), ((4,), (4, 5)), ((2, 3, 4), (4, 5))])
@pytest.mark.parametrize("flags", [(1, 0, 0), (0, 0, 1), (1, 0, 1), (0, 1, 0), (1, 1, 1)])
def test_rows_product_adjoints(x, y, flags):
    k = 3
    X = RNG.normal(size=((k,) if flags[1] else ()) + x)
    Y = RNG.normal(size=((k,) if flags[2] else ()) + y)
    out = np.shape(np.matmul(np.ones(x), np.ones(y)))
    G = RNG.normal(size=((k,) if flags[0] else ()) + out)
    for helper, each in ((rows._rows_product_dx, core._matmul_dx), (rows._rows_product_dy, core._matmul_dy)):
        np.testing.assert_allclose(helper(each, G, X, Y, flags), _each(each, flags, G, X, Y), rtol=1e-13)
    for helper, each in ((rows._rows_product_dx, linalg._dot_dx), (rows._rows_product_dy, linalg._dot_dy)):
        np.testing.assert_allclose(helper(each, G, X, Y, flags), _each(each, flags, G, X, Y), rtol=1e-13)


def test_rows_reductions_broadcasts_and_shapes():
    k = 4
    a = RNG.normal(size=(k, 3, 5))
    for axis, keepdims in ((None, False), (0, False), (-1, True), ((0, 1), False), (1, True)):
        expected = _each(lambda r, axis=axis, keepdims=keepdims: np.sum(r, axis=axis, keepdims=keepdims), (1,), a)
        np.testing.assert_allclose(rows._rows_sum(a, axis, keepdims), expected, rtol=1e-13)
        mean = _each(lambda r, axis=axis, keepdims=keepdims: np.mean(r, axis=axis, keepdims=keepdims), (1,), a)
        np.testing.assert_allclose(rows._rows_mean(a, axis, keepdims), mean, rtol=1e-13)
    x = np.ones((2, 3, 5))
    for g_shape, x_shape in (((2, 3, 5), (3, 5)), ((3, 5), (3, 1)), ((3, 5), (5,)), ((5,), (3, 5)), ((), (3, 5))):
        g = RNG.normal(size=(k,) + g_shape)
        x = np.ones(x_shape)
        np.testing.assert_allclose(rows._rows_unbroadcast(g, x), _each(core._unbroadcast, (1, 0), g, x), rtol=1e-13)
    expected = np.broadcast_to(a[:, None, None, 0, :], (k, 2, 3, 5))
    np.testing.assert_array_equal(rows._rows_broadcast(a[:, 0, :], (2, 3, 5)), expected)
    np.testing.assert_array_equal(rows._rows_transpose(a), np.stack([r.T for r in a]))
    np.testing.assert_array_equal(rows._rows_transpose(a, (1, 0)), np.stack([r.T for r in a]))
    np.testing.assert_array_equal(rows._rows_reshape(a, (5, 3)), np.stack([r.reshape(5, 3) for r in a]))
    np.testing.assert_array_equal(rows._rows_reshape(a, -1), np.stack([r.reshape(-1) for r in a]))
    for axis, keepdims, g_shape in ((None, False, ()), (0, False, (5,)), (1, True, (3, 1)), ((0, 1), False, ())):
        g = RNG.normal(size=(k,) + g_shape)
        expected = np.stack(
            [np.broadcast_to(np.expand_dims(r, axis) if axis is not None and not keepdims else r, (3, 5)) for r in g]
        )
        np.testing.assert_array_equal(rows._rows_unreduce(g, np.ones((3, 5)), axis, keepdims), expected)
    np.testing.assert_array_equal(rows._rows_lift(np.ones((k, 5)), np.ones((3, 5)), 0).shape, (k, 1, 5))
    np.testing.assert_array_equal(rows._rows_lift(np.ones((k, 3, 5)), np.ones((k, 5)), 1).shape, (k, 3, 5))
    seed = rows._rows_seed(np.ones((2, 3)), 0, 6)
    assert seed.shape == (6, 2, 3) and np.array_equal(seed.reshape(6, 6), np.eye(6))


def test_a_list_of_numbers_as_a_parameter():
    """hess_NAME with respect to an array and a list of numbers (tests/plain_files/lists.py): the
    batched buffers' dtype read from the list's values (``np.result_type`` of a list reads it as a
    dtype's fields: a TypeError before)."""
    source = (
        "import numpy as np\n\n\ndef f(x, weights):\n"
        "    parts = [x[:2], x[2:4], x[4:]]\n"
        "    scaled = [w * p for w, p in zip(weights, parts)]\n"
        "    return sum(np.sum(t**2) for t in scaled[1:]) + np.sum(np.array([s[0] for s in scaled]))\n"
    )
    wrt = {"f": ["x", "weights"]}
    hess = _load(source, wrt, "hessian")[0]["hess_f"]
    x, weights = RNG.normal(size=6), [0.5, 1.5, 2.0]
    blocks = hess(x, weights)[3]
    again = hess(x, np.array(weights))[3]
    for row, row_again in zip(blocks, again, strict=True):
        for block, block_again in zip(row, row_again, strict=True):
            assert np.allclose(block, block_again, rtol=1e-15)
    H_ww = blocks[1][1]
    assert np.allclose(H_ww, np.diag([0.0, 2 * np.sum(x[2:4] ** 2), 2 * np.sum(x[4:] ** 2)]), rtol=1e-13)
