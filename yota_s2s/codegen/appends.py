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
from ..ir.primitives import primitive
from ..ir.regions import LEADING, all_tapes, first_carried, views

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


#: Read for an array's shape or rank alone, which a write does not change.
_SIZES = frozenset({"shape", "ndim"})


def in_place_writes(tape: Tape) -> tuple[dict[int, int], frozenset[int]]:
    """The arrays a loop writes in place (``transform.writes``): value id -> the id of the carried
    input whose array it is (the root of its in-place group); and the values that must not be
    inlined (``_write_chain``'s ``pinned``).

    The transform proved the carried inputs of ``facts.in_place`` safe to write; the final tape is
    checked again: each version of the array in the body is read by element reads placed before
    the write that overwrites it (their values used before it too, or pushed), and only the last
    version leaves the body.  Where a check fails the writes copy, as before.  The loop starts
    from an array of its own (``owns``).
    """
    found: dict[int, int] = {}
    pinned: set[int] = set()
    for t in all_tapes(tape):
        for eqn in t.eqns:
            if eqn.prim not in ("for", "while", "for_back", "while_back") or not eqn.regions[-1].facts.in_place:
                continue
            body, first = eqn.regions[-1], first_carried(eqn)
            k = eqn.params["n_carry"]
            pushed = {a.id for a in body.outputs[k:] if isinstance(a, Var)} if eqn.prim in ("for", "while") else set()
            for j, inp in enumerate(body.inputs[first : first + k]):
                if inp.var.id in body.facts.in_place:
                    chain = _write_chain(body, inp.var, body.outputs[j], pushed, pinned)
                    found.update((v.id, inp.var.id) for v in chain or ())
    return found, frozenset(pinned)


def owns(
    init: Atom, uses: Mapping[int, int], defs: Mapping[int, Eqn], inplace: Mapping[int, int], inits: Mapping, depth=0
) -> bool:
    """A loop may write into ``init``, its initial value of a carried array, without copying it
    first: a new array (a fresh primitive's, an in-place buffer's), or a loop's carried value or
    result whose initial value is one, that nothing else reads.  A parameter's array, a value
    read after the loop, a loop's free value are copied once, before the loop
    (``flow.FlowWriter.carry``); ``inits``: each loop region's carried input -> the loop's
    initial value of it (``carried_inits``)."""
    if not isinstance(init, Var) or uses.get(init.id) != 1 or depth > 64:
        return False
    d = defs.get(init.id)
    if d is None:
        return init.id in inits and owns(inits[init.id], uses, defs, inplace, inits, depth + 1)
    if d.prim in ("for", "while", "for_back", "while_back"):
        j = d.outs.index(init)
        return j < d.params["n_carry"] and owns(d.args[LEADING[d.prim] + j], uses, defs, inplace, inits, depth + 1)
    return not d.regions and (init.id in inplace or primitive(d.prim).fresh)


def carried_inits(tape: Tape) -> dict[int, Atom]:
    """Each carried input of a loop's regions -> the loop's initial value of it."""
    inits: dict[int, Atom] = {}
    for t in all_tapes(tape):
        for eqn in t.eqns:
            if eqn.prim in ("for", "while", "for_back", "while_back"):
                lead, k = LEADING[eqn.prim], eqn.params["n_carry"]
                for region in eqn.regions:
                    first = first_carried(eqn, region)
                    for j in range(k):
                        inits[region.inputs[first + j].var.id] = eqn.args[lead + j]
    return inits


def _write_chain(body: Tape, start: Var, end: Atom, pushed: set[int], pinned: set[int]) -> list[Var] | None:
    """The versions of ``start`` written in place in ``body``, or None when they are not safe.
    Adds to ``pinned`` the values computed from an element read before the write that overwrites
    it and used after it: written as statements of their own, never inlined past the write."""
    where = {o.id: n for n, e in enumerate(body.eqns) for o in e.outs}
    readers: dict[int, list[int]] = {}
    for n, e in enumerate(body.eqns):
        for a in e.args:
            if isinstance(a, Var):
                readers.setdefault(a.id, []).append(n)
    outputs = {a.id for a in body.outputs if isinstance(a, Var)}
    leaving = outputs - pushed
    chain, cur, crossing = [start], start, set()
    while cur is not end:
        users = [body.eqns[n] for n in readers.get(cur.id, [])]
        writes = [e for e in users if e.prim in ("setindex", "index_add") and e.args[0] is cur]
        if len(writes) != 1 or cur.id in leaving or any(a is cur for a in writes[0].args[1:]):
            return None
        at = where[writes[0].out.id]
        if writes[0].prim != "setindex":  # (np.add.at of a computed index: its operands read before it, not by it)
            at -= 1
        derived: set[int] = set()
        for e in users:
            if e is writes[0] or e.prim in _SIZES:  # (its rank, its shape: a write changes neither)
                continue
            if e.prim != "getindex" or any(a is cur for a in e.args[1:]) or where[e.out.id] > at:
                return None
            same = views(body.eqns, e.out)  # what shares the element's memory (read by the write itself: before it)
            if same & leaving or any(n > at for v in same for n in readers.get(v, [])):
                return None
            derived.add(e.out.id)
        for e in body.eqns[: at + 1]:  # what the old elements compute before the write
            if e is not writes[0] and any(isinstance(a, Var) and a.id in derived for a in e.args):
                derived.update(o.id for o in e.outs)
        crossing |= {v for v in derived if v in outputs or any(n > at for n in readers.get(v, []))}
        cur = writes[0].out
        chain.append(cur)
    if len(chain) < 2:
        return None
    pinned |= crossing
    return chain
