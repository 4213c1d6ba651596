"""The equations a set of values needs: the backward slice that dead-code elimination keeps.

An equation stays when one of its results is live (read by an equation that stays, or wanted)
or when it is impure: an effect (``assert``, ``print``), a random draw, or a loop or branch that
makes one (the generator's stream must advance as the function's does).  ``transform.dce`` drops
the rest of a tape; the code generator cuts what a block of rows writes to what it needs.

    >>> from types import SimpleNamespace as Rule  # (a table of two pure rules: ``ir.primitives.Rules``)
    >>> from yota_s2s.ir.core import Tape
    >>> table = Rule(rules={p: Rule(pure=True, shape="elementwise", operands=("x",)) for p in ("exp", "sin")})
    >>> t = Tape("f"); x = t.add_input("x")
    >>> unused = t.add_eqn("exp", [x]); kept = t.add_eqn("sin", [x])
    >>> [e.prim for e in live_eqns(t.eqns, {kept.id}, table)]
    ['sin']
"""

from __future__ import annotations

from .core import Eqn, Var
from .primitives import Rules


def live_eqns(eqns: list[Eqn], live: set[int], table: Rules) -> list[Eqn]:
    """The equations of ``eqns`` that the values ``live`` need, and the impure ones, in order."""
    live = set(live)
    kept: list[Eqn] = []
    for eqn in reversed(eqns):
        outs = eqn.outs
        if (len(outs) == 1 and outs[0].id in live) or needed(eqn, live, table):  # (the common case first)
            kept.append(eqn)
            live.update([a.id for a in eqn.args if type(a) is Var])
    return kept[::-1]


def needed(eqn: Eqn, live: set[int], table: Rules) -> bool:
    """``eqn`` must stay: a result of it is live, or it is impure (an effect, a random draw)."""
    return any(o.id in live for o in eqn.outs) or _impure(eqn, table)


def _impure(eqn: Eqn, table: Rules) -> bool:
    """An effect or a random draw, or a loop or branch that makes one."""
    rule = table.rules.get(eqn.prim)
    if rule is not None and not rule.pure:
        return True
    return any(_impure(e, table) for region in eqn.regions for e in region.eqns)
