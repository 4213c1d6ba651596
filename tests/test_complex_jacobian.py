"""The complex Jacobian (issue 24, docs/complex.md#jacobians): ``--jacobian`` of a function with
complex values writes J[i, j] = d f_i / d z_j, the complex derivative of a holomorphic f.  Each is
checked against central differences along 1 and along 1j (a holomorphic f has d f / d Re z = J and
d f / d Im z = 1j J), and against JAX's jacfwd/jacrev(holomorphic=True) where JAX is installed;
the rows written out, the loop over the rows, a batch of points, real arguments, --verify, and the
refusals of the non-holomorphic primitives, located."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from yota_s2s.errors import UserError, UserErrors
from yota_s2s.ir.modes import JACOBIAN
from yota_s2s.pipeline import generate
from yota_s2s.verify import check_grads
from yota_s2s.verify_modes import as_gradient

RNG = np.random.default_rng(24)
EPS = 1e-6


def src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def load(text: str) -> dict:
    namespace: dict = {}
    exec(compile(text, "<t>", "exec"), namespace)  # noqa: S102 - the test's source, the tool's output
    return namespace


def jac_of(source: str, name: str, **kwargs):
    text = generate(src(source), "t.py", [name], mode="jacobian", **kwargs).text
    return load(src(source))[name], load(text)[f"jac_{name}"], text


def fd_jacobian(f, args: list, i: int, direction: complex) -> np.ndarray:
    """Central differences of ``f(*args)`` with respect to ``args[i]`` along ``direction`` (1 or 1j)."""
    x = np.asarray(args[i], dtype=complex)
    value = np.asarray(f(*args))
    out = np.zeros(value.shape + x.shape, complex)
    for idx in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[idx] += EPS * direction
        down[idx] -= EPS * direction
        hi = f(*args[:i], up if x.ndim else up[()], *args[i + 1 :])
        lo = f(*args[:i], down if x.ndim else down[()], *args[i + 1 :])
        out[(...,) + idx] = (np.asarray(hi) - np.asarray(lo)) / (2 * EPS)
    return out


def check_holomorphic(f, jac, args: list) -> list[np.ndarray]:
    """``jac(*args)`` against differences along 1 (J) and along 1j (1j J) for each argument."""
    value, *jacobians = jac(*args)
    np.testing.assert_allclose(value, f(*args), rtol=1e-12, atol=1e-12)
    for i, J in enumerate(jacobians):
        assert J.shape == np.shape(value) + np.shape(args[i])
        assert np.iscomplexobj(J)
        np.testing.assert_allclose(J, fd_jacobian(f, args, i, 1.0), rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(1j * J, fd_jacobian(f, args, i, 1j), rtol=1e-6, atol=1e-7)
    return jacobians


def cpoint(*shape) -> np.ndarray:
    return RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)


# ---------------------------------------------------------------- the systems, in several forms

KATSURA3 = """
import numpy as np

A = (0.8 + 0.6j, -0.3 + 1.1j)


def katsura(x):
    return np.array([
        x[0] * x[0] + 2.0 * (x[1] * x[1] + x[2] * x[2] + x[3] * x[3]) - A[0] * x[0],
        2.0 * (x[0] * x[1] + x[1] * x[2] + x[2] * x[3]) - x[1],
        2.0 * (x[0] * x[2] + x[1] * x[3]) + x[1] * x[1] - (1 - 2j) * x[2],
        x[0] + 2.0 * (x[1] + x[2] + x[3]) - A[1],
    ])
"""

KATSURA_LOOP = """
import numpy as np


def katsura(x):
    rows = []
    for m in range(4):
        s = -(0.5 + 0.5j) * x[m]
        for l in range(m - 4, 5):
            s = s + x[abs(l)] * x[abs(m - l)]
        rows.append(s)
    rows.append(x[0] + 2.0 * np.sum(x[1:]) - 1.0j)
    return np.array(rows)
"""

CYCLIC5 = """
import numpy as np


def cyclic(x):
    n = 5
    rows = []
    for k in range(1, n):
        s = 0.0
        for i in range(n):
            p = 1.0
            for j in range(k):
                p = p * x[(i + j) % n]
            s = s + p
        rows.append(s)
    rows.append(x[0] * x[1] * x[2] * x[3] * x[4] - (0.6 + 0.8j))
    return np.array(rows)
"""

DECLARED = """
import numpy as np


def field(z: complex, w: np.complex128):
    return np.array([
        np.exp(z[0] * w) / (z[1] + 2.0),
        np.sin(z[0]) * np.cosh(z[1]) + w ** 3,
        np.sqrt(z[0] + 3.0) * np.log(z[1] + 4.0) - np.tan(w) ** 2,
    ])
"""

ARRAYS = """
import numpy as np

M = np.array([[1.0 + 1j, 0.5], [-2j, 3.0 - 1j]])


def layer(z: complex):
    return np.tanh(M @ z) * z ** 2 - np.cumsum(z) / (1 + 1j)
"""


@pytest.mark.parametrize(
    ("source", "name", "shape", "written"),
    [
        (KATSURA3, "katsura", (4,), True),
        (KATSURA_LOOP, "katsura", (5,), False),
        (CYCLIC5, "cyclic", (5,), False),
        (ARRAYS, "layer", (2,), False),
    ],
    ids=["katsura3-array", "katsura4-loop", "cyclic5-loop", "tanh-matmul"],
)
def test_complex_system_jacobian(source, name, shape, written):
    f, jac, text = jac_of(source, name)
    assert ("for _k in range(" not in text) == written  # rows written out, or the loop over the rows
    assert "np.conj" not in text  # the complex derivative: no conjugation
    check_holomorphic(f, jac, [cpoint(*shape)])


def test_two_parameters_declared_complex():
    f, jac, _ = jac_of(DECLARED, "field")
    check_holomorphic(f, jac, [cpoint(2), complex(cpoint(1)[0])])


def test_real_arguments_made_complex():
    """The complex derivative at a real point: the arguments are made complex (a real buffer would
    drop the imaginary parts), and J is the one at x + 0j."""
    f, jac, text = jac_of(KATSURA3, "katsura")
    assert "_complex_arg(x, 'jac_katsura', 'x')" in text
    x = RNG.standard_normal(4)
    _, J = jac(x)
    np.testing.assert_array_equal(J, jac(x + 0j)[1])
    check_holomorphic(f, jac, [x.astype(complex)])
    _, jac_loop, _ = jac_of(KATSURA_LOOP, "katsura")
    np.testing.assert_array_equal(jac_loop(list(x) + [0.5])[1], jac_loop(np.append(x, 0.5) + 0j)[1])
    with pytest.raises(TypeError, match=r"jac_katsura\(\): the argument x is of dtype <U1"):
        jac(np.array(["a", "b", "c", "d"]))


def test_batch_of_complex_points():
    """x of shape (n, B): a Jacobian per point (the rows written out are elementwise in x[k])."""
    f, jac, _ = jac_of(KATSURA3, "katsura")
    X = cpoint(4, 6)
    value, J = jac(X)
    assert J.shape == (4, 4, 6)
    np.testing.assert_allclose(value, f(X), rtol=1e-12, atol=1e-12)
    for b in range(6):
        np.testing.assert_allclose(J[:, :, b], jac(X[:, b])[1], rtol=1e-14, atol=1e-14)
    check_holomorphic(f, jac, [X[:, 0]])


def test_against_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    for source, name, shape in [(KATSURA3, "katsura", (4,)), (ARRAYS, "layer", (2,))]:
        _, jac, _ = jac_of(source, name)
        namespace = load(src(source).replace("import numpy as np", "import jax.numpy as np"))
        namespace.update(M=jnp.asarray(load(src(source)).get("M", 0.0)))
        x = cpoint(*shape)
        J = jac(x)[1]
        forward = np.asarray(jax.jacfwd(namespace[name], holomorphic=True)(jnp.asarray(x)))
        reverse = np.asarray(jax.jacrev(namespace[name], holomorphic=True)(jnp.asarray(x)))
        np.testing.assert_allclose(J, forward, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(J, reverse, rtol=1e-12, atol=1e-12)


def test_verify_checks_the_complex_jacobian():
    """--verify's check: real(sum(conj(u) f)) has the gradient u . conj(J); the conjugate Jacobian
    (the mistake of conjugating a holomorphic rule) fails it."""
    f, jac, _ = jac_of(KATSURA3, "katsura")
    u = cpoint(4)
    g, grad_g = as_gradient(JACOBIAN, f, jac, u, complex_values=True)
    check_grads(g, grad_g, {"x": cpoint(4)}, edges=False)

    def conjugated(x):
        value, J = jac(x)
        return value, np.conj(J)

    g, grad_g = as_gradient(JACOBIAN, f, conjugated, u, complex_values=True)
    with pytest.raises(AssertionError):
        check_grads(g, grad_g, {"x": cpoint(4)}, edges=False)


def test_verify_flag(tmp_path, capsys):
    from yota_s2s.cli import main

    path = tmp_path / "katsura.py"
    path.write_text(src(KATSURA3))
    out = tmp_path / "jac_katsura.py"
    assert main([str(path), "--jacobian", "--verify", "--shape", "x=4", "--out", str(out)]) == 0
    assert "jac_katsura match" in capsys.readouterr().out


# ---------------------------------------------------------------- refusals and what is unchanged


def refusal(source: str, **kwargs) -> UserError:
    with pytest.raises((UserError, UserErrors)) as info:
        generate(src(source), "t.py", **kwargs)
    error = info.value
    return error.errors[0] if isinstance(error, UserErrors) else error


@pytest.mark.parametrize(
    ("call", "what"),
    [
        ("np.conj(x[0])", "the conjugate"),
        ("np.real(x[0])", "the real part"),
        ("x[0].imag", "the imaginary part"),
        ("abs(x[0])", "the absolute value"),
        ("np.angle(x[0])", "the angle"),
    ],
)
def test_non_holomorphic_refused(call, what):
    source = f"""
    import numpy as np


    def f(x):
        return np.array([x[1] * 2j, {call} * x[1]])
    """
    error = refusal(source, mode="jacobian")
    assert error.code == "YS023"
    assert what in error.message and "--jacobian of complex values" in error.message
    assert (error.line, error.col) == (5, 33)


def test_vjp_jvp_of_complex_values_are_j_hermitian_dout_and_j_t():
    """(tests/test_complex_modes.py checks them against differences; here J is known.)"""
    source = """
    import numpy as np


    def f(x):
        return np.array([x[0] * 1j, x[1]])
    """
    J = np.array([[1j, 0.0], [0.0, 1.0]])
    x, u = np.array([0.5, -1.0]), np.array([1.0 + 2.0j, -0.5j])
    vjp, jvp = ({} for _ in range(2))
    exec(generate(src(source), "t.py", mode="vjp").text, vjp)  # noqa: S102 - the tool's output
    exec(generate(src(source), "t.py", mode="jvp").text, jvp)  # noqa: S102 - the tool's output
    assert np.allclose(vjp["vjp_f"](x, u)[1], np.real(np.conj(J).T @ u))  # (x is real: the real part)
    assert np.allclose(jvp["jvp_f"](x, u)[1], J @ u)


def test_real_system_unchanged():
    """A real system is not made complex: its arguments are checked real, as before."""
    text = generate(src(KATSURA3.replace("A = (0.8 + 0.6j, -0.3 + 1.1j)", "A = (0.8, -0.3)").replace("(1 - 2j)", "1.5")),
                    "t.py", ["katsura"], mode="jacobian").text  # fmt: skip
    assert "_complex_arg" not in text and "_real_args('jac_katsura', ('x',), (), x)" in text


def test_array_api_target_refused_cupy_written():
    error = refusal(KATSURA3, mode="jacobian", target="array-api")
    assert error.code == "YS022" and "not --target array-api" in error.message
    text = generate(src(KATSURA3), "t.py", ["katsura"], mode="jacobian", target="cupy").text
    assert "x = _complex_arg(x, 'jac_katsura', 'x')" in text and "type(x) is not cp.ndarray" in text


def test_holomorphic_gradient_of_a_real_argument():
    """--holomorphic's grad_NAME at a real point: the argument made complex, where before a real
    buffer of dz dropped its imaginary parts (with a ComplexWarning only) for x of length 3."""
    source = """
    def g(z):
        return 1j * z[0] ** 2 + z[1] * z[0]
    """
    text = generate(src(source), "t.py", ["g"], mode="holomorphic").text
    grad_g = load(text)["grad_g"]
    for z in (np.array([1.0, 2.0, 3.0]), [1.0, 2.0], np.array([1.0, 2.0])):
        _, dz = grad_g(z)
        expected = np.array([2j * z[0] + z[1], z[0], 0.0][: len(z)])
        np.testing.assert_allclose(dz, expected, rtol=1e-15)
        assert np.iscomplexobj(dz)


def test_gradient_through_a_list_of_complex_values():
    """The list primitives (list_make, list_append, list_stack) are linear: their rules hold for complex
    values under the gradient's convention too (dL/dRe + 1j dL/dIm), checked along 1 and 1j."""
    source = """
    import numpy as np


    def loss(z: complex, w):
        rows = []
        for k in range(3):
            rows.append(z[k] * np.exp(1j * w[k]) + z[(k + 1) % 3] ** 2)
        return np.sum(np.abs(np.array(rows)) ** 2)
    """
    f = load(src(source))["loss"]
    grad = load(generate(src(source), "t.py", ["loss"]).text)["grad_loss"]
    z, w = cpoint(3), RNG.standard_normal(3)
    _, dz, dw = grad(z, w)
    for k in range(3):
        e = np.eye(3)[k] * EPS
        expected = (f(z + e, w) - f(z - e, w)) / (2 * EPS) + 1j * (f(z + 1j * e, w) - f(z - 1j * e, w)) / (2 * EPS)
        np.testing.assert_allclose(dz[k], expected, rtol=1e-6)
        np.testing.assert_allclose(dw[k], (f(z, w + e) - f(z, w - e)) / (2 * EPS), rtol=1e-6)
