"""Keys and facts about the atoms of a tape, shared by the optimizer's passes.

``value_key`` is how CSE and the finishing passes tell values apart: a variable by identity, a
constant by type and value (``1``, ``1.0`` and ``True`` are three constants).  ``inexact_values``
finds the values surely of a float or complex dtype, which some rewrites need (a product of
integers could overflow where the quotients it replaces do not); ``bool_values`` those that may
be NumPy bools (``b ** 2`` is an integer, ``b * b`` a bool).

    >>> from yota_s2s.ir.core import Lit, Tape
    >>> value_key(Lit(1)) == value_key(Lit(1.0)), value_key(Lit(2)) == value_key(Lit(2))
    (False, True)
    >>> t = Tape("f"); n = t.add_input("n"); e = t.add_eqn("exp", [n]); m = t.add_eqn("mul", [n, n])
    >>> value_key(e) in inexact_values(t), value_key(m) in inexact_values(t)
    (True, False)
"""

from __future__ import annotations

from ..ir.core import Atom, Lit, Tape, Var
from ..ir.primitives import primitive
from ..ir.regions import LEADING, bound_inputs, first_carried


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


def bool_values(tape: Tape) -> set[int]:
    """Ids of the values of ``tape`` and of its regions that may be NumPy bools: comparisons'
    results, the constants True and False, and what is computed from them by a primitive whose
    result is not always inexact (``where``, ``x[i]``, ``a + b``, a loop carrying one, a branch
    returning one).  The tape's inputs are numbers, except the region inputs listed in
    ``tape.facts.bool_inputs`` (the optimizer's)."""
    found = set(tape.facts.bool_inputs)
    _bool_values(tape, found)
    return found


def _may_be_bool(a: Atom, found: set[int]) -> bool:
    return type(a.value) is bool if isinstance(a, Lit) else a.id in found


def _bool_values(tape: Tape, found: set[int]) -> None:
    kinds: dict[str, str] = {}  # prim -> "bool", "inexact" (never a bool) or "operands" (a bool as they are)
    for eqn in tape.eqns:
        if eqn.regions:
            _region_bools(eqn, found)
            continue
        kind = kinds.get(eqn.prim)
        if kind is None:
            record = primitive(eqn.prim)
            kind = kinds[eqn.prim] = "bool" if record.boolean else "inexact" if record.makes_inexact else "operands"
        if kind == "inexact":
            continue
        if kind == "operands":
            for a in eqn.args:  # (_may_be_bool, inline: this runs per argument of the tape)
                if a.id in found if type(a) is Var else type(a.value) is bool:
                    break
            else:
                continue
        found.update(o.id for o in eqn.outs)


def _region_bools(eqn, found: set[int]) -> None:
    """The inputs of ``eqn``'s regions and its results that may be bools (see ``bool_values``):
    an outer value's input as that value; a carried value's as its initial value or the body's
    new value (to a fixed point); a result as the value it takes (a branch's, a loop's)."""
    for inner, outer in bound_inputs(eqn):
        if _may_be_bool(outer, found):
            found.add(inner.id)
    if eqn.prim in ("for_back", "while_back", "if_back"):  # gradients: floats
        for region in eqn.regions:
            _bool_values(region, found)
        return
    k = eqn.params.get("n_carry", 0)
    inits = eqn.args[LEADING[eqn.prim] : LEADING[eqn.prim] + k] if eqn.prim != "if" else []
    body = eqn.regions[-1]
    while True:
        for region in eqn.regions if inits else ():
            start = first_carried(eqn, region)
            for inp, init in zip(region.inputs[start : start + k], inits):
                if _may_be_bool(init, found):
                    found.add(inp.var.id)
        for region in eqn.regions:
            _bool_values(region, found)
        new = [j for j, o in enumerate(body.outputs[:k]) if _may_be_bool(o, found)]
        grown = [j for j in new if not _may_be_bool(inits[j], found)] if inits else []
        if not grown:
            break
        inits = [Lit(True) if j in grown else a for j, a in enumerate(inits)]
    for j, out in enumerate(eqn.outs):
        if eqn.prim == "if":
            if any(j < len(r.outputs) and _may_be_bool(r.outputs[j], found) for r in eqn.regions):
                found.add(out.id)
        elif j < k and (_may_be_bool(inits[j], found) or _may_be_bool(body.outputs[j], found)):
            found.add(out.id)
