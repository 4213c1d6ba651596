"""--hvp and --hessian with respect to several parameters (transform/second_blocks.py).

``hvp_NAME(..., v_A, v_B)`` returns ``(value, dA, dB, Hv_A, Hv_B)`` with ``Hv_A = H_AA v_A + H_AB v_B``,
and ``hess_NAME`` returns ``(value, dA, dB, ((H_AA, H_AB), (H_BA, H_BB)))`` with ``H_AB.shape ==
A.shape + B.shape``, as ``jax.hessian(f, argnums=(0, 1))`` nests them.  Every product is compared with
central differences of the gradient (``grad_NAME``, generated separately) along ``(v_A, v_B)``, every
block with central differences of the gradient, with JAX's Hessian and with the transposed other
block (``H_AB == H_BA`` with its axes swapped), in both forms the sweep is written (batched, and the
loop over unit vectors).
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys

import numpy as np
import pytest

from yota_s2s import api
from yota_s2s.codegen import batched
from yota_s2s.errors import UserError
from yota_s2s.pipeline import generate

RNG = np.random.default_rng(2425)

SOURCE = """\
import numpy as np


def mlp(W, b, X, y):
    h = np.tanh(X @ W + b)
    return np.mean((h @ np.ones(2) - y) ** 2)


def poly(x, y):
    return x**3 * y + np.sin(x * y) - y**4 + x * x


def mixed(a, x):
    return np.sum(np.exp(a * x)) * a**2 + np.sum(x**3) / (1.0 + a * a)


def three(A, x, c):
    return 0.5 * x @ (A @ x) * c + np.sum(np.cos(A)) * np.sum(x) + c**3


def slices(x, y):
    return np.sum((x[1:] - y[:-1] ** 2) ** 2) + np.sum(x[:-1] * np.sin(y[1:])) + x[0] * y[2] ** 3


def elements(x, y):
    return x[0] ** 2 * y[1] + x[1] * np.sin(y[0]) + (x[0] - y[1]) ** 4


def shaped(x, y):
    return np.sum(x**2) * np.size(y) + np.sum(y * 2.0)


def keywords(x, y, scale=2.0):
    return np.sum(x * x * y) * scale


def looped(x, y):
    s = 0.0
    for i in range(3):
        s = s + np.sum(x * y) * i
    return s


def orbit(x, w):
    s = 0.0
    for i in range(3):
        x = np.sin(x) * w + 0.5 * x
        if i % 2 == 0:
            s = s + np.sum(x * x * w)
        else:
            s = s - np.sum(np.cos(x)) * w[0]
    return s


def decay(a, x):
    y = x
    k = 0
    while k < 3:
        y = y * a + np.tanh(y)
        k += 1
    return np.sum(y**2)


def rows_of(X, w):
    total = 0.0
    rows = []
    for row in X:
        v = np.dot(row, w)
        total += v**2
        rows.append(np.tanh(v))
    return total + sum(rows) + rows[-1] * 2


def unread(x, y):
    return np.sum(x**2)
"""

#: The --wrt parameters of each function, and its arguments.
WRT = {
    "mlp": ["W", "b"],
    "poly": ["x", "y"],
    "mixed": ["a", "x"],
    "three": ["A", "x", "c"],
    "elements": ["x", "y"],
    "slices": ["x", "y"],
    "shaped": ["x", "y"],
    "keywords": ["x", "y"],
    "looped": ["x", "y"],
    "orbit": ["x", "w"],
    "decay": ["a", "x"],
    "rows_of": ["X", "w"],
}
CHECKED = [
    "mlp",
    "poly",
    "mixed",
    "three",
    "elements",
    "slices",
    "shaped",
    "keywords",
    "looped",
    "orbit",
    "decay",
    "rows_of",
]


def arguments(name: str) -> tuple:
    r = RNG.normal
    return {
        "mlp": lambda: (r(size=(3, 2)), r(size=2), r(size=(5, 3)), r(size=5)),
        "poly": lambda: (0.7, -1.3),
        "mixed": lambda: (0.4, r(size=5)),
        "three": lambda: (r(size=(3, 3)), r(size=3), 1.7),
        "elements": lambda: (r(size=2), r(size=2)),
        "slices": lambda: (r(size=5), r(size=5)),
        "shaped": lambda: (r(size=3), r(size=(2, 2))),
        "keywords": lambda: (r(size=3), r(size=3)),
        "looped": lambda: (r(size=3), r(size=3)),
        "orbit": lambda: (r(size=4), r(size=4)),
        "decay": lambda: (0.8, r(size=3)),
        "rows_of": lambda: (r(size=(3, 2)), r(size=2)),
    }[name]()


def load(text: str) -> dict:
    namespace: dict = {}
    exec(compile(text, "<generated>", "exec"), namespace)  # noqa: S102 - the tool's output
    return namespace


@pytest.fixture(scope="module", params=["batched", "loop"])
def modules(request) -> dict:
    """The grad, hvp and hess modules of SOURCE's functions; the hess sweeps batched or looped."""
    batch = batched.BATCH_ROWS
    batched.BATCH_ROWS = request.param == "batched"
    try:
        out = {
            mode: load(generate(SOURCE, "blocks.py", list(WRT), WRT, mode=mode).text)
            for mode in ("grad", "hvp", "hessian")
        }
    finally:
        batched.BATCH_ROWS = batch
    out["form"] = request.param
    return out


def hvp(modules: dict, name: str, args: tuple, vs: list) -> tuple:
    """``hvp_NAME(*args, v_A=..., v_B=...)`` (keyword-only after a parameter with a default)."""
    return modules["hvp"]["hvp_" + name](*args, **{"v_" + w: v for w, v in zip(WRT[name], vs, strict=True)})


def shift(args: tuple, n: int, vs: list, t: float) -> tuple:
    """The first ``n`` arguments moved by ``t * v``."""
    moved = [a + t * v if np.ndim(a) else float(a + t * v) for a, v in zip(args[:n], vs, strict=True)]
    return (*moved, *args[n:])


def directional(grad, args: tuple, n: int, vs: list, eps: float = 1e-5) -> list:
    """Central differences of the gradients ``grad(*args)[1:]`` along ``(v_A, v_B, ...)``: ``H @ v``."""
    up, down = grad(*shift(args, n, vs, eps)), grad(*shift(args, n, vs, -eps))
    return [(np.asarray(u) - np.asarray(d)) / (2 * eps) for u, d in zip(up[1:], down[1:], strict=True)]


def numeric_block(grad, args: tuple, p: int, q: int, eps: float = 1e-5) -> np.ndarray:
    """Central differences of the gradient of parameter ``p`` with respect to parameter ``q``:
    ``H_pq[i..., j...] = d dP[i...] / d Q[j...]``, of shape ``P.shape + Q.shape``."""
    x = np.asarray(args[q], dtype=float)
    columns = []
    for k in range(x.size):
        e = np.zeros(x.shape)
        e.flat[k] = eps
        up = [*args[:q], x + e if x.ndim else float(x + e), *args[q + 1 :]]
        down = [*args[:q], x - e if x.ndim else float(x - e), *args[q + 1 :]]
        columns.append((np.asarray(grad(*up)[1 + p]) - np.asarray(grad(*down)[1 + p])) / (2 * eps))
    P = np.shape(args[p])
    return np.moveaxis(
        np.array(columns).reshape(x.shape + P), list(range(x.ndim)), list(range(len(P), len(P) + x.ndim))
    )


@pytest.mark.parametrize("name", CHECKED)
def test_hvp_against_central_differences_of_the_gradient(modules, name):
    n = len(WRT[name])
    args = arguments(name)
    grad = modules["grad"]["grad_" + name]
    for _ in range(3):
        vs = [RNG.normal(size=np.shape(a)) if np.ndim(a) else float(RNG.normal()) for a in args[:n]]
        out = hvp(modules, name, args, vs)
        assert len(out) == 1 + 2 * n
        value, grads = grad(*args)[0], grad(*args)[1:]
        assert np.isclose(out[0], value, rtol=1e-13)
        for d, expected in zip(out[1 : 1 + n], grads, strict=True):
            assert np.allclose(d, expected, rtol=1e-13, atol=1e-15)
        numeric = directional(grad, args, n, vs)
        for a, hv, expected in zip(args[:n], out[1 + n :], numeric, strict=True):
            assert np.shape(hv) == np.shape(a)
            scale = max(1.0, np.abs(expected).max())
            assert np.abs(np.asarray(hv) - expected).max() <= 1e-6 * scale, (name, hv, expected)


@pytest.mark.parametrize("name", CHECKED)
def test_hessian_blocks_against_differences_symmetry_and_hvp(modules, name):
    n = len(WRT[name])
    args = arguments(name)
    grad = modules["grad"]["grad_" + name]
    out = modules["hessian"]["hess_" + name](*args)
    assert len(out) == 2 + n and np.isclose(out[0], grad(*args)[0], rtol=1e-13)
    H = out[-1]
    assert isinstance(H, tuple) and len(H) == n and all(isinstance(row, tuple) and len(row) == n for row in H)
    for p in range(n):
        for q in range(n):
            P, Q = np.shape(args[p]), np.shape(args[q])
            block = np.asarray(H[p][q])
            assert block.shape == P + Q
            expected = numeric_block(grad, args, p, q)
            scale = max(1.0, np.abs(expected).max())
            assert np.abs(block - expected).max() <= 1e-6 * scale, (name, p, q)
            # symmetric: H_pq[i, j] == H_qp[j, i]
            other = np.asarray(H[q][p]).reshape(int(np.prod(Q)), int(np.prod(P)))
            assert np.abs(block.reshape(int(np.prod(P)), int(np.prod(Q))) - other.T).max() <= 1e-12 * scale
    vs = [RNG.normal(size=np.shape(a)) if np.ndim(a) else float(RNG.normal()) for a in args[:n]]
    products = hvp(modules, name, args, vs)[1 + n :]
    for p in range(n):  # Hv_p = sum_q H_pq v_q
        contracted = sum(np.tensordot(np.asarray(H[p][q]), vs[q], axes=np.ndim(vs[q])) for q in range(n))
        assert np.allclose(contracted, products[p], rtol=1e-10, atol=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["mlp", "poly", "mixed", "three", "slices"])
def test_blocks_equal_jax_hessian_argnums(modules, name):
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    namespace: dict = {}
    exec(SOURCE.replace("import numpy as np", "import jax.numpy as np"), namespace)  # noqa: S102 - our test source
    n = len(WRT[name])
    args = arguments(name)
    expected = jax.hessian(namespace[name], argnums=tuple(range(n)))(*args)
    H = modules["hessian"]["hess_" + name](*args)[-1]
    for p in range(n):
        for q in range(n):
            np.testing.assert_allclose(H[p][q], np.asarray(expected[p][q]), rtol=1e-11, atol=1e-12)


def test_the_text_of_the_blocks():
    two = {"mlp": WRT["mlp"], "keywords": WRT["keywords"]}
    text = generate(SOURCE, "blocks.py", list(two), two, mode="hessian").text
    assert "def hess_mlp(W, b, X, y):" in text
    assert "return mlp, dW, db, ((H_W_W, H_W_b), (H_b_W, H_b_b))" in text
    assert "H_W_b = np.empty((np.size(W),) + np.shape(b))" in text and "v_b = _rows_seed(b, _k_1, _step_1)" in text
    assert "by blocks: H = ((H_W_W, H_W_b), (H_b_W, H_b_b)), H_W_b.shape == np.shape(W) + np.shape(b)." in " ".join(
        text.split()
    )
    hvp = generate(SOURCE, "blocks.py", list(two), two, mode="hvp").text
    assert "def hvp_mlp(W, b, X, y, v_W, v_b):" in hvp and "return mlp, dW, db, Hv_W, Hv_b" in hvp
    assert "def hvp_keywords(x, y, scale=2.0, *, v_x, v_y):" in hvp  # (after a default: keyword-only)
    assert "Hv_W = H_W_W @ v_W + H_W_b @ v_b; Hv_b = H_b_W @ v_W + H_b_b @ v_b" in " ".join(hvp.split())
    # a parameter called v_x: the seed is v_x_
    clash = "import numpy as np\n\n\ndef f(x, v_x):\n    return np.sum(x * v_x * v_x)\n"
    assert "def hvp_f(x, v_x, v_x_, v_v_x):" in generate(clash, "c.py", mode="hvp").text


def test_a_number_and_shape_only_parameters(modules):
    # shaped(x, y) reads y's size: its gradient has no x part, H_xy and H_yx are zeros of their shapes
    x, y = arguments("shaped")
    _, dx, dy, ((Hxx, Hxy), (Hyx, Hyy)) = modules["hessian"]["hess_shaped"](x, y)
    assert np.allclose(Hxx, 2.0 * np.size(y) * np.eye(3)) and np.allclose(dy, 2.0) and np.allclose(dx, 8.0 * x)
    assert Hxy.shape == (3, 2, 2) and Hyx.shape == (2, 2, 3) and Hyy.shape == (2, 2, 2, 2)
    assert not Hxy.any() and not Hyx.any() and not Hyy.any()
    # poly(x, y) of two numbers: 0-d blocks, as JAX's
    _, _, _, H = modules["hessian"]["hess_poly"](0.5, 2.0)
    assert all(np.shape(h) == () for row in H for h in row)


def test_no_value_and_the_api():
    x, y = RNG.normal(size=3), RNG.normal(size=3)
    f = api.hessian(_two, wrt=["x", "y"], value=False)
    dx, dy, ((Hxx, Hxy), (Hyx, Hyy)) = f(x, y)
    assert np.allclose(dx, y * y) and np.allclose(dy, 2 * x * y)
    assert not Hxx.any() and np.allclose(Hxy, np.diag(2 * y)) and np.allclose(Hyx, np.diag(2 * y))
    assert np.allclose(Hyy, np.diag(2 * x))
    value, dx2, dy2, hx, hy = api.hvp(_two, wrt=["x", "y"])(x, y, np.ones(3), np.zeros(3))
    assert (
        np.allclose(dx2, dx)
        and np.allclose(dy2, dy)
        and np.allclose(hx, 0.0)
        and np.allclose(hy, 2 * y)
        and np.isclose(value, np.sum(x * y * y))
    )
    assert len(api.hvp(_two, wrt=["x", "y"], value=False)(x, y, np.ones(3), np.ones(3))) == 4
    with pytest.raises(ValueError, match="the tangent v_y must have the shape of y"):
        api.hvp(_two, wrt=["x", "y"])(x, y, np.ones(3), np.ones(4))


def _two(x, y):
    return np.sum(x * y * y)


def refusal(mode: str, name: str, wrt: list[str]) -> UserError:
    with pytest.raises(UserError) as info:
        generate(SOURCE, "blocks.py", [name], {name: wrt}, mode=mode)
    return info.value


@pytest.mark.parametrize("mode", ["hvp", "hessian"])
def test_refusals_are_located(mode):
    unread = refusal(mode, "unread", ["x", "y"])
    assert unread.code == "YS004" and "does not read y" in unread.message and f"--{mode}" in unread.message
    assert unread.line == SOURCE.splitlines().index("def unread(x, y):") + 2
    one = refusal(mode, "unread", ["y"])  # (one parameter: refused alike, not an internal error)
    assert one.code == "YS004" and "does not read y" in one.message
    obj = "import numpy as np\n\n\ndef f(p, x):\n    return np.sum(p['W'] * x * x)\n"
    with pytest.raises(UserError) as info:
        generate(obj, "o.py", ["f"], {"f": ["p", "x"]}, mode=mode)
    assert info.value.code == "YS004" and "object" in info.value.message and info.value.line == 5


def run(*args, cwd):
    return subprocess.run(
        [sys.executable, "-m", "yota_s2s", *args], cwd=cwd, capture_output=True, text=True, check=False
    )


@pytest.mark.parametrize("mode", ["hvp", "hessian"])
def test_verify_checks_the_blocks(tmp_path, mode):
    (tmp_path / "f.py").write_text(SOURCE)
    shapes = ["--shape", "W=3,2", "--shape", "b=2", "--shape", "X=5,3", "--shape", "y=5"]
    done = run("f.py", "--func", "mlp", "--wrt", "W,b", f"--{mode}", "--verify", *shapes, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "OK: " in done.stdout + done.stderr
    done = run(
        "f.py",
        "--func",
        "three",
        f"--{mode}",
        "--verify",
        "--shape",
        "A=3,3",
        "--shape",
        "x=3",
        "--shape",
        "c=",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("mode", ["hvp", "hessian"])
def test_verify_fails_on_a_wrong_block(tmp_path, mode):
    from yota_s2s.verify import verify_generated

    (tmp_path / "f.py").write_text(SOURCE)
    text = generate(SOURCE, "f.py", ["mixed"], mode=mode).text
    shapes = ["x=4", "a="]

    def verdict(t: str) -> int:
        return verify_generated(str(tmp_path / "f.py"), t, None, example=None, shape_specs=shapes, seed=0, value=True)

    assert verdict(text) == 0
    ret = (
        "return mixed, da, dx, Hv_a, Hv_x"
        if mode == "hvp"
        else "return mixed, da, dx, ((H_a_a, H_a_x), (H_x_a, H_x_x))"
    )
    assert ret in text
    wrong = ret.replace("Hv_x", "Hv_x * 1.001") if mode == "hvp" else ret.replace("(H_x_a,", "(H_x_a * 1.001,")
    assert verdict(text.replace(ret, wrong)) == 1
    assert verdict(text.replace(ret, ret.replace("da, dx", "da, dx * 1.001"))) == 1


@pytest.mark.parametrize("mode", ["hvp", "hessian"])
def test_generated_code_is_clean_and_deterministic(tmp_path, mode):
    text = generate(SOURCE, "blocks.py", list(WRT), WRT, mode=mode).text
    assert text == generate(SOURCE, "blocks.py", list(WRT), WRT, mode=mode).text
    (tmp_path / "out.py").write_text(text)
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", str(tmp_path / "out.py")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout
    assert not any(isinstance(node, ast.JoinedStr) for node in ast.walk(ast.parse(text)))
    assert re.findall(r"^import (\w+)", text, re.MULTILINE) == ["numpy"]


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["hvp", "hessian"])
def test_cupy_target_on_a_stand_in(mode, tmp_path, monkeypatch):
    """--target cupy: every CuPy name checked against the installed CuPy, computed by NumPy: the
    same numbers as the NumPy target's."""
    from .test_cupy import load_with_stand_in

    kind = {"hvp": "hvp", "hessian": "hess"}[mode]
    wrt = {"mlp": WRT["mlp"], "mixed": WRT["mixed"]}
    path = tmp_path / f"{kind}_blocks.py"
    path.write_text(generate(SOURCE, "blocks.py", list(wrt), wrt, target="cupy", mode=mode).text)
    log: list[str] = []
    module = load_with_stand_in(path, monkeypatch, log)
    numpy = load(generate(SOURCE, "blocks.py", list(wrt), wrt, mode=mode).text)
    for name in wrt:
        args = arguments(name)
        extra = [RNG.normal(size=np.shape(a)) if np.ndim(a) else float(RNG.normal()) for a in args[:2]]
        extra = extra if mode == "hvp" else []
        ours = getattr(module, f"{kind}_{name}")(*args, *extra)
        expected = numpy[f"{kind}_{name}"](*args, *extra)
        flat = [np.asarray(h) for row in ours[-1] for h in row] if mode == "hessian" else ours
        want = [np.asarray(h) for row in expected[-1] for h in row] if mode == "hessian" else expected
        for a, b in zip(flat, want, strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
    assert log
