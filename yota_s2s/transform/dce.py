"""Dead-code elimination: a ``Tape`` in, the same ``Tape`` without the pure equations nothing uses.

An equation stays when one of its results is used (by an equation that stays, or as an output)
or when it is impure: a random draw, or a loop or branch that makes one.  ``optimize`` runs it
after every round, and each pass that rewrites equations after itself.

    >>> from yota_s2s.dsl.load import load_rules
    >>> from yota_s2s.ir.core import Tape
    >>> t = Tape("f"); x = t.add_input("x")
    >>> unused = t.add_eqn("exp", [x]); t.outputs = [t.add_eqn("sin", [x])]
    >>> [e.prim for e in dce(t, load_rules()).eqns]
    ['sin']
"""

from __future__ import annotations

from ..dsl.rule import RuleTable
from ..ir.core import Eqn, Tape, Var


def dce(tape: Tape, table: RuleTable) -> Tape:
    """Drop pure equations whose results are unused."""
    live = {a.id for a in tape.outputs if isinstance(a, Var)}
    kept: list[Eqn] = []
    for eqn in reversed(tape.eqns):
        if needed(eqn, live, table):
            kept.append(eqn)
            live.update(a.id for a in eqn.args if isinstance(a, Var))
    new = tape.copy_header()
    new.eqns = kept[::-1]
    new.outputs = list(tape.outputs)
    return new


def needed(eqn: Eqn, live: set[int], table: RuleTable) -> bool:
    """``eqn`` must stay: a result of it is live, or it is impure (a random draw)."""
    return any(o.id in live for o in eqn.outs) or _impure(eqn, table)


def _impure(eqn: Eqn, table: RuleTable) -> bool:
    """A random draw, or a loop or branch that makes one (the generator's stream must advance
    as the function's does, even where the draw's value is not needed)."""
    rule = table.rules.get(eqn.prim)
    if rule is not None and not rule.pure:
        return True
    return any(_impure(e, table) for region in eqn.regions for e in region.eqns)
