"""hess_NAME by its diagonals (codegen/banded.py, runtime/rows.py ``_rows_diagonal``).

Where every step of the second sweep keeps diagonals diagonals (slices from the start, products
by unbatched values, sums, broadcasts and unbroadcasts that keep the shape, writes into slices,
the product of two vectors), ``hess_NAME`` computes the Hessian's diagonals alone, under a test
of the run-time shapes; each Hessian here is compared with central differences of the gradient,
with the batched sweep's (``--form rows``), and where the test fails (a matrix ``x``, a
number where an array was assumed, a slice of one element that broadcasts) the batched sweep
must be the one that runs, still right.
"""

from __future__ import annotations

import numpy as np
import pytest

from yota_s2s.pipeline import generate
from yota_s2s.runtime.rows import _rows_diagonal

from .test_hessian import numeric_hessian

RNG = np.random.default_rng(2611)

SOURCE = """\
import numpy as np


def rosen(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def energy(x):
    return np.sum(x**4) - 2.0 * np.sum(x[:-1] * x[1:]) + 0.5 * np.dot(x, x) + np.sum(x[1:] ** 2 * x[:-1] ** 3)


def stencil(x):
    lap = x[2:] - 2.0 * x[1:-1] + x[:-2]
    return np.sum(lap**2 * x[1:-1]) + np.sum(np.sin(x[3:]) * x[:-3] / (2.0 + x[1:-2] ** 2))


def springs(x, k):
    stretch = x[1:] - x[:-1] - 1.0
    return 0.5 * np.sum(k * stretch**2) + np.sum(np.exp(-x) * x**2)


def ridge(w, lam):
    return lam * np.dot(w, w) + np.sum(np.log1p(w[1:] ** 2 * w[:-1] ** 2))


def first_one(x):
    return np.sum(x[:1] * x**2) + np.sum(x[1:] ** 3)


def every_other(x):
    return np.sum(x[::2] ** 2 * x[1::2])


def coupled(x):
    return np.sum(x) ** 2 + np.sum(x[1:] * x[:-1])
"""

WRT = {
    "rosen": ["x"],
    "energy": ["x"],
    "stencil": ["x"],
    "springs": ["x"],
    "ridge": ["w"],
    "first_one": ["x"],
    "every_other": ["x"],
    "coupled": ["x"],
}


def _load(mode: str, bands: bool = True) -> tuple[dict, str]:
    form = "auto" if bands or mode != "hessian" else "rows"
    text = generate(SOURCE, "banded.py", list(WRT), WRT, mode=mode, form=form).text
    namespace: dict = {}
    exec(compile(text, f"<{mode}>", "exec"), namespace)  # noqa: S102 - the tool's output
    return namespace, text


@pytest.fixture(scope="module")
def forms() -> tuple[dict, dict, dict, str]:
    """(grad, hess by diagonals, hess batched, the text by diagonals)."""
    grad, _ = _load("grad")
    hess, text = _load("hessian")
    dense, dense_text = _load("hessian", bands=False)
    assert "_rows_diagonal" not in dense_text and "_band_window" not in dense_text
    return grad, hess, dense, text


def _body(text: str, name: str) -> str:
    return text.split(f"def hess_{name}(")[1].split("\ndef ")[0]


def _check(forms, name: str, args: tuple, i: int = 0) -> np.ndarray:
    """H of ``hess_NAME(*args)`` against central differences, symmetric, equal to the batched sweep's."""
    grad, hess, dense, _ = forms
    value, g, H = hess["hess_" + name](*args)
    f_value, f_grad = grad["grad_" + name](*args)
    assert np.isclose(value, f_value, rtol=1e-13) and np.allclose(g, f_grad, rtol=1e-13, atol=1e-15)
    x = np.asarray(args[i])
    assert np.shape(H) == x.shape + x.shape
    expected = numeric_hessian(grad["grad_" + name], args, i)
    scale = max(1.0, np.abs(expected).max(initial=0.0))
    assert np.abs(H - expected).max(initial=0.0) <= 1e-6 * scale, name
    square = np.reshape(H, (x.size, x.size))
    assert np.abs(square - square.T).max(initial=0.0) <= 1e-12 * scale
    H_dense = dense["hess_" + name](*args)[2]
    assert np.abs(H - H_dense).max(initial=0.0) <= 1e-12 * scale, name
    return H


@pytest.mark.parametrize("n", [0, 1, 2, 3, 4, 7, 40])
@pytest.mark.parametrize("name", ["rosen", "energy", "stencil"])
def test_banded_hessians(forms, name, n):
    body = _body(forms[3], name)
    assert "H is banded" in body and "v = _rows_seed(" in body
    assert "_rows_diagonal(H, " in body or "_band_window(H, " in body  # (a term on a window of a diagonal)
    _check(forms, name, (RNG.normal(size=n),))


def test_the_stencil_has_its_seven_diagonals(forms):
    """x[3:] against x[:-3] couples elements three apart: diagonals -3..3, no more."""
    assert "H is banded (7 diagonals)" in _body(forms[3], "stencil")
    H = _check(forms, "stencil", (RNG.normal(size=12),))
    assert not np.triu(H, 4).any() and not np.tril(H, -4).any() and np.diag(H, 3).all()


def test_an_array_or_a_number_multiplies(forms):
    """``k`` an array of the springs' shape, or one number: both banded (the test of shapes holds
    for the first, ``k`` is no witness of a number); a matrix ``x`` keeps the batched sweep."""
    assert "H is banded" in _body(forms[3], "springs")
    x = RNG.normal(size=9)
    _check(forms, "springs", (x, RNG.uniform(1, 2, size=8)))
    _check(forms, "springs", (x, 1.5))
    _check(forms, "springs", (RNG.normal(size=(3, 4)), 1.5))


def test_the_product_of_two_vectors_by_a_number_checked_where_it_runs(forms):
    """lam * np.dot(w, w): the product's adjoint is lam times the row, lam checked a number."""
    body = _body(forms[3], "ridge")
    assert "H is banded" in body and "np.ndim(lam) == 0" in body
    _check(forms, "ridge", (RNG.normal(size=8), 0.3), 0)
    _check(forms, "ridge", (RNG.normal(size=8), np.float64(0.3)), 0)


def test_a_slice_that_broadcasts_is_not_a_diagonal(forms):
    """x[:1] * x**2: the one element broadcasts against all of x (a dense first row and column):
    the shapes differ where it runs, so the batched sweep computes it."""
    H = _check(forms, "first_one", (RNG.normal(size=6),))
    assert np.abs(H[0]).min() > 0
    _check(forms, "first_one", (RNG.normal(size=1),))


@pytest.mark.parametrize("name", ["every_other", "coupled"])
def test_not_banded_keeps_the_batched_sweep(forms, name):
    """A slice with a step, and a sum read by every row (a dense H): no band form at all."""
    body = _body(forms[3], name)
    assert "_rows_diagonal" not in body and "_band_window" not in body and "v = _rows_seed(" in body
    _check(forms, name, (RNG.normal(size=8),))


def test_float32(forms):
    x = RNG.normal(size=10)
    H = _check(forms, "rosen", (x,))
    H32 = forms[1]["hess_rosen"](x.astype(np.float32))[2]
    assert np.allclose(H32, H, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("n", [0, 1, 2, 5])
@pytest.mark.parametrize("d", [-6, -5, -4, -1, 0, 1, 3, 4, 5, 7])
def test_rows_diagonal(n, d):
    vec = RNG.normal(size=n)
    H = np.zeros((n, n))
    _rows_diagonal(H, d, vec)
    expected = np.zeros((n, n))
    for j in range(n):
        if 0 <= j + d < n:
            expected[j + d, j] = vec[j]
    assert np.array_equal(H, expected)
    H = np.zeros((n, n))
    _rows_diagonal(H, d, 2.5)
    assert np.array_equal(H, (expected != 0) * 2.5 if n else expected) or not (0 < n and abs(d) < n)


def test_deterministic_and_clean():
    text = generate(SOURCE, "banded.py", list(WRT), WRT, mode="hessian").text
    assert text == generate(SOURCE, "banded.py", list(WRT), WRT, mode="hessian").text
    assert max(len(line) for line in text.splitlines()) <= 120
    cupy = generate(SOURCE, "banded.py", ["rosen"], {"rosen": ["x"]}, mode="hessian", target="cupy").text
    assert "cp.ndim(x) == 1" in cupy and "_band_window(H, 1, " in cupy and "import numpy" not in cupy


def test_without_the_value_the_band_form_holds(forms):
    """``--no-value``: ``hess_NAME`` returns the gradient and H, H still by its diagonals (the band
    transform reads the row of H as the tape's last output)."""
    text = generate(SOURCE, "banded.py", ["rosen"], {"rosen": ["x"]}, mode="hessian", value=False).text
    assert "H is banded (3 diagonals)" in text
    namespace: dict = {}
    exec(compile(text, "<no-value>", "exec"), namespace)  # noqa: S102 - the tool's output
    for n in (1, 2, 5, 30):
        x = RNG.normal(size=n)
        g, H = namespace["hess_rosen"](x)
        _, g_rows, H_rows = forms[2]["hess_rosen"](x)  # (the batched sweep)
        assert np.allclose(g, g_rows, rtol=1e-14) and np.allclose(H, H_rows, rtol=1e-13, atol=1e-12)
