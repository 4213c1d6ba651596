"""Which ``lst.append(v)`` the code generator writes in place (``rules/python.py``: ``list_append``).

The tape's ``list_append`` makes a new list; written as ``lst = [*lst, v]`` it copies the list, so
a loop of ``n`` appends costs ``n**2``.  It is written ``lst.append(v)`` where nothing else holds
the list object: the old list has no other reader (not a saved value the backward sweep reads,
not an output), and it is a new list made in this function (``[...]``, an append), or the result
of a loop over such a list, or a loop's carried list whose initial value is one.  A list a branch
gives, or that a loop or branch reads from outside, is copied (the outer object may be read again).

    >>> from yota_s2s.ir.core import Tape
    >>> t = Tape("f"); x = t.add_input("x")
    >>> lst = t.add_eqn("list_make", [x]); longer = t.add_eqn("list_append", [lst, x])
    >>> t.outputs = [t.add_eqn("list_stack", [longer])]
    >>> uses = {lst.id: 1, longer.id: 1, x.id: 2}
    >>> sorted(in_place_appends(t, uses)) == [longer.id]
    True
"""

from __future__ import annotations

from collections.abc import Mapping

from ..ir.core import Atom, Eqn, Tape, Var
from ..ir.regions import LEADING, all_tapes, first_carried

#: Primitives whose result is a list no other value holds (when their old list was one).
_NEW_LISTS = ("list_make", "list_append")


def in_place_appends(tape: Tape, uses: Mapping[int, int]) -> frozenset[int]:
    """The results of the ``list_append`` equations of ``tape`` written in place."""
    defs: dict[int, Eqn] = {}
    inits: dict[int, Atom] = {}  # a loop region's carried input -> the loop's initial value of it
    for t in all_tapes(tape):
        for eqn in t.eqns:
            for o in eqn.outs:
                defs[o.id] = eqn
            if eqn.prim in ("for", "while"):
                lead, k = LEADING[eqn.prim], eqn.params["n_carry"]
                for region in eqn.regions:
                    first = first_carried(eqn, region)
                    for j in range(k):
                        inits[region.inputs[first + j].var.id] = eqn.args[lead + j]
    outputs = {a.id for a in tape.outputs if isinstance(a, Var)}

    def owned(value: Atom, depth: int = 0) -> bool:
        if not isinstance(value, Var) or uses.get(value.id) != 1 or value.id in outputs or depth > 64:
            return False
        d = defs.get(value.id)
        if d is None:  # a region input: a loop's carried list is its initial value's object
            return value.id in inits and owned(inits[value.id], depth + 1)
        if d.prim in _NEW_LISTS:
            return True
        if d.prim in ("for", "while"):
            return owned(d.args[LEADING[d.prim] + d.outs.index(value)], depth + 1)
        return False

    return frozenset(e.out.id for t in all_tapes(tape) for e in t.eqns if e.prim == "list_append" and owned(e.args[0]))
