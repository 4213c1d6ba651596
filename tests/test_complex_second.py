"""--hvp and --hessian of a real value of real parameters through complex values (docs/complex.md).

The gradient tape differentiated again has complex cotangents where the function has complex
values; ``complex_types.again_table`` reads them from that tape.  Each Hessian is compared with
central differences of the gradient, checked symmetric, ``hvp_NAME`` with ``H @ v``, and each with
``jax.hessian`` where JAX is installed; the refusals are located.
"""

from __future__ import annotations

import numpy as np
import pytest

from yota_s2s.errors import UserError
from yota_s2s.pipeline import generate

from .test_hessian import numeric_hessian

SOURCE = """\
import numpy as np


def waves(x):
    z = np.exp(1j * x) * (2.0 + 0.5j) + x**2
    return np.sum(np.abs(z) ** 2) + np.sum(np.real(z * np.conj(z[::-1])))


def poly(x):
    c = np.array([1.0 + 2.0j, -0.5j, 3.0])
    p = c[0] + c[1] * x + c[2] * x**2
    return np.sum(np.abs(p) ** 2)


def phase(x):
    z = (x[0] + 1j * x[1]) * (1.5 - 0.5j)
    return np.angle(z) ** 2 + np.imag(z**3) + np.abs(z) + np.real(np.log(z) * (0.3 + 1j))


def transfer(w, A: complex):
    h = A @ (w * np.exp(0.5j * w))
    return np.sum(np.abs(h / (1.0 + 0.2j * w[0])) ** 2)


def powers(x):
    z = x * (1.0 + 1j) + 0.3j
    return np.sum(np.real(z**2.5) + np.abs(1.0 / z) + np.imag(np.sqrt(z)))
"""

TWO = """\
import numpy as np


def two(a, b):
    z = a * np.exp(1j * b) + 0.5j
    return np.sum(np.abs(z) ** 2 * a) + np.real(np.sum(z) ** 2)
"""

WRT = {"waves": ["x"], "poly": ["x"], "phase": ["x"], "transfer": ["w"], "powers": ["x"]}
RNG = np.random.default_rng(2224)
ARGS = {
    "waves": lambda: (RNG.normal(size=6),),
    "poly": lambda: (RNG.normal(size=5),),
    "phase": lambda: (np.array([0.7, 1.3]) + 0.1 * RNG.normal(size=2),),
    "transfer": lambda: (RNG.normal(size=4), RNG.normal(size=(3, 4)) + 1j * RNG.normal(size=(3, 4))),
    "powers": lambda: (RNG.uniform(0.5, 1.5, size=4),),
}


def _load(source: str, wrt: dict, mode: str) -> dict:
    namespace: dict = {}
    exec(compile(generate(source, "second.py", list(wrt), wrt, mode=mode).text, f"<{mode}>", "exec"), namespace)  # noqa: S102
    return namespace


@pytest.fixture(scope="module")
def made() -> dict:
    return {mode: _load(SOURCE, WRT, mode) for mode in ("grad", "hvp", "hessian")}


@pytest.mark.parametrize("name", sorted(WRT))
def test_hessian_through_complex_values(made, name):
    args = ARGS[name]()
    value, g, H = made["hessian"]["hess_" + name](*args)
    f_value, f_grad = made["grad"]["grad_" + name](*args)
    assert np.isclose(value, f_value, rtol=1e-13) and np.allclose(g, f_grad, rtol=1e-12, atol=1e-14)
    assert H.dtype == np.float64 and H.shape == args[0].shape * 2
    expected = numeric_hessian(made["grad"]["grad_" + name], args, 0, eps=1e-6)
    scale = max(1.0, np.abs(expected).max())
    assert np.abs(H - expected).max() <= 1e-6 * scale, (name, np.abs(H - expected).max())
    assert np.abs(H - H.T).max() <= 1e-12 * scale
    v = RNG.normal(size=args[0].shape)
    Hv = made["hvp"]["hvp_" + name](*args, v)[2]
    np.testing.assert_allclose(Hv, H @ v, rtol=1e-11, atol=1e-11 * scale)


def test_the_blocks_of_two_real_parameters_through_complex_values():
    wrt = {"two": ["a", "b"]}
    hess = _load(TWO, wrt, "hessian")["hess_two"]
    grad = _load(TWO, wrt, "grad")["grad_two"]
    a, b = RNG.normal(size=3), RNG.normal(size=3)
    _, da, db, ((H_aa, H_ab), (H_ba, H_bb)) = hess(a, b)
    _, ga, gb = grad(a, b)
    assert np.allclose(da, ga, rtol=1e-13) and np.allclose(db, gb, rtol=1e-13)
    H = np.block([[H_aa, H_ab], [H_ba, H_bb]])

    def both(ab):
        _, ga, gb = grad(ab[:3], ab[3:])
        return None, np.concatenate([ga, gb])

    expected = numeric_hessian(both, (np.concatenate([a, b]),), 0, eps=1e-6)
    assert np.abs(H - expected).max() <= 1e-6 * max(1.0, np.abs(expected).max())
    assert np.allclose(H, H.T, atol=1e-12)


@pytest.mark.slow
def test_against_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    namespace: dict = {}
    exec(SOURCE.replace("import numpy as np", "import jax.numpy as np"), namespace)  # noqa: S102 - our own text
    hess = _load(SOURCE, WRT, "hessian")
    for name in sorted(WRT):
        args = ARGS[name]()
        H = hess["hess_" + name](*args)[2]
        theirs = np.asarray(jax.hessian(namespace[name])(*(jnp.asarray(a) for a in args)))
        assert np.abs(H - theirs).max() <= 1e-12 * max(1.0, np.abs(theirs).max()), name


REFUSED = """\
import numpy as np


def of_complex(z: complex, x):
    return np.sum(np.abs(z * x) ** 2)


def looped(x):
    s = 0.0
    for k in range(3):
        s = s + np.sum(np.abs(x * np.exp(1j * k)) ** 2)
    return s


def complex_value(x):
    return np.sum(x * 1j)
"""


@pytest.mark.parametrize("mode", ["hvp", "hessian"])
@pytest.mark.parametrize(
    ("name", "wrt", "line", "words"),
    [
        ("of_complex", ["z"], 5, "of a complex parameter (z) is not written"),
        ("looped", ["x"], 10, "through loops or branches is not written"),
        ("complex_value", ["x"], 16, "may be complex"),
    ],
)
def test_refused_located(mode, name, wrt, line, words):
    with pytest.raises(UserError) as error:
        generate(REFUSED, "refused.py", [name], {name: wrt}, mode=mode)
    assert error.value.code == "YS022" and words in error.value.message
    assert error.value.line == line, (error.value.line, error.value.message)
