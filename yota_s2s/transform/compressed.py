"""``--sparse``'s compressed sweep composed before printing: a ``jvp``, ``vjp`` or ``hvp`` tape in, the
same tape with ``Facts.compressed`` out.

The sparse ``jac_NAME`` (``hess_NAME``) runs the mode's sweep on the columns of a color matrix ``S``
at once (``J @ S``, ``S.T @ J``, ``H @ S``).  The composition, each step a transform::

    split      the equations that read no seed, written once (``ir.batching.split_seeded``)
    batch      the sweep over a leading axis of colors (``ir.batching.batch``: each primitive's rule)
    optimize   folding, CSE, DCE across the equations before the sweep and the batched sweep
    regroup    products with one batched factor multiply the unbatched ones first (``transform.regroup``)
    keep       the values that read only the seeds, the other arguments and shapes: the same at
               every call of one prepared pattern, computed by a function of their own

The optimizer runs before the regrouping, not after it: its folding writes ``-(a * b)`` for
``-a * b``, which would move a negation the regrouping left on a kept value (computed once per
pattern) back onto a batched product (computed at every call, on colors times more numbers).

The result is an ``ir.batching.CompressedSweep``, which ``codegen.sparse`` prints
(``_jvp_NAME_colors`` and ``_jvp_NAME_fixed``).  A sweep with a loop, a branch or a primitive that
has no batching rule has none: ``jac_NAME`` then calls the mode's function once per color.

What is kept (``fixed_values``): a stencil's part of a forward sweep, ``0.1 * (np.roll(u_dot, 1) +
...)``; the seeds gathered by an edge list, ``x_dot[:, I] - x_dot[:, J]``.  The linear part of a
function then costs a sweep once, not once per call.  A kept value is read, never written: the plan
writes in place only into arrays its function made (a parameter has no equation); a kept value
added into is copied first.
"""

from __future__ import annotations

import dataclasses

from ..dsl.rule import RuleTable
from ..ir.batching import CompressedSweep, batch, split_seeded
from ..ir.core import Eqn, Input, Param, Section, Tape, Var
from ..ir.live import live_eqns
from ..ir.primitives import primitive
from ..ir.shapes import shape_classes
from .batched import in_place_groups
from .optimize import optimize
from .regroup import regrouped


def with_compressed(tape: Tape, table: RuleTable) -> Tape:
    """``tape`` (of ``jvp_NAME``, ``vjp_NAME`` or ``hvp_NAME``) with ``Facts.compressed``, its sweep
    over colors composed (None where it does not batch).

    >>> from yota_s2s.pipeline import generate
    >>> f = "import numpy as np\\ndef f(x):\\n    return np.sum(np.sin(x) * x)\\n"
    >>> made = generate(f, "f.py", mode="hessian", sparse=True).tapes["optimize"][0].facts.compressed
    >>> [p.name for p in made.tape.params], made.fixed  # (nothing reads the seed alone here)
    (['x', 'v'], None)
    >>> [e.prim for e in made.tape.eqns]  # (the value and the gradient once, then the sweep on every color)
    ['sin', 'mul', 'sum', 'cos', 'mul', 'add', 'mul', 'mul', 'mul', 'sub']
    """
    tape.facts.compressed = compressed(tape, table)
    return tape


def compressed(tape: Tape, table: RuleTable) -> CompressedSweep | None:
    """The composition of the module's text (see there) for ``tape``; None where it has a loop, a
    branch or a primitive without a batching rule."""
    facts = tape.facts
    names = facts.tangents if facts.mode.forward or facts.mode.order == 2 else [facts.seed]
    seeds = [i.var for i in tape.inputs if i.path[0] in names]
    if not seeds or any(e.regions for e in tape.eqns):
        return None
    before, sweep = split_seeded(tape.eqns, seeds, in_place_groups(tape, table))
    classes = shape_classes(tape, table, scalar_keys=frozenset())
    classes.same.update(facts.same_shape)
    after = {a.id for a in tape.outputs if isinstance(a, Var)}
    batched = batch(sweep, seeds, after, classes, takes=facts.mode.order == 1)
    if batched is None:
        return None
    whole = tape.copy_header()
    whole.eqns = before + batched.eqns
    whole.outputs = list(tape.outputs)
    whole.facts.array_inputs = whole.facts.array_inputs | {s.id for s in seeds}
    whole.facts.compressed = None
    whole = _optimized(whole, {s.id for s in seeds} | {o.id for e in sweep for o in e.outs}, table)
    regroup(whole, seeds, facts.wrt, table)
    kept = fixed_values(whole, seeds, facts.wrt, table)
    if not kept:
        return CompressedSweep(whole, None, [])
    return _split(whole, kept, table)


def _optimized(whole: Tape, rows: set[int], table: RuleTable) -> Tape:
    """``whole`` folded, CSE'd and DCE'd (``transform.optimize``, unchanged).  A batched value
    (``rows``: the seeds and the sweep's values) has a leading axis its unbatched value has not: no
    shape is known for it while optimizing; the printed tape keeps the facts it had (the seeds'
    checks read them)."""
    same = whole.facts.same_shape
    whole.facts.same_shape = {k: v for k, v in same.items() if k not in rows}
    made = optimize(whole, table)
    made.facts.same_shape = same
    return made


#: The operands that batched primitives (``ir.batching``) read for their shape and dtype alone:
#: position -> from that position on (``_rows_concat_part(g, *xs)``: every part of ``xs``).
_SHAPE_FROM = {"rows_unbroadcast": 1, "rows_zeros": 0, "rows_lift": 1, "rows_concat_part": 1, "rows_join_place": 1}


def _shape_only(eqn: Eqn, k: int) -> bool:
    """Operand ``k`` of ``eqn`` is read for its shape and dtype alone (which the key fixes)."""
    record = primitive(eqn.prim)
    start = _SHAPE_FROM.get(eqn.prim)
    return record.size_query or k in record.shape_operands or (start is not None and k >= start)


def _classify(tape: Tape, seeds: list[Var], wrt: list[str], table: RuleTable) -> tuple[set[int], set[int]]:
    """The values of ``tape`` that read a seed and otherwise only parameters not in ``wrt``, literals
    and shapes (those ``fixed_values`` may keep), and every value that reads a seed (the batched)."""
    fixed = {s.id for s in seeds} | {i.var.id for i in tape.inputs if i.path[0] not in wrt}
    seeded = {s.id for s in seeds}
    batched = {s.id for s in seeds}
    kept: set[int] = set()
    for eqn in tape.eqns:
        args = [(k, a) for k, a in enumerate(eqn.args) if isinstance(a, Var)]
        outs = {o.id for o in eqn.outs}
        if any(a.id in batched and not _shape_only(eqn, k) for k, a in args):
            batched |= outs
        if eqn.regions or not table.rules.get(eqn.prim, _PURE).pure:
            continue
        if all(a.id in fixed or _shape_only(eqn, k) for k, a in args):
            fixed |= outs
            if any(a.id in seeded and not _shape_only(eqn, k) for k, a in args):
                seeded |= outs
                kept |= outs
            elif primitive(eqn.prim).buffer:  # (zeros to add into: kept where what is added is)
                seeded |= outs
    return kept, batched


def regroup(tape: Tape, seeds: list[Var], wrt: list[str], table: RuleTable) -> None:
    """``tape``'s batched products and sums regrouped (``transform.regroup``), in place."""
    kept, batched = _classify(tape, seeds, wrt, table)
    outputs = {a.id for a in tape.outputs if isinstance(a, Var)}
    eqns, subst = regrouped(tape.eqns, batched, outputs, lambda a: isinstance(a, Var) and a.id in kept)
    tape.outputs = [subst.get(a.id, a) if isinstance(a, Var) else a for a in tape.outputs]
    tape.eqns = live_eqns(eqns, {a.id for a in tape.outputs if isinstance(a, Var)}, table)


def fixed_values(tape: Tape, seeds: list[Var], wrt: list[str], table: RuleTable) -> list[Var]:
    """The values of ``tape`` (a batched sweep: its seeds ``seeds``) that read a seed and otherwise
    only parameters not in ``wrt``, literals and shapes, and that an equation reading a parameter of
    ``wrt`` (or the outputs) reads: those worth keeping."""
    kept = _classify(tape, seeds, wrt, table)[0]
    if not kept:
        return []
    wanted: dict[int, Var] = {}
    for eqn in tape.eqns:
        if any(o.id in kept for o in eqn.outs):
            continue
        for a in eqn.args:
            if isinstance(a, Var) and a.id in kept:
                wanted.setdefault(a.id, a)
    for a in tape.outputs:
        if isinstance(a, Var) and a.id in kept:
            wanted.setdefault(a.id, a)
    return list(wanted.values())


class _Pure:
    pure = True


_PURE = _Pure()


def _split(whole: Tape, kept: list[Var], table: RuleTable) -> CompressedSweep:
    """``whole`` (a colors function's tape) split into the function of its kept values ``kept`` and
    itself reading them as parameters (``_k1``, ``_k2``, ...)."""
    names = [f"_k{n + 1}" for n in range(len(kept))]
    fixed = whole.copy_header()
    fixed.eqns = live_eqns(whole.eqns, {v.id for v in kept}, table)
    fixed.outputs = list(kept)
    fixed.out_tree = list(range(len(kept)))
    mode = whole.facts.mode
    fixed.facts.mode = dataclasses.replace(mode, products=False, seeded=False, seed_param=False, forward=False)
    fixed.facts.tangents = []
    fixed.facts.seed = None
    fixed.facts.wrt = []
    rest = whole.copy_header()
    ids = {v.id for v in kept}
    at = {v.id: Var(hint=v.hint) for v in kept}
    rest.inputs = [*whole.inputs, *(Input(at[v.id], (name,)) for v, name in zip(kept, names, strict=True))]
    rest.params = [*whole.params, *(Param(name) for name in names)]
    computed = []
    for eqn in whole.eqns:
        if any(o.id in ids for o in eqn.outs):
            continue
        if primitive(eqn.prim).writes_into and isinstance(eqn.args[0], Var) and eqn.args[0].id in ids:
            # a kept value added into: a copy of it, which the plan writes into in place
            copy = Eqn("copy", [at[eqn.args[0].id]], {}, [Var(hint=eqn.args[0].hint)], None, (), Section.BACKWARD)
            computed.append(copy)
            eqn = dataclasses.replace(eqn, args=[copy.out, *eqn.args[1:]])
        computed.append(eqn)
    outputs = {at.get(a.id, a).id for a in whole.outputs if isinstance(a, Var)}
    rest.eqns = live_eqns([_read_kept(e, at) for e in computed], outputs, table)
    rest.outputs = [at.get(a.id, a) if isinstance(a, Var) else a for a in whole.outputs]
    rest.facts.array_inputs = rest.facts.array_inputs | {v.id for v in at.values()}
    return CompressedSweep(rest, fixed, names)


def _read_kept(eqn: Eqn, at: dict[int, Var]) -> Eqn:
    """``eqn`` reading the kept values' parameters where it read the values."""
    if not any(isinstance(a, Var) and a.id in at for a in eqn.args):
        return eqn
    args = [at.get(a.id, a) if isinstance(a, Var) else a for a in eqn.args]
    return dataclasses.replace(eqn, args=args)
