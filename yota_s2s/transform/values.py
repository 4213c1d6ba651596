"""Keys and facts about the atoms of a tape, shared by the optimizer's passes.

``value_key`` is how CSE and the finishing passes tell values apart: a variable by identity, a
constant by type and value (``1``, ``1.0`` and ``True`` are three constants).  ``inexact_values``
finds the values surely of a float or complex dtype, which some rewrites need (a product of
integers could overflow where the quotients it replaces do not).

    >>> from yota_s2s.ir.core import Lit, Tape
    >>> value_key(Lit(1)) == value_key(Lit(1.0)), value_key(Lit(2)) == value_key(Lit(2))
    (False, True)
    >>> t = Tape("f"); n = t.add_input("n"); e = t.add_eqn("exp", [n]); m = t.add_eqn("mul", [n, n])
    >>> value_key(e) in inexact_values(t), value_key(m) in inexact_values(t)
    (True, False)
"""

from __future__ import annotations

from ..ir.core import Atom, Lit, Tape
from ..ir.primitives import primitive


def value_key(a: Atom) -> tuple:
    """A hashable key of ``a``: a variable by its id, a constant by its type and value."""
    return ("lit", a.key()) if isinstance(a, Lit) else ("var", a.id)


def all_lits(args: list[Atom]) -> bool:
    """Every one of ``args`` is a constant (then the equation may fold)."""
    for a in args:
        if not isinstance(a, Lit):
            return False
    return True


def is_const(a: Atom, value: float) -> bool:
    """``a`` is the number ``value`` (an int or a float, not a bool)."""
    return isinstance(a, Lit) and type(a.value) in (int, float) and a.value == value


def inexact_values(tape: Tape) -> set[tuple]:
    """Keys of the values surely of an inexact dtype (float or complex): results of ``exp``,
    ``log``, a division, ..., and of arithmetic or reductions with such an operand."""
    found: set[tuple] = set()
    for eqn in tape.eqns:
        if len(eqn.outs) != 1 or eqn.regions:
            continue
        record = primitive(eqn.prim)
        if record.makes_inexact or record.promotes_inexact and any(value_key(a) in found for a in eqn.args):
            found.add(value_key(eqn.outs[0]))
    return found
