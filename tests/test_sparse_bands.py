"""``--sparse`` by diagonals (issue 36; ``transform.band``, ``codegen.sparse_bands``): where the sweep
seeded with the identity's rows is banded, ``jac_NAME`` / ``hess_NAME`` compute the diagonals alone
(each as its terms on windows of it) and write them into the CSR data by prepared slices
(``runtime.sparse._sp_banded``, ``_sp_diagonals``).

Every sparse J and H here equals the dense form (``--jacobian``, ``--hessian``) and central differences
entry for entry, at sizes where the band degenerates (n = 1, 2, 3, 5) and larger; the band form is
checked to be the one that ran, and where its tests fail where the function runs (a matrix, an
argument of another shape) or where a function is not banded, the colored sweep runs, still exact.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy import sparse

import yota_s2s.codegen.sparse as sparse_codegen
from yota_s2s.pipeline import generate
from yota_s2s.runtime.coloring import _sp_prepare
from yota_s2s.runtime.sparse import _sp_banded

from .test_hessian import numeric_hessian
from .test_hessian_banded import SOURCE as BANDED
from .test_hessian_banded import WRT as BANDED_WRT
from .test_jacobian import load, numeric_jacobian

RNG = np.random.default_rng(6136)

BRATU = """\
import numpy as np


def bratu(u, lam):
    h = 1.0 / (u.shape[0] + 1)
    up = np.concatenate([np.zeros(1), u, np.zeros(1)])
    return (up[:-2] - 2 * up[1:-1] + up[2:]) / h**2 + lam * np.exp(u)


def chain(x):
    return np.concatenate([x[1:] * x[:-1], np.zeros(1)]) + np.sin(x)


def arrowhead(x):
    inner = x[1:-1] ** 2 - x[:-2] * x[2:]
    return np.concatenate([inner, np.sum(x**2, keepdims=True)])
"""

CHAIN = (Path(__file__).resolve().parents[1] / "examples" / "newton" / "chain.py").read_text(encoding="utf-8")

SIZES = [1, 2, 3, 5, 40]


def _modules(source: str, funcs: list[str], wrt: dict, mode: str) -> tuple[dict, dict]:
    sparse_ns = load(generate(source, "bands.py", funcs, wrt, mode=mode, sparse=True).text)
    dense_ns = load(generate(source, "bands.py", funcs, wrt, mode=mode).text)
    return sparse_ns, dense_ns


def _prepared(ns: dict, prefix: str, name: str) -> dict:
    (cache,) = [v for k, v in ns.items() if k == f"_{prefix}_{name.upper()}_CACHE"]
    (prepared,) = cache.values()
    return prepared


@pytest.fixture(scope="module")
def jacobians():
    return _modules(
        BRATU, ["bratu", "chain", "arrowhead"], {"bratu": ["u"], "chain": ["x"], "arrowhead": ["x"]}, "jacobian"
    )


def _check_jacobian(sparse_ns, dense_ns, name, args, banded):
    value, J = sparse_ns["jac_" + name](*args)
    prepared = _prepared(sparse_ns, "JAC", name)
    taken = prepared.get("bands") is not None and sparse_ns[f"_vjp_{name}_bands"](*args) is not None
    assert taken == banded, (name, args)
    dense_value, dense_J = dense_ns["jac_" + name](*args)
    assert isinstance(J, sparse.csr_array) and J.shape == (np.size(value), np.size(args[0]))
    assert np.array_equal(value, dense_value)
    D = np.reshape(dense_J, J.shape)
    assert np.allclose(J.toarray(), D, rtol=1e-13, atol=1e-13 * max(1.0, np.abs(D).max(initial=0.0)))
    numeric = np.reshape(numeric_jacobian(sparse_ns[name] if name in sparse_ns else _primal(name), args, 0), J.shape)
    scale = max(1.0, np.abs(numeric).max(initial=0.0))
    assert np.abs(J.toarray() - numeric).max(initial=0.0) <= 1e-6 * scale
    sparse_ns["_JAC_" + name.upper() + "_CACHE"].clear()


def _primal(name: str):
    namespace: dict = {}
    exec(compile(BRATU, "bands.py", "exec"), namespace)  # noqa: S102 - the test's own source
    return namespace[name]


@pytest.mark.parametrize("n", [*SIZES, 300])
@pytest.mark.parametrize("lam", ["number", "array"])
def test_bratu_by_its_diagonals(jacobians, n, lam):
    """The stencil's J: diagonals -1, 0, 1 from the reverse sweep's rows, ``lam`` a number or an array."""
    args = (RNG.random(n), 0.7 if lam == "number" else RNG.random(n))
    _check_jacobian(*jacobians, "bratu", args, banded=True)


def test_bratu_shapes_that_fail_the_tests_take_the_colored_sweep(jacobians):
    """``lam`` of one element broadcasts against ``u``: no band form of these arguments."""
    _check_jacobian(*jacobians, "bratu", (RNG.random(6), np.array([0.7])), banded=False)


@pytest.mark.parametrize("n", SIZES)
def test_a_chain_of_products(jacobians, n):
    _check_jacobian(*jacobians, "chain", (RNG.normal(size=n),), banded=True)


@pytest.mark.parametrize("n", [3, 5, 40])
def test_not_banded_keeps_the_colored_sweep(jacobians, n):
    """The arrowhead's last row is dense: no band form is written, and J is exact."""
    sparse_ns, dense_ns = jacobians
    assert "_vjp_arrowhead_bands" not in sparse_ns and "_jvp_arrowhead_bands" not in sparse_ns
    args = (RNG.normal(size=n),)
    _value, J = sparse_ns["jac_arrowhead"](*args)
    D = np.reshape(dense_ns["jac_arrowhead"](*args)[1], J.shape)
    assert np.allclose(J.toarray(), D, rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("n", [1, 2, 5, 40])
def test_the_forward_sweep_s_diagonals_agree(monkeypatch, jacobians, n):
    """``jvp_NAME``'s columns (J's transposed diagonals) give the same J as the reverse sweep's rows."""
    monkeypatch.setattr(sparse_codegen, "BANDS_FROM", ("jvp",))
    text = generate(BRATU, "bands.py", ["bratu"], {"bratu": ["u"]}, mode="jacobian", sparse=True).text
    assert "def _jvp_bratu_bands(" in text and "def _vjp_bratu_bands(" not in text
    ns = load(text)
    args = (RNG.random(n), 0.4)
    _value, J = ns["jac_bratu"](*args)
    assert ns["_jvp_bratu_bands"](*args) is not None
    rows = jacobians[0]["jac_bratu"](*args)[1]
    assert np.allclose(J.toarray(), rows.toarray(), rtol=1e-13, atol=1e-13 * np.abs(rows.data).max())


@pytest.fixture(scope="module")
def hessians():
    return _modules(BANDED, list(BANDED_WRT), BANDED_WRT, "hessian")


def _check_hessian(sparse_ns, dense_ns, name, args, banded):
    value, g, H = sparse_ns["hess_" + name](*args)
    prepared = _prepared(sparse_ns, "HESS", name)
    bands = sparse_ns.get(f"_hvp_{name}_bands")
    taken = bands is not None and prepared.get("bands") is not None and bands(*args) is not None
    assert taken == banded, (name, args)
    dense = dense_ns["hess_" + name](*args)
    x = np.asarray(args[0])
    D = np.reshape(dense[2], (x.size, x.size))
    scale = max(1.0, np.abs(D).max(initial=0.0))
    assert np.allclose(value, dense[0], rtol=1e-14) and np.allclose(g, dense[1], rtol=1e-13, atol=1e-15)
    assert np.abs(H.toarray() - D).max(initial=0.0) <= 1e-13 * scale
    numeric = np.reshape(numeric_hessian(dense_ns["hess_" + name], args, 0), D.shape)
    assert np.abs(H.toarray() - numeric).max(initial=0.0) <= 1e-6 * scale
    sparse_ns["_HESS_" + name.upper() + "_CACHE"].clear()


@pytest.mark.parametrize("n", [*SIZES, 200])
@pytest.mark.parametrize("name", ["rosen", "energy", "stencil"])
def test_banded_hessians_by_their_diagonals(hessians, name, n):
    """``energy``'s ``np.dot(x, x)`` makes its detected pattern dense (sound, not tight): an entry
    of the pattern on no diagonal of the band form keeps the colored sweep (``_sp_banded``)."""
    _check_hessian(*hessians, name, (RNG.normal(size=n),), banded=name != "energy" or n <= 2)


def test_a_number_or_an_array_multiplies(hessians):
    x = RNG.normal(size=9)
    _check_hessian(*hessians, "springs", (x, RNG.uniform(1, 2, size=8)), banded=True)
    _check_hessian(*hessians, "springs", (x, 1.5), banded=True)
    _check_hessian(*hessians, "ridge", (RNG.normal(size=8), 0.3), banded=False)  # (np.dot's pattern: dense)


def test_a_matrix_takes_the_colored_sweep(hessians):
    _check_hessian(*hessians, "springs", (RNG.normal(size=(3, 4)), 1.5), banded=False)


@pytest.mark.parametrize("name", ["every_other", "coupled", "first_one"])
def test_not_banded_hessians_keep_the_colored_sweep(hessians, name):
    """A slice with a step, a dense H, a slice that broadcasts: the colored sweep, exact."""
    _check_hessian(*hessians, name, (RNG.normal(size=8),), banded=False)


@pytest.mark.parametrize("n", SIZES)
def test_the_chain_example(n):
    """examples/newton/chain.py (the band form's example): its sparse H by diagonals, as the dense one."""
    sparse_ns, dense_ns = _modules(CHAIN, ["energy"], {"energy": ["u"]}, "hessian")
    _check_hessian(sparse_ns, dense_ns, "energy", (RNG.normal(size=n), RNG.normal(size=n)), banded=True)


def test_an_entry_off_the_diagonals_keeps_the_colored_sweep():
    """``_sp_banded`` reads every entry of the pattern on a diagonal given, or none."""
    n = 6
    tri = sparse.csr_array(sparse.diags_array([np.ones(n - 1), np.ones(n), np.ones(n - 1)], offsets=[-1, 0, 1]))
    pattern = sparse.csr_array(tri.astype(bool))
    assert _sp_banded(_sp_prepare(pattern, None, symmetric=True), (-1, 0, 1))["bands"] is not None
    assert _sp_banded(_sp_prepare(pattern, None, symmetric=True), (-1, 0))["bands"] is None
    corner = pattern.tolil()
    corner[0, n - 1] = corner[n - 1, 0] = True
    assert _sp_banded(_sp_prepare(sparse.csr_array(corner), None, symmetric=True), (-1, 0, 1))["bands"] is None


def _band_pattern(m: int, n: int, offsets: list[int], columns: bool, keep: float) -> sparse.csr_array:
    """A random pattern of ``m x n`` whose entries lie on ``offsets`` (``keep``: the share kept)."""
    rows, cols = np.indices((m, n))
    d = cols - rows if columns else rows - cols
    on = np.isin(d, offsets) & (RNG.random((m, n)) < keep)
    return sparse.csr_array(on)


@pytest.mark.parametrize("shape", [(1, 1), (2, 2), (3, 3), (5, 5), (40, 40), (7, 4), (4, 9)])
@pytest.mark.parametrize("columns", [False, True])
@pytest.mark.parametrize("keep", [1.0, 0.6])
@pytest.mark.parametrize("same", [False, True])
def test_the_diagonals_written_into_the_data(shape, columns, keep, same):
    """``_sp_diagonals`` by slices of the data (``runs``) and by the stacked take give the matrix whose
    entry ``(j + d, j)`` (``columns``: ``(j, j + d)``) is element ``j`` of diagonal ``d``, on every
    entry of the pattern: full bands, bands with holes, rectangles, diagonals that are numbers
    (``same``: most of them one number, the data filled with it first)."""
    from yota_s2s.runtime.sparse import _sp_diagonals

    m, n = shape
    offsets = [-2, 0, 1, 3]
    pattern = _band_pattern(m, n, offsets, columns, keep)
    length = m if columns else n
    diagonals = [2.5 if same else RNG.normal(size=length), 2.5, RNG.normal(size=length), 2.5 if same else -1.0]
    expected = np.zeros(shape)
    for d, v in zip(offsets, diagonals, strict=True):
        for j in range(length):
            i, k = (j, j + d) if columns else (j + d, j)
            if 0 <= i < m and 0 <= k < n and pattern[i, k]:
                expected[i, k] = v if np.ndim(v) == 0 else v[j]
    bands = _sp_banded({"pattern": pattern}, offsets, columns)["bands"]
    assert bands is not None and (bands["writes"] is not None or keep < 1)  # (a full band: by slices)
    for writes in (bands["writes"], None):  # (by slices where it has few runs, then by the take)
        (J,) = _sp_diagonals(dict(bands, writes=writes), diagonals)
        assert J.shape == shape and J.nnz == pattern.nnz
        assert np.array_equal(J.toarray(), expected)
        assert np.array_equal(J.indices, pattern.indices) and np.array_equal(J.indptr, pattern.indptr)
    (again,) = _sp_diagonals(bands, [2 * np.asarray(v) for v in diagonals])
    assert np.array_equal(J.toarray(), expected)  # (each call's data its own)
    assert np.array_equal(again.toarray(), 2 * expected)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 6])
@pytest.mark.parametrize("d", [-2, -1, 0, 1, 3])
@pytest.mark.parametrize("window", [(0, 0), (1, 0), (0, -1), (2, -1)])
def test_band_window(n, d, window):
    """``_band_window`` adds a term on the elements ``start:stop`` of diagonal ``d`` (``hess_NAME``'s
    band form): ``H[j + d, j] += vec[j - start]``, both in range; a number along the window too."""
    from yota_s2s.runtime.second import _band_window

    start, stop = window
    size = max(n + stop - start, 0)
    vec = RNG.normal(size=size)
    H = np.ones((n, n))
    _band_window(H, d, vec, start, stop)
    expected = np.ones((n, n))
    for j in range(start, n + stop):
        if 0 <= j + d < n:
            expected[j + d, j] += vec[j - start]
    assert np.array_equal(H, expected)
    H = np.ones((n, n))
    _band_window(H, d, 2.5, start, stop)
    assert np.array_equal(H, np.where(expected != 1.0, 3.5, 1.0)) or size == 0 or not np.any(expected != 1.0)
