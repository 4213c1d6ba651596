"""Writes without copies in a loop: which carried arrays a loop body may write in place, and the
body's equations put in an order that makes it safe.

A write ``F[i] += f`` is a value in the IR (``F_1 = setindex(F, i, F[i] + f)``: a new array), which
the code generator writes as ``F_1 = F.copy(); F_1[i] = ...`` unless the old array has no other
reader.  In a loop over pairs or elements that copy costs the whole array per write.  A carried
array whose versions in the body form one *write chain* is written in place instead:

- each version (the carried input, then each write's result) is read only by element reads
  (``getindex``) and by the one write that makes the next version; the last version is the body's
  result for that carry, and no version but the last leaves the body (not pushed, not read by
  the backward body);
- every write comes after the reads of the version it overwrites (``sink_writes`` moves each write
  down to just before its first user), and a read whose value is used after that write gets a
  copy of the element (``copy``: the element it overwrote, kept as an undo record when it is
  pushed).  A read that leaves the body only as the shape operand of the backward body's
  ``unbroadcast`` keeps no copy: a write never changes a shape.

``adjoint._loop_plan`` applies it to the forward body (the carried state) and to the backward
body (the carried adjoints, whose writes are ``dF[i] = 0`` and ``dF[i] += g``), and records the
carried inputs so proven in the region's ``facts.in_place``; the loop's initial value is a
copy made once before the loop (``adjoint``) unless it is a new array nothing else reads.  The
code generator (``codegen.appends.in_place_writes``) checks the chain again on the final tape
and writes it in place.

    >>> from yota_s2s.ir.core import Tape
    >>> body = Tape("body"); i = body.add_input("i"); F = body.add_input("F"); f = body.add_input("f")
    >>> old = body.add_eqn("getindex", [F, i], {"index": (Dyn(0),)})
    >>> new = body.add_eqn("add", [old, f])
    >>> F1 = body.add_eqn("setindex", [F, new, i], {"index": (Dyn(0),)})
    >>> eqns, owned, copies = write_in_place(body.eqns, [(F, F1)], {F1.id}, set(), [])
    >>> owned == {F.id}, [e.prim for e in eqns], copies
    (True, ['getindex', 'add', 'setindex'], {})
"""

from __future__ import annotations

from itertools import pairwise

from ..ir.core import Atom, Dyn, Eqn, Lit, Section, Slice, Tape, Var
from ..ir.regions import views

#: The writes of a chain: a new version of the array with one element or slice written.
WRITES = ("setindex", "index_add")

#: Read for the array's size or rank alone, which a write does not change.
SIZES = frozenset({"shape", "ndim"})

#: Off, every write copies its array as before this pass (for the benchmark's "before" column).
IN_PLACE = True


def write_in_place(
    eqns: list[Eqn], carries: list[tuple[Var, Atom]], leaving: set[int], pushed: set[int], later: list[Eqn]
) -> tuple[list[Eqn], set[int], dict[int, Var]]:
    """The body's equations, reordered and with element copies where a chain needs them, the ids
    of the carried inputs written in place, and the copies (read id -> copy) that replace a read
    where it leaves the body.

    ``carries``: each carried input with the body's result for it; ``leaving``: the ids of the
    values that leave the body (its results, what it pushes); ``pushed``: those the backward body
    reads (``later``, its equations), where a shape-only use (``unbroadcast``'s operand) needs no
    copy of the element.
    """
    owned: set[int] = set()
    copies: dict[int, Var] = {}
    for start, end in carries if IN_PLACE else ():
        chain = _chain(eqns, start, end, leaving)
        if chain is None:
            continue
        eqns = sink_writes(eqns, chain)
        eqns, made = _guard_reads(eqns, chain, leaving, pushed, later)
        copies.update(made)
        owned.add(start.id)
    return eqns, owned, copies


def _chain(eqns: list[Eqn], start: Var, end: Atom, leaving: set[int]) -> list[Var] | None:
    """The versions of the carried array ``start`` up to ``end``, or None when they are no chain."""
    users: dict[int, list[Eqn]] = {}
    for e in eqns:
        for a in e.args:
            if isinstance(a, Var):
                users.setdefault(a.id, []).append(e)
    chain, cur = [start], start
    while True:
        writes, other = [], []
        for e in users.get(cur.id, []):
            alone = not any(a is cur for a in e.args[1:])
            if e.prim in WRITES and e.args[0] is cur and alone:
                writes.append(e)
            elif not (e.prim == "getindex" and e.args[0] is cur and alone) and e.prim not in SIZES:
                other.append(e)
        if other or len(writes) > 1 or (cur is not end and cur.id in leaving):
            return None
        if not writes:
            return chain if cur is end and len(chain) > 1 else None
        if cur is end:
            return None
        cur = writes[0].out
        chain.append(cur)


def sink_writes(eqns: list[Eqn], chain: list[Var]) -> list[Eqn]:
    """Move each write of ``chain`` down to just before the first equation that reads its result
    (the end of the body when none does): the reads of the version it overwrites come first."""
    eqns = list(eqns)
    for version in chain[1:]:
        write = next(e for e in eqns if version in e.outs)
        eqns.remove(write)
        at = next((n for n, e in enumerate(eqns) if any(a is version for a in e.args)), len(eqns))
        eqns.insert(at, write)
    return eqns


def _guard_reads(
    eqns: list[Eqn], chain: list[Var], leaving: set[int], pushed: set[int], later: list[Eqn]
) -> tuple[list[Eqn], dict[int, Var]]:
    """Copy each element read whose value is used after the write that overwrites its array (a
    row of a 2-D array is a view), or leaves the body; every later use reads the copy."""
    position = {o.id: n for n, e in enumerate(eqns) for o in e.outs}
    overwritten = {old.id: position[new.id] for old, new in pairwise(chain)}
    copies: dict[int, Var] = {}
    for e in eqns:
        if e.prim != "getindex" or not isinstance(e.args[0], Var) or e.args[0].id not in overwritten:
            continue
        value, at = e.out, overwritten[e.args[0].id]
        at -= eqns[at].prim != "setindex"  # (np.add.at: read by the write is read too late)
        same = views(eqns, value)  # what shares the element's memory (a row of a 2-D array is a view)
        late = any(isinstance(a, Var) and a.id in same for u in eqns[at + 1 :] for a in u.args)
        kept = any(v in leaving and not (v in pushed and _shape_only(v, later)) for v in same)
        if late or kept:
            copies[value.id] = Var(hint=value.hint)
    result: list[Eqn] = []
    for e in eqns:
        if any(isinstance(a, Var) and a.id in copies for a in e.args):
            args = [copies.get(a.id, a) if isinstance(a, Var) else a for a in e.args]
            e = Eqn(e.prim, args, dict(e.params), list(e.outs), e.span, e.regions, e.section)
        result.append(e)
        if e.outs and e.out.id in copies:
            result.append(Eqn("copy", [e.out], {}, [copies[e.out.id]], e.span, (), e.section))
    return result, copies


def _shape_only(value: int, later: list[Eqn]) -> bool:
    """Whether ``later`` reads the value ``value`` for its shape alone (``unbroadcast``'s operand)."""
    return all(
        e.prim == "unbroadcast" and k == 1
        for e in later
        for k, a in enumerate(e.args)
        if isinstance(a, Var) and a.id == value
    )


def drop_restoring_writes(tape: Tape, ints: set[int]) -> Tape:
    """The backward equations of ``tape`` without the writes that give an adjoint back its own
    elements, ``index_add(setindex(D, 0, i), g, i)`` where ``g`` is ``D[i]`` (through
    ``unbroadcast``s): the adjoint of ``F[i] += f`` (read ``F[i]``, write ``F[i] + f``) is ``D``
    itself, and its element ``D[i]`` flows to ``f``, as by hand.  Another ``g``: ``D[i] = 0;
    D[i] += g`` is written ``D[i] = g``.  Only for a basic index (integers ``ints``, constants,
    slices): ``np.add.at`` of a repeated index would add ``D[i]`` twice."""
    if not IN_PLACE:
        return tape
    defs = {o.id: e for e in tape.eqns for o in e.outs}
    readers: dict[int, int] = {}
    for e in tape.eqns:
        for a in e.args:
            if isinstance(a, Var):
                readers[a.id] = readers.get(a.id, 0) + 1
    subst: dict[int, Atom] = {}
    assign: dict[int, Eqn] = {}
    for e in tape.eqns:
        if e.prim != "index_add" or e.section == Section.FORWARD or not isinstance(e.args[0], Var):
            continue
        zero = defs.get(e.args[0].id)
        if zero is None or zero.prim != "setindex" or readers.get(e.args[0].id) != 1:
            continue
        if not (isinstance(zero.args[1], Lit) and zero.args[1].value == 0) or zero.params != e.params:
            continue
        idx = e.args[2:]
        if not _same(zero.args[2:], idx) or not _basic(e.params["index"], idx, ints):
            continue
        g = e.args[1]
        while isinstance(g, Var) and g.id in defs and defs[g.id].prim == "unbroadcast":
            g = defs[g.id].args[0]
        read = defs.get(g.id) if isinstance(g, Var) else None
        restores = read is not None and read.prim == "getindex" and read.args[0] is zero.args[0]
        if restores and read.params == e.params and _same(read.args[1:], idx):
            subst[e.out.id] = zero.args[0]
            continue
        # D[i] = 0; D[i] += g is D[i] = g
        assign[id(e)] = Eqn("setindex", [zero.args[0], *e.args[1:]], e.params, e.outs, e.span, (), e.section)
    if not subst and not assign:
        return tape
    for v in list(subst):  # a chain of them: each to the first array
        while isinstance(subst[v], Var) and subst[v].id in subst:
            subst[v] = subst[subst[v].id]
    new = tape.copy_header()
    new.eqns = []
    for e in tape.eqns:
        e = assign.get(id(e), e)
        args = [subst.get(a.id, a) if isinstance(a, Var) else a for a in e.args]
        new.eqns.append(Eqn(e.prim, args, e.params, e.outs, e.span, e.regions, e.section))
    new.outputs = [subst.get(a.id, a) if isinstance(a, Var) else a for a in tape.outputs]
    return new


def int_values(eqns: list[Eqn], ints: set[int]) -> set[int]:
    """``ints`` (integers: a loop's index) and what ``+``, ``-``, ``*`` make of them with integer
    constants (``i + 1``)."""
    ints = set(ints)
    for e in eqns:
        if e.prim in ("add", "sub", "mul") and len(e.outs) == 1 and e.args and all(_int(a, ints) for a in e.args):
            ints.add(e.out.id)
    return ints


def _same(a: list[Atom], b: list[Atom]) -> bool:
    return len(a) == len(b) and all(
        x is y or (isinstance(x, Lit) and isinstance(y, Lit) and x == y) for x, y in zip(a, b)
    )


def _basic(index: tuple, idx: list[Atom], ints: set[int]) -> bool:
    """An index of integers and slices: no element is named twice."""
    for part in index:
        if isinstance(part, Dyn):
            if not _int(idx[part.k], ints):
                return False
        elif not (part is None or part is Ellipsis or type(part) is int or isinstance(part, Slice)):
            return False
    return True


def _int(a: Atom, ints: set[int]) -> bool:
    return (isinstance(a, Var) and a.id in ints) or (isinstance(a, Lit) and type(a.value) is int)
