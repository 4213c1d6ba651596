"""Save less in a loop: which of the values a backward loop reads are recomputed there instead
of being pushed on the forward loop's stack (Tapenade's to-be-recorded analysis, in its simple
form).

``adjoint._loop_plan`` splits a loop body's gradient into forward equations and backward ones;
the values the backward part reads from the forward part are saved once per iteration.  Two
kinds of saved value cost memory without need:

- a *loop-invariant* value: computed from the values the loop reads from outside alone
  (``0.5 * dt``, ``p[0]``), by a cheap pure primitive (elementwise, an index, a view, a shape
  query); the backward body reads those outer values too, and recomputes it;
- an *elementwise chain of the carried state*: ``np.sin(u)`` in ``u = u + dt * np.sin(u)``,
  where ``u`` is saved anyway.  A value made by an elementwise primitive (a ufunc) or an index
  whose operands are all available to the backward body, at most one of them not invariant
  (one state operand: ``a * x`` is a link, ``x * y`` of two state values is not), is
  recomputed from them.

Everything else is pushed as before: a value of two state operands, a reduction, a product of
matrices, a list, a loop's stack.  Recomputation never reads a value the codegen may write in
place: its operands are saved values, the loop's outer values or its index, which nothing
changes while the backward loop reads them (SSA: a write makes a new value).

    >>> from yota_s2s.dsl.load import load_rules
    >>> from yota_s2s.ir.core import Eqn, Tape, Var
    >>> body = Tape("body"); i = body.add_input("i"); u = body.add_input("u"); dt = body.add_input("dt")
    >>> s = body.add_eqn("sin", [u]); h = body.add_eqn("mul", [dt, s])
    >>> kept, again = rematerialize(body.eqns, [u, s], {dt.id}, {i.id}, load_rules())
    >>> kept == [u], [e.prim for e in again]  # sin(u) is recomputed from u: one state per step
    (True, ['sin'])
"""

from __future__ import annotations

from ..dsl.rule import RuleTable
from ..ir.core import Eqn, Lit, Var
from ..ir.primitives import primitive

#: Off, every value the backward body reads is pushed (the form before this pass; for the benchmark).
SAVE_LESS = True


def rematerialize(
    fwd: list[Eqn], saved: list[Var], outer: set[int], index: set[int], table: RuleTable
) -> tuple[list[Var], list[Eqn]]:
    """The saved values still pushed, and the forward equations (in order) the backward body
    repeats to recompute the others.

    ``outer``: the ids of the body inputs that stand for outer values (the free inputs), which
    the backward body reads too; ``index``: those of the loop index where the backward body has
    it (not saved).  A value saved as a carried input (not made by an equation) is always kept.
    """
    if not SAVE_LESS:
        return list(saved), []
    saved_ids = {v.id for v in saved}
    invariant = set(outer)
    avail = set(outer) | set(index) | {v.id for v in saved if not any(v in e.outs for e in fwd)}
    recompute: dict[int, Eqn] = {}
    for eqn in fwd:
        if eqn.regions or len(eqn.outs) != 1 or not _pure(eqn, table):
            continue
        out = eqn.out
        vars_ = [a for a in eqn.args if isinstance(a, Var)]
        if all(a.id in invariant for a in vars_) and _cheap_invariant(eqn):
            invariant.add(out.id)
            recompute[out.id] = eqn
            avail.add(out.id)
        elif _link(eqn) and all(a.id in avail for a in vars_) and len({a.id for a in vars_} - invariant) <= 1:
            recompute[out.id] = eqn
            avail.add(out.id)
        elif out.id in saved_ids:
            avail.add(out.id)  # kept: pushed, so available to what follows
    kept = [v for v in saved if v.id not in recompute]
    needed: set[int] = set()
    todo = [v.id for v in saved if v.id in recompute]
    while todo:
        vid = todo.pop()
        if vid in needed:
            continue
        needed.add(vid)
        todo.extend(a.id for a in recompute[vid].args if isinstance(a, Var) and a.id in recompute)
    return kept, [e for e in fwd if len(e.outs) == 1 and e.out.id in needed]


def _pure(eqn: Eqn, table: RuleTable) -> bool:
    return eqn.prim in table and table[eqn.prim].pure and eqn.prim not in ("static", "effect")


def _link(eqn: Eqn) -> bool:
    """A link of an elementwise chain: a ufunc, or an element or view of an array."""
    record = primitive(eqn.prim)
    return record.ufunc is not None or eqn.prim == "getindex"


def _cheap_invariant(eqn: Eqn) -> bool:
    """A loop-invariant value worth recomputing rather than pushing: elementwise, an index, a
    view or a shape query (not a product of matrices or a reduction: those are pushed)."""
    record = primitive(eqn.prim)
    if any(isinstance(a, Lit) and isinstance(a.value, str) for a in eqn.args):
        return False
    return record.ufunc is not None or record.view or record.python_value or eqn.prim == "getindex"
