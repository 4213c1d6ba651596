"""The batched sweeps composed before printing: a tape in, the same tape with ``Facts.batched`` out.

``hess_NAME`` and ``jac_NAME`` repeat a sweep that is linear in its seed (the second sweep in
``v``, the reverse sweep in ``dout``, the forward columns in the tangents) for every unit seed.
Each form is a composition of transforms a reader can name (what JAX writes ``vmap(jvp)``,
``vmap(vjp)``, ``vmap(hvp)``)::

    jac_NAME (rows)     = batch(vjp,  seeds = rows of I)     # the reverse sweep, seeded with dout
    jac_NAME (columns)  = batch(jvp,  seeds = columns of I)  # the forward sweep, with the tangents
    hess_NAME           = batch(hvp,  seeds = rows of I)     # the second sweep, with v (each P)

``with_batched`` makes each composition: it splits the tape by the seed (``ir.batching.split_seeded``,
``split_rows``: the equations that read no seed are computed once), batches the sweep over a leading
axis of seeds (``ir.batching.batch``), and optimizes the equations before it and the batched sweep
together (``optimize``: folding, CSE, DCE across both, so a value the tape computes once is read,
not computed again in every block).  The result is the tape's ``Facts.batched`` (an
``ir.batching.BatchedSweep`` by the ids of the seeds), which the code generator prints
(``codegen.batched``).  A sweep with a primitive that has no batching rule has none: it is written
as a loop over the unit seeds.

The split needs what the writer will write in place (a ``grad_zeros`` buffer and the chain of
``index_add`` into it is computed whole in the loop, or whole before it); ``in_place_groups`` finds
the chains the writer's plan finds in a tape without loops by the same rule (``ir.inplace``), and
those are the only tapes whose sweeps batch.
"""

from __future__ import annotations

from ..dsl.rule import RuleTable
from ..ir.batching import BatchedSweep, batch, split_rows, split_seeded
from ..ir.core import Atom, Eqn, Lit, Tape, Var, uses
from ..ir.inplace import extend_group
from ..ir.primitives import primitive
from ..ir.shapes import shape_classes
from .optimize import optimize


def with_batched(tape: Tape, table: RuleTable) -> Tape:
    """``tape`` with its batched sweeps (``Facts.batched``): ``hess_NAME``'s second sweep for each
    parameter's seed, ``jac_NAME``'s reverse rows and its forward columns, each where every
    primitive of it has a batching rule.

    >>> from yota_s2s.pipeline import generate
    >>> f = "import numpy as np\\ndef f(x):\\n    return np.sum(np.sin(x) * x)\\n"
    >>> tape = generate(f, "f.py", mode="hessian").tapes["optimize"][0]
    >>> [e.prim for e in next(iter(tape.facts.batched.values())).eqns]  # v * cos(x) - v * x * sin(x) + v * cos(x)
    ['mul', 'mul', 'mul', 'sub', 'add']
    """
    facts = tape.facts
    facts.batched = {}
    mode = facts.mode
    if not mode.by_rows or facts.rows:
        return tape
    inputs = {i.path[0]: i.var for i in tape.inputs}
    inplace = in_place_groups(tape, table)
    outputs = [a for a in tape.outputs if isinstance(a, Var)]
    if mode.order == 2:
        names = facts.seeds or [facts.seed]
        n = len(facts.wrt)
        for p, name in enumerate(names):
            seed = inputs[name]
            results = [tape.outputs[2]] if not facts.seeds else tape.outputs[1 + n + p * n : 1 + n + (p + 1) * n]
            read_after = {a.id for a in tape.outputs[: 1 + n] if isinstance(a, Var)}
            _compose(tape, table, split_seeded(tape.eqns, seed, inplace), [seed], results, read_after)
        return tape
    grads = tape.outputs[1 : 1 + len(facts.wrt)]
    if not facts.holomorphic:  # (complex rows: the loop)
        dout = inputs[facts.seed]
        value = tape.outputs[0]
        after = {value.id} if isinstance(value, Var) else set()
        _compose(tape, table, split_rows(tape.eqns, dout, inplace), [dout], grads, after)
    if facts.columns:  # (batched over the tangents of the parameters that have a Jacobian)
        split = split_seeded(tape.eqns, [inputs[t] for t in facts.columns], inplace)
        active = [inputs[t] for t, g in zip(facts.columns, grads, strict=True) if _has_jacobian(tape, t, g)]
        _compose(tape, table, split, active, [tape.outputs[-1]], {a.id for a in outputs}, takes=True)
    return tape


def _has_jacobian(tape: Tape, tangent: str, gradient: Atom) -> bool:
    """The parameter of ``tangent`` has a Jacobian (``codegen.seeds.jacobian_parameters``): the
    function reads it and a differentiable path reaches it."""
    w = tape.facts.wrt[tape.facts.columns.index(tangent)]
    read = any(i.path[0] == w for i in tape.inputs)
    return read and not (isinstance(gradient, Lit) and gradient.value is None)


def _compose(
    tape: Tape,
    table: RuleTable,
    split: tuple[list[Eqn], list[Eqn]],
    seeds: list[Var],
    results: list[Atom],
    read_after: set[int],
    takes: bool = False,
) -> None:
    """Batch the sweep of ``split`` (seeded with ``seeds``) and optimize it with the equations before
    it; record it in ``tape.facts.batched`` where it batches and makes one of ``results``."""
    before, sweep = split
    swept = frozenset(o.id for e in sweep for o in e.outs)
    if not any(isinstance(a, Var) and a.id in swept for a in results):
        return
    classes = shape_classes(tape, table, scalar_keys=frozenset())
    classes.same.update(tape.facts.same_shape)
    batched = batch(sweep, seeds, read_after, classes, takes)
    if batched is None:
        return
    whole = tape.copy_header()
    whole.eqns = [*before, *batched.eqns]
    whole.outputs = list(tape.outputs)
    # (a batched value has a leading axis its unbatched value has not: no shape known for it)
    rows = swept | {s.id for s in seeds}
    whole.facts.same_shape = {k: v for k, v in whole.facts.same_shape.items() if k not in rows}
    whole = optimize(whole, table)
    made = {o.id for e in before for o in e.outs}
    eqns = [e for e in whole.eqns if not any(o.id in made for o in e.outs)]
    composed = {a.id: b for a, b in zip(tape.outputs, whole.outputs, strict=True) if isinstance(a, Var)}
    kept = {a.id: composed[a.id] for a in results if isinstance(a, Var) and a.id in swept}
    tape.facts.batched[tuple(s.id for s in seeds)] = BatchedSweep(list(seeds), swept, eqns, kept)


def in_place_groups(tape: Tape, table: RuleTable) -> dict[int, int]:
    """The buffers written in place (value id -> the id of its group's first buffer): the groups the
    writer's plan finds (``ir.inplace``'s rule, which ``codegen.plan`` reads too), for the
    equations of a tape outside loops."""
    count = uses(tape)
    outputs = {a.id for a in tape.outputs if isinstance(a, Var)}
    defs = {o.id: e for e in tape.eqns for o in e.outs}

    def array(a: Atom) -> bool:
        if isinstance(a, Lit):
            return False
        d = defs.get(a.id)
        return a.id in tape.facts.array_inputs if d is None else not primitive(d.prim).python_arithmetic

    groups: dict[int, int] = {}
    for eqn in tape.eqns:
        buf = eqn.args[0] if eqn.args else None
        src = defs.get(buf.id) if isinstance(buf, Var) else None
        extend_group(groups, eqn, count, outputs, src, True, array, table.complex_values)
    return groups
