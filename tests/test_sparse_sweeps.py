"""``--sparse``'s compressed sweeps (issue 36): ``jac_NAME`` and ``hess_NAME`` run one batched sweep on
every color at once (``_jvp_NAME_colors``, ``_vjp_NAME_colors``, ``_hvp_NAME_colors``, written by
``ir.batching``'s rules), and each side of a Jacobian (its rows' colors or its columns') gives the
dense form's and central differences' entries, whichever the coloring would choose; the row-by-row
helpers of the primitives that move elements do to each row what the primitive does.
"""

from __future__ import annotations

import functools
import pathlib
import time

import numpy as np
import pytest
from scipy import sparse

import yota_s2s
from yota_s2s.pipeline import generate
from yota_s2s.runtime.core import _index_add
from yota_s2s.runtime.rows_parts import (
    _rows_concat_part,
    _rows_getindex,
    _rows_index_add,
    _rows_join_place,
    _rows_roll,
    _rows_roll_dx,
    _rows_stack,
)
from yota_s2s.runtime.second import _join_place
from yota_s2s.runtime.shape import _concat_part, _roll_dx

from .test_jacobian import load, numeric_jacobian
from .test_sparse import FAMILIES, HESSIANS, LOOPS

RNG = np.random.default_rng(3636)

#: The batched sweeps each family's module has (a side without one would run a sweep per color).
BATCHED = {name: {"jvp", "vjp"} for name in ("bratu", "laplace2d", "brusselator", "springs", "arrowhead")}


@functools.cache
def _modules(name: str) -> tuple[dict, dict]:
    text, _, wrt = FAMILIES[name]
    sparse_text = generate(text, f"{name}.py", wrt=wrt, mode="jacobian", sparse=True).text
    plain: dict = {}
    exec(compile(text, f"{name}.py", "exec"), plain)  # noqa: S102 - the test's own source
    dense = generate(text, f"{name}.py", wrt=wrt, mode="jacobian").text if name != "brusselator" else None
    return sparse_text, {"_f": plain[name], "dense": dense}


@pytest.mark.parametrize("name", sorted(BATCHED))
def test_the_sweeps_are_batched(name):
    text, _ = _modules(name)
    for mode in ("jvp", "vjp"):
        assert (f"def _{mode}_{name}_colors(" in text) == (mode in BATCHED[name])


@pytest.mark.parametrize("name", sorted(FAMILIES))
@pytest.mark.parametrize("by_rows", [True, False])
@pytest.mark.parametrize("n", [4, 9])
def test_each_side_equals_dense_and_differences(name, by_rows, n):
    text, other = _modules(name)
    ns = load(text)
    ns["_sp_prepare"] = functools.partial(ns["_sp_prepare"], by_rows=by_rows)  # (this side, whatever its colors)
    _, make, wrt = FAMILIES[name]
    args = make(n)
    params = list(ns[f"jac_{name}"].__code__.co_varnames[: len(args)])
    for _ in range(2):  # (the first call prepares, the second reads the cache)
        value, *blocks = ns[f"jac_{name}"](*args)
    (prepared,) = ns[f"_JAC_{name.upper()}_CACHE"].values()
    assert prepared["by_rows"] is by_rows
    np.testing.assert_allclose(np.ravel(value), np.ravel(other["_f"](*args)), rtol=1e-13)
    dense = load(other["dense"])[f"jac_{name}"](*args)[1:] if other["dense"] else [None] * len(wrt)
    for w, J, D in zip(wrt, blocks, dense, strict=True):
        assert isinstance(J, sparse.csr_array)
        i = params.index(w)
        numeric = numeric_jacobian(other["_f"], list(args), i).reshape(J.shape)
        np.testing.assert_allclose(J.toarray(), numeric, rtol=1e-5, atol=1e-6)
        if D is not None:
            np.testing.assert_allclose(J.toarray(), D.reshape(J.shape), rtol=1e-12, atol=1e-12)


def test_the_hessians_sweep_is_batched_and_exact():
    text = generate(HESSIANS, "h.py", wrt={"arrow": ["x"]}, mode="hessian", sparse=True).text
    ns = load(text)
    dense = load(generate(HESSIANS, "h.py", wrt={"arrow": ["x"]}, mode="hessian").text)
    for name in ("rosen", "energy", "arrow", "grid"):
        assert f"def _hvp_{name}_colors(" in text
        for n in (3, 8):
            x = RNG.random((n, n + 1)) if name == "grid" else RNG.random(n)
            args = (x, RNG.random(n)) if name == "arrow" else (x,)
            _, grad, H = ns[f"hess_{name}"](*args)
            _, dense_grad, D = dense[f"hess_{name}"](*args)
            np.testing.assert_allclose(grad, dense_grad, rtol=1e-13)
            np.testing.assert_allclose(H.toarray(), D.reshape(H.shape), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["brusselator", "springs", "laplace2d"])
@pytest.mark.parametrize("by_rows", [True, False])
def test_kept_values_follow_the_data_and_stay_unwritten(name, by_rows):
    """The values of a sweep that read the seeds and the data alone (``sparse_fixed``) are computed
    once per prepared pattern: another datum prepares another, and no call writes into them (a
    Jacobian an earlier call returned keeps its entries)."""
    text, other = _modules(name)
    assert f"_{'vjp' if by_rows else 'jvp'}_{name}_fixed(" in text
    ns = load(text)
    ns["_sp_prepare"] = functools.partial(ns["_sp_prepare"], by_rows=by_rows)
    make = FAMILIES[name][1]
    first = make(6)
    changed = list(first)
    if name == "brusselator":
        changed[2:] = [2.5, 0.5]  # (a and b)
    elif name == "springs":
        changed[1:] = [changed[2], changed[1], -1.5]  # (I and J swapped, k)
    kept = []
    for args in (first, changed, first, changed):
        _, *blocks = ns[f"jac_{name}"](*args)
        kept.append([J.toarray() for J in blocks])
        for i, J in enumerate(blocks):
            numeric = numeric_jacobian(other["_f"], list(args), i).reshape(J.shape)
            np.testing.assert_allclose(J.toarray(), numeric, rtol=1e-5, atol=1e-6)
        if len(kept) == 1:
            earlier, copies = blocks, [J.toarray() for J in blocks]
    for J, copy in zip(earlier, copies, strict=True):  # (a Newton loop keeps J)
        np.testing.assert_array_equal(J.toarray(), copy)
    for a, b in zip(kept[0] + kept[1], kept[2] + kept[3], strict=True):
        np.testing.assert_array_equal(a, b)
    cache = ns[f"_JAC_{name.upper()}_CACHE"]
    assert len(cache) == (1 if name == "laplace2d" else 2)
    assert all(prepared["fixed"] for prepared in cache.values())


def test_the_batched_sweeps_check_their_seeds():
    ns = load(generate(HESSIANS, "h.py", wrt={"arrow": ["x"]}, mode="hessian", sparse=True).text)
    x, v = np.ones(4), np.ones((2, 5))
    kept = ns["_hvp_rosen_fixed"](x, v)  # (the values of the sweep that read the seeds alone: sparse_fixed)
    with pytest.raises(ValueError, match="must have the shape of x"):
        ns["_hvp_rosen_colors"](x, v, *kept)


def test_an_arrowhead_takes_a_few_sweeps_at_any_size():
    ns = load(_modules("arrowhead")[0])
    for n in (50, 5_000):
        ns["_JAC_ARROWHEAD_CACHE"].clear()
        x = RNG.random(n)
        _, J = ns["jac_arrowhead"](x)
        (prepared,) = ns["_JAC_ARROWHEAD_CACHE"].values()
        assert prepared["by_rows"] and len(prepared["seeds"]) <= 4
        assert J.nnz == 3 * (n - 2) + n


def test_generation_stays_under_three_seconds():
    for name in FAMILIES:
        text, _, wrt = FAMILIES[name]
        t0 = time.process_time()
        generate(text, f"{name}.py", wrt=wrt, mode="jacobian", sparse=True)
        assert time.process_time() - t0 < 3.0, name


ROWS = [((3, 5), 0), ((3, 4, 5), 1), ((3, 4, 5), -1), ((3, 4, 5), None), ((3, 4, 5), (0, 1)), ((3, 0, 2), 0)]


@pytest.mark.parametrize(("shape", "axis"), ROWS)
@pytest.mark.parametrize("shift", [2, -1, 0, 7])
def test_rows_roll_rolls_each_row(shape, axis, shift):
    a = RNG.random(shape)
    shift = (shift, -2) if isinstance(axis, tuple) else shift
    for rows, one in ((_rows_roll, np.roll), (_rows_roll_dx, _roll_dx)):
        expected = np.stack([one(r, shift, axis=axis) for r in a])
        np.testing.assert_array_equal(rows(a, shift, axis=axis), expected)


@pytest.mark.parametrize(("axis", "part"), [(0, 0), (0, 1), (1, 2), (-1, 1), (None, 1)])
def test_rows_parts_of_a_concatenation_are_each_rows(axis, part):
    xs = (
        [np.ones((2, 3)), np.ones((2, 1)), np.ones((2, 2))]
        if axis in (1, -1)
        else [np.ones((1, 3)), np.ones((2, 3)), np.ones((3, 3))]
    )
    joined = np.concatenate(xs, axis=axis)
    g = RNG.random((4,) + joined.shape)
    expected = np.stack([_concat_part(r, xs, part, axis) for r in g])
    np.testing.assert_array_equal(_rows_concat_part(g, *xs, part=part, axis=axis), expected)
    d = RNG.random((4,) + xs[part].shape)
    expected = np.stack([_join_place(r, xs, part, "concatenate", axis) for r in d])
    np.testing.assert_array_equal(_rows_join_place(d, *xs, part=part, join="concatenate", axis=axis), expected)


def test_rows_join_place_of_other_joins_goes_row_by_row():
    xs = [np.ones(3), np.ones(3)]
    d = RNG.random((2, 3))
    expected = np.stack([_join_place(r, xs, 1, "vstack", 0) for r in d])
    np.testing.assert_array_equal(_rows_join_place(d, *xs, part=1, join="vstack", axis=0), expected)


@pytest.mark.parametrize(
    "index",
    [
        np.array([3, 0, 0, 2]),
        np.array([[1, 2], [0, 0]]),
        2,
        np.array([True, False, True, False, True]),
        (1, 2),
        slice(1, 4),
    ],
)
def test_rows_getindex_reads_each_row(index):
    a = RNG.random((3, 5, 4)) if isinstance(index, tuple) else RNG.random((3, 5))
    expected = np.stack([r[index] for r in a])
    np.testing.assert_array_equal(_rows_getindex(a, index), expected)


@pytest.mark.parametrize(("buf_rows", "g_rows"), [(1, 1), (1, 0), (0, 1)])
def test_rows_index_add_adds_into_each_row(buf_rows, g_rows):
    index = np.array([0, 3, 3, 1])
    buf = RNG.random((3, 5)) if buf_rows else RNG.random(5)
    g = RNG.random((3, 4)) if g_rows else RNG.random(4)
    expected = np.stack([_index_add(buf[i] if buf_rows else buf, g[i] if g_rows else g, index) for i in range(3)])
    before = buf.copy()
    np.testing.assert_allclose(_rows_index_add(buf, g, index, buf_rows, g_rows), expected, rtol=1e-15)
    np.testing.assert_array_equal(buf, before)  # (a copy: the buffer read elsewhere is kept)


@pytest.mark.parametrize("axis", [0, 1, -1, 2])
def test_rows_stack_stacks_each_row(axis):
    a, b = RNG.random((4, 2, 3)), RNG.random((2, 3))
    expected = np.stack([np.stack([a[i], b], axis=axis) for i in range(4)])
    np.testing.assert_array_equal(_rows_stack(a, b, rows=(1, 0), axis=axis), expected)


def test_a_sweep_with_a_loop_runs_once_per_color():
    from .test_sparse import LOOPS

    text = generate(LOOPS, "loops.py", wrt=["x"], mode="jacobian", sparse=True).text
    assert "def _vjp_smooth_colors(" not in text and "def _jvp_smooth_colors(" not in text  # (no rule for a loop)
    assert "def _vjp_by_sign_colors(" not in text  # (nor for a branch)
    ns, dense = load(text), load(generate(LOOPS, "loops.py", wrt=["x"], mode="jacobian").text)
    x = RNG.random(9)
    for by_rows in (True, False):
        ns["_JAC_SMOOTH_CACHE"].clear()
        ns["_sp_prepare"] = functools.partial(load(text)["_sp_prepare"], by_rows=by_rows)
        _, J = ns["jac_smooth"](x, 3)
        np.testing.assert_allclose(J.toarray(), dense["jac_smooth"](x, 3)[1], rtol=1e-12, atol=1e-12)


def test_a_parameter_called_np_moves_the_modules_alias():
    text = "import numpy\n\n\ndef f(x, np):\n    return numpy.exp(x) * np + numpy.roll(x, 1)\n"
    ns = load(generate(text, "f.py", wrt=["x"], mode="jacobian", sparse=True).text)
    x = RNG.random(5)
    _, J = ns["jac_f"](x, 2.0)
    expected = numeric_jacobian(lambda x: np.exp(x) * 2.0 + np.roll(x, 1), [x], 0)
    np.testing.assert_allclose(J.toarray(), expected, rtol=1e-6, atol=1e-7)


MOVES = """import numpy as np


def rolled(x):
    return np.sum(x * np.roll(x, 1) ** 2) + np.sum(np.roll(x.reshape(2, -1), -1, axis=1) ** 3)


def joined(x):
    y = np.concatenate([x[:2] ** 2, x])
    return np.sum(y * y[::-1])


def stacked(x):
    return np.sum(np.stack([x**2, np.sin(x)], axis=1) ** 2)


def indexed(x, I):
    return np.sum((x[I] - x[:5]) ** 3)


def tall(x, I):
    return np.concatenate([np.roll(x, 1) * x, x[I] ** 2, x**3])
"""


@pytest.mark.parametrize(
    "name", ["rolled", "joined", "indexed"]
)  # (np.stack: its adjoint, _untake, is not batched in hess_NAME)
def test_the_new_rules_batch_the_dense_hessian_rows(name, monkeypatch):
    from yota_s2s.codegen import batched

    wrt = {name: ["x"]}
    text = generate(MOVES, "moves.py", funcs=[name], wrt=wrt, mode="hessian").text
    assert "_rows_seed(" in text  # (batched: every primitive of the sweep has a rule)
    monkeypatch.setattr(batched, "BATCH_ROWS", False)
    loop = load(generate(MOVES, "moves.py", funcs=[name], wrt=wrt, mode="hessian").text)
    ns = load(text)
    x = RNG.random(8)
    args = (x, np.array([0, 3, 3, 7, 1])) if name == "indexed" else (x,)
    H, L = ns[f"hess_{name}"](*args)[2], loop[f"hess_{name}"](*args)[2]
    np.testing.assert_allclose(H, L, rtol=1e-12, atol=1e-12)
    numeric = numeric_jacobian(lambda *a: ns[f"hess_{name}"](*a)[1], list(args), 0)
    np.testing.assert_allclose(H, numeric.reshape(H.shape), rtol=1e-5, atol=1e-5)


def test_the_new_rules_batch_the_dense_forward_columns(monkeypatch):
    from yota_s2s.codegen import forward_cols

    text = generate(MOVES, "moves.py", funcs=["tall"], wrt={"tall": ["x"]}, mode="jacobian").text
    assert "the forward sweep on a block of columns at once" in text
    monkeypatch.setattr(forward_cols, "BATCH_COLUMNS", False)
    loop = load(generate(MOVES, "moves.py", funcs=["tall"], wrt={"tall": ["x"]}, mode="jacobian").text)
    x, I = RNG.random(6), np.array([5, 0, 0, 2])
    J, L = load(text)["jac_tall"](x, I)[1], loop["jac_tall"](x, I)[1]
    np.testing.assert_allclose(J, L, rtol=1e-13, atol=1e-13)
    numeric = numeric_jacobian(lambda x: load(text)["jac_tall"](x, I)[0], [x], 0)
    np.testing.assert_allclose(J, numeric.reshape(J.shape), rtol=1e-6, atol=1e-7)


def test_a_jacobian_shares_its_read_only_structure_and_a_copy_changes_alone():
    ns = load(_modules("bratu")[0])
    u = RNG.random(7)
    _, J = ns["jac_bratu"](u, 0.0)  # (lam = 0: the diagonal's entries are -2 / h**2, no zero)
    _, K = ns["jac_bratu"](u, 0.0)
    assert J.data is not K.data and np.shares_memory(J.indices, K.indices)  # (one structure per shapes)
    assert J.has_canonical_format and not J.indices.flags.writeable and not J.indptr.flags.writeable
    J.data[::3] = 0.0  # (its data is its own)
    with pytest.raises(ValueError):
        J.eliminate_zeros()  # (compacts J.indices and J.indptr in place: refused, the cache is safe)
    C = J.copy()
    C.eliminate_zeros()
    assert C.nnz < J.nnz == 3 * 7 - 2
    _, again = ns["jac_bratu"](u, 0.0)
    assert again.nnz == 3 * 7 - 2
    np.testing.assert_allclose(again.toarray(), numeric_jacobian(_modules("bratu")[1]["_f"], [u, 0.0], 0), atol=1e-5)
    np.testing.assert_allclose(
        again.toarray(),
        sparse.csr_array((again.data, again.indices.copy(), again.indptr.copy()), shape=again.shape).toarray(),
    )


def test_the_decompression_by_the_constructor_equals_the_copy_of_the_template():
    from yota_s2s.runtime.coloring import _sp_decompress, _sp_prepare

    pattern = sparse.csr_array(sparse.random_array((9, 12), density=0.3, rng=RNG) != 0)
    prepared = _sp_prepare(pattern, (9,), by_rows=False)
    compressed = RNG.random((len(prepared["seeds"]), 9))
    (J,) = _sp_decompress(prepared, compressed, (np.zeros(12),))
    assert not isinstance(prepared["blocks"][0][1], tuple)  # (this SciPy's arrays: the copy is checked)
    prepared["blocks"] = [(where, (template,)) for where, template in prepared["blocks"]]
    (K,) = _sp_decompress(prepared, compressed, (np.zeros(12),))
    assert (J != K).nnz == 0 and J.shape == K.shape == (9, 12) and K.has_canonical_format
    np.testing.assert_array_equal(J.toarray() != 0, pattern.toarray() | (J.toarray() != 0))


def test_the_compressed_sweeps_are_composed_before_printing():
    """``transform.compressed``: each ``--sparse`` tape carries its sweep over colors composed
    (``Facts.compressed``: batched, optimized, regrouped, its kept values apart) and the code generator
    prints it; a sweep with a loop has none (``jac_NAME`` runs one sweep per color) and no codegen
    module batches anything itself."""
    text, _, wrt = FAMILIES["springs"]
    (jvp,) = generate(text, "springs.py", wrt=wrt, mode="jacobian", sparse=True).tapes["optimize"]
    made = jvp.facts.compressed
    assert made is not None and made.fixed is not None  # (the edge list's gather of the seeds: kept)
    assert [p.name for p in made.tape.params][-len(made.names) :] == made.names
    (hvp,) = generate(HESSIANS, "h.py", ["rosen"], mode="hessian", sparse=True).tapes["optimize"]
    assert hvp.facts.compressed is not None
    smooth = generate(LOOPS, "loops.py", ["smooth"], wrt=["x"], mode="jacobian", sparse=True)
    assert smooth.tapes["optimize"][0].facts.compressed is None
    assert "_smooth_colors" not in smooth.text and "for _seed in" in smooth.text
    codegen = pathlib.Path(yota_s2s.__file__).parent / "codegen"
    for path in codegen.glob("*.py"):
        assert "batching import batch\n" not in path.read_text(encoding="utf-8"), path.name
        assert "from ..transform" not in path.read_text(encoding="utf-8"), path.name
