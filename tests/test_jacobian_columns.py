"""jac_NAME by forward columns (codegen/forward_cols.py, transform/jac_columns.py, runtime/columns.py).

Every Jacobian is compared with central finite differences of the function and with the rows
form (``jac_columns.COLUMNS_TEXT`` 0: reverse rows only), for tall, square and wide Jacobians of
array arithmetic, matrix products and helper calls, with one and several ``--wrt`` parameters,
numbers and arrays; the run-time choice is exercised both ways (the columns are taken where the
value has more elements than the parameters together), the columns in one block, in several and
one at a time (``BATCH_COLUMNS`` False).  A function whose JVP cannot be built (a loop) keeps
the rows alone; ``--target array-api`` writes the rows alone and ``--target cupy`` both.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from yota_s2s.codegen import forward_cols
from yota_s2s.pipeline import generate
from yota_s2s.runtime import columns
from yota_s2s.transform import jac_columns

RNG = np.random.default_rng(2424)

SOURCE = """\
import numpy as np


def decay(t, k):
    return np.exp(-k * t)


def model(p, x):
    return p[0] * decay(x, p[1]) + p[2]


def curve(t, w, a):
    return np.stack([np.cos(w * t) * a, np.sin(w * t) * a], axis=-1)


def layer(W, v):
    return np.tanh(W @ v)


def residual(theta, X, y):
    z = X @ theta
    return 1.0 / (1.0 + np.exp(-z)) - y


def poly(c, x):
    return c[0] + c[1] * x + c[2] * x ** 2 + np.sum(c) * np.sin(x[::-1])


def scaled(x, s):
    return np.cumsum(x) * s


def outer(a, b):
    return a[:, None] * np.sin(b[None, :])


def sliced(x, y):
    return x[1:, None] * y[None, :-1] + x[:-1, None] ** 2


def reduced(W, x):
    return np.tanh(x @ W).sum(axis=1, keepdims=True) * x + np.mean(W) * x


def transposed(A, s):
    return (A.T * s).reshape(-1) + np.maximum(A, 0.1).T.reshape(-1)


def rolled(x):
    return x * x - np.roll(x, 1)


def looped(x, n):
    out = x
    for _ in range(n):
        out = np.sin(out) * x
    return out
"""

#: name -> (wrt, arguments): tall (few inputs, many outputs) first, then square and wide.
CASES = {
    "model-tall": ("model", ["p"], lambda: (RNG.normal(size=3), RNG.normal(size=40))),
    "model-both": ("model", ["p", "x"], lambda: (RNG.normal(size=3), RNG.normal(size=6))),
    "model-matrix": ("model", ["p"], lambda: (RNG.normal(size=3), RNG.normal(size=(5, 7)))),
    "curve-three": ("curve", ["t", "w", "a"], lambda: (RNG.normal(size=9), 1.3, RNG.normal(size=9))),
    "curve-numbers": ("curve", ["w", "a"], lambda: (RNG.normal(size=25), 0.7, -1.1)),
    "layer-tall": ("layer", ["v"], lambda: (RNG.normal(size=(30, 2)), RNG.normal(size=2))),
    "layer-square": ("layer", ["W", "v"], lambda: (RNG.normal(size=(4, 2)), RNG.normal(size=2))),
    "layer-wide": ("layer", ["W"], lambda: (RNG.normal(size=(2, 5)), RNG.normal(size=5))),
    "residual-tall": (
        "residual",
        ["theta"],
        lambda: (RNG.normal(size=3), RNG.normal(size=(50, 3)), RNG.normal(size=50)),
    ),
    "residual-wide": (
        "residual",
        ["theta", "X"],
        lambda: (RNG.normal(size=3), RNG.normal(size=(4, 3)), RNG.normal(size=4)),
    ),
    "poly-tall": ("poly", ["c"], lambda: (RNG.normal(size=3), RNG.normal(size=20))),
    "poly-square": ("poly", ["c", "x"], lambda: (RNG.normal(size=3), RNG.normal(size=3))),
    "scaled-tall": ("scaled", ["s"], lambda: (RNG.normal(size=12), 0.5)),
    "scaled-square": ("scaled", ["x"], lambda: (RNG.normal(size=6), 2.0)),
    "outer-tall": ("outer", ["a", "b"], lambda: (RNG.normal(size=5), RNG.normal(size=6))),
    "sliced-tall": ("sliced", ["x", "y"], lambda: (RNG.normal(size=6), RNG.normal(size=7))),
    "reduced-tall": ("reduced", ["W"], lambda: (RNG.normal(size=(3, 2)), RNG.normal(size=(40, 3)))),
    "reduced-wide": ("reduced", ["W", "x"], lambda: (RNG.normal(size=(3, 2)), RNG.normal(size=(4, 3)))),
    "transposed-tall": ("transposed", ["s"], lambda: (RNG.normal(size=(4, 3)), 0.7)),
    "transposed-wide": ("transposed", ["A", "s"], lambda: (RNG.normal(size=(4, 3)), 0.7)),
}


#: The parameters of each function, in order.
PARAMS = {
    "model": ["p", "x"],
    "curve": ["t", "w", "a"],
    "layer": ["W", "v"],
    "residual": ["theta", "X", "y"],
    "poly": ["c", "x"],
    "scaled": ["x", "s"],
    "outer": ["a", "b"],
    "sliced": ["x", "y"],
    "reduced": ["W", "x"],
    "transposed": ["A", "s"],
}


def _load(wrt: dict, monkeypatch=None, **kwargs) -> tuple[dict, str]:
    text = generate(SOURCE, "cols.py", list(wrt), wrt, mode="jacobian", **kwargs).text
    namespace: dict = {}
    exec(compile(text, "<jacobian>", "exec"), namespace)  # noqa: S102 - the tool's output
    return namespace, text


def _wrt(name: str) -> dict:
    func, wrt, _ = CASES[name]
    return {func: wrt}


def _numeric(f, args, i, eps=1e-6) -> np.ndarray:
    """The central-difference Jacobian of ``f`` with respect to ``args[i]``: value axes first."""
    args = list(args)
    x = np.array(args[i], dtype=float)
    value = np.asarray(f(*args))
    out = np.zeros(value.shape + x.shape)
    for j in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[j] += eps
        down[j] -= eps
        lo = [*args[:i], down if x.ndim else float(down), *args[i + 1 :]]
        hi = [*args[:i], up if x.ndim else float(up), *args[i + 1 :]]
        out[(...,) + j] = (np.asarray(f(*hi)) - np.asarray(f(*lo))) / (2 * eps)
    return out


def _primal(name: str):
    namespace: dict = {}
    exec(compile(SOURCE, "cols.py", "exec"), namespace)  # noqa: S102 - the test's own source
    return namespace[CASES[name][0]]


def _counting(namespace: dict) -> list:
    """Count the calls of ``_cols_split`` (the columns branch ran) in a generated namespace."""
    calls: list = []
    split = namespace["_cols_split"]

    def counted(*args):
        calls.append(1)
        return split(*args)

    namespace["_cols_split"] = counted
    return calls


@pytest.mark.parametrize("name", list(CASES))
def test_columns_against_finite_differences_and_the_rows(name, monkeypatch):
    func, wrt, make = CASES[name]
    args = make()
    both, text = _load(_wrt(name))
    assert "_cols_split(" in text
    monkeypatch.setattr(jac_columns, "COLUMNS_TEXT", 0)
    rows, rows_text = _load(_wrt(name))
    assert "_cols" not in rows_text
    calls = _counting(both)
    out = both["jac_" + func](*args)
    reference = rows["jac_" + func](*args)
    f = _primal(name)
    names = PARAMS[func]
    value = np.asarray(f(*args))
    sizes = sum(np.size(args[names.index(w)]) for w in wrt)
    assert len(calls) == (value.size > sizes)  # the columns where the value has more elements
    np.testing.assert_allclose(out[0], value, rtol=1e-14)
    for k, w in enumerate(wrt):
        i = names.index(w)
        J = out[1 + k]
        assert np.shape(J) == value.shape + np.shape(args[i])
        expected = _numeric(f, args, i)
        scale = max(1.0, np.abs(expected).max())
        assert np.abs(J - expected).max() <= 1e-6 * scale, (w, np.abs(J - expected).max())
        assert np.abs(J - reference[1 + k]).max() <= 1e-12 * scale


@pytest.mark.parametrize(
    "name", ["model-tall", "curve-numbers", "layer-tall", "residual-tall", "poly-tall", "scaled-tall"]
)
def test_blocks_of_columns_and_one_at_a_time(name, monkeypatch):
    """A tall value takes the columns; in blocks of one, two, three columns and one at a time
    (``BATCH_COLUMNS`` False) they give the same Jacobians."""
    func, _, make = CASES[name]
    args = make()
    both, _ = _load(_wrt(name))
    calls = _counting(both)
    whole = both["jac_" + func](*args)
    assert len(calls) == 1
    m = np.size(whole[0])
    for block in (m, 2 * m, 3 * m):
        monkeypatch.setitem(both, "_ROWS_BLOCK", block)
        for J, W in zip(both["jac_" + func](*args)[1:], whole[1:], strict=True):
            np.testing.assert_allclose(J, W, rtol=1e-14, atol=1e-14)
    monkeypatch.setattr(forward_cols, "BATCH_COLUMNS", False)
    loop, text = _load(_wrt(name))
    assert "one forward sweep per column" in text and "_cols_unit(" in text
    for J, W in zip(loop["jac_" + func](*args)[1:], whole[1:], strict=True):
        np.testing.assert_allclose(J, W, rtol=1e-13, atol=1e-13)


def test_a_short_value_takes_the_rows():
    """layer with W of 3 x 2 and v of 2: 3 outputs, 8 inputs: the rows (no columns branch run)."""
    both, _ = _load({"layer": ["W", "v"]})
    calls = _counting(both)
    W, v = RNG.normal(size=(3, 2)), RNG.normal(size=2)
    *_, J_v = both["jac_layer"](W, v)
    assert not calls
    np.testing.assert_allclose(J_v, (1.0 - np.tanh(W @ v) ** 2)[:, None] * W, rtol=1e-13)


def test_no_columns_without_a_jvp_and_for_array_api():
    """A loop (YS107 for --jvp) keeps the rows alone; --target array-api writes the rows alone;
    --target cupy writes both, its helpers on cp."""
    _, text = _load({"looped": ["x"]})
    assert "_cols" not in text and "one reverse sweep per row" in text
    _, api = _load({"model": ["p"]}, target="array-api")
    assert "_cols" not in api
    cupy = generate(
        SOURCE, "cols.py", ["model", "curve"], {"model": ["p"], "curve": ["t", "w"]}, mode="jacobian", target="cupy"
    ).text
    compile(cupy, "<cupy>", "exec")
    assert "_cols_split(_C, model, p)[0]" in cupy and "def _cols_split(columns, value, *xs):" in cupy
    assert "import numpy" not in cupy and "cp.zeros((k, n))" in cupy


def test_a_value_of_a_parameters_shape_keeps_the_rows_text(monkeypatch):
    """rolled(x) has the shape of x (shapes prove it): m <= N, so the rows alone, the text they had."""
    _, text = _load({"rolled": ["x"]})
    monkeypatch.setattr(jac_columns, "COLUMNS_TEXT", 0)
    _, rows_text = _load({"rolled": ["x"]})
    assert text == rows_text and "_cols" not in text


def test_the_text_is_clean_and_deterministic():
    wrt = {"model": ["p"], "curve": ["t", "w", "a"]}
    text = generate(SOURCE, "cols.py", list(wrt), wrt, mode="jacobian").text
    assert text == generate(SOURCE, "cols.py", list(wrt), wrt, mode="jacobian").text
    body = text.split("def jac_model(")[1].split("\ndef ")[0]
    assert "    if np.size(model) <= _n:  # reverse rows: no more outputs than inputs" in body
    assert "    else:  # forward columns: fewer inputs than outputs" in body
    assert "dout = _rows_seed(model, _k, _step)" in body  # (the rows batched too: a block of rows a sweep)
    assert "p_dot = _rows_seed(p, _k_1, _step_1)" in body and "J_p = _cols_split(_C, model, p)[0]" in body
    assert "t_dot, w_dot, a_dot = _cols_seeds(_k_1, _step, t, w, a)" in text
    assert not any(isinstance(node, ast.JoinedStr) for node in ast.walk(ast.parse(text)))  # (no f-string)


@pytest.mark.parametrize(
    ("start", "step", "shapes"), [(0, 9, [(2,), (), (3, 2)]), (2, 3, [(2,), (), (3, 2)]), (7, 4, [(4,), (5,)])]
)
def test_runtime_helpers(start, step, shapes):
    xs = [RNG.normal(size=s) if s else 0.5 for s in shapes]
    n = sum(np.size(x) for x in xs)
    seeds = columns._cols_seeds(start, step, *xs)
    k = min(step, n - start)
    flat = np.concatenate([s.reshape(k, -1) for s in seeds], axis=1)
    np.testing.assert_array_equal(flat, np.eye(n)[start : start + k])
    for j in range(n):
        units = columns._cols_unit(j, *xs)
        np.testing.assert_array_equal(np.concatenate([np.ravel(u) for u in units]), np.eye(n)[j])
    value = RNG.normal(size=(4, 3))
    C = RNG.normal(size=(n, 4, 3))
    offset = 0
    for J, x in zip(columns._cols_split(C, value, *xs), xs, strict=True):
        assert J.shape == value.shape + np.shape(x) and J.flags.c_contiguous
        size = np.size(x)
        np.testing.assert_array_equal(np.moveaxis(J.reshape(4, 3, size), -1, 0), C[offset : offset + size])
        offset += size


# ---------------------------------------------------------------------------- examples/fit

FIT = Path(__file__).resolve().parent.parent / "examples" / "fit"


def test_fit_example_is_up_to_date_right_and_prints_its_output():
    """The committed jac_model.py is what the tool writes; its tall Jacobian takes the columns and
    matches central differences; fit.py prints its committed output, the fit near the truth."""
    src = "examples/fit/model.py"
    command = f"yota-s2s {src} --wrt p --out examples/fit/jac_model.py --jacobian"
    source = (FIT / "model.py").read_text(encoding="utf-8")
    text = generate(source, src, wrt=["p"], mode="jacobian", command=command).text
    assert (FIT / "jac_model.py").read_text(encoding="utf-8") == text
    namespace: dict = {}
    exec(compile(text, "<jac_model>", "exec"), namespace)  # noqa: S102 - the tool's output
    calls = _counting(namespace)
    primal: dict = {}
    exec(compile(source, src, "exec"), primal)  # noqa: S102 - the example's source
    p, t, y = np.array([2.0, 0.3, 3.0, 0.5]), np.linspace(0.0, 10.0, 50), RNG.normal(size=50)
    r, J = namespace["jac_residual"](p, t, y)
    assert len(calls) == 1 and J.shape == (50, 4)
    np.testing.assert_allclose(r, primal["residual"](p, t, y), rtol=1e-14)
    np.testing.assert_allclose(J, _numeric(primal["residual"], (p, t, y), 0), rtol=1e-6, atol=1e-8)
    proc = subprocess.run([sys.executable, "fit.py"], cwd=FIT, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == (FIT / "output.txt").read_text(encoding="utf-8")
    fitted = [float(v) for v in proc.stdout.splitlines()[-1].split("[")[1].split("]")[0].split(",")]
    np.testing.assert_allclose(fitted, [2.0, 0.3, 3.0, 0.5], atol=0.01)


def test_the_rows_alone_keep_the_functions_assert():
    """Where jac_NAME keeps its rows alone (the rows' and the columns' buffers made one by the
    optimizer: ``forward_cols._rows_only``), the equations the rows do not read were cut to what the
    outputs need, and the user's ``assert`` went with them; the impure ones now stay (``ir.live``)."""
    source = (
        "import numpy as np\n\n\ndef f(x):\n"
        '    assert np.all(np.isfinite(x)), "finite"\n'
        "    return np.concatenate([x, 2.0 * x]) * x[0]\n"
    )
    namespace: dict = {}
    exec(compile(generate(source, "f.py", mode="jacobian").text, "<jac>", "exec"), namespace)  # noqa: S102
    jac = namespace["jac_f"]
    x = np.array([0.5, -1.0, 2.0])
    value, J = jac(x)
    np.testing.assert_allclose(value, np.concatenate([x, 2.0 * x]) * x[0], rtol=1e-15)
    expected = np.concatenate([np.eye(3) * x[0], 2.0 * np.eye(3) * x[0]]) + np.outer(np.r_[x, 2 * x], np.eye(3)[0])
    np.testing.assert_allclose(J, expected, rtol=1e-14)
    with pytest.raises(AssertionError, match="finite"):
        jac(np.array([np.nan, 1.0, 2.0]))
