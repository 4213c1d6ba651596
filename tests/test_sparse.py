"""``--sparse --jacobian`` (issue 36): every sparse Jacobian equals the dense ``--jacobian`` form and
central differences entry for entry, its pattern holds every nonzero (sound) and, on stencils and
edge lists, nothing more (tight); the column coloring is valid and as small as the families'
optimum where that is known; refusals are located.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy import sparse

from yota_s2s.errors import UserError
from yota_s2s.pipeline import generate
from yota_s2s.runtime.coloring import _sp_color_columns, _sp_decompress, _sp_prepare, _sp_symmetric

from .test_jacobian import load, numeric_jacobian

RNG = np.random.default_rng(36)

#: name -> (source, arguments for a size n, --wrt)
FAMILIES = {
    "bratu": (
        """import numpy as np


def bratu(u, lam):
    h = 1.0 / (u.shape[0] + 1)
    up = np.concatenate([np.zeros(1), u, np.zeros(1)])
    return (up[:-2] - 2 * up[1:-1] + up[2:]) / h**2 + lam * np.exp(u)
""",
        lambda n: (RNG.random(n), 0.7),
        ["u"],
    ),
    "laplace2d": (
        """import numpy as np


def laplace2d(U):
    r = 4 * U[1:-1, 1:-1] - U[:-2, 1:-1] - U[2:, 1:-1] - U[1:-1, :-2] - U[1:-1, 2:]
    return r + U[1:-1, 1:-1] ** 3
""",
        lambda n: (RNG.random((n, n + 2)),),
        ["U"],
    ),
    "brusselator": (
        """import numpy as np


def brusselator(u, v, a, b):
    lap_u = np.roll(u, 1, axis=0) + np.roll(u, -1, axis=0) + np.roll(u, 1, axis=1) + np.roll(u, -1, axis=1) - 4 * u
    lap_v = np.roll(v, 1, axis=0) + np.roll(v, -1, axis=0) + np.roll(v, 1, axis=1) + np.roll(v, -1, axis=1) - 4 * v
    fu = a + u * u * v - (b + 1) * u + 0.1 * lap_u
    fv = b * u - u * u * v + 0.1 * lap_v
    return np.stack([fu, fv])
""",
        lambda n: (RNG.random((n, n)), RNG.random((n, n)), 1.0, 3.0),
        ["u", "v"],
    ),
    "springs": (
        """import numpy as np


def springs(x, I, J, k):
    d = x[I] - x[J]
    f = k * d**3 + d
    return np.concatenate([f, np.roll(x, 1) * x])
""",
        lambda n: (RNG.random(n), RNG.integers(0, n, 2 * n), RNG.integers(0, n, 2 * n), 2.0),
        ["x"],
    ),
    "arrowhead": (
        """import numpy as np


def arrowhead(x):
    inner = x[1:-1] ** 2 - x[:-2] * x[2:]
    return np.concatenate([inner, np.sum(x**2, keepdims=True)])
""",
        lambda n: (RNG.random(n),),
        ["x"],
    ),
    "mixed": (
        """import numpy as np


def mixed(x, A, w):
    y = A @ np.sin(x)
    z = np.cumsum(x.reshape(2, -1), axis=1).T.ravel()
    s = np.where(x > 0.5, x, x**2)
    return np.concatenate([y * w[0], z, s + np.sum(x[:3]), np.mean(x.reshape(2, -1), axis=0)])
""",
        lambda n: (RNG.random(2 * n), np.where(RNG.random((3, 2 * n)) < 0.3, RNG.random((3, 2 * n)), 0.0), np.ones(2)),
        ["x"],
    ),
}


def _sources(name: str) -> tuple[dict, dict]:
    text, _, wrt = FAMILIES[name]
    sparse_text = generate(text, f"{name}.py", wrt=wrt, mode="jacobian", sparse=True).text
    dense_text = generate(text, f"{name}.py", wrt=wrt, mode="jacobian").text
    plain: dict = {}
    exec(compile(text, f"{name}.py", "exec"), plain)  # noqa: S102 - the test's own source
    return load(sparse_text), load(dense_text) | {"_f": plain[name]}


@pytest.mark.parametrize("name", sorted(FAMILIES))
@pytest.mark.parametrize("n", [3, 6, 11])
def test_sparse_equals_dense_and_differences(name, n):
    sparse_ns, dense_ns = _sources(name)
    _, make, wrt = FAMILIES[name]
    args = make(n)
    params = list(dense_ns[f"jac_{name}"].__code__.co_varnames[: len(args)])
    value, *blocks = sparse_ns[f"jac_{name}"](*args)
    if name == "brusselator":  # (the dense form takes a value of rows that are numbers only)
        dense = [None] * len(wrt)
    else:
        dense_value, *dense = dense_ns[f"jac_{name}"](*args)
        np.testing.assert_allclose(value, dense_value, rtol=1e-13, atol=0)
    pattern = sparse_ns[f"jac_{name}_pattern"](*args)
    full = []
    for w, J, D in zip(wrt, blocks, dense, strict=True):
        assert isinstance(J, sparse.csr_array)
        i = params.index(w)
        assert J.shape == (np.size(value), np.size(args[i]))
        numeric = numeric_jacobian(dense_ns["_f"], list(args), i).reshape(J.shape)
        np.testing.assert_allclose(J.toarray(), numeric, rtol=1e-5, atol=1e-6)
        if D is not None:
            np.testing.assert_allclose(J.toarray(), D.reshape(J.shape), rtol=1e-12, atol=1e-12)
        full.append(numeric)
    full = np.hstack(full)
    assert not np.any((full != 0) & ~pattern.toarray()), "an entry outside the pattern"


@pytest.mark.parametrize(
    ("name", "n", "nnz"),
    [
        ("bratu", 50, 3 * 50 - 2),  # tridiagonal
        ("laplace2d", 6, 5 * 4 * 6),  # the five points read by each of the (n - 2) x n interior ones
        ("arrowhead", 20, 3 * 18 + 20),
    ],
)
def test_patterns_are_tight(name, n, nnz):
    sparse_ns, _ = _sources(name)
    args = FAMILIES[name][1](n)
    pattern = sparse_ns[f"jac_{name}_pattern"](*args)
    assert pattern.nnz == nnz


def test_edge_list_pattern_is_tight_and_cached_per_data():
    sparse_ns, _ = _sources("springs")
    x = RNG.random(8)
    I, J = np.array([0, 1, 2, 3]), np.array([4, 5, 6, 0])
    I2 = np.array([7, 1, 2, 3])
    pattern = sparse_ns["jac_springs_pattern"](x, I, J, 2.0)[:4].toarray()
    expected = np.zeros((4, 8), bool)
    expected[np.arange(4), I] = expected[np.arange(4), J] = True
    np.testing.assert_array_equal(pattern, expected)
    _, J1 = sparse_ns["jac_springs"](x, I, J, 2.0)
    _, J2 = sparse_ns["jac_springs"](x, I2, J, 2.0)  # other data: another pattern, not the cached one
    assert J1[[0]].indices.tolist() == [0, 4] and J2[[0]].indices.tolist() == [4, 7]
    assert len(sparse_ns["_JAC_SPRINGS_CACHE"]) == 2


def test_an_index_computed_from_the_parameters_is_found_again_at_each_point():
    text = "import numpy as np\n\n\ndef f(x):\n    return x * x[np.argmax(x)]\n"
    ns = load(generate(text, "f.py", mode="jacobian", sparse=True).text)
    for x in (np.array([3.0, 1.0, 2.0]), np.array([1.0, 2.0, 5.0])):
        _, J = ns["jac_f"](x)
        np.testing.assert_allclose(J.toarray(), numeric_jacobian(lambda x: x * x[np.argmax(x)], [x], 0), atol=1e-6)
    assert "_JAC_F_CACHE" not in ns


HESSIANS = """import numpy as np


def rosen(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def energy(x):
    return np.sum(x**4) - 2.0 * np.sum(x[:-1] * x[1:]) + 0.5 * np.dot(x, x) + np.sum(x[1:] ** 2 * x[:-1] ** 3)


def arrow(x, w):
    return np.sum(np.exp(x[1:] * x[0])) + np.sum(w * x**2) + np.sum(x / 2.0)


def grid(U):
    return np.sum((U[1:, :] - U[:-1, :]) ** 4) + np.sum(np.cos(U[:, 1:] * U[:, :-1]))
"""


@pytest.fixture(scope="module")
def hessians():
    sparse_ns = load(generate(HESSIANS, "h.py", wrt={"arrow": ["x"]}, mode="hessian", sparse=True).text)
    dense_ns = load(generate(HESSIANS, "h.py", wrt={"arrow": ["x"]}, mode="hessian").text)
    return sparse_ns, dense_ns


@pytest.mark.parametrize("name", ["rosen", "energy", "arrow", "grid"])
@pytest.mark.parametrize("n", [2, 5, 9])
def test_sparse_hessian_equals_dense_and_differences(hessians, name, n):
    sparse_ns, dense_ns = hessians
    x = RNG.random((n, n + 1)) if name == "grid" else RNG.random(n)
    args = (x, RNG.random(n)) if name == "arrow" else (x,)
    value, grad, H = sparse_ns[f"hess_{name}"](*args)
    dense_value, dense_grad, D = dense_ns[f"hess_{name}"](*args)
    assert isinstance(H, sparse.csr_array) and H.shape == (x.size, x.size)
    np.testing.assert_allclose(value, dense_value, rtol=1e-13)
    np.testing.assert_allclose(grad, dense_grad, rtol=1e-13)
    np.testing.assert_allclose(H.toarray(), D.reshape(H.shape), rtol=1e-12, atol=1e-12)
    gradient = lambda *a: dense_ns[f"hess_{name}"](*a)[1]
    numeric = numeric_jacobian(gradient, list(args), 0).reshape(H.shape)
    np.testing.assert_allclose(H.toarray(), numeric, rtol=1e-5, atol=1e-5)
    pattern = sparse_ns[f"hess_{name}_pattern"](*args).toarray()
    assert not np.any((D.reshape(H.shape) != 0) & ~pattern), "an entry outside the pattern"
    np.testing.assert_array_equal(pattern, pattern.T)


def test_a_tridiagonal_hessian_takes_three_colors_at_any_size(hessians):
    sparse_ns = hessians[0]
    sparse_ns["_HESS_ROSEN_CACHE"].clear()
    for n in (10, 1000, 20_000):
        pattern = sparse_ns["hess_rosen_pattern"](np.ones(n))
        assert pattern.nnz == 3 * n - 2
        sparse_ns["hess_rosen"](np.ones(n))
    assert [len(p["seeds"]) for p in sparse_ns["_HESS_ROSEN_CACHE"].values()] == [3, 3, 3]


def test_an_arrowhead_hessian_takes_few_colors_by_star_coloring(hessians):
    sparse_ns, dense_ns = hessians
    x, w = RNG.random(300), RNG.random(300)
    sparse_ns["_HESS_ARROW_CACHE"].clear()
    _, _, H = sparse_ns["hess_arrow"](x, w)
    np.testing.assert_allclose(H.toarray(), dense_ns["hess_arrow"](x, w)[2], rtol=1e-12, atol=1e-12)
    (prepared,) = sparse_ns["_HESS_ARROW_CACHE"].values()
    assert len(prepared["seeds"]) <= 3  # (its columns would take 300)


@pytest.mark.parametrize("seed", range(6))
def test_star_coloring_is_a_star_coloring(seed):
    rng = np.random.default_rng(seed)
    n = 40
    upper = sparse.random_array((n, n), density=0.08, rng=rng) != 0
    pattern = sparse.csr_array((upper + upper.T + sparse.eye_array(n)) != 0)
    colors, count, where = _sp_symmetric(pattern)
    dense = pattern.toarray()
    np.fill_diagonal(dense, False)
    for v in range(n):  # distance-1, and no path on four vertices in two colors
        assert not np.any(colors[dense[v]] == colors[v])
    for a, b, c, d in _paths4(dense):
        assert len({colors[a], colors[b], colors[c], colors[d]}) >= 3
    H = np.where(pattern.toarray(), rng.random((n, n)), 0.0)
    H = H + H.T
    seeds = np.zeros((count, n))
    seeds[colors, np.arange(n)] = 1.0
    compressed = np.concatenate([H @ s for s in seeds])
    np.testing.assert_array_equal(compressed[where], H[pattern.nonzero()])


def _paths4(adjacent):
    n = len(adjacent)
    for b in range(n):
        for c in np.flatnonzero(adjacent[b]):
            for a in np.flatnonzero(adjacent[b]):
                if a != c:
                    for d in np.flatnonzero(adjacent[c]):
                        if d not in (a, b):
                            yield a, b, c, d


LOOPS = """import numpy as np


def smooth(x, n):
    for _ in range(n):
        x = 0.5 * (x + np.roll(x, 1))
    return x


def branch(x, flag):
    if flag > 0:
        y = x[1:] * x[:-1]
    else:
        y = x[1:] - 2.0
    return y


def links(x, I):
    y = x
    k = 0
    while k < len(I):
        y = y + x[I[k]] * y
        k = k + 1
    return y


def by_sign(x):
    if np.sum(x) > 0:
        return x * x[0]
    return x * x[-1]


def products(x, n):
    assert x.ndim == 1, "a vector"
    ys = []
    for i in range(n):
        ys.append(x[i] * x[i + 1])
    return np.stack(ys) + np.sum(np.array(ys))
"""


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("smooth", lambda x: (x, 3)),
        ("smooth", lambda x: (x, 0)),
        ("branch", lambda x: (x, 1.0)),
        ("branch", lambda x: (x, -1.0)),
        ("links", lambda x: (x, np.array([2, 5, 0]))),
        ("by_sign", lambda x: (x,)),
        ("by_sign", lambda x: (-x,)),
        ("products", lambda x: (x, 5)),
    ],
)
def test_loops_and_branches_follow_the_iterations_and_the_branch_taken(name, args):
    sparse_ns = load(generate(LOOPS, "loops.py", wrt=["x"], mode="jacobian", sparse=True).text)
    dense_ns = load(generate(LOOPS, "loops.py", wrt=["x"], mode="jacobian").text)
    arguments = args(RNG.random(9))
    _, J = sparse_ns[f"jac_{name}"](*arguments)
    _, D = dense_ns[f"jac_{name}"](*arguments)
    D = D.reshape(J.shape)
    np.testing.assert_allclose(J.toarray(), D, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(sparse_ns[f"jac_{name}_pattern"](*arguments).toarray(), D != 0)  # (tight)
    # a branch on the parameters' values: the pattern is the point's, found at every call
    assert (f"_JAC_{name.upper()}_CACHE" in sparse_ns) == (name != "by_sign")


def _valid(pattern, colors) -> bool:
    """No two columns of one color share a row."""
    p = sparse.csr_array(pattern)
    for r in range(p.shape[0]):
        cols = p.indices[p.indptr[r] : p.indptr[r + 1]]
        if len(set(colors[cols].tolist())) != len(cols):
            return False
    return True


@pytest.mark.parametrize("seed", range(5))
def test_column_coloring_is_valid(seed):
    rng = np.random.default_rng(seed)
    pattern = sparse.csr_array(rng.random((40, 30)) < 0.1)
    colors, count = _sp_color_columns(pattern)
    assert _valid(pattern, colors)
    assert count == colors.max() + 1


@pytest.mark.parametrize(("band", "colors"), [(0, 1), (1, 3), (2, 5)])
def test_banded_patterns_take_their_bandwidth_in_colors(band, colors):
    n = 30
    pattern = sparse.csr_array(
        sparse.diags_array([np.ones(n - abs(d)) for d in range(-band, band + 1)], offsets=range(-band, band + 1)) != 0
    )
    assert _sp_color_columns(pattern)[1] == colors


@pytest.mark.parametrize("tall", [False, True])
def test_decompression_reads_each_entry_from_its_color(tall):
    # a dense row: 3 colors of columns, 2 of rows; a tall one: 1 color of columns, 2 of rows
    J = np.array([[2.0, 0.0], [3.0, 0.0], [0.0, 7.0]]) if tall else np.array([[2.0, 3.0, 4.0], [0.0, 0.0, 7.0]])
    prepared = _sp_prepare(sparse.csr_array(J != 0), (len(J),))
    assert prepared["by_rows"] is not tall and len(prepared["seeds"]) == (1 if tall else 2)
    if prepared["by_rows"]:  # (the batched sweep's results: a row per color)
        compressed = [prepared["seeds"] @ J]
    else:
        compressed = prepared["seeds"] @ J.T
    (got,) = _sp_decompress(prepared, compressed, (np.zeros(J.shape[1]),))
    np.testing.assert_array_equal(got.toarray(), J)


def test_an_arrowhead_takes_few_colors_by_rows():
    sparse_ns, _ = _sources("arrowhead")
    x = RNG.random(200)
    sparse_ns["jac_arrowhead"](x)
    (prepared,) = sparse_ns["_JAC_ARROWHEAD_CACHE"].values()
    assert prepared["by_rows"] and len(prepared["seeds"]) <= 4


def test_the_modules_are_ruff_clean(tmp_path):
    import subprocess
    import sys

    paths = []
    for name, (text, _, wrt) in FAMILIES.items():
        path = tmp_path / f"jac_{name}.py"
        path.write_text(generate(text, f"{name}.py", wrt=wrt, mode="jacobian", sparse=True).text, encoding="utf-8")
        paths.append(str(path))
    hess = tmp_path / "hess.py"
    hess.write_text(
        generate(HESSIANS, "h.py", wrt={"arrow": ["x"]}, mode="hessian", sparse=True).text, encoding="utf-8"
    )
    loops = tmp_path / "loops.py"
    loops.write_text(generate(LOOPS, "loops.py", wrt=["x"], mode="jacobian", sparse=True).text, encoding="utf-8")
    command = [sys.executable, "-m", "ruff", "check", "--no-cache", "--isolated", *paths, str(hess), str(loops)]
    ruff = subprocess.run(command, capture_output=True, text=True, check=False)
    assert ruff.returncode == 0, ruff.stdout


def test_the_module_imports_scipy_sparse_and_no_tool():
    text, _, wrt = FAMILIES["bratu"]
    out = generate(text, "bratu.py", wrt=wrt, mode="jacobian", sparse=True).text
    assert "from scipy import sparse" in out and "yota_s2s" not in out
    assert generate(text, "bratu.py", wrt=wrt, mode="jacobian", sparse=True).text == out  # deterministic


def test_refusals_are_located():
    loop = (
        "import numpy as np\n\n\ndef f(x):\n    for i in range(3):\n        if x[i] > 2.0:\n            break\n"
        "        x = x * 2.0\n    return x\n"
    )
    with pytest.raises(UserError) as err:
        generate(loop, "f.py", mode="jacobian", sparse=True)
    assert err.value.code == "YS060" and err.value.line == 5
    with pytest.raises(UserError) as err:
        generate("def f(x):\n    return x\n", "f.py", mode="grad", sparse=True)
    assert err.value.code == "YS060" and "--jacobian" in err.value.message
    with pytest.raises(UserError) as err:
        generate("def f(x):\n    return x\n", "f.py", mode="jacobian", sparse=True, value=False)
    assert err.value.code == "YS060" and "--no-value" in err.value.message


@pytest.mark.parametrize("system", ["katsura", "cyclic", "noon", "eco"])
@pytest.mark.parametrize("n", [4, 7])
def test_the_polynomial_systems_corpus(system, n):
    """The Jacobian corpus of issue 24 (benchmarks.bench_jacobian): rows written out, one per
    equation, in ``np.array([...])``: sparse equals dense, and the pattern is exactly the nonzeros."""
    from benchmarks.bench_jacobian import SYSTEMS, source, unknowns

    text = source(system, SYSTEMS[system](n))
    sparse_ns = load(generate(text, "s.py", mode="jacobian", sparse=True).text)
    dense_ns = load(generate(text, "s.py", mode="jacobian").text)
    x = RNG.random(unknowns(system, n))
    _, J = sparse_ns[f"jac_{system}"](x)
    _, D = dense_ns[f"jac_{system}"](x)
    np.testing.assert_allclose(J.toarray(), D, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(sparse_ns[f"jac_{system}_pattern"](x).toarray(), D != 0)


@pytest.mark.parametrize("name", ["rosen", "energy", "mlp", "poly"])
def test_the_hessian_corpus(name):
    """The Hessians of benchmarks.bench_hessian (the MLP's with respect to ``W1``): sparse equals dense."""
    from benchmarks.bench_hessian import SOURCE, _poly_terms

    text = SOURCE + "\n\ndef poly(x):\n    return " + _poly_terms() + "\n"
    wrt = {"mlp": ["W1"]}
    sparse_ns = load(generate(text, "h.py", [name], wrt if name == "mlp" else None, mode="hessian", sparse=True).text)
    dense_ns = load(generate(text, "h.py", [name], wrt if name == "mlp" else None, mode="hessian").text)
    if name == "mlp":
        args = (RNG.random((4, 3)), RNG.random(3), RNG.random(3), RNG.random((5, 4)), RNG.random(5))
    else:
        args = (RNG.random(8 if name == "poly" else 12),)
    _, _, H = sparse_ns[f"hess_{name}"](*args)
    _, _, D = dense_ns[f"hess_{name}"](*args)
    np.testing.assert_allclose(H.toarray(), D.reshape(H.shape), rtol=1e-12, atol=1e-12)


def _corpus_cases():
    from . import corpus, corpus_control

    for module in (corpus, corpus_control):
        for name in module.CASES:
            yield pytest.param(module, name, id=f"{module.__name__.rsplit('.', 1)[-1]}:{name}")


@pytest.mark.slow
@pytest.mark.parametrize(("module", "name"), list(_corpus_cases()))
def test_the_gradient_corpora_sparse_equals_dense(module, name):
    """Every function of the gradient corpora (tests/corpus.py, tests/corpus_control.py), with
    respect to its first float array: its sparse Jacobian (one row) and Hessian equal the dense
    forms entry for entry, or ``--sparse`` refuses it (YS060: an object parameter, a loop that
    ends early): never a wrong entry."""
    import inspect

    args = module.CASES[name](np.random.default_rng(0))
    params = list(inspect.signature(getattr(module, name)).parameters)
    at = next((i for i, a in enumerate(args) if isinstance(a, np.ndarray) and a.dtype.kind == "f"), None)
    if at is None:
        pytest.skip("no float array parameter")
    source = Path(module.__file__).read_text(encoding="utf-8")
    for mode, prefix, place in (("jacobian", "jac_", 1), ("hessian", "hess_", 2)):
        try:
            dense = load(generate(source, "corpus.py", [name], [params[at]], mode=mode).text)[prefix + name](*args)
        except (UserError, ValueError):
            continue  # (the dense form does not take it either)
        try:
            text = generate(source, "corpus.py", [name], [params[at]], mode=mode, sparse=True).text
        except UserError as exc:
            assert exc.code == "YS060"
            continue
        got = load(text)[prefix + name](*args)[place]
        np.testing.assert_allclose(got.toarray(), np.reshape(dense[place], got.shape), rtol=1e-9, atol=1e-12)
