"""Which equations a loop over seeds computes again for each seed, and which it computes once.

``jac_NAME`` runs a reverse sweep per row of the Jacobian (seeded with each unit vector in turn),
or its forward columns one block of tangents at a time; ``hess_NAME`` runs its second sweep per
row of ``H``.  Everything that reads no seed (the value, the gradient, what the sweeps multiply by)
is computed once, before the loop.  The plan reads the split (``looped_values``: a value made
before the loop and read in it is named, never written inline into the loop), and the writer
writes the two parts where they go.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..dsl.rule import RuleTable
from ..ir.core import Eqn, Section, Tape, Var
from ..ir.live import live_eqns
from ..ir.regions import LEADING

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


def split_rows(eqns: list[Eqn], seed: Var, inplace: Mapping[int, int]) -> tuple[list[Eqn], list[Eqn]]:
    """``jac_NAME``'s equations written before the loop over the rows (the forward sweep, and the
    backward equations that read no seed ``seed``), and those of each row.  A buffer written in place
    (``dx = _grad_zeros(x)``, then ``dx[3] += g``) is made in the row that writes it."""
    groups: dict[int, list[int]] = {}
    for v, root in inplace.items():
        groups.setdefault(root, []).append(v)
    defs = {o.id: e for e in eqns for o in e.outs}
    per_row = {seed.id}
    while True:
        before = len(per_row)
        for eqn in eqns:
            if eqn.section != Section.FORWARD and any(isinstance(a, Var) and a.id in per_row for a in eqn.args):
                per_row.update(o.id for o in eqn.outs)
        for members in groups.values():
            if any(m in per_row for m in members):
                per_row.update(members)
        for eqn in (e for e in eqns if any(o.id in per_row for o in e.outs)):
            for a in eqn.args:  # a buffer a row writes into (a backward loop's accumulator): made in the row
                d = defs.get(a.id) if isinstance(a, Var) else None
                if d is not None and d.section != Section.FORWARD and (eqn.regions or d.prim == "grad_zeros"):
                    per_row.update(o.id for o in d.outs)
        if len(per_row) == before:
            break
    rows = [e for e in eqns if any(o.id in per_row for o in e.outs)]
    return [e for e in eqns if not any(o.id in per_row for o in e.outs)], rows


#: The loops, whose carried values the writer may name like their initial values.
_LOOPS = ("for", "while", "for_back", "while_back")


def split_seeded(eqns: list[Eqn], seed: Var | list[Var], inplace: Mapping[int, int]) -> tuple[list[Eqn], list[Eqn]]:
    """The equations of ``hess_NAME`` (or of ``jac_NAME``'s forward columns: ``seed`` its tangents)
    written before the loop over the rows (those that read no
    seed: the value, the gradient) and those of each row.  A buffer a row writes into in place
    (``inplace``: a member of a group written in place) is made in the row; one that is not is
    copied by the writes into it (``_index_add``), so the gradient's and each row's may share it."""
    seeds = [seed] if isinstance(seed, Var) else seed  # (several: jac_NAME's tangents)
    if _all_seeded(eqns, seeds):
        return [], list(eqns)
    groups: dict[int, list[int]] = {}
    for v, root in inplace.items():
        groups.setdefault(root, []).append(v)
    group_of = {m: ms for ms in groups.values() for m in ms}
    members = set(group_of) | set(groups)
    defs: dict[int, Eqn] = {}
    readers: dict[int, list[Eqn]] = {}
    regions: list[Eqn] = []
    for eqn in eqns:  # (one pass: what makes each value, what reads it, the loops and branches)
        for o in eqn.outs:
            defs[o.id] = eqn
        for a in eqn.args:
            if type(a) is Var:
                known = readers.get(a.id)
                if known is None:
                    readers[a.id] = [eqn]
                else:
                    known.append(eqn)
        if eqn.regions:
            regions.append(eqn)
    per_row: set[int] = set()
    work: list[int] = []
    marked: set[int] = set()
    loops = False

    def add(ids) -> None:
        for i in ids:
            if i not in per_row:
                per_row.add(i)
                work.append(i)

    def mark(eqn: Eqn) -> None:  # an equation of each row: what it makes, and what it writes into
        marked.add(id(eqn))
        add([o.id for o in eqn.outs])
        if members:
            for a in eqn.args:
                d = defs.get(a.id) if type(a) is Var else None
                if d is not None and d.prim == "grad_zeros" and a.id in members:
                    add([o.id for o in d.outs])
        if eqn.prim in _LOOPS:  # each row's loop starts from its own initial values (the writer
            # names a carried value like its initial one)
            lead, k = LEADING[eqn.prim], eqn.params["n_carry"]
            for a in eqn.args[lead : lead + k]:
                d = defs.get(a.id) if isinstance(a, Var) else None
                if d is not None and not d.regions:
                    add([o.id for o in d.outs])

    add([s.id for s in seeds])
    while work:  # (every equation that reads a value of the rows is of the rows: a walk of the readers)
        v = work.pop()
        for eqn in readers.get(v, ()):
            if id(eqn) not in marked:
                mark(eqn)
        if v in group_of:
            add(group_of[v])  # a group written in place is all of the rows, or none
        made = defs.get(v)
        if not loops and made is not None and made.regions:  # a loop in the rows: every loop is (a
            loops = True  # backward loop shares its forward loop's index)
            for eqn in regions:
                if id(eqn) not in marked:
                    mark(eqn)
    before: list[Eqn] = []
    rows: list[Eqn] = []
    for e in eqns:
        outs = e.outs
        of_rows = outs[0].id in per_row if len(outs) == 1 else any(o.id in per_row for o in outs)
        (rows if of_rows else before).append(e)
    return before, rows


def _all_seeded(eqns: list[Eqn], seeds: list[Var]) -> bool:
    """Every equation of ``eqns`` reads a seed or a value made from one (in order: a pass that stops
    at the first that does not): each is then of the rows, the split needs no walk (a batched
    sweep's equations, planned as a part of their own)."""
    made = {s.id for s in seeds}
    for eqn in eqns:
        if not any(type(a) is Var and a.id in made for a in eqn.args):
            return False
        made.update([o.id for o in eqn.outs])
    return True


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
