"""Batching a sweep: equations in, the same computation for a batch of seeds out (JAX's ``vmap``).

A sweep that is linear in its seed (``hess_NAME``'s second sweep in ``v``, ``jac_NAME``'s forward
columns in the tangents) gives every seed's result at once when each value it computes from the seed
gets a leading axis of rows, row ``i`` being the value for the ``i``-th seed::

    v = _rows_seed(x, _k, _step)        # rows _k, _k + 1, ... of the identity: shape (k,) + x.shape
    _t3 = v * _t1                       # elementwise: written as it is (NumPy aligns from the right)
    _t4 = _rows_sum(_t3, axis=0)        # a reduction: the axis moved past the rows
    dx[:, 1:] += _t4                    # an index: a leading ``:``

``split_seeded`` and ``split_rows`` find the sweep of a seed in a tape (what a loop over the seeds
computes for each, the rest computed once, before it); ``batch`` rewrites the equations of the sweep
into such equations (the batched values keep the variables of the values they batch, so what reads
the sweep's results reads them unchanged).  ``transform.batched`` composes the two with the
optimizer before anything is printed (a ``BatchedSweep``, the tape's ``Facts.batched``), and the
function writer prints the result as it prints any equation.  The rule of each primitive is a field of its
record (``ir.primitives.Primitive.batched``): written as it is (elementwise ones, an index shifted
past the rows), or by a primitive of its own that takes the rows into account (``rows_sum``,
``rows_matmul``: their helpers are in ``runtime/rows.py``).  A sweep with a primitive that has no rule
is not batched (None): its writer keeps the loop over the seeds.

An elementwise operand whose rows could have fewer dimensions than the other operand gets axes of
length 1 after its leading one (``rows_lift``), where the shapes do not prove it needless.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .core import Atom, Dyn, Eqn, Section, Slice, Tape, Var
from .primitives import primitive
from .regions import LEADING
from .shapes import ShapeClasses


@dataclass
class Batched:
    """A batched sweep: its equations, and the rule each equation of the sweep was batched by
    (``elementwise``, ``index``, ``index_add``, ``index_copy``, ``zeros``, or its batched primitive),
    by position, for the band form (``transform.band``) to read."""

    eqns: list[Eqn]
    kinds: dict[int, str]
    seeds: list[Var]  # (every value of the sweep is an array: the seeds' rows are)


@dataclass
class BandForm:
    """A tape's sweep in the band form, composed with the tape (``with_band``): ``eqns``, the equations
    before the sweep and the band form's, optimized together, compute ``kept`` (the value, the
    gradient: the sweep's outputs that read no seed) and each term ``diagonals[(d, start, stop, k)]``
    of diagonal ``d``, on its elements ``start:stop`` (``transform.band.Window``; ``k``: its numbers
    apart, 1, from its arrays, 0), where the
    ``tests`` hold: ``("ndim", a, k)``, ``("shape", a, b)``, ``("either", c, w)`` (``c`` a number or of
    ``w``'s shape), on values of ``eqns`` or the tape's inputs.  ``arrays``: the values ``eqns``
    read that are arrays where the tests hold; ``columns``: the diagonals run along the derivative's
    columns (``jvp_NAME``: diagonal ``d``'s element ``j`` is entry ``(j, j + d)``, else ``(j + d, j)``);
    ``seed``: the input the band form does not read."""

    eqns: list[Eqn]
    kept: list[Atom]
    diagonals: dict[tuple[int, int, int, int], Atom]
    tests: list[tuple[str, Atom, Atom | int]]
    arrays: frozenset[int]
    columns: bool
    seed: Var


@dataclass
class BatchedSweep:
    """A sweep over seeds batched and composed with its tape before anything is printed
    (``transform.batched.with_batched``; the tape's ``Facts.batched``, by the ids of its seeds).

    ``swept``: the ids of the values the sweep makes unbatched (what a loop over the seeds would
    compute for each; the tape's other equations are written once, before it).  ``eqns``: the sweep
    batched over a leading axis of rows of ``seeds`` (``batch``), optimized together with the
    equations before it (folding, CSE, DCE: ``transform.optimize``), those the equations before it do
    not make, in order: what one block of seeds computes.  ``results``: each value the loop stores
    (a row of ``H``, of a ``J``, the JVP's column), by the id it has in the tape, -> the value of
    ``eqns`` (or of the tape) that holds it now."""

    seeds: list[Var]
    swept: frozenset[int]
    eqns: list[Eqn]
    results: dict[int, Atom]

    def result(self, a: Atom) -> Atom:
        """What holds the tape's value ``a`` after the block (``a`` itself where it is not a result)."""
        return self.results.get(a.id, a) if isinstance(a, Var) else a

    def split(self, eqns: list[Eqn]) -> tuple[list[Eqn], list[Eqn]]:
        """``eqns`` (the tape's) in two: those written before the loop, and the unbatched sweep."""
        before: list[Eqn] = []
        sweep: list[Eqn] = []
        for e in eqns:
            (sweep if any(o.id in self.swept for o in e.outs) else before).append(e)
        return before, sweep


@dataclass
class CompressedSweep:
    """``--sparse``'s compressed sweep composed before printing (``transform.compressed``; the
    ``jvp``/``vjp``/``hvp`` tape's ``Facts.compressed``): ``tape``, the function of the mode with its
    seeds batched over a leading axis of colors (the equations that read no seed once), its products
    regrouped and optimized; where some of its values read only the seeds, the other arguments and
    shapes, ``fixed`` computes them (the same at every call of one prepared pattern) and ``tape``
    reads them as its last parameters ``names``."""

    tape: Tape
    fixed: Tape | None
    names: list[str]


def _basic(index: tuple) -> bool:
    """A static index of integers, slices, ``None`` and ``...`` only: with a ``:`` before it, it
    keeps the rows' axis first (an index array could move its axes to the front)."""
    return all(type(i) in (int, Slice) or i is None or i is Ellipsis for i in index)


def _elementwise(prim: str) -> bool:
    record = primitive(prim)
    return record.batched == "self" or (record.ufunc is not None and record.batched is None)


def rule_of(eqn: Eqn, rows: list[bool], fresh: set[int], takes: bool) -> str | None:
    """The rule that batches ``eqn`` whose operands ``rows`` are batched, or None where it has none;
    ``fresh``: the batched buffers this sweep made and reads once (written into in place); ``takes``:
    ``np.take`` and its adjoint batched too (along one int axis)."""
    prim, params = eqn.prim, eqn.params
    batched = primitive(prim).batched
    if eqn.regions or len(eqn.outs) != 1:
        return None
    if prim in ("take", "untake"):
        static = type(params.get("axis")) is int and set(params) == {"axis"}
        return batched if takes and static and rows[0] and not any(rows[1:]) else None
    if prim == "grad_zeros":
        return "zeros" if not any(rows) else None
    if prim == "getindex":
        static = len(eqn.args) == 1 and rows[0] and _basic(params.get("index", ()))
        if params.get("index") == (Dyn(0),) and rows == [True, False]:  # x[I], I computed: _rows_getindex
            return "rows_getindex"
        return "index" if static and set(params) == {"index"} else None
    if prim == "index_add" and params.get("index") == (Dyn(0),) and rows[2:] == [False] and any(rows):
        return "rows_index_add"  # dx[I] += g, I computed: _rows_index_add, the rows' flags its parameters
    if prim == "index_add":
        buf = eqn.args[0]
        ok = len(eqn.args) == 2 and isinstance(buf, Var) and set(params) == {"index"}
        if not ok or not _basic(params.get("index", ())):
            return None
        return "index_add" if buf.id in fresh else "index_copy"
    if _elementwise(prim):
        return "elementwise" if len(eqn.args) <= 2 and not params else None
    if batched is None:
        return None
    record = primitive(batched)
    if record.rows_tuple:  # joins: any operand batched, their flags one parameter
        return batched if any(rows) and set(params) <= set(record.rows_params) else None
    if record.rows_flags:  # products: the rows flags of every operand become parameters
        return batched if len(rows) == len(record.rows_flags) and not params else None
    # the others batch their first operand alone, with their static parameters as they are
    allowed = set(record.rows_params)
    return batched if rows[0] and not any(rows[1:]) and set(params) <= allowed else None


def batch(
    eqns: list[Eqn], seeds: list[Var], read_after: set[int], classes: ShapeClasses, takes: bool = False
) -> Batched | None:
    """``eqns`` (a sweep that reads ``seeds``) batched over a leading axis of rows of the seeds, or
    None where a primitive of it has no rule; ``read_after``: the values read after the sweep (its
    results); ``classes``: the shapes' classes of the sweep's tape, the seeds of the shapes of their
    parameters (``rows_lift`` is written where they do not prove it needless)."""
    batched = {s.id for s in seeds} | {o.id for e in eqns for o in e.outs}
    uses: dict[int, int] = {}
    for e in eqns:
        for a in e.args:
            if isinstance(a, Var):
                uses[a.id] = uses.get(a.id, 0) + 1
    fresh: set[int] = set()
    kinds: dict[int, str] = {}
    for n, eqn in enumerate(eqns):
        kind = rule_of(eqn, [isinstance(a, Var) and a.id in batched for a in eqn.args], fresh, takes)
        if kind is None:
            return None
        kinds[n] = kind
        made = eqn.out.id
        new = kind in ("zeros", "index_add", "index_copy") or (kind == "elementwise" and primitive(eqn.prim).fresh)
        if new and uses.get(made, 0) == 1 and made not in read_after:  # (an array of its own, read once)
            fresh.add(made)
    out = _Rewriter(batched, seeds[0], classes)
    for n, eqn in enumerate(eqns):
        if not out.rewrite(eqn, kinds[n]):
            return None
    return Batched(out.eqns, kinds, list(seeds))


class _Rewriter:
    """Writes the batched equations of a sweep, one equation of it at a time."""

    def __init__(self, batched: set[int], seed: Var, classes: ShapeClasses):
        self.batched = batched
        self.seed = seed
        self.classes = classes
        self.eqns: list[Eqn] = []
        self.origin: dict[int, Atom] = {}  # a batched buffer -> the unbatched array whose shape its rows have

    def wide_enough(self, a: Atom, b: Atom) -> bool:
        """The shapes prove that a row of ``a`` has at least the dimensions of ``b`` (``b``'s class is
        within ``a``'s: their broadcast has ``a``'s shape)."""
        return self.classes.of(b) <= self.classes.of(a)

    def rows(self, a: Atom) -> bool:
        return isinstance(a, Var) and a.id in self.batched

    def add(self, prim: str, args: list[Atom], params: dict, like: Eqn, outs: list[Var] | None = None) -> Var:
        eqn = Eqn(prim, args, params, outs or [Var()], like.span, section=like.section)
        self.eqns.append(eqn)
        return eqn.out

    def rewrite(self, eqn: Eqn, kind: str) -> bool:
        """Append ``eqn`` batched by rule ``kind``; False where it cannot be (a lift it cannot write)."""
        args, params, outs = list(eqn.args), dict(eqn.params), eqn.outs
        flags = [int(self.rows(a)) for a in args]
        if kind == "zeros":
            self.add("rows_zeros", [self.seed, args[0]], {}, eqn, outs)
            self.origin[eqn.out.id] = args[0]
        elif kind == "elementwise":
            for i in (0, 1) if len(args) == 2 else ():
                other = eqn.args[1 - i]
                if flags[i] and isinstance(other, Var) and not self.wide_enough(eqn.args[i], other):
                    args[i] = self.add("rows_lift", [args[i], other], {"b_rows": flags[1 - i]}, eqn)
            self.add(eqn.prim, args, params, eqn, outs)
        elif kind == "rows_getindex":
            self.add(kind, args, {}, eqn, outs)
        elif kind == "rows_index_add":
            self.add(kind, args, {"buf_rows": flags[0], "g_rows": flags[1]}, eqn, outs)
            self.origin[eqn.out.id] = self.origin.get(args[0].id, args[0]) if flags[0] else args[0]
        elif primitive(kind).rows_tuple:
            self.add(kind, args, {**params, "rows": tuple(flags)}, eqn, outs)
        elif kind == "index":
            self.add("getindex", args, {"index": (Slice(), *params["index"])}, eqn, outs)
        elif kind in ("index_add", "index_copy"):
            buf, value = args
            origin = self.origin.get(buf.id) if flags[0] else buf
            if kind == "index_copy":  # (a buffer read elsewhere, or a view: copied first)
                args[0] = self.add("rows_fresh", [buf, self.seed], {"rows": flags[0]}, eqn)
            index = params["index"]
            if flags[1]:
                probe = Eqn("getindex", [buf], {"index": index}, [Var()])  # (of the class of a row's buf[index])
                self.classes.add_eqn(probe)
                if not self.wide_enough(value, probe.out):  # its rows may have fewer axes than buf[:, index]'s
                    if origin is None:
                        return False
                    part = self.add("getindex", [origin], {"index": index}, eqn)
                    args[1] = self.add("rows_lift", [value, part], {"b_rows": 0}, eqn)
            self.add("index_add", args, {"index": (Slice(), *index)}, eqn, outs)
            if origin is not None:
                self.origin[eqn.out.id] = origin
        elif primitive(kind).rows_flags:
            names = primitive(kind).rows_flags
            self.add(kind, args, dict(zip(names, flags, strict=True)), eqn, outs)
        else:
            self.add(kind, args, params, eqn, outs)
        return True


# ---------------------------------------------------------------- the sweep of a seed in a tape
def split_rows(eqns: list[Eqn], seed: Var, inplace: Mapping[int, int]) -> tuple[list[Eqn], list[Eqn]]:
    """``jac_NAME``'s equations written before the loop over the rows (the forward sweep, and the
    backward equations that read no seed ``seed``), and those of each row.  A buffer written in place
    (``dx = _grad_zeros(x)``, then ``dx[3] += g``) is made in the row that writes it."""
    groups: dict[int, list[int]] = {}
    for v, root in inplace.items():
        groups.setdefault(root, []).append(v)
    defs = {o.id: e for e in eqns for o in e.outs}
    per_row = {seed.id}
    while True:
        before = len(per_row)
        for eqn in eqns:
            if eqn.section != Section.FORWARD and any(isinstance(a, Var) and a.id in per_row for a in eqn.args):
                per_row.update(o.id for o in eqn.outs)
        for members in groups.values():
            if any(m in per_row for m in members):
                per_row.update(members)
        for eqn in (e for e in eqns if any(o.id in per_row for o in e.outs)):
            for a in eqn.args:  # a buffer a row writes into (a backward loop's accumulator): made in the row
                d = defs.get(a.id) if isinstance(a, Var) else None
                if d is not None and d.section != Section.FORWARD and (eqn.regions or primitive(d.prim).buffer):
                    per_row.update(o.id for o in d.outs)
        if len(per_row) == before:
            break
    rows = [e for e in eqns if any(o.id in per_row for o in e.outs)]
    return [e for e in eqns if not any(o.id in per_row for o in e.outs)], rows


#: The loops, whose carried values the writer may name like their initial values.
_LOOPS = ("for", "while", "for_back", "while_back")


def split_seeded(eqns: list[Eqn], seed: Var | list[Var], inplace: Mapping[int, int]) -> tuple[list[Eqn], list[Eqn]]:
    """The equations of ``hess_NAME`` (or of ``jac_NAME``'s forward columns: ``seed`` its tangents)
    written before the loop over the rows (those that read no
    seed: the value, the gradient) and those of each row.  A buffer a row writes into in place
    (``inplace``: a member of a group written in place) is made in the row; one that is not is
    copied by the writes into it (``_index_add``), so the gradient's and each row's may share it."""
    seeds = [seed] if isinstance(seed, Var) else seed  # (several: jac_NAME's tangents)
    if _all_seeded(eqns, seeds):
        return [], list(eqns)
    groups: dict[int, list[int]] = {}
    for v, root in inplace.items():
        groups.setdefault(root, []).append(v)
    group_of = {m: ms for ms in groups.values() for m in ms}
    members = set(group_of) | set(groups)
    defs: dict[int, Eqn] = {}
    readers: dict[int, list[Eqn]] = {}
    regions: list[Eqn] = []
    for eqn in eqns:  # (one pass: what makes each value, what reads it, the loops and branches)
        for o in eqn.outs:
            defs[o.id] = eqn
        for a in eqn.args:
            if type(a) is Var:
                known = readers.get(a.id)
                if known is None:
                    readers[a.id] = [eqn]
                else:
                    known.append(eqn)
        if eqn.regions:
            regions.append(eqn)
    per_row: set[int] = set()
    work: list[int] = []
    marked: set[int] = set()
    loops = False

    def add(ids) -> None:
        for i in ids:
            if i not in per_row:
                per_row.add(i)
                work.append(i)

    def mark(eqn: Eqn) -> None:  # an equation of each row: what it makes, and what it writes into
        marked.add(id(eqn))
        add([o.id for o in eqn.outs])
        if members:
            for a in eqn.args:
                d = defs.get(a.id) if type(a) is Var else None
                if d is not None and primitive(d.prim).buffer and a.id in members:
                    add([o.id for o in d.outs])
        if eqn.prim in _LOOPS:  # each row's loop starts from its own initial values (the writer
            # names a carried value like its initial one)
            lead, k = LEADING[eqn.prim], eqn.params["n_carry"]
            for a in eqn.args[lead : lead + k]:
                d = defs.get(a.id) if isinstance(a, Var) else None
                if d is not None and not d.regions:
                    add([o.id for o in d.outs])

    add([s.id for s in seeds])
    while work:  # (every equation that reads a value of the rows is of the rows: a walk of the readers)
        v = work.pop()
        for eqn in readers.get(v, ()):
            if id(eqn) not in marked:
                mark(eqn)
        if v in group_of:
            add(group_of[v])  # a group written in place is all of the rows, or none
        made = defs.get(v)
        if not loops and made is not None and made.regions:  # a loop in the rows: every loop is (a
            loops = True  # backward loop shares its forward loop's index)
            for eqn in regions:
                if id(eqn) not in marked:
                    mark(eqn)
    before: list[Eqn] = []
    rows: list[Eqn] = []
    for e in eqns:
        outs = e.outs
        of_rows = outs[0].id in per_row if len(outs) == 1 else any(o.id in per_row for o in outs)
        (rows if of_rows else before).append(e)
    return before, rows


def _all_seeded(eqns: list[Eqn], seeds: list[Var]) -> bool:
    """Every equation of ``eqns`` reads a seed or a value made from one (in order: a pass that stops
    at the first that does not): each is then of the rows, the split needs no walk (a batched
    sweep's equations, planned as a part of their own)."""
    made = {s.id for s in seeds}
    for eqn in eqns:
        if not any(type(a) is Var and a.id in made for a in eqn.args):
            return False
        made.update([o.id for o in eqn.outs])
    return True
