"""Dead-code elimination: a ``Tape`` in, the same ``Tape`` without the pure equations nothing uses.

An equation stays when one of its results is used (by an equation that stays, or as an output)
or when it is impure (``ir.live``: an effect, a random draw, a loop or branch that makes one).
``optimize`` runs it after every round, and each pass that rewrites equations after itself.

    >>> from yota_s2s.dsl.load import load_rules
    >>> from yota_s2s.ir.core import Tape
    >>> t = Tape("f"); x = t.add_input("x")
    >>> unused = t.add_eqn("exp", [x]); t.outputs = [t.add_eqn("sin", [x])]
    >>> [e.prim for e in dce(t, load_rules()).eqns]
    ['sin']
"""

from __future__ import annotations

from ..dsl.rule import RuleTable
from ..ir.core import Tape, Var
from ..ir.live import live_eqns


def dce(tape: Tape, table: RuleTable) -> Tape:
    """Drop pure equations whose results are unused (``ir.live``)."""
    new = tape.copy_header()
    new.eqns = live_eqns(tape.eqns, {a.id for a in tape.outputs if isinstance(a, Var)}, table)
    new.outputs = list(tape.outputs)
    return new
