"""The batched sweeps composed before printing (``transform/batched.py``, issue 34).

``with_batched`` splits a ``hess_NAME`` or ``jac_NAME`` tape by each seed, batches the sweep
(``ir.batching.batch``) and optimizes it with the equations before it; the result is
``Facts.batched`` and the code generator prints it, never batching anything itself.  Checked here:
which sweeps get one (the Hessian's rows, per parameter; the Jacobian's rows and its forward
columns; none where a primitive has no batching rule), that the composed sweep is a fixed point
of the optimizer with the tape, that the composition's split is the writer's own (so the text
is the one the writer would write), that without the facts the writer prints the loops, and the
values the printed sweep computes again (``BatchWriter.again``).  Every derivative is checked
against central differences.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from yota_s2s import pipeline
from yota_s2s.codegen.batched import BatchWriter
from yota_s2s.codegen.plan import plan_function
from yota_s2s.codegen.split import split_rows, split_seeded
from yota_s2s.codegen.target import NUMPY
from yota_s2s.dsl.load import load_rules
from yota_s2s.ir.batching import BatchedSweep
from yota_s2s.ir.core import Eqn, Lit, Slice, Tape, Var
from yota_s2s.pipeline import generate
from yota_s2s.transform.optimize import optimize

RNG = np.random.default_rng(3434)

SOURCE = """\
import numpy as np


def rosen(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def pair(x, w):
    return np.sum(np.sin(x * w) * x) + np.sum(w**3 * x)


def tall(x):
    return np.concatenate([np.sin(x) * x[0], np.cos(x) ** 2, x**3])


def wide(x):
    return x[:2] * np.sum(np.sin(x) * x)


def cumulative(x):
    return np.sum(np.cumsum(x * x) ** 2)
"""


def _tape(name: str, mode: str, wrt: list[str]) -> Tape:
    return generate(SOURCE, "f.py", [name], {name: wrt}, mode=mode).tapes["optimize"][0]


def _load(text: str) -> dict:
    namespace: dict = {}
    exec(compile(text, "<generated>", "exec"), namespace)  # noqa: S102 - the tool's output
    return namespace


def _seed(tape: Tape, name: str) -> Var:
    return next(i.var for i in tape.inputs if i.path[0] == name)


def _central(f, x: np.ndarray, h: float = 1e-6) -> np.ndarray:
    """d f(x) / d x by central differences: shape ``np.shape(f(x)) + np.shape(x)``."""
    columns = []
    for k in range(x.size):
        e = np.zeros(x.size)
        e[k] = h
        columns.append((np.asarray(f(x + e)) - np.asarray(f(x - e))) / (2 * h))
    return np.moveaxis(np.array(columns), 0, -1)


def test_each_sweep_over_seeds_is_composed():
    """hess_NAME: one per parameter's seed; jac_NAME: its rows (dout) and its forward columns (the
    tangent); a primitive without a batching rule (cumsum's adjoint): none."""
    hess = _tape("rosen", "hessian", ["x"])
    assert list(hess.facts.batched) == [(_seed(hess, hess.facts.seed).id,)]
    blocks = _tape("pair", "hessian", ["x", "w"])
    assert sorted(blocks.facts.batched) == sorted((_seed(blocks, s).id,) for s in blocks.facts.seeds)
    jac = _tape("tall", "jacobian", ["x"])
    assert set(jac.facts.batched) == {(_seed(jac, jac.facts.seed).id,), (_seed(jac, jac.facts.columns[0]).id,)}
    assert _tape("cumulative", "hessian", ["x"]).facts.batched == {}
    assert _tape("rosen", "hvp", ["x"]).facts.batched == {}  # (one sweep, seeded by a parameter)


@pytest.mark.parametrize(
    ("name", "mode", "wrt"),
    [
        ("rosen", "hessian", ["x"]),
        ("pair", "hessian", ["x", "w"]),
        ("tall", "jacobian", ["x"]),
        ("wide", "jacobian", ["x"]),
    ],
)
def test_the_composed_sweep_is_optimized_with_the_tape(name, mode, wrt):
    """The equations before the sweep and the batched sweep, optimized again together, are what
    they are: the composition ran the optimizer on both (its CSE, folding and DCE have nothing left);
    the sweep reads only the seeds, the inputs and values made before it or by itself."""
    tape = _tape(name, mode, wrt)
    table = load_rules()
    for sweep in tape.facts.batched.values():
        before, _ = sweep.split(tape.eqns)
        whole = tape.copy_header()
        whole.eqns = [*before, *sweep.eqns]
        whole.outputs = [*tape.outputs, *sweep.results.values()]
        rows = sweep.swept | {s.id for s in sweep.seeds}
        whole.facts.same_shape = {k: v for k, v in whole.facts.same_shape.items() if k not in rows}
        again = optimize(whole, table)
        made = {o.id for e in before for o in e.outs}
        assert [(e.prim, e.params) for e in again.eqns if not any(o.id in made for o in e.outs)] == [
            (e.prim, e.params) for e in sweep.eqns
        ]
        known = made | {i.var.id for i in tape.inputs}
        for e in sweep.eqns:
            assert all(not isinstance(a, Var) or a.id in known for a in e.args)
            known.update(o.id for o in e.outs)


@pytest.mark.parametrize(
    ("name", "mode", "wrt"),
    [
        ("rosen", "hessian", ["x"]),
        ("pair", "hessian", ["x", "w"]),
        ("tall", "jacobian", ["x"]),
        ("wide", "jacobian", ["x"]),
    ],
)
def test_the_composition_splits_as_the_writer_would(name, mode, wrt):
    """The sweep the composition batched is the one the writer's plan splits off (its in-place groups
    found the same way: ``transform.batched.in_place_groups``), so the printed text is the writer's."""
    tape = _tape(name, mode, wrt)
    plan = plan_function(tape, load_rules(), NUMPY)
    for seeds, sweep in tape.facts.batched.items():
        vars_ = [next(i.var for i in tape.inputs if i.var.id == s) for s in seeds]
        if mode == "jacobian" and vars_[0].id == _seed(tape, tape.facts.seed).id:
            _, rows = split_rows(tape.eqns, vars_[0], plan.inplace)
        elif mode == "jacobian":
            tangents = [_seed(tape, t) for t in tape.facts.columns]
            _, rows = split_seeded(tape.eqns, tangents, plan.inplace)
        else:
            _, rows = split_seeded(tape.eqns, vars_[0], plan.inplace)
        assert {o.id for e in rows for o in e.outs} == sweep.swept


def test_without_the_facts_the_writer_prints_the_loops(monkeypatch):
    """The writer batches nothing itself: with the composition off, hess_NAME and jac_NAME loop over
    their seeds, and give the batched forms' numbers (which central differences confirm)."""
    hess_text = generate(SOURCE, "f.py", ["pair"], {"pair": ["x", "w"]}, mode="hessian").text
    jac_text = generate(SOURCE, "f.py", ["tall"], mode="jacobian").text
    wide_text = generate(SOURCE, "f.py", ["wide"], mode="jacobian").text
    grad = _load(generate(SOURCE, "f.py", ["pair"], {"pair": ["x", "w"]}).text)["grad_pair"]
    assert "_rows_seed(" in hess_text and "_rows_seed(" in jac_text
    monkeypatch.setattr(pipeline, "with_batched", lambda tape, table: tape)
    hess_loop = generate(SOURCE, "f.py", ["pair"], {"pair": ["x", "w"]}, mode="hessian").text
    jac_loop = generate(SOURCE, "f.py", ["tall"], mode="jacobian").text
    wide_loop = generate(SOURCE, "f.py", ["wide"], mode="jacobian").text
    assert "_rows_seed(" in wide_text and "one reverse sweep per row" in wide_loop
    assert "_rows_seed(" not in hess_loop and "one second sweep per row" in hess_loop
    assert "_rows_seed(" not in jac_loop and "one forward sweep per column" in jac_loop
    x, w = RNG.normal(size=4), RNG.normal(size=4)
    (H_xx, H_xw), (H_wx, H_ww) = _load(hess_text)["hess_pair"](x, w)[3]
    loop = _load(hess_loop)["hess_pair"](x, w)[3]
    for got, expected in zip((H_xx, H_xw, H_wx, H_ww), (*loop[0], *loop[1]), strict=True):
        np.testing.assert_allclose(got, expected, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(H_xx, _central(lambda x: grad(x, w)[1], x), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(H_xw, _central(lambda w: grad(x, w)[1], w), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(H_ww, _central(lambda w: grad(x, w)[2], w), rtol=1e-5, atol=1e-6)
    for name, text, loop_text in (("tall", jac_text, jac_loop), ("wide", wide_text, wide_loop)):
        x = RNG.normal(size=6)  # (tall: columns, 18 values of 6 inputs; wide: rows, 2 values)
        J = _load(text)[f"jac_{name}"](x)[1]
        np.testing.assert_allclose(J, _load(loop_text)[f"jac_{name}"](x)[1], rtol=1e-13, atol=1e-13)
        np.testing.assert_allclose(J, _central(_load(SOURCE)[name], x), rtol=1e-5, atol=1e-6)


def test_a_value_the_writer_has_no_name_for_is_computed_again():
    """``BatchWriter.again``: a value of the tape the sweep reads that the function wrote inline (no
    name), or that a later write in place changed, is computed again in the block, with what it
    reads that has no name either; one it named, or a constant, is read."""
    tape = Tape("f")
    x = tape.add_input("x")
    seed = tape.add_input("v")
    a = tape.add_eqn("exp", [x])  # named
    b = tape.add_eqn("sin", [a])  # inline: computed again
    c = tape.add_eqn("cos", [b])  # inline too, read by b's reader
    buf = tape.add_eqn("grad_zeros", [x])
    written = tape.add_eqn("index_add", [buf, a], {"index": (0,)})  # buf overwritten in place
    tape.outputs = [written]
    read = Eqn("mul", [seed, c], {}, [Var()])
    read_buf = Eqn("mul", [seed, buf], {}, [Var()])
    sweep = BatchedSweep([seed], frozenset(), [read, read_buf], {})
    inplace = {buf.id: buf.id, written.id: buf.id}
    plan = SimpleNamespace(inline=frozenset({b.id, c.id}), inplace=inplace)
    writer = SimpleNamespace(tape=tape, names={a.id: "a", buf.id: "dx", written.id: "dx"}, consts={}, plan=plan)
    again = BatchWriter(writer).again(sweep)
    assert [e.prim for e in again] == ["sin", "cos", "grad_zeros"]
    writer.plan = SimpleNamespace(inline=frozenset(), inplace={})
    writer.names.update({b.id: "b", c.id: "c"})
    assert BatchWriter(writer).again(sweep) == []
    assert (
        BatchWriter(writer).again(BatchedSweep([seed], frozenset(), [Eqn("mul", [seed, Lit(2.0)], {}, [Var()])], {}))
        == []
    )


def test_the_optimizer_keeps_two_new_buffers_of_a_batched_sweep_apart():
    """Two ``rows_zeros(v, x)`` of a composed sweep are two buffers, each written in place: CSE
    keeps them apart (``Primitive.distinct``), as ``separate_buffers`` made their ``grad_zeros``."""
    tape = Tape("f")
    x, v = tape.add_input("x"), tape.add_input("v")
    g = tape.add_eqn("mul", [v, x])
    first = tape.add_eqn("index_add", [tape.add_eqn("rows_zeros", [v, x]), g], {"index": (Slice(),)})
    second = tape.add_eqn("index_add", [tape.add_eqn("rows_zeros", [v, x]), g], {"index": (Slice(),)})
    tape.outputs = [tape.add_eqn("add", [first, second])]
    assert [e.prim for e in optimize(tape, load_rules()).eqns].count("rows_zeros") == 2
