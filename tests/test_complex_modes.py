"""--vjp and --jvp of complex values (docs/complex.md).

``vjp_NAME(z, dout)`` keeps the gradient's convention: with ``dout`` the cotangent ``dL/dRe(f) + 1j
dL/dIm(f)`` of a real ``L``, it returns ``dL/dRe(z) + 1j dL/dIm(z)`` (``J^H @ dout`` for a holomorphic
``f``, PyTorch's ``vjp``); it is checked against central differences of ``L = real(sum(conj(u) *
f))`` along the real and the imaginary directions of each parameter, and against
``torch.autograd.functional.vjp``.  ``jvp_NAME`` is ``J @ t`` with the complex Jacobian of a
holomorphic ``f``, checked against central differences along ``t`` and along ``1j * t`` (the
Cauchy-Riemann equations); a non-holomorphic primitive is refused (YS023).
"""

from __future__ import annotations

import numpy as np
import pytest

from yota_s2s.errors import UserError
from yota_s2s.pipeline import generate

RNG = np.random.default_rng(2426)

SOURCE = """\
import numpy as np


def holo(z: complex):
    return z**3 * np.exp(1j * z) / (z + 2.0)


def system(x: complex):
    return np.array([x[0] * x[0] + (2.0 + 1j) * x[1] * x[1], np.sin(x[0] * x[1]) - 0.5j])


def layer(W: complex, x):
    return np.tanh(W @ x) * (1.0 - 0.5j) + np.sum(W * W, axis=1)


def mixed(w, c: complex):
    return np.exp(1j * w) * c + w * w


def nonholo(z: complex):
    return np.abs(z) ** 2 + np.conj(z) * 1j + np.real(z * z)


def power(w, c: complex):
    return np.abs(np.exp(1j * w) * c) ** 2
"""

#: Each function: its arguments (a factory), and which of them are complex.
CASES = {
    "holo": (lambda: (crandom(3),), [True]),
    "system": (lambda: (crandom(2),), [True]),
    "layer": (lambda: (0.5 * crandom(2, 3), RNG.normal(size=3)), [True, False]),
    "mixed": (lambda: (RNG.normal(size=3), crandom(3)), [False, True]),
    "nonholo": (lambda: (crandom(4),), [True]),
    "power": (lambda: (RNG.normal(size=3), crandom(3)), [False, True]),
}
HOLOMORPHIC = ["holo", "system", "layer", "mixed"]
EPS = 1e-6


def crandom(*shape: int) -> np.ndarray:
    return RNG.normal(size=shape) + 1j * RNG.normal(size=shape)


def load(text: str) -> dict:
    namespace: dict = {}
    exec(compile(text, "<generated>", "exec"), namespace)  # noqa: S102 - the tool's output
    return namespace


@pytest.fixture(scope="module")
def modules() -> dict:
    source = load(SOURCE)
    vjp = load(generate(SOURCE, "c.py", list(CASES), mode="vjp").text)
    jvp = load(generate(SOURCE, "c.py", HOLOMORPHIC, mode="jvp").text)
    return {"f": source, "vjp": vjp, "jvp": jvp}


def moved(args: tuple, i: int, e: np.ndarray) -> list:
    return [np.asarray(a) + e if k == i else a for k, a in enumerate(args)]


def gradient_by_differences(f, u, args: tuple, i: int, complex_: bool) -> np.ndarray:
    """``dL/dRe + 1j dL/dIm`` of argument ``i`` (``dL/dx`` for a real one), ``L = real(sum(conj(u) * f))``,
    by central differences along each real and each imaginary direction."""

    def L(a):
        return np.real(np.sum(np.conj(u) * f(*a)))

    x = np.asarray(args[i])
    g = np.zeros(x.shape, complex if complex_ else float)
    for idx in np.ndindex(x.shape):
        for d in (1.0, 1j) if complex_ else (1.0,):
            e = np.zeros(x.shape, complex if complex_ else float)
            e[idx] = d * EPS
            g[idx] += (1.0 if d == 1.0 else 1j) * (L(moved(args, i, e)) - L(moved(args, i, -e))) / (2 * EPS)
    return g


@pytest.mark.parametrize("name", list(CASES))
def test_vjp_is_the_gradient_of_real_conj_u_times_f(modules, name):
    make, complex_ = CASES[name]
    args = make()
    f = modules["f"][name]
    value = f(*args)
    u = crandom(*np.shape(value)) if np.iscomplexobj(value) else RNG.normal(size=np.shape(value))
    out = modules["vjp"]["vjp_" + name](*args, u)
    assert np.allclose(out[0], value, rtol=1e-14)
    for i, is_complex in enumerate(complex_):
        expected = gradient_by_differences(f, u, args, i, is_complex)
        assert np.iscomplexobj(out[1 + i]) == is_complex  # (a real parameter's gradient is real)
        assert np.abs(out[1 + i] - expected).max() <= 1e-6 * max(1.0, np.abs(expected).max()), (name, i)


def jacobian_by_differences(f, args: tuple, i: int) -> np.ndarray:
    """``J[..., k] = (f(z + h e_k) - f(z - h e_k)) / 2h``: the complex Jacobian of a holomorphic ``f``."""
    x = np.asarray(args[i])
    columns = []
    for k in range(x.size):
        e = np.zeros(x.shape, complex)
        e.flat[k] = EPS
        columns.append((f(*moved(args, i, e)) - f(*moved(args, i, -e))) / (2 * EPS))
    return np.moveaxis(np.array(columns), 0, -1).reshape(np.shape(f(*args)) + x.shape)


@pytest.mark.parametrize("name", ["holo", "system", "layer"])
def test_vjp_of_a_holomorphic_function_is_j_hermitian_dout_and_torchs(modules, name):
    args = CASES[name][0]()
    f = modules["f"][name]
    u = crandom(*np.shape(f(*args)))
    dz = modules["vjp"]["vjp_" + name](*args, u)[1]
    J = jacobian_by_differences(f, args, 0)
    axes = np.ndim(u)
    expected = np.tensordot(u, np.conj(J), axes=(list(range(axes)), list(range(axes))))
    assert np.allclose(dz, expected, rtol=1e-6, atol=1e-6)
    if name == "holo":
        torch = pytest.importorskip("torch")

        def tf(z):
            return z**3 * torch.exp(1j * z) / (z + 2.0)

        _, theirs = torch.autograd.functional.vjp(tf, torch.tensor(args[0]), torch.tensor(u))
        np.testing.assert_allclose(dz, theirs.numpy(), rtol=1e-13, atol=1e-14)


@pytest.mark.parametrize("name", HOLOMORPHIC)
def test_jvp_is_j_times_t_along_real_and_imaginary_directions(modules, name):
    make, complex_ = CASES[name]
    args = make()
    f = modules["f"][name]
    tangents = [crandom(*np.shape(a)) for a in args]
    jvp = modules["jvp"]["jvp_" + name]
    value, dvalue = jvp(*args, *tangents)
    assert np.allclose(value, f(*args), rtol=1e-14)
    for scale in (1.0, 1j):  # f(z + h s t): s t J @ t for a holomorphic f
        up = [np.asarray(a) + EPS * scale * t for a, t in zip(args, tangents, strict=True)]
        down = [np.asarray(a) - EPS * scale * t for a, t in zip(args, tangents, strict=True)]
        expected = (f(*up) - f(*down)) / (2 * EPS)
        assert np.abs(scale * dvalue - expected).max() <= 1e-6 * max(1.0, np.abs(expected).max()), (name, scale)
    # real arguments and tangents where the source has them real: the same derivative
    real = [a if c else np.real(a) for a, c in zip(args, complex_, strict=True)]
    real_t = [t if c else np.real(t) for t, c in zip(tangents, complex_, strict=True)]
    up = [np.asarray(a) + EPS * t for a, t in zip(real, real_t, strict=True)]
    down = [np.asarray(a) - EPS * t for a, t in zip(real, real_t, strict=True)]
    assert np.allclose(jvp(*real, *real_t)[1], (f(*up) - f(*down)) / (2 * EPS), rtol=1e-6, atol=1e-6)


def test_dout_and_tangents_may_be_complex_where_the_values_are():
    vjp = generate(SOURCE, "c.py", ["holo", "power"], mode="vjp").text
    assert "'dout')" not in vjp.split("def vjp_holo")[1].split("def ")[0]  # a complex value: a complex cotangent
    assert "('dout',)" in vjp.split("def vjp_power")[1].split("def ")[0]  # a real value (|.|**2): dout is real, checked
    jvp = generate(SOURCE, "c.py", ["mixed"], mode="jvp").text
    assert "'w_dot'" not in jvp and "'c_dot'" not in jvp
    assert "w = _complex_arg(w, 'jvp_mixed', 'w')" in jvp  # (the complex derivative, at complex points)
    no_value = load(generate(SOURCE, "c.py", ["holo"], mode="vjp", value=False).text)
    z, u = crandom(2), crandom(2)
    assert np.allclose(
        no_value["vjp_holo"](z, u)[0], load(generate(SOURCE, "c.py", ["holo"], mode="vjp").text)["vjp_holo"](z, u)[1]
    )


def test_non_holomorphic_jvp_and_second_order_of_a_complex_parameter_are_refused():
    with pytest.raises(UserError) as info:
        generate(SOURCE, "c.py", ["nonholo"], mode="jvp")
    error = info.value
    assert error.code == "YS023" and "--jvp of complex values computes J @ t" in error.message
    # (located at the first one the reverse sweep meets: np.real, the last on the line)
    assert error.line == SOURCE.splitlines().index("def nonholo(z: complex):") + 2 and error.col == 47
    assert "the real part (np.real, .real) of a complex value is not holomorphic" in error.message
    for mode in ("hvp", "hessian"):  # (with respect to the real w alone: tests/test_complex_second.py)
        with pytest.raises(UserError) as info:
            generate(SOURCE, "c.py", ["power"], mode=mode)
        assert (
            info.value.code == "YS022" and f"--{mode} of a complex parameter (c) is not written" in info.value.message
        )
        generate(SOURCE, "c.py", ["power"], {"power": ["w"]}, mode=mode)


@pytest.mark.parametrize("mode", ["vjp", "jvp"])
def test_verify_checks_complex_products_and_fails_on_the_conjugate(tmp_path, mode):
    from yota_s2s.verify import verify_generated

    (tmp_path / "c.py").write_text(SOURCE)
    names = ["holo", "mixed"]
    text = generate(SOURCE, "c.py", names, mode=mode).text
    shapes = ["z=3", "w=2", "c=2"]

    def verdict(t: str) -> int:
        return verify_generated(str(tmp_path / "c.py"), t, None, example=None, shape_specs=shapes, seed=0, value=True)

    assert verdict(text) == 0
    ret = "return holo, dz" if mode == "vjp" else "return holo, dvalue"
    assert ret in text
    assert verdict(text.replace(ret, ret.replace(", d", ", np.conj(d") + ")")) == 1  # (JAX's conjugate convention)


def test_vjp_and_jvp_against_jax(modules):
    """JAX's vjp of a holomorphic f is J^T @ u (its conjugate convention): conj(vjp_f(z, conj(u)))."""
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    namespace: dict = {}
    exec(SOURCE.replace("import numpy as np", "import jax.numpy as np"), namespace)  # noqa: S102 - our test source
    z, u, t = crandom(3), crandom(3), crandom(3)
    _, pullback = jax.vjp(namespace["holo"], z)
    ours = np.conj(modules["vjp"]["vjp_holo"](z, np.conj(u))[1])
    np.testing.assert_allclose(ours, np.asarray(pullback(u)[0]), rtol=1e-12, atol=1e-13)
    _, tangent = jax.jvp(namespace["holo"], (z,), (t,))
    np.testing.assert_allclose(modules["jvp"]["jvp_holo"](z, t)[1], np.asarray(tangent), rtol=1e-12, atol=1e-13)
