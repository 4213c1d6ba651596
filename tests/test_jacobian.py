"""--vjp, --jvp and --jacobian: vjp_NAME(..., dout), jvp_NAME(..., x_dot) and jac_NAME(...).

Every Jacobian, vector-Jacobian product and Jacobian-vector product is compared with central finite differences of
the function itself; the polynomial systems (katsura-n, cyclic-5) are written in several forms:
``np.array([...])`` of scalar expressions, ``np.stack``, and array arithmetic.
"""

from __future__ import annotations

import ast
import subprocess
import sys

import numpy as np
import pytest

from yota_s2s import api
from yota_s2s.errors import UserError
from yota_s2s.pipeline import generate
from yota_s2s.transform import differentiate

RNG = np.random.default_rng(24)


# ---------------------------------------------------------------------------- the systems, as source


def katsura_terms(n: int) -> list[str]:
    """The n + 1 equations of katsura-n in the unknowns x[0] .. x[n], as Python expressions."""

    def u(k: int) -> str | None:
        k = abs(k)
        return f"x[{k}]" if k <= n else None

    rows = []
    for m in range(n):
        products = []
        for l in range(-n, n + 1):
            a, b = u(l), u(m - l)
            if a is not None and b is not None:
                products.append(f"{a} * {b}")
        rows.append(" + ".join(products) + f" - x[{m}]")
    rows.append("x[0] + " + " + ".join(f"2.0 * x[{i}]" for i in range(1, n + 1)) + " - 1.0")
    return rows


def cyclic_terms(n: int) -> list[str]:
    """The n equations of cyclic-n in x[0] .. x[n-1]."""
    rows = []
    for k in range(1, n):
        terms = [" * ".join(f"x[{(i + j) % n}]" for j in range(k)) for i in range(n)]
        rows.append(" + ".join(terms))
    rows.append(" * ".join(f"x[{i}]" for i in range(n)) + " - 1.0")
    return rows


def system_source(name: str, terms: list[str], form: str) -> str:
    """A module defining ``name(x)``: the system as ``np.array([...])`` or ``np.stack([...])``."""
    call = {"array": "np.array", "stack": "np.stack"}[form]
    body = ",\n        ".join(terms)
    return f"import numpy as np\n\n\ndef {name}(x):\n    return {call}([\n        {body},\n    ])\n"


ARRAYS = """import numpy as np


def cyclic5_arrays(x):
    y = np.concatenate([x, x])
    e1 = np.sum(x)
    e2 = np.sum(x * y[1:6])
    e3 = np.sum(x * y[1:6] * y[2:7])
    e4 = np.sum(x * y[1:6] * y[2:7] * y[3:8])
    return np.array([e1, e2, e3, e4, np.prod(x) - 1.0])


def squares(x):
    return x * x - np.roll(x, 1)


def two(x, y):
    return x**2 * y - np.sin(x)


def layer(W, v):
    return np.tanh(W @ v)


def scalar(x):
    return np.sum(x**3)
"""


def load(text: str) -> dict:
    namespace: dict = {}
    exec(compile(text, "<generated>", "exec"), namespace)  # noqa: S102 - the tool's output
    return namespace


def numeric_jacobian(f, args, i, eps=1e-6):
    """Central differences of ``f(*args)`` with respect to ``args[i]``: value.shape + args[i].shape."""
    x = np.array(args[i], dtype=float)
    value = np.asarray(f(*args))
    out = np.zeros(value.shape + x.shape)
    for idx in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[idx] += eps
        down[idx] -= eps
        lo = [*args[:i], down, *args[i + 1 :]]
        hi = [*args[:i], up, *args[i + 1 :]]
        out[(Ellipsis, *idx)] = (np.asarray(f(*hi)) - np.asarray(f(*lo))) / (2 * eps)
    return out


def check_jacobian(f, jac, args, wrt=None):
    """``jac(*args)`` against finite differences of ``f``, for each argument (or those of ``wrt``)."""
    value, *jacobians = jac(*args)
    np.testing.assert_allclose(value, f(*args), rtol=1e-12, atol=1e-12)
    for i, J in zip(wrt or range(len(args)), jacobians, strict=True):
        expected = numeric_jacobian(f, args, i)
        assert J.shape == np.shape(value) + np.shape(args[i])
        np.testing.assert_allclose(J, expected, rtol=1e-5, atol=1e-6)


def check_vjp(f, vjp, args, wrt=None):
    """``vjp(*args, dout)`` against ``dout`` contracted with the finite-difference Jacobians."""
    value = np.asarray(f(*args))
    dout = RNG.standard_normal(value.shape)
    got_value, *products = vjp(*args, dout)
    np.testing.assert_allclose(got_value, value, rtol=1e-12, atol=1e-12)
    for i, d in zip(wrt or range(len(args)), products, strict=True):
        J = numeric_jacobian(f, args, i)
        expected = np.tensordot(dout, J, axes=value.ndim)
        assert np.shape(d) == np.shape(args[i])
        np.testing.assert_allclose(d, expected, rtol=1e-5, atol=1e-6)


def check_jvp(f, jvp, args):
    """``jvp(*args, *tangents)`` against the finite-difference Jacobians times the tangents."""
    tangents = [RNG.standard_normal(np.shape(a)) for a in args]
    value, dvalue = jvp(*args, *tangents)
    np.testing.assert_allclose(value, f(*args), rtol=1e-12, atol=1e-12)
    expected = sum(np.tensordot(numeric_jacobian(f, args, i), t, axes=np.ndim(t)) for i, t in enumerate(tangents))
    assert np.shape(dvalue) == np.shape(value)
    np.testing.assert_allclose(dvalue, expected, rtol=1e-5, atol=1e-6)


SYSTEMS = {
    **{f"katsura{n}": katsura_terms(n) for n in (4, 5, 6)},
    "cyclic5": cyclic_terms(5),
}


# ---------------------------------------------------------------------------- polynomial systems


@pytest.mark.parametrize("form", ["array", "stack"])
@pytest.mark.parametrize("name", sorted(SYSTEMS))
def test_polynomial_system_jacobian(name, form):
    source = system_source(name, SYSTEMS[name], form)
    f = load(source)[name]
    n = len(SYSTEMS[name])
    x = RNG.uniform(-1.0, 1.0, n)
    jac = load(generate(source, f"{name}.py", mode="jacobian").text)[f"jac_{name}"]
    check_jacobian(f, jac, (x,))
    vjp = load(generate(source, f"{name}.py", mode="vjp").text)[f"vjp_{name}"]
    check_vjp(f, vjp, (x,))
    jvp = load(generate(source, f"{name}.py", mode="jvp").text)[f"jvp_{name}"]
    check_jvp(f, jvp, (x,))


@pytest.mark.parametrize("name", ["katsura4", "cyclic5"])
def test_polynomial_system_rows_by_a_loop(name, monkeypatch):
    """A value longer than ROWS_WRITTEN is differentiated by a loop over its rows: the same Jacobian."""
    source = system_source(name, SYSTEMS[name], "array")
    monkeypatch.setattr(differentiate, "ROWS_WRITTEN", 2)
    text = generate(source, f"{name}.py", mode="jacobian").text
    assert "for _k in range(np.size(" in text
    f = load(source)[name]
    check_jacobian(f, load(text)[f"jac_{name}"], (RNG.uniform(-1.0, 1.0, len(SYSTEMS[name])),))


def test_rows_written_out_share_the_value():
    """katsura's rows are written out, one reverse sweep each, with no loop, and made one array."""
    source = system_source("katsura4", SYSTEMS["katsura4"], "array")
    text = generate(source, "katsura4.py", mode="jacobian").text
    assert "for _k" not in text
    assert "katsura4 = np.array([" in text
    rows = "np.fromiter([*dx, *dx_1, *dx_2, *dx_3, *dx_4], x.dtype, 25).reshape(5, 5) if x_items is not x"
    assert f"J_x = (\n        {rows}\n" in text  # (the statement broken at 120 characters)
    jac = load(text)["jac_katsura4"]
    f = load(source)["katsura4"]
    x = RNG.uniform(-1.0, 1.0, (5, 3))  # a batch of 3 points: a Jacobian per point, the batch axis last
    value, J = jac(x)
    assert J.shape == (5, 5, 3)
    np.testing.assert_allclose(value, f(x), rtol=1e-12)
    for b in range(3):
        np.testing.assert_allclose(J[..., b], numeric_jacobian(f, (x[:, b],), 0), rtol=1e-5, atol=1e-6)
    # an element that sums x[0]: not elementwise in the rows, so no batch (the gradient of its sum is not
    # a Jacobian per point): the elements must be numbers
    summed = "import numpy as np\n\n\ndef f(x):\n    return np.array([np.sum(x[0]) * x[1], x[0] * x[1]])\n"
    text = generate(summed, "summed.py", mode="jacobian").text
    assert "if f.shape != (2,):" in text
    with pytest.raises(
        ValueError, match=r"jac_f: the Jacobian's rows are the 2 elements of f\(x\), which must be numbers:"
    ):
        load(text)["jac_f"](np.ones((2, 3)))


LOOPS = """import numpy as np


def chain(x):
    out = []
    for i in range(3):
        out.append(x[i] * x[i + 1] - 1.0)
    return np.array(out)


def comprehension(x):
    return np.array([x[i] ** 2 - x[i + 1] for i in range(3)])


def nested(x):
    out = []
    for i in range(3):
        s = 0.0
        for j in range(i + 1):
            s = s + x[j] * x[i]
        out.append(np.sin(s))
    return np.array(out)


def carried(x):
    y = x
    for _ in range(3):
        y = np.tanh(y) * x
    return y


def branch(x):
    if x[0] > 0:
        y = x * x
    else:
        y = -x
    return y + 1.0
"""


@pytest.mark.parametrize("name", ["chain", "comprehension", "nested", "carried", "branch"])
def test_loops_and_branches(name):
    """A list built in a loop, nested loops, a branch: the rows pop a copy of the loops' stacks."""
    f = load(LOOPS)[name]
    jac = load(generate(LOOPS, "loops.py", [name], mode="jacobian").text)[f"jac_{name}"]
    vjp = load(generate(LOOPS, "loops.py", [name], mode="vjp").text)[f"vjp_{name}"]
    for x in (np.array([0.3, -0.7, 1.1, 0.4]), np.array([-0.3, 0.7, -1.1, -0.4])):
        check_jacobian(f, jac, (x,))
        check_vjp(f, vjp, (x,))


def test_cyclic5_array_arithmetic():
    namespace = load(ARRAYS)
    f = namespace["cyclic5_arrays"]
    x = RNG.uniform(-1.0, 1.0, 5)
    check_jacobian(
        f, load(generate(ARRAYS, "arrays.py", ["cyclic5_arrays"], mode="jacobian").text)["jac_cyclic5_arrays"], (x,)
    )
    check_vjp(f, load(generate(ARRAYS, "arrays.py", ["cyclic5_arrays"], mode="vjp").text)["vjp_cyclic5_arrays"], (x,))


# ---------------------------------------------------------------------------- array-valued functions


CASES = {
    "squares": lambda: (RNG.standard_normal(4),),
    "two": lambda: (RNG.standard_normal(3), RNG.standard_normal(3)),
    "layer": lambda: (RNG.standard_normal((3, 4)), RNG.standard_normal(4)),
    "scalar": lambda: (RNG.standard_normal(3),),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_array_valued_functions(name):
    namespace = load(ARRAYS)
    args = CASES[name]()
    jac = load(generate(ARRAYS, "arrays.py", [name], mode="jacobian").text)[f"jac_{name}"]
    check_jacobian(namespace[name], jac, args)
    vjp = load(generate(ARRAYS, "arrays.py", [name], mode="vjp").text)[f"vjp_{name}"]
    check_vjp(namespace[name], vjp, args)


@pytest.mark.parametrize("name", ["squares", "two", "scalar", "layer"])
def test_jvp(name):
    namespace = load(ARRAYS)
    jvp = load(generate(ARRAYS, "arrays.py", [name], mode="jvp").text)[f"jvp_{name}"]
    check_jvp(namespace[name], jvp, CASES[name]())


def test_jvp_of_a_system_is_a_forward_sweep():
    """The transposed sweep of np.array([...]) is written as the stack of the elements' tangents."""
    text = generate(system_source("katsura4", SYSTEMS["katsura4"], "array"), "k.py", mode="jvp").text
    assert "dvalue = np.array([" in text and "_untake" not in text and "dout" not in text


def test_jvp_contracts():
    text = generate(ARRAYS, "arrays.py", ["two"], mode="jvp").text
    assert "def jvp_two(x, y, x_dot, y_dot):" in text
    assert "dvalue = J_x @ x_dot + J_y @ y_dot" in text
    jvp = load(text)["jvp_two"]
    x, y = CASES["two"]()
    with pytest.raises(ValueError, match=r"jvp_two: the tangent y_dot must have the shape of y, \(3,\), not \(2,\)"):
        jvp(x, y, x, np.ones(2))
    (dvalue,) = load(generate(ARRAYS, "arrays.py", ["two"], mode="jvp", value=False).text)["jvp_two"](x, y, x, y)
    np.testing.assert_allclose(dvalue, (2 * x * y - np.cos(x)) * x + x**2 * y)


def test_jvp_goes_forward_where_it_cannot_transpose():
    """np.concatenate (transposed: its parts have their adjoints) and a loop (written in forward mode,
    tests/test_forward_mode.py): both checked against finite differences."""
    cat = "import numpy as np\n\n\ndef cat(x):\n    return np.concatenate([x, x * 2.0]) * x[0]\n"
    loop = "import numpy as np\n\ndef f(x):\n    for _ in range(2):\n        x = np.sin(x)\n    return x\n"
    for source, name in ((cat, "cat"), (loop, "f")):
        f = load(source)[name]
        jvp = load(generate(source, f"{name}.py", mode="jvp").text)[f"jvp_{name}"]
        check_jvp(f, jvp, (RNG.standard_normal(3),))


def test_two_parameters_and_wrt():
    namespace = load(ARRAYS)
    args = CASES["two"]()
    jac = load(generate(ARRAYS, "arrays.py", ["two"], wrt=["y"], mode="jacobian").text)["jac_two"]
    check_jacobian(namespace["two"], jac, args, wrt=[1])
    _, J_y = jac(*args)
    assert J_y.shape == (3, 3)
    np.testing.assert_allclose(J_y, np.diag(args[0] ** 2))


def test_vector_of_a_matrix_shapes():
    W, v = CASES["layer"]()
    value, J_W, J_v = load(generate(ARRAYS, "arrays.py", ["layer"], mode="jacobian").text)["jac_layer"](W, v)
    assert value.shape == (3,) and J_W.shape == (3, 3, 4) and J_v.shape == (3, 4)


def test_a_number_input_and_a_number_value():
    source = "import numpy as np\n\ndef f(a, x):\n    return np.sin(a) * x\n"
    jac = load(generate(source, "f.py", mode="jacobian").text)["jac_f"]
    x = RNG.standard_normal(3)
    _, J_a, J_x = jac(0.3, x)
    assert J_a.shape == (3,) and J_x.shape == (3, 3)
    np.testing.assert_allclose(J_a, np.cos(0.3) * x)
    _, J_a, J_x = jac(0.3, 2.0)  # a number's value: J has the shape of the parameter
    assert np.shape(J_a) == () and np.shape(J_x) == ()
    np.testing.assert_allclose([J_a, J_x], [np.cos(0.3) * 2.0, np.sin(0.3)])


# ---------------------------------------------------------------------------- the contracts


def test_vjp_signature_and_dout_shape():
    text = generate(ARRAYS, "arrays.py", ["two"], mode="vjp").text
    assert "def vjp_two(x, y, dout):" in text
    vjp = load(text)["vjp_two"]
    x, y = CASES["two"]()
    with pytest.raises(ValueError, match=r"vjp_two: dout must have the shape of two\(x, y\), \(3,\), not \(2,\)"):
        vjp(x, y, np.ones(2))


def test_vjp_dout_after_defaults_and_a_name_taken():
    source = "import numpy as np\n\ndef f(dout, scale=2.0):\n    return scale * dout**2\n"
    text = generate(source, "f.py", mode="vjp").text
    assert "def vjp_f(dout, scale=2.0, *, dout_):" in text
    _, d_dout, d_scale = load(text)["vjp_f"](np.array([1.0, 2.0]), 2.0, dout_=np.array([1.0, 1.0]))
    np.testing.assert_allclose(d_dout, [4.0, 8.0])
    assert d_scale == pytest.approx(5.0)


def test_no_value():
    namespace = load(ARRAYS)
    x, y = CASES["two"]()
    (J_x, _) = load(generate(ARRAYS, "arrays.py", ["two"], mode="jacobian", value=False).text)["jac_two"](x, y)
    np.testing.assert_allclose(J_x, numeric_jacobian(namespace["two"], (x, y), 0), rtol=1e-5, atol=1e-6)
    dout = RNG.standard_normal(3)
    _, dy = load(generate(ARRAYS, "arrays.py", ["two"], mode="vjp", value=False).text)["vjp_two"](x, y, dout)
    np.testing.assert_allclose(dy, dout * x**2)


def test_gradients_stay_as_they_were():
    """The default mode writes grad_NAME as before, and refuses an array value naming --jacobian."""
    with pytest.raises(UserError, match="--jacobian") as error:
        generate(ARRAYS, "arrays.py", ["cyclic5_arrays"])
    assert error.value.code == "YS024"
    grad_squares = load(generate(ARRAYS, "arrays.py", ["squares"]).text)["grad_squares"]
    with pytest.raises(ValueError, match="must return a scalar"):  # shapes cannot prove it: checked when it runs
        grad_squares(np.ones(3))
    assert "def grad_scalar(x):" in generate(ARRAYS, "arrays.py", ["scalar"]).text


def test_objects_are_refused():
    source = "import numpy as np\n\ndef f(m, x):\n    return m.W @ x\n"
    with pytest.raises(UserError, match="object") as error:
        generate(source, "f.py", mode="jacobian")
    assert error.value.code == "YS004"


def test_buffers_are_refused():
    with pytest.raises(UserError, match="--buffers") as error:
        generate(ARRAYS, "arrays.py", ["two"], mode="vjp", buffers=True)
    assert error.value.code == "YS043"


def test_generated_code_is_clean_and_deterministic(tmp_path):
    for mode in ("vjp", "jacobian", "jvp"):
        for source in (ARRAYS, system_source("katsura4", SYSTEMS["katsura4"], "array")):
            funcs = ["squares", "two", "scalar"] if mode == "jvp" and source == ARRAYS else None
            text = generate(source, "s.py", funcs, mode=mode).text
            assert text == generate(source, "s.py", funcs, mode=mode).text
            path = tmp_path / f"{mode}.py"
            path.write_text(text)
            ruff = subprocess.run(
                [sys.executable, "-m", "ruff", "check", "--no-cache", str(path)],
                capture_output=True,
                text=True,
                check=False,
            )
            assert ruff.returncode == 0, ruff.stdout
            assert not any(isinstance(node, ast.JoinedStr) for node in ast.walk(ast.parse(text)))


def test_verify_reads_each_mode_as_a_gradient():
    """--verify checks jac_NAME (vjp_NAME, jvp_NAME) as the gradient of sum(u * f): a wrong one fails."""
    from yota_s2s.ir.modes import MODES
    from yota_s2s.verify import check_grads
    from yota_s2s.verify_modes import as_gradient

    f = load(ARRAYS)["two"]
    x, y = CASES["two"]()
    u = RNG.standard_normal(3)
    for kind, mode in (("jac", "jacobian"), ("vjp", "vjp"), ("jvp", "jvp")):
        fn = load(generate(ARRAYS, "arrays.py", ["two"], mode=mode).text)[f"{kind}_two"]
        check_grads(*as_gradient(MODES[mode], f, fn, u), (x, y))

    def wrong(x, y):
        value, J_x, J_y = load(generate(ARRAYS, "arrays.py", ["two"], mode="jacobian").text)["jac_two"](x, y)
        return value, J_x, 2.0 * J_y

    with pytest.raises(AssertionError, match="the gradient for y is wrong"):
        check_grads(*as_gradient(MODES["jacobian"], f, wrong, u), (x, y))


def test_api():
    namespace = load(ARRAYS)
    x, y = CASES["two"]()
    check_jacobian(namespace["two"], api.jacobian(_two), (x, y))
    check_vjp(namespace["two"], api.vjp(_two), (x, y))
    check_jvp(namespace["two"], api.jvp(_two), (x, y))
    assert api.jacobian(_two) is api.jacobian(_two)


def _two(x, y):
    return x**2 * y - np.sin(x)


# ---------------------------------------------------------------------------- the command line


def run(*args, cwd):
    return subprocess.run(
        [sys.executable, "-m", "yota_s2s.cli", *args], capture_output=True, text=True, cwd=cwd, check=False
    )


@pytest.mark.slow
def test_cli_flags(tmp_path):
    (tmp_path / "system.py").write_text(system_source("katsura4", SYSTEMS["katsura4"], "array"))
    for flag, prefix in (("--jacobian", "jac_"), ("--vjp", "vjp_"), ("--jvp", "jvp_")):
        proc = run("system.py", flag, "--out", "grad_sys.py", cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
        text = (tmp_path / "grad_sys.py").read_text()
        assert f"# regenerate: yota-s2s system.py --out grad_sys.py {flag}\n" in text
        assert f"def {prefix}katsura4(" in text
        assert run("system.py", flag, "--out", "grad_sys.py", "--check", cwd=tmp_path).returncode == 0
    stale = run("system.py", "--jacobian", "--out", "grad_sys.py", "--check", cwd=tmp_path)
    assert stale.returncode == 1 and "--jacobian" in stale.stderr
    both = run("system.py", "--vjp", "--jacobian", cwd=tmp_path)
    assert both.returncode == 2 and "not allowed with" in both.stderr
    for flag, prefix in (("--jacobian", "jac_"), ("--vjp", "vjp_"), ("--jvp", "jvp_")):
        verify = run("system.py", flag, "--verify", "--shape", "x=5", cwd=tmp_path)
        assert verify.returncode == 0 and verify.stdout.startswith(f"OK: {prefix}katsura4 matches"), verify.stderr


def test_project_config_mode(tmp_path):
    (tmp_path / "system.py").write_text(system_source("cyclic5", SYSTEMS["cyclic5"], "stack"))
    (tmp_path / "pyproject.toml").write_text(
        '[[tool.yota-s2s.generate]]\nsource = "system.py"\nout = "jac_sys.py"\nmode = "jacobian"\n'
    )
    assert run(cwd=tmp_path).returncode == 0
    text = (tmp_path / "jac_sys.py").read_text()
    assert "# regenerate: yota-s2s system.py --out jac_sys.py --jacobian\n" in text
    assert run("--check", cwd=tmp_path).returncode == 0
    (tmp_path / "pyproject.toml").write_text(
        '[[tool.yota-s2s.generate]]\nsource = "system.py"\nout = "jac_sys.py"\nmode = "hessain"\n'
    )
    bad = run(cwd=tmp_path)
    assert bad.returncode == 2 and "YS007" in bad.stderr


@pytest.mark.parametrize("mode", ["vjp", "jvp", "jacobian"])
def test_cupy_target_on_a_stand_in(mode, tmp_path, monkeypatch):
    """--target cupy: every CuPy name checked against the installed CuPy, computed by NumPy."""
    from .test_cupy import load_with_stand_in

    kind = {"vjp": "vjp", "jvp": "jvp", "jacobian": "jac"}[mode]
    cases = [
        (system_source("katsura4", SYSTEMS["katsura4"], "array"), "katsura4", (RNG.uniform(-1.0, 1.0, 5),)),
        (ARRAYS, "two", CASES["two"]()),
        (ARRAYS, "squares", CASES["squares"]()),
    ]
    if mode != "jvp":
        cases.append((LOOPS, "chain", (np.array([0.3, -0.7, 1.1, 0.4]),)))
    for source, name, args in cases:
        path = tmp_path / f"{kind}_{name}.py"
        path.write_text(generate(source, "s.py", [name], target="cupy", mode=mode).text)
        log: list[str] = []
        fn = getattr(load_with_stand_in(path, monkeypatch, log), f"{kind}_{name}")
        f = load(source)[name]
        {"vjp": check_vjp, "jvp": check_jvp, "jacobian": check_jacobian}[mode](f, fn, args)


def test_a_row_of_a_number_beside_rows_written_out():
    """np.array([x0 * x1, 3.0, x1]): the zero row's buffer was also the others' (separate_buffers
    dropped it: an internal error); the Jacobian against its exact form and central differences."""
    source = "import numpy as np\n\n\ndef f(x):\n    return np.array([x[0] * x[1], 3.0, x[1]])\n"
    jac = load(generate(source, "f.py", mode="jacobian").text)["jac_f"]
    x = np.array([0.7, -1.3])
    value, J = jac(x)
    np.testing.assert_allclose(value, [x[0] * x[1], 3.0, x[1]])
    np.testing.assert_allclose(J, [[x[1], x[0]], [0.0, 0.0], [0.0, 1.0]])
    f = load(source)["f"]
    eps = 1e-6
    numeric = np.stack([(f(x + eps * e) - f(x - eps * e)) / (2 * eps) for e in np.eye(2)], axis=1)
    np.testing.assert_allclose(J, numeric, rtol=1e-8, atol=1e-10)
