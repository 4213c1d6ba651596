"""Regions: the equations that own sub-tapes (loops and branches), and what every stage asks of them.

Lowering (``frontend.control``) turns each ``for``, ``while`` and ``if`` statement into ONE
equation whose body is a region: a closed ``Tape`` whose inputs are the loop index (``for``),
the *carried* values and the *free* values it reads from outside, and whose outputs are the
carried values after one iteration (or a branch's results)::

    outs[k]      = for(start, stop, step, *init[k], *free[m])  body(i, *carried, *free) -> carried'
    outs[k]      = while(*init[k], *free[m])      cond(*carried, *free) -> flag; body(...) -> carried'
    outs[k]      = if(flag, *free[m])             then(*free) -> outs; else(*free) -> outs

Differentiation adds a ``stack`` output to a forward loop (the values its backward sweep needs,
pushed once per iteration), a ``saved`` tuple to a branch, and the reversed equations
``for_back``, ``while_back`` and ``if_back`` (``transform.adjoint``).
"""

from __future__ import annotations

from collections.abc import Iterator

from .core import Atom, Eqn, Input, Tape, Var
from .primitives import primitive

#: The primitives that own regions, with their leading (non-carried, non-free) argument counts.
LEADING = {"for": 3, "while": 0, "if": 1, "for_back": 4, "while_back": 1, "if_back": 2}
CONTROL = frozenset(LEADING)
#: Those whose results' shapes may depend on the values: a branch taken, a loop's trip count.
VALUE_SHAPED = frozenset({"if", "if_back", "while", "while_back"})


def is_control(prim: str) -> bool:
    return prim in CONTROL


def close_regions(regions: list[Tape], lead: list[int]) -> list[Var]:
    """Make ``regions`` closed: every outer variable they read becomes an input.

    ``lead[r]`` is how many inputs region ``r`` already has.  All regions get the
    same free inputs in the same order (an input per outer variable read by any of
    them), appended after their leading inputs.  Returns the outer variables.
    """
    free: dict[int, Var] = {}
    for region in regions:
        for v in _outer_reads(region):
            free.setdefault(v.id, v)
    outer = list(free.values())
    for region in regions:
        subst: dict[int, Var] = {}
        for v in outer:
            inner = Var(hint=v.hint, hint_depth=v.hint_depth)
            region.inputs.append(Input(inner, ("#free", str(v.id))))
            subst[v.id] = inner
        substitute(region, subst)
    return outer


def _outer_reads(region: Tape) -> list[Var]:
    defined = {inp.var.id for inp in region.inputs}
    found: dict[int, Var] = {}
    for eqn in region.eqns:
        for a in eqn.args:
            if isinstance(a, Var) and a.id not in defined:
                found.setdefault(a.id, a)
        defined.update(o.id for o in eqn.outs)
    for a in region.outputs:
        if isinstance(a, Var) and a.id not in defined:
            found.setdefault(a.id, a)
    return list(found.values())


def substitute(tape: Tape, subst: dict[int, Atom]) -> None:
    """Replace variables in the arguments and outputs of ``tape`` (not inside its regions: they are closed)."""
    if not subst:
        return
    for eqn in tape.eqns:
        eqn.args = [subst.get(a.id, a) if isinstance(a, Var) else a for a in eqn.args]
    tape.outputs = [subst.get(a.id, a) if isinstance(a, Var) else a for a in tape.outputs]


def region_eqn(prim: str, args: list[Atom], params: dict, regions: list[Tape], outs: list[Var], span) -> Eqn:
    return Eqn(prim, list(args), dict(params), list(outs), span, tuple(regions))


def first_carried(eqn: Eqn, region: Tape | None = None) -> int:
    """The position of the first carried input of a loop's region (its body by default):
    after the index (``for``) and the values popped from the stack (``*_back``)."""
    if eqn.prim == "while" and region is eqn.regions[0]:
        return 0  # the condition
    n_saved = eqn.params.get("n_saved", 0)
    return {"for": 1, "for_back": 1 + n_saved, "while_back": n_saved}.get(eqn.prim, 0)


def bound_inputs(eqn: Eqn) -> list[tuple[Var, Atom]]:
    """The region inputs of a loop or branch that stand for an outer value (not carried, not saved),
    each with that value."""
    return [(var, eqn.args[pos]) for pos, var in bound_positions(eqn)]


def bound_positions(eqn: Eqn) -> list[tuple[int, Var]]:
    """``bound_inputs`` by the position of the outer value among ``eqn``'s operands."""
    k = eqn.params.get("n_carry", 0)
    lead = LEADING[eqn.prim]
    pairs: list[tuple[int, Var]] = []
    for n, region in enumerate(eqn.regions):
        if eqn.prim == "if":
            skip, at = 0, 1
        elif eqn.prim == "if_back":  # the seeds, the free values and the accumulators
            skip, at = eqn.params["n_saved"][n], 2
        else:
            skip, at = first_carried(eqn, region) + k, lead + k
        inputs = region.inputs[skip:][: max(0, len(eqn.args) - at)]
        pairs.extend((at + j, i.var) for j, i in enumerate(inputs))
    return pairs


def all_tapes(tape: Tape) -> Iterator[Tape]:
    """``tape`` and the regions of its equations, depth first, in order."""
    yield tape
    for eqn in tape.eqns:
        for region in eqn.regions:
            yield from all_tapes(region)


def views(eqns: list[Eqn], value: Var) -> set[int]:
    """The ids of the values of ``eqns`` that may share memory with ``value``: itself, and what a
    primitive that does not make a new array (``fresh``) computes from it (a view, an index, an
    ``unbroadcast`` that returns its operand), transitively.  A write into ``value``'s memory
    changes them all."""
    found = {value.id}
    for e in eqns:
        record = primitive(e.prim)
        if record.fresh:
            continue
        read = [a for k, a in enumerate(e.args) if k not in record.shape_operands]
        if any(isinstance(a, Var) and a.id in found for a in read):
            found.update(o.id for o in e.outs)
    return found
