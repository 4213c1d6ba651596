"""Which equations a loop over seeds computes again for each seed, and which it computes once.

``jac_NAME`` runs a reverse sweep per row of the Jacobian (seeded with each unit vector in turn),
or its forward columns one block of tangents at a time; ``hess_NAME`` runs its second sweep per
row of ``H``.  Everything that reads no seed (the value, the gradient, what the sweeps multiply by)
is computed once, before the loop.  The plan reads the split (``looped_values``: a value made
before the loop and read in it is named, never written inline into the loop), and the writer
writes the two parts where they go.  The splits themselves are ``ir.batching``'s (``split_seeded``,
``split_rows``), here with the plan's in-place groups; a sweep the pipeline batched
(``Facts.batched``) is written as the composition split it.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..dsl.rule import RuleTable
from ..ir.batching import split_rows, split_seeded
from ..ir.core import Eqn, Tape, Var
from ..ir.live import live_eqns

__all__ = ["Split", "columns_apart", "looped_values", "rows_only", "seeded_splits", "split_rows", "split_seeded"]

#: The equations written before a loop over seeds, and those of each seed (``split_seeded``).
Split = tuple[list[Eqn], list[Eqn]]


def looped_values(tape: Tape, inplace: Mapping[int, int]) -> set[int]:
    """The values the function computes in a loop over seeds (every one, where it has several:
    ``hess_NAME``'s block rows, ``jac_NAME``'s rows and columns); none for a function without one."""
    return seeded_splits(tape, inplace)[0]


def seeded_splits(tape: Tape, inplace: Mapping[int, int]) -> tuple[set[int], dict[int, Split]]:
    """``looped_values``, and the splits it made of ``hess_NAME``'s tape by each seed (seed id ->
    ``split_seeded``'s two lists): the plan keeps them, so that the writer does not make them again
    (``FunctionPlan.split_seeded``)."""
    facts = tape.facts
    if not facts.mode.by_rows or facts.rows:
        return set(), {}
    seeds = {i.path[0]: i.var for i in tape.inputs}
    parts: list[list[Eqn]] = []
    splits: dict[int, Split] = {}
    if facts.mode.order == 2:
        for name in facts.seeds or [facts.seed]:
            seed = seeds[name]
            splits[seed.id] = split_seeded(tape.eqns, seed, inplace)
            parts.append(splits[seed.id][1])
    else:
        parts.append(split_rows(tape.eqns, seeds[facts.seed], inplace)[1])
        if facts.columns:
            parts.append(split_seeded(tape.eqns, [seeds[t] for t in facts.columns], inplace)[1])
    return {o.id for part in parts for e in part for o in e.outs}, splits


def columns_apart(tape: Tape, inplace: Mapping[int, int]) -> bool:
    """``jac_NAME``'s rows and its forward columns share no equation (``--jacobian`` with columns)."""
    seeds = {i.path[0]: i.var for i in tape.inputs}
    _, rows = split_rows(tape.eqns, seeds[tape.facts.seed], inplace)
    _, cols = split_seeded(tape.eqns, [seeds[t] for t in tape.facts.columns], inplace)
    return not ({id(e) for e in rows} & {id(e) for e in cols})


def rows_only(tape: Tape, table: RuleTable) -> Tape:
    """``tape`` without its forward columns: the equations its other outputs need and the impure
    ones (an ``assert``; no loop or branch is in a tape with columns), the JVP's result dropped."""
    rows = tape.copy_header()
    rows.eqns = live_eqns(tape.eqns, {a.id for a in tape.outputs[:-1] if isinstance(a, Var)}, table)
    rows.outputs = tape.outputs[:-1]
    rows.facts.columns = []
    return rows
