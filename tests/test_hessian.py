"""--hvp and --hessian: hvp_NAME(..., v) -> (value, dx, H @ v) and hess_NAME(...) -> (value, dx, H).

Every Hessian is compared with central finite differences of the gradient (``grad_NAME``, generated
separately) and checked symmetric; every Hessian-vector product with ``H @ v`` for random ``v``.
The functions exercise the rules of the primitives the first (backward) sweep writes
(``_unbroadcast``, ``_index_add``, ``_matmul_dx``, ``_matmul_dy``, ``_xtx_dx``, ``_dot_dx``, ...): each
of those rules is verified here, by the second derivatives it gives.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys

import numpy as np
import pytest

from yota_s2s import api
from yota_s2s.codegen.helpers import helper_source
from yota_s2s.errors import UserError
from yota_s2s.pipeline import generate

RNG = np.random.default_rng(2424)

SOURCE = """\
import numpy as np


def rosen(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def mlp(W1, b1, W2, X, y):
    h = np.tanh(X @ W1 + b1)
    p = h @ W2
    return np.mean((p - y) ** 2)


def energy(x):
    return np.sum(x**4) - 2.0 * np.sum(x[:-1] * x[1:]) + 0.5 * np.dot(x, x) + x[0] * x[2] ** 3


def quadratic(A, x):
    return 0.5 * x @ (A @ x) + np.sum(np.sin(x))


def gram(M):
    return np.sum((M.T @ M) ** 2) + np.sum(np.dot(M, M.T) * np.cos(M @ M.T))


def softplus_rows(W, X):
    z = np.dot(X, W)
    return np.sum(np.log(1.0 + np.exp(z)) / (1.0 + np.mean(z * z, axis=0, keepdims=True)))


def vector_matrix(x, A):
    return np.sum(np.exp(0.1 * (x @ A))) + np.sum(np.sqrt(x * x + 1.0)) + np.max(x) * 0.0


def scalar(t, c):
    return np.exp(-t * c) * np.sin(3.0 * t) + t**5 / (1.0 + t * t)


def broadcasting(b, X):
    return np.sum((X + b) ** 3) + np.sum(X * b[None, :] * np.mean(b))


def linear(x, w):
    return np.sum(w * x) + 2.0


def looped(x):
    s = 0.0
    for i in range(3):
        s = s + np.sum(x * x) * i
    return s


def two_products(x):
    return np.linalg.det(x.reshape(2, 2)) + np.sum(x)
"""


#: The --wrt parameter of each function of SOURCE that has a Hessian.
WRT = {
    "rosen": ["x"],
    "mlp": ["W1"],
    "energy": ["x"],
    "quadratic": ["x"],
    "gram": ["M"],
    "softplus_rows": ["W"],
    "vector_matrix": ["x"],
    "scalar": ["t"],
    "broadcasting": ["b"],
    "linear": ["x"],
}


@pytest.fixture(scope="module")
def modules() -> dict:
    """The grad, hvp and hess modules of SOURCE's functions (their --wrt parameter)."""
    wrt = WRT
    out = {}
    for mode in ("grad", "hvp", "hessian"):
        text = generate(SOURCE, "second.py", list(wrt), wrt, mode=mode).text
        namespace: dict = {}
        exec(compile(text, f"<{mode}>", "exec"), namespace)  # noqa: S102 - the tool's output
        out[mode] = namespace
    return out


def arguments(name: str) -> tuple:
    r = RNG.normal
    return {
        "rosen": lambda: (r(size=9),),
        "mlp": lambda: (r(size=(3, 4)), r(size=4), r(size=(4, 2)), r(size=(5, 3)), r(size=(5, 2))),
        "energy": lambda: (r(size=6),),
        "quadratic": lambda: (r(size=(4, 4)), r(size=4)),
        "gram": lambda: (r(size=(3, 2)) * 0.5,),
        "softplus_rows": lambda: (r(size=(3, 2)), r(size=(4, 3))),
        "vector_matrix": lambda: (r(size=3), r(size=(3, 4))),
        "scalar": lambda: (0.7, 1.3),
        "broadcasting": lambda: (r(size=3), r(size=(4, 3))),
        "linear": lambda: (r(size=3), r(size=3)),
    }[name]()


PLACE = {"mlp": 0, "quadratic": 1, "softplus_rows": 0, "vector_matrix": 0, "scalar": 0, "broadcasting": 0}


def numeric_hessian(grad, args: tuple, i: int, eps: float = 1e-5) -> np.ndarray:
    """Central differences of the gradient ``grad(*args)[1]`` with respect to ``args[i]``: the rows of H."""
    x = np.asarray(args[i], dtype=float)
    rows = []
    for k in range(x.size):
        e = np.zeros(x.shape)
        e.flat[k] = eps
        up = [*args[:i], x + e if x.ndim else float(x + e), *args[i + 1 :]]
        down = [*args[:i], x - e if x.ndim else float(x - e), *args[i + 1 :]]
        rows.append((np.asarray(grad(*up)[1]) - np.asarray(grad(*down)[1])) / (2 * eps))
    return np.array(rows).reshape(x.shape + x.shape)


@pytest.mark.parametrize(
    "name",
    ["rosen", "mlp", "energy", "quadratic", "gram", "softplus_rows", "vector_matrix", "scalar", "broadcasting"],
)
def test_hessian_against_finite_differences_of_the_gradient(modules, name):
    args = arguments(name)
    i = PLACE.get(name, 0)
    value, g, H = modules["hessian"]["hess_" + name](*args)
    f_value, f_grad = modules["grad"]["grad_" + name](*args)
    assert np.isclose(value, f_value, rtol=1e-13) and np.allclose(g, f_grad, rtol=1e-13, atol=1e-15)
    x = np.asarray(args[i])
    assert np.shape(H) == x.shape + x.shape
    expected = numeric_hessian(modules["grad"]["grad_" + name], args, i)
    scale = max(1.0, np.abs(expected).max())
    assert np.abs(H - expected).max() <= 1e-6 * scale, (name, np.abs(H - expected).max())
    square = np.reshape(H, (x.size, x.size))
    assert np.abs(square - square.T).max() <= 1e-12 * scale  # symmetric (to rounding)


@pytest.mark.parametrize(
    "name",
    ["rosen", "mlp", "energy", "quadratic", "gram", "softplus_rows", "vector_matrix", "scalar", "broadcasting"],
)
def test_hvp_is_the_hessian_times_v(modules, name):
    args = arguments(name)
    i = PLACE.get(name, 0)
    x = np.asarray(args[i])
    _, _, H = modules["hessian"]["hess_" + name](*args)
    for _ in range(3):
        v = RNG.normal(size=x.shape) if x.ndim else float(RNG.normal())
        value, _, Hv = modules["hvp"]["hvp_" + name](*args, v)
        assert np.shape(Hv) == x.shape
        expected = np.reshape(np.reshape(H, (x.size, x.size)) @ np.reshape(v, -1), x.shape)
        assert np.allclose(Hv, expected, rtol=1e-10, atol=1e-12 * max(1.0, np.abs(H).max()))
        assert np.isclose(value, modules["grad"]["grad_" + name](*args)[0])


def test_a_linear_function_has_a_zero_hessian(modules):
    x, w = arguments("linear")
    value, g, H = modules["hessian"]["hess_linear"](x, w)
    assert value == pytest.approx(np.sum(w * x) + 2.0) and np.array_equal(g, w)
    assert H.shape == (3, 3) and not H.any()
    assert not modules["hvp"]["hvp_linear"](x, w, np.ones(3))[2].any()


def test_rosenbrock_exact():
    """The Hessian of Rosenbrock at (1, 1): [[802, -400], [-400, 200]]."""
    value, g, H = api.hessian(_rosen)(np.ones(2))
    assert value == 0.0 and not g.any()
    assert H.tolist() == [[802.0, -400.0], [-400.0, 200.0]]
    assert api.hvp(_rosen)(np.ones(2), np.array([1.0, 2.0]))[2].tolist() == [2.0, 0.0]


def _rosen(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def _two(x, y):
    return np.sum(x * y * y)


def test_api_wrt_and_shapes():
    x, y = RNG.normal(size=3), RNG.normal(size=3)
    _, dy, H = api.hessian(_two, wrt=["y"])(x, y)
    assert np.allclose(H, np.diag(2 * x)) and np.allclose(dy, 2 * x * y)
    dy_only, H_only = api.hessian(_two, wrt=["y"], value=False)(x, y)
    assert np.allclose(H_only, H) and np.allclose(dy_only, dy)
    with pytest.raises(ValueError, match="the tangent v must have the shape of y"):
        api.hvp(_two, wrt=["y"])(x, y, np.ones(4))
    text = api.gradsource(_two, wrt=["y"], mode="hvp")
    assert "def hvp__two(x, y, v):" in text


# ---------------------------------------------------------------------------- refusals, located


def refusal(source: str, mode: str, wrt=None) -> UserError:
    with pytest.raises(UserError) as info:
        generate(source, "f.py", list(wrt) if isinstance(wrt, dict) else None, wrt, mode=mode)
    return info.value


@pytest.mark.parametrize("mode", ["hvp", "hessian"])
def test_refusals_are_located(mode):
    # (several --wrt parameters: the blocks of H, tests/test_hessian_blocks.py)
    # a loop is no longer refused: forward over reverse (tests/test_forward_mode.py); looped() is 3 * sum(x * x)
    x = np.array([0.5, -1.0, 2.0])
    text = generate(SOURCE, "f.py", ["looped"], wrt={"looped": ["x"]}, mode=mode).text
    namespace: dict = {}
    exec(compile(text, f"<{mode}>", "exec"), namespace)  # noqa: S102 - the tool's output
    got = namespace[f"{'hvp' if mode == 'hvp' else 'hess'}_looped"](x, *([np.ones(3)] if mode == "hvp" else []))
    np.testing.assert_allclose(got[2], 6.0 * np.ones(3) if mode == "hvp" else 6.0 * np.eye(3), rtol=1e-12)
    prod = refusal(SOURCE, mode, {"two_products": ["x"]})
    assert prod.code == "YS107" and "second derivatives through det" in prod.message
    assert "differentiates the gradient of two_products() again" in prod.message
    assert prod.line == SOURCE.splitlines().index("def two_products(x):") + 2


def test_a_vector_value_is_refused():
    error = refusal("import numpy as np\n\n\ndef f(x):\n    return np.zeros(3) + x\n", "hessian")
    assert error.code == "YS024" and error.line == 5


# ---------------------------------------------------------------------------- the command line


def run(*args, cwd):
    return subprocess.run(
        [sys.executable, "-m", "yota_s2s", *args], cwd=cwd, capture_output=True, text=True, check=False
    )


def test_cli_flags_header_and_config(tmp_path):
    (tmp_path / "f.py").write_text(SOURCE)
    done = run("f.py", "--func", "rosen", "--hvp", "--out", "hvp_f.py", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "hvp_f.py").read_text()
    assert "# regenerate: yota-s2s f.py --func rosen --out hvp_f.py --hvp" in text
    assert "def hvp_rosen(x, v):" in text
    assert run("f.py", "--func", "rosen", "--hvp", "--out", "hvp_f.py", "--check", cwd=tmp_path).returncode == 0
    both = run("f.py", "--func", "rosen", "--hvp", "--hessian", cwd=tmp_path)
    assert both.returncode == 2 and "not allowed with argument" in both.stderr
    (tmp_path / "pyproject.toml").write_text(
        '[[tool.yota-s2s.generate]]\nsource = "f.py"\nout = "hess_f.py"\nfunc = ["rosen", "energy"]\nmode = "hessian"\n'
    )
    done = run(cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "hess_f.py").read_text()
    assert "--hessian" in text.splitlines()[3] and "def hess_rosen(x):" in text and "def hess_energy(x):" in text


@pytest.mark.parametrize("mode", ["hvp", "hessian"])
def test_verify_checks_the_second_order_modes(tmp_path, mode):
    (tmp_path / "f.py").write_text(SOURCE)
    done = run("f.py", "--func", "energy", f"--{mode}", "--verify", "--shape", "x=5", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ok" in done.stdout.lower() or "ok" in done.stderr.lower()


@pytest.mark.parametrize("mode", ["hvp", "hessian"])
def test_verify_reads_a_wrapped_docstring(tmp_path, mode):
    """A signature long enough that the docstring naming the parameter is wrapped (it was read
    from one line: --verify raised AttributeError on a plain ridge loss)."""
    (tmp_path / "f.py").write_text(
        "import numpy as np\n\n\ndef ridge(w, X, t, lam=0.1):\n"
        "    r = X @ w - t\n    return 0.5 * r @ r + lam * np.dot(w, w)\n"
    )
    shapes = ["--shape", "w=4", "--shape", "X=6,4", "--shape", "t=6"]
    done = run("f.py", "--wrt", "w", f"--{mode}", "--verify", *shapes, cwd=tmp_path)
    assert done.returncode == 0 and "OK:" in done.stdout, done.stdout + done.stderr
    text = run("f.py", "--wrt", "w", f"--{mode}", cwd=tmp_path).stdout
    assert "with respect to w" not in text  # (the docstring is wrapped there)


@pytest.mark.parametrize("mode", ["hvp", "hessian"])
def test_generated_code_is_clean_and_deterministic(tmp_path, mode):
    wrt = {"mlp": ["W1"], "rosen": ["x"]}
    text = generate(SOURCE, "second.py", list(wrt), wrt, mode=mode).text
    assert text == generate(SOURCE, "second.py", list(wrt), wrt, mode=mode).text
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


def test_cupy_target_text():
    wrt = {"mlp": ["W1"], "rosen": ["x"]}
    for mode in ("hvp", "hessian"):
        text = generate(SOURCE, "second.py", list(wrt), wrt, target="cupy", mode=mode).text
        assert "import cupy as cp" in text and "import numpy" not in text and "np.s_" not in text
        assert ("def hvp_mlp(W1, b1, W2, X, y, v):" in text) == (mode == "hvp")
        assert ("H = cp.empty((cp.size(x),) + cp.shape(x))" in text) == (mode == "hessian")


def test_verify_fails_on_a_wrong_hessian_vector_product(tmp_path, capsys):
    from yota_s2s.verify import verify_generated

    (tmp_path / "f.py").write_text(SOURCE)
    text = generate(SOURCE, "f.py", ["rosen"], mode="hvp").text
    shapes = ["x=6"]
    assert (
        verify_generated(str(tmp_path / "f.py"), text, None, example=None, shape_specs=shapes, seed=0, value=True) == 0
    )
    wrong = text.replace("return rosen, dx, Hv", "return rosen, dx, Hv * 1.001")
    assert wrong != text
    assert (
        verify_generated(str(tmp_path / "f.py"), wrong, None, example=None, shape_specs=shapes, seed=0, value=True) == 1
    )
    wrong_grad = text.replace("return rosen, dx, Hv", "return rosen, dx * 1.001, Hv")
    assert (
        verify_generated(str(tmp_path / "f.py"), wrong_grad, None, example=None, shape_specs=shapes, seed=0, value=True)
        == 1
    )


# ---------------------------------------------------------------------------- the tool on its own output

HV = """\
import numpy as np

from grad_second import grad_rosen, grad_mlp


def hv(x, v):
    _, g = grad_rosen(x)
    return np.sum(g * v)


def hv_mlp(W1, b1, W2, X, y, V):
    value, dW1, db1, dW2, dX, dy = grad_mlp(W1, b1, W2, X, y)
    return np.sum(dW1 * V) + 0.5 * value
"""


def _own_output(tmp_path, target="numpy"):
    """grad_second.py generated from SOURCE, hv.py importing it, and grad_hv.py generated from hv.py."""
    (tmp_path / "second.py").write_text(SOURCE)
    done = run(
        "second.py", "--func", "rosen", "--func", "mlp", "--target", target, "--out", "grad_second.py", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    (tmp_path / "hv.py").write_text(HV)
    return run("hv.py", "--wrt", "hv:x", "--wrt", "hv_mlp:W1", "--out", "grad_hv.py", cwd=tmp_path)


def test_the_tool_differentiates_its_own_output(tmp_path, monkeypatch):
    """hv(x, v) = sum(grad_rosen(x)[1] * v) read through the generated grad_rosen: its gradient is H @ v."""
    done = _own_output(tmp_path)
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "grad_hv.py").read_text()
    assert "_real_args('grad_rosen'" not in text  # (the inner argument checks pass, unlowered)
    monkeypatch.syspath_prepend(str(tmp_path))
    namespace: dict = {}
    exec(compile(text, "grad_hv.py", "exec"), namespace)  # noqa: S102 - the tool's output
    inner: dict = {}
    exec(compile((tmp_path / "grad_second.py").read_text(), "grad_second.py", "exec"), inner)  # noqa: S102
    x, v = RNG.normal(size=7), RNG.normal(size=7)
    value, dx = namespace["grad_hv"](x, v)
    assert value == pytest.approx(np.sum(inner["grad_rosen"](x)[1] * v), rel=1e-13)
    expected = numeric_hessian(inner["grad_rosen"], (x,), 0) @ v
    assert np.allclose(dx, expected, rtol=1e-6, atol=1e-6)
    args = arguments("mlp")
    V = RNG.normal(size=args[0].shape)
    value, dW1 = namespace["grad_hv_mlp"](*args, V)
    H = numeric_hessian(inner["grad_mlp"], args, 0).reshape(V.size, V.size)
    expected = (H @ V.ravel()).reshape(V.shape) + 0.5 * inner["grad_mlp"](*args)[1]
    assert np.allclose(dW1, expected, rtol=1e-6, atol=1e-7)


def test_an_edited_helper_of_a_generated_module_is_refused(tmp_path):
    (tmp_path / "second.py").write_text(SOURCE)
    assert run("second.py", "--func", "mlp", "--out", "grad_second.py", cwd=tmp_path).returncode == 0
    text = (tmp_path / "grad_second.py").read_text()
    edited = text.replace(
        "    if g_shape == shape:\n        return g\n", "    if g_shape == shape:\n        return 2 * g\n"
    )
    assert edited != text
    (tmp_path / "grad_second.py").write_text(edited)
    head, _, hv_mlp = HV.replace("grad_rosen, ", "").partition("\n\n\ndef hv(")
    (tmp_path / "hv.py").write_text(head + "\n\n\n" + hv_mlp.split("\n\n\n", 1)[1])  # hv_mlp alone
    done = run("hv.py", "--wrt", "W1", cwd=tmp_path)
    assert done.returncode == 2 and "(YS031)" in done.stderr
    assert (
        "_unbroadcast() of grad_second.py, a module yota-s2s generated: its text is not the runtime helper's"
        in done.stderr
    )
    assert re.match(r"grad_second\.py:\d+:\d+: error:", done.stderr)
    # without the header, the module is the user's own code, read as any other (its helpers refused as such)
    (tmp_path / "grad_second.py").write_text(text.split("\n", 1)[1])
    done = run("hv.py", "--wrt", "W1", cwd=tmp_path)
    assert done.returncode == 2 and re.match(r"grad_second\.py:\d+:\d+: error: .*\(YS0\d\d\)", done.stderr)


def test_a_function_written_in_the_generated_module(tmp_path):
    """hv written in grad_second.py itself (its header kept); a call of _index_add, whose index is a
    value where the primitive's is static, is refused where it is written."""
    (tmp_path / "second.py").write_text(SOURCE)
    assert run("second.py", "--func", "rosen", "--out", "grad_second.py", cwd=tmp_path).returncode == 0
    text = (tmp_path / "grad_second.py").read_text()
    (tmp_path / "grad_second.py").write_text(
        text + "\n\ndef hv(x, v):\n    _, g = grad_rosen(x)\n    return np.sum(g * v)\n"
    )
    done = run("grad_second.py", "--func", "hv", "--out", "grad_hv.py", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    namespace: dict = {}
    exec(compile((tmp_path / "grad_hv.py").read_text(), "grad_hv.py", "exec"), namespace)  # noqa: S102
    inner: dict = {}
    exec(compile(text, "grad_second.py", "exec"), inner)  # noqa: S102 - the tool's output
    x, v = RNG.normal(size=5), RNG.normal(size=5)
    expected = numeric_hessian(inner["grad_rosen"], (x,), 0) @ v
    value, dx, dv = namespace["grad_hv"](x, v)
    assert value == pytest.approx(np.sum(inner["grad_rosen"](x)[1] * v), rel=1e-13)
    assert np.allclose(dx, expected, rtol=1e-6, atol=1e-6) and np.allclose(dv, inner["grad_rosen"](x)[1])
    for helper in ("_index_add", "_grad_items"):  # (the generator's own text of _index_add)
        added = "" if helper in text else "\n\n" + helper_source(helper, "np")
        call = "_index_add(x, x * 2.0, 0)" if helper == "_index_add" else "_grad_items([x])[0]"
        (tmp_path / "grad_second.py").write_text(text + added + f"\n\n\ndef g(x):\n    return np.sum({call})\n")
        done = run("grad_second.py", "--func", "g", cwd=tmp_path)
        assert done.returncode == 2 and "(YS031)" in done.stderr
        assert f"{helper}() of grad_second.py, a module yota-s2s generated, is not read back yet" in done.stderr


def test_a_scalar_gradient_with_its_fast_path_is_read_back(tmp_path, monkeypatch):
    """grad_NAME of a function of x's elements takes a fast path (x.tolist(), _grad_stack): the general
    path, which computes the same, is the one read; the result matches central differences."""
    (tmp_path / "poly.py").write_text("import numpy as np\n\n\ndef f(x):\n    return x[0] * x[1] ** 3 + np.sin(x[2])\n")
    assert run("poly.py", "--out", "grad_poly.py", cwd=tmp_path).returncode == 0
    text = (tmp_path / "grad_poly.py").read_text()
    assert "x.tolist()" in text and "_grad_stack(x, dx)" in text
    (tmp_path / "hv.py").write_text(
        "import numpy as np\n\nfrom grad_poly import grad_f\n\n\ndef hv(x, v):\n    return np.sum(grad_f(x)[1] * v)\n"
    )
    done = run("hv.py", "--wrt", "x", "--out", "grad_hv.py", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    monkeypatch.syspath_prepend(str(tmp_path))
    namespace: dict = {}
    exec(compile((tmp_path / "grad_hv.py").read_text(), "grad_hv.py", "exec"), namespace)  # noqa: S102
    inner: dict = {}
    exec(compile(text, "grad_poly.py", "exec"), inner)  # noqa: S102 - the tool's output
    for x in (RNG.normal(size=3), [0.3, -1.2, 2.0]):
        v = RNG.normal(size=3)
        value, dx = namespace["grad_hv"](np.asarray(x), v)
        expected = numeric_hessian(inner["grad_f"], (np.asarray(x),), 0) @ v
        assert value == pytest.approx(np.sum(inner["grad_f"](np.asarray(x))[1] * v))
        assert np.allclose(dx, expected, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("mode", ["hvp", "hessian"])
def test_cupy_target_on_a_stand_in(mode, tmp_path, monkeypatch, modules):
    """--target cupy: every CuPy name checked against the installed CuPy, computed by NumPy: the
    same numbers as the NumPy target's."""
    from .test_cupy import load_with_stand_in

    kind = {"hvp": "hvp", "hessian": "hess"}[mode]
    wrt = {"rosen": ["x"], "mlp": ["W1"]}
    path = tmp_path / f"{kind}_second.py"
    path.write_text(generate(SOURCE, "second.py", list(wrt), wrt, target="cupy", mode=mode).text)
    log: list[str] = []
    module = load_with_stand_in(path, monkeypatch, log)
    for name in wrt:
        args = arguments(name)
        extra = (RNG.normal(size=np.shape(args[0])),) if mode == "hvp" else ()
        ours = getattr(module, f"{kind}_{name}")(*args, *extra)
        expected = modules[mode][f"{kind}_{name}"](*args, *extra)
        for a, b in zip(ours, expected, strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
    assert log  # (the stand-in saw CuPy calls)


POLY = """\
import numpy as np


def poly(x):
    return x[0] ** 2 * x[1] + x[1] ** 3 * x[2] - x[0] * x[2] + np.sin(x[2]) * x[3] + (x[3] - x[0]) ** 4


def rosen4(x):
    return 100.0 * (x[1] - x[0] ** 2) ** 2 + (1.0 - x[0]) ** 2 + 100.0 * (x[2] - x[1] ** 2) ** 2 + (1.0 - x[1]) ** 2
"""


@pytest.mark.parametrize("name", ["poly", "rosen4"])
def test_hessian_rows_written_out_for_a_gradient_built_by_elements(name):
    """A function of x[0], ..., x[m-1]: its gradient is built by elements, and hess_NAME writes each row
    of H as its own reverse sweep, straight-line (no loop), checking that x has the shape (m,)."""
    text = generate(POLY, "poly.py", [name], mode="hessian").text
    assert "for _k in range(" not in text and "H = np.array([" in text
    assert f"the Hessian's rows are written for x of shape ({4 if name == 'poly' else 3},)" in text
    hess = load(text)[f"hess_{name}"]
    grad = load(generate(POLY, "poly.py", [name]).text)[f"grad_{name}"]
    n = 4 if name == "poly" else 3
    for x in (RNG.normal(size=n), np.linspace(-0.5, 0.5, n)):
        value, g, H = hess(x)
        assert value == grad(x)[0] and H.shape == (n, n) and np.allclose(g, grad(x)[1], rtol=1e-14)
        expected = numeric_hessian(grad, (x,), 0)
        assert np.abs(H - expected).max() <= 1e-6 * max(1.0, np.abs(expected).max())
        assert np.abs(H - H.T).max() <= 1e-12 * max(1.0, np.abs(H).max())
        v = RNG.normal(size=n)
        assert np.allclose(load(generate(POLY, "poly.py", [name], mode="hvp").text)[f"hvp_{name}"](x, v)[2], H @ v)
    with pytest.raises(ValueError, match=rf"the Hessian's rows are written for x of shape \({n},\), not \({n + 1},\)"):
        hess(np.ones(n + 1))


def load(text: str) -> dict:
    namespace: dict = {}
    exec(compile(text, "<generated>", "exec"), namespace)  # noqa: S102 - the tool's output
    return namespace


@pytest.mark.parametrize("mode", ["hvp", "hessian"])
def test_a_parameter_the_function_does_not_read_is_refused_located(mode):
    """It has no shape to give H (it was an internal error: grad_zeros of nothing); YS004 at the first line."""
    source = "import numpy as np\n\n\ndef f(x, y):\n    return np.sum(np.sin(y) * y)\n"
    with pytest.raises(UserError) as info:
        generate(source, "f.py", ["f"], {"f": ["x"]}, mode=mode)
    assert info.value.code == "YS004" and "does not read x" in info.value.message and info.value.line == 5
    # without --wrt: the parameters it reads (y), and H of y alone
    namespace: dict = {}
    exec(compile(generate(source, "f.py", ["f"], mode=mode).text, mode, "exec"), namespace)  # noqa: S102
    y = np.array([0.3, -1.2])
    kwargs = {"v": np.array([1.0, 0.0])} if mode == "hvp" else {}
    value, dy, h = namespace["hvp_f" if mode == "hvp" else "hess_f"](np.ones(3), y, **kwargs)
    hessian = np.diag(2.0 * np.cos(y) - y * np.sin(y))  # (sin(y) * y)'' per element
    assert value == pytest.approx(np.sum(np.sin(y) * y)) and np.allclose(dy, np.sin(y) + y * np.cos(y))
    assert np.allclose(h, hessian[:, 0] if mode == "hvp" else hessian, rtol=1e-13)
