"""--jvp in forward mode (transform/forward.py): loops, branches, lists, np.concatenate.

Every jvp_NAME is checked against central differences of the function in random directions
(all the differentiated parameters moved at once), and against ``J @ t`` from the
``jac_NAME`` the tool writes for the same function.
"""

from __future__ import annotations

import numpy as np
import pytest

from yota_s2s.dsl.load import load_rules
from yota_s2s.errors import UserError
from yota_s2s.pipeline import generate

from .test_jacobian import load

RNG = np.random.default_rng(2024)

SOURCE = """import numpy as np


def fixed(x):
    for _ in range(3):
        x = np.sin(x) * 1.5
    return x


def euler(y0, k):
    y = y0
    t = 0.0
    for i in range(20):
        y = y + 0.05 * (-k * y + np.cos(t))
        t = t + 0.05
    return y


def counted(x, n):
    s = 0.0
    for i in range(n):
        s = s + x[i] * x[i + 1]
    return s * x


def until(x):
    while np.sum(x * x) < 100.0:
        x = x * 1.7 + 0.1
    return x


def branch(x, c):
    if np.sum(x) > c:
        y = np.exp(x)
    else:
        y = x * x
    return y * 2.0


def branch_in_loop(x):
    for i in range(4):
        if x[0] > 0.0:
            x = x - 0.3 * np.tanh(x)
        else:
            x = x * 1.1
    return x


def appended(x):
    out = []
    for i in range(3):
        out.append(np.tanh(x * i))
    return np.array(out)


def cat(x):
    return np.concatenate([x, x * 2.0]) * x[0]


def stacked(x, W):
    h = x
    for i in range(2):
        h = np.hstack([np.tanh(W @ h), h[:1]])[: len(x)]
    return np.vstack([h, x])


def square(v):
    return v * v


def helper(x):
    s = x
    for i in range(2):
        s = square(s) * 0.5 + x
    return s


def rows(X, w):
    total = 0.0
    for row in X:
        total = total + np.sum(row * w) ** 2
    return total * w


def nested(x):
    for i in range(2):
        for j in range(3):
            x = x + 0.1 * np.sin(x * j)
    return x


def running(x):
    return np.cumprod(x) * x[0] + np.cumsum(x)


def running_axis(X):
    return np.cumprod(X, axis=1) * np.cumprod(X[::-1], axis=0)


def stops(x):
    for i in range(10):
        x = x * 1.5
        if np.sum(x) > 8.0:
            break
    return x


def many(x, a, c):
    for i in range(2):
        y = np.arctan(x) + np.log1p(x * x) * np.sqrt(a) - np.hypot(x, a) / (1.0 + a)
        z = np.maximum(y, 0.1 * x) + np.clip(x, -0.5, 0.5) * np.power(a, x) + np.abs(x - a) ** 1.5
        x = np.where(x > 0, z, np.exp(z)) * c + np.tanh(a) - np.minimum(x, a) * np.cos(c)
    return x


def widened(x, s, M):
    for i in range(2):
        x = s * x + s * M - x * M[0] + np.sin(s) * np.ones_like(M)
    return x
"""

CASES = {
    "fixed": (lambda: (RNG.standard_normal(4),), None),
    "euler": (lambda: (RNG.standard_normal(3), RNG.uniform(0.5, 1.0, 3)), None),
    "counted": (lambda: (RNG.standard_normal(5), 3), ["x"]),
    "until": (lambda: (RNG.uniform(0.5, 1.0, 3),), None),
    "branch": (lambda: (RNG.standard_normal(3), 0.0), ["x"]),
    "branch_in_loop": (lambda: (RNG.standard_normal(3),), None),
    "appended": (lambda: (RNG.standard_normal(3),), None),
    "cat": (lambda: (RNG.standard_normal(3),), None),
    "stacked": (lambda: (RNG.standard_normal(3), RNG.standard_normal((2, 3))), None),
    "helper": (lambda: (RNG.standard_normal(3),), None),
    "rows": (lambda: (RNG.standard_normal((4, 3)), RNG.standard_normal(3)), None),
    "nested": (lambda: (RNG.standard_normal(3),), None),
    "stops": (lambda: (RNG.uniform(0.5, 1.0, 3),), None),
    "running": (lambda: (RNG.standard_normal(5) * (RNG.uniform(size=5) > 0.4),), None),
    "many": (lambda: (RNG.uniform(0.2, 1.0, 3), RNG.uniform(1.0, 2.0, 3), 0.7), None),
    "widened": (lambda: (RNG.standard_normal(3), 0.8, RNG.standard_normal((2, 3))), None),
    "running_axis": (lambda: (RNG.standard_normal((3, 4)) * (RNG.uniform(size=(3, 4)) > 0.3),), None),
}


def _fd_direction(f, args, wrt, tangents, eps=1e-6):
    """Central differences of ``f`` along ``tangents`` (one per ``wrt`` position)."""
    plus, minus = list(args), list(args)
    for i, t in zip(wrt, tangents):
        plus[i] = args[i] + eps * t
        minus[i] = args[i] - eps * t
    return (np.asarray(f(*plus), dtype=float) - np.asarray(f(*minus), dtype=float)) / (2 * eps)


@pytest.mark.parametrize("name", sorted(CASES))
def test_jvp_through_loops_and_branches(name):
    make, wrt = CASES[name]
    f = load(SOURCE)[name]
    text = generate(SOURCE, "loops.py", [name], wrt=wrt, mode="jvp").text
    jvp = load(text)[f"jvp_{name}"]
    jac = load(generate(SOURCE, "loops.py", [name], wrt=wrt, mode="jacobian").text)[f"jac_{name}"]
    for _ in range(2):
        args = make()
        positions = [i for i in range(len(args)) if wrt is None or f.__code__.co_varnames[i] in wrt]
        tangents = [RNG.standard_normal(np.shape(args[i])) for i in positions]
        value, dvalue = jvp(*args, *tangents)
        np.testing.assert_allclose(value, f(*args), rtol=1e-12, atol=1e-12)
        assert np.shape(dvalue) == np.shape(value)
        expected = _fd_direction(f, args, positions, tangents)
        np.testing.assert_allclose(dvalue, expected, rtol=1e-6, atol=1e-7)
        _, *jacobians = jac(*args)
        product = sum(np.tensordot(J, t, axes=np.ndim(t)) for J, t in zip(jacobians, tangents))
        np.testing.assert_allclose(dvalue, product, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("axis", [None, 0, 1])
def test_cumprod_tangent_is_the_transpose_of_its_adjoint(axis):
    """``_cumprod_jvp`` (J @ t, exact with zeros) against ``_cumprod_dx`` (J.T @ u): u . J t == J.T u . t,
    and against the sequential recurrence where the doubling's products overflow."""
    from yota_s2s.runtime.core import _cumprod_dx, _cumprod_jvp

    x = RNG.standard_normal((4, 6)) * (RNG.uniform(size=(4, 6)) > 0.3)
    c = np.cumprod(x, axis=axis)
    t, u = RNG.standard_normal(x.shape), RNG.standard_normal(c.shape)
    jt = _cumprod_jvp(t, x, c, axis=axis)
    assert jt.shape == c.shape
    np.testing.assert_allclose(np.sum(u * jt), np.sum(_cumprod_dx(u, x, c, axis=axis) * t), rtol=1e-12)
    flat = x.reshape(-1) if axis is None else np.moveaxis(x, axis, -1)
    ts = t.reshape(-1) if axis is None else np.moveaxis(t, axis, -1)
    cs = np.cumprod(flat, axis=-1)
    dc = np.zeros_like(cs)  # the recurrence, one step at a time
    dc[..., 0] = ts[..., 0]
    for i in range(1, flat.shape[-1]):
        dc[..., i] = flat[..., i] * dc[..., i - 1] + cs[..., i - 1] * ts[..., i]
    np.testing.assert_allclose(jt, dc if axis is None else np.moveaxis(dc, -1, axis), rtol=1e-12, atol=1e-14)


def test_jvp_of_a_loop_carries_tangents():
    """No stack in forward mode: the loop carries (value, tangent) pairs, each step after the value's."""
    text = generate(SOURCE, "loops.py", ["until"], mode="jvp").text
    body = text[text.index("def jvp_until") :]
    assert "while np.sum(x_1 * x_1) < 100.0:" in body
    assert "dvalue = dvalue * 1.7" in body and "_stack" not in body and "# backward\n    if" in body
    text = generate(SOURCE, "loops.py", ["appended"], mode="jvp").text
    assert "dvalue = np.array(out_dot)" in text


def test_jvp_without_loops_is_still_the_transposed_vjp():
    """Where the VJP transposes (no loop, a rule for every gradient operand) --jvp writes it as before."""
    text = generate(SOURCE, "loops.py", ["square"], mode="jvp").text
    assert "# grad of: return v * v" in text


def test_refusals_stay_located():
    """A primitive whose tangent can be neither derived nor written (no rule for det's gradient
    operand, no forward formula) is YS107 at the call, not a wrong derivative; np.sort's tangent is
    derived (its gradient's adjoint: runtime/second.py)."""
    source = (
        "import numpy as np\n\n\ndef f(x):\n    for i in range(2):\n        x = np.linalg.det(x) * x\n    return x\n"
    )
    with pytest.raises(UserError, match=r"no tangent of det\(\) with respect to 'x'") as error:
        generate(source, "f.py", mode="jvp")
    assert error.value.code == "YS107" and error.value.line == 6
    source = "import numpy as np\n\n\ndef f(x):\n    for i in range(2):\n        x = np.sort(x) * x\n    return x\n"
    f, jvp = load(source)["f"], load(generate(source, "f.py", mode="jvp").text)["jvp_f"]
    x, t = np.array([0.3, -1.2, 0.8, 2.0]), np.array([1.0, 0.5, -0.25, 2.0])
    np.testing.assert_allclose(jvp(x, t)[1], _fd_direction(f, (x,), [0], [t]), rtol=1e-7, atol=1e-9)


def test_forward_formulas_of_the_rules():
    """The rules that give ``out_dot`` are those whose VJP cannot be transposed, and ``stack``, whose
    transposed ``take`` would be a sum of one ``_untake`` per operand."""
    table = load_rules()
    given = sorted(name for name, rule in table.rules.items() if rule.tangent is not None)
    assert given == ["concatenate", "cumprod", "hstack", "list_append", "list_make", "list_stack", "stack", "vstack"]


# ---------------------------------------------------------------------------- second order through loops

SCALARS = """import numpy as np


def looped(x):
    s = 0.0
    for i in range(3):
        x = np.sin(x) * 1.5
        s = s + np.sum(x * x)
    return s


def counted(x, n):
    s = 0.0
    for i in range(n):
        s = s + x[i] ** 2 * x[i + 1]
    return s


def until(x):
    while np.sum(x * x) < 50.0:
        x = x * 1.7 + 0.1 * np.sin(x)
    return np.sum(x**3)


def branch(x):
    if np.sum(x) > 0:
        y = np.exp(x)
    else:
        y = x * x * x
    return np.sum(y * 2.0)


def branch_in_loop(x):
    for i in range(4):
        if x[0] > 0.0:
            x = x - 0.3 * np.tanh(x)
        else:
            x = x * 1.1
    return np.sum(x * x * x)


def appended(x):
    out = []
    for i in range(3):
        out.append(np.tanh(x * (i + 1)))
    return np.sum(np.array(out) ** 2)


def energy(x, W):
    h = x
    for i in range(3):
        h = np.tanh(W @ h) + 0.5 * h
    return np.sum(h * h) + np.sum(np.cumsum(x) ** 2)


def nested(x):
    s = 0.0
    for i in range(2):
        for j in range(3):
            x = x + 0.1 * np.sin(x * j)
            s = s + np.sum(x) ** 2
    return s


def stops(x):
    for i in range(10):
        x = x * 1.5 + 0.1 * x * x
        if np.sum(x) > 8.0:
            break
    return np.sum(np.exp(x))
"""

SCALAR_CASES = {
    "looped": (lambda: (RNG.standard_normal(4),), None),
    "counted": (lambda: (RNG.standard_normal(5), 3), ["x"]),
    "until": (lambda: (RNG.uniform(0.5, 1.0, 3),), None),
    "branch": (lambda: (RNG.standard_normal(3),), None),
    "branch_in_loop": (lambda: (RNG.standard_normal(3),), None),
    "appended": (lambda: (RNG.standard_normal(3),), None),
    "energy": (lambda: (RNG.standard_normal(3), RNG.standard_normal((3, 3))), ["x"]),
    "stops": (lambda: (RNG.uniform(0.5, 1.0, 3),), None),
    "nested": (lambda: (RNG.standard_normal(3),), None),
}


@pytest.mark.parametrize("name", sorted(SCALAR_CASES))
def test_hvp_and_hessian_through_loops_and_branches(name):
    """hvp_NAME, forward over reverse, against central differences of the gradient along v, and
    hess_NAME against hvp_NAME with each unit vector, against finite differences, and symmetric."""
    make, wrt = SCALAR_CASES[name]
    f = load(SCALARS)[name]
    hvp = load(generate(SCALARS, "second.py", [name], wrt=wrt, mode="hvp").text)[f"hvp_{name}"]
    hess = load(generate(SCALARS, "second.py", [name], wrt=wrt, mode="hessian").text)[f"hess_{name}"]
    eps = 1e-6
    for _ in range(2):
        args = make()
        x, rest = args[0], args[1:]
        v = RNG.standard_normal(x.shape)
        value, g, hv = hvp(x, *rest, v)
        np.testing.assert_allclose(value, f(*args), rtol=1e-12)
        g_plus = hvp(x + eps * v, *rest, v)[1]
        g_minus = hvp(x - eps * v, *rest, v)[1]
        np.testing.assert_allclose(hv, (g_plus - g_minus) / (2 * eps), rtol=1e-5, atol=1e-6)
        f_plus = f(x + eps * v, *rest)  # the gradient itself, against the function
        f_minus = f(x - eps * v, *rest)
        np.testing.assert_allclose(np.sum(g * v), (f_plus - f_minus) / (2 * eps), rtol=1e-5, atol=1e-6)
        value_h, g_h, H = hess(x, *rest)
        np.testing.assert_allclose(value_h, value, rtol=1e-12)
        assert H.shape == x.shape + x.shape
        np.testing.assert_allclose(g_h, g, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(H @ v, hv, rtol=1e-10, atol=1e-12)
        rows = np.stack([hvp(x, *rest, e)[2] for e in np.eye(x.size)])
        np.testing.assert_allclose(H, rows, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(H, H.T, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("mode", ["hvp", "hessian"])
def test_second_order_through_loops_is_clean(tmp_path, mode):
    """A tangent pushed beside its value that the backward loop does not read (the value's own in
    hvp_NAME) is popped under a temporary's name: ruff read it as an unused variable (RUF059)."""
    import subprocess
    import sys

    wrt = {name: w or ["x"] for name, (_, w) in SCALAR_CASES.items()}
    text = generate(SCALARS, "second.py", list(wrt), wrt, mode=mode).text
    (tmp_path / "out.py").write_text(text)
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", str(tmp_path / "out.py")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout


def test_hvp_through_a_loop_pushes_the_tangents():
    """The forward loop pushes each saved value's tangent after the values; the backward loop pops both.
    ``np.sin(x) * 1.5`` and its tangent are recomputed from ``x`` and ``x_dot`` (transform/remat.py),
    and ``np.sin(x)`` and ``np.cos(x)`` too: the carried ``x`` keeps its shape, so no value is
    pushed for its shape alone (``loop_shapes.loop_facts``)."""
    text = generate(SCALARS, "second.py", ["looped"], mode="hvp").text
    assert "_stack.append((x_1, x_dot))" in text
    assert "x_3, x_dot_1 = _stack.pop()" in text


def test_second_order_refusals_through_loops_stay_located():
    """A tangent that cannot be derived in the gradient's loop (the Cholesky factor's adjoint) is YS107 at the line."""
    source = (
        "import numpy as np\n\n\ndef f(x):\n    for i in range(2):\n"
        "        x = np.linalg.cholesky(x @ x.T + np.eye(2)) * x\n    return np.sum(x)\n"
    )
    with pytest.raises(UserError, match=r"--hvp takes the tangent of the gradient of f\(\)") as error:
        generate(source, "f.py", mode="hvp")
    assert error.value.code == "YS107" and error.value.line == 6


LINEAR_LOOPS = """\
import numpy as np


def linear(x):
    a = np.zeros(4)
    a[1] = x
    for j in range(4):
        a[j] = 0.5 * a[j] + np.sin(x - x)
    return np.sum(a)


def other(x, y):
    a = np.zeros(4)
    a[0] = np.sum(y.reshape(-1) * x)
    for j in range(4):
        a[j] = 0.5 * a[j] + np.sin(np.sum(-y))
    return a[1] + np.sum(a) + np.sum(x**3)
"""


@pytest.mark.parametrize("mode", ["hvp", "hessian"])
def test_second_order_where_the_backward_loop_reads_no_tangent(mode):
    """Found by a fuzz of the second-order modes: the forward loop pushed its values' tangents while
    the backward loop, whose adjoints have none (a function linear in x there), popped the values
    alone ('too many values to unpack' when it ran); and hess_NAME wrote the backward loop before
    the rows, apart from the forward loop whose index it shares (an internal error)."""
    namespace = load(LINEAR_LOOPS)
    second = load(
        generate(LINEAR_LOOPS, "f.py", ["linear", "other"], {"linear": ["x"], "other": ["x"]}, mode=mode).text
    )
    x, y, v = np.array([0.3, -1.1, 0.8, 2.0]), np.array([0.5, -0.2, 1.5, 0.1]), np.array([1.0, -2.0, 0.5, 0.25])
    fn = "hvp" if mode == "hvp" else "hess"
    value, dx, hx = second[f"{fn}_linear"](0.3, *([1.0] if mode == "hvp" else []))
    assert value == pytest.approx(namespace["linear"](0.3)) and dx == pytest.approx(0.5) and hx == 0.0
    value, dx, hx = second[f"{fn}_other"](x, y, *([v] if mode == "hvp" else []))
    hessian = np.diag(6.0 * x)  # the loop part is linear in x
    assert value == pytest.approx(namespace["other"](x, y), rel=1e-13)
    np.testing.assert_allclose(hx, hessian @ v if mode == "hvp" else hessian, rtol=1e-12, atol=1e-12)


TWO_LOOPS = """\
import numpy as np


def f(x, y):
    a = np.zeros(3)
    a[0] = np.sin(y)
    c = 0.0
    for j in range(3):
        a[j] = 0.5 * a[j - 1] + np.sin(y)
        c = c + np.tanh(a[j] * y)
    for i in range(2):
        c = c + 0.25 * np.cos(c * np.sum(np.tanh((x @ x) @ (x @ x))))
    return c
"""


def test_hessian_rows_each_start_the_loops_from_their_own_values():
    """Found by the fuzz of the modes: a loop that reads no seed, moved into the rows with the one
    that does, carried ``a`` under the name of its initial value made before the rows, so each row
    started from the last row's ``a`` (rows after the first wrong, exit 0). Each row now makes the
    initial values of its loops; H against hvp of the unit vectors and central differences."""
    wrt = {"f": ["x"]}
    hess = load(generate(TWO_LOOPS, "f.py", ["f"], wrt, mode="hessian").text)["hess_f"]
    hvp = load(generate(TWO_LOOPS, "f.py", ["f"], wrt, mode="hvp").text)["hvp_f"]
    grad = load(generate(TWO_LOOPS, "f.py", ["f"], wrt).text)["grad_f"]
    x, y = RNG.standard_normal((3, 3)) * 0.5, 0.7
    H = hess(x, y)[2].reshape(9, 9)
    units = [e.reshape(3, 3) for e in np.eye(9)]
    rows = np.stack([np.ravel(hvp(x, y, v=e)[2]) for e in units])
    eps = 1e-5
    numeric = np.stack([np.ravel(grad(x + eps * e, y)[1] - grad(x - eps * e, y)[1]) / (2 * eps) for e in units])
    np.testing.assert_allclose(H, rows, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(H, numeric, rtol=1e-5, atol=1e-6)


LOOP_IN_BRANCH = """\
import numpy as np

DEBUG = False


def settle(y, z):
    t = 0.5 * y[-1]
    if not DEBUG:
        for _ in y:
            t = 0.5 * t + np.tanh(z[1])
        b = 0.25
    else:
        b = np.exp(1.0)
    return np.sum(t) + b
"""


@pytest.mark.parametrize("mode", ["hvp", "hessian"])
def test_second_order_through_a_loop_in_a_branch(mode):
    """Found by the fuzz of the modes (seed 3000788): the forward loop, in a branch, pushed its
    values' tangents; the backward loop, in the backward branch, whose adjoints have none (f is
    linear in y), popped the values alone because its branch carried no tangent and was left as it
    was (a TypeError where hvp_NAME ran).  A backward branch is now transformed where a loop in it
    pops tangents."""
    namespace = load(LOOP_IN_BRANCH)
    second = load(generate(LOOP_IN_BRANCH, "f.py", ["settle"], {"settle": ["y"]}, mode=mode).text)
    y, z, v = np.array([[0.3], [-1.1], [0.8]]), [0.2, 0.7], np.array([[1.0], [-2.0], [0.5]])
    fn = "hvp" if mode == "hvp" else "hess"
    value, dy, hy = second[f"{fn}_settle"](y, z, *([v] if mode == "hvp" else []))
    assert value == pytest.approx(namespace["settle"](y, z), rel=1e-13)
    np.testing.assert_allclose(dy.ravel(), [0.0, 0.0, 0.5**4], rtol=1e-13)
    assert np.shape(hy) == (y.shape if mode == "hvp" else y.shape + y.shape) and not np.any(hy)
