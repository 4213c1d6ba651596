"""The band form: a batched sweep seeded with the identity's rows in, the equations of its diagonals out.

A sweep linear in its seed, batched over the rows of the identity (``ir.batching``: ``hess_NAME``'s
second sweep, ``jac_NAME``'s reverse sweep), gives every value a leading axis of rows.  For a chain
of elementwise steps on shifted slices (Rosenbrock, a discretized energy, a chain of springs, a
stencil) almost every number of those rows is zero: each value is a few diagonals, ``{d: vec}``,
row ``j + d`` and column ``j`` holding ``vec[j]``.  Seeded with the identity, the seed is the
diagonal of ones; a slice ``v[:, a:b]`` shifts a diagonal by ``a``; a product by an unbatched
array, a sum of two batched values, a broadcast or an unbroadcast that keeps the shape keep each
diagonal a diagonal; a write into a slice of a buffer shifts it back.  ``band`` follows the sweep
through these steps and writes, for each diagonal of its result, equations on unbatched values
(``mul``, ``add``, ``getindex``, ``index_add`` into ``np.zeros``): O(n) numbers a step, not
O(n^2).  ``with_band`` composes them with the tape: the equations before the sweep and the band
form's go through the optimizer together (folding, CSE, DCE), and the result is the tape's
``Facts.band`` (``ir.batching.BandForm``), which ``codegen.banded`` prints in ``hess_NAME`` and
``codegen.sparse_bands`` as ``--sparse``'s ``_hvp_NAME_bands`` (``_vjp_``, ``_jvp_``), then the
diagonals' writes.

What the band form assumes is returned with it, to be tested where the function runs before it is
taken (``BandForm.tests``): the seed's parameter is a vector, the operands the shapes do not prove
numbers are numbers (or, for a factor that may be either, a number or an array of the row's
shape), and every pair of shapes the steps need equal (a product's operands, a broadcast's
operand and target) that the shape classes do not prove is compared.  Each value's
rows have the shape of an unbatched value of the tape (its *witness*: ``x[1:]`` for ``v[:, 1:]``),
which is what these tests compare.  A step that is none of these raises ``NotBanded``.

The numbers that multiply a diagonal are carried with it (``Vec``) and folded into the equation
that first needs its values (``-400.0 * _t2`` for ``-(2 * _t2) * 200.0``), and a diagonal of one
number is never made an array.  A term written into a slice of a gradient buffer (``dup[2:] += g``)
keeps its values and the window of the diagonal it lies on (``Window``): no array of zeros is made
and written into unless two windows of one diagonal meet a product by an array.  A diagonal comes
out as its terms on their windows (``diagonals[(d, start, stop)]``): Bratu's off-diagonals are the
number ``1 / h**2`` on all elements but one, written so into the CSR data by ``_sp_diagonals``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..dsl.rule import RuleTable
from ..ir.batching import BandForm, batch
from ..ir.core import Atom, Eqn, Lit, Section, Slice, Span, Tape, Var
from ..ir.primitives import primitive
from ..ir.shapes import SCALAR, ShapeClasses, shape_classes
from .optimize import optimize

#: The most diagonals a value may have: past them, the batched sweep's blocks cost no more.
MAX_BANDS = 32

#: The products whose rows are a number times the batched operand where both operands are vectors:
#: (the position of the batched operand, that of the unbatched one) among ``(g, x, y)``.
PRODUCTS = {"dot_dx": (2, 1), "matmul_dx": (2, 1), "dot_dy": (1, 2), "matmul_dy": (1, 2)}


class NotBanded(Exception):
    """A step of the sweep that does not keep diagonals diagonals: the batched sweep is written."""


#: Where a term of a diagonal lies: ``(start, stop)``, its elements ``start`` (from the first) to
#: ``stop`` (from the end, ``0`` or less: ``-1`` the last but one), zero elsewhere.  A value written
#: into a slice of a gradient buffer (``dx[1:] += g``) is that window of the buffer's diagonal, never
#: an array of zeros written into.
Window = tuple[int, int]
WHOLE: Window = (0, 0)

#: A term of a diagonal: ``(k, t, number, window)``, ``k`` times the value ``t`` on the elements
#: ``window`` (``t``: those elements alone); ``number`` True: one number, broadcast along the window,
#: False: an array of the window's shape, None: the one or the other (an argument that may be either,
#: tested where the function runs).
Term = tuple[float, Atom, bool | None, Window]


@dataclass(frozen=True)
class Vec:
    """One diagonal, a sum ``const + k1 * t1 + k2 * t2 + ...`` kept unwritten until its values are
    needed (a product by an array, a write)."""

    const: float = 0.0
    terms: tuple[Term, ...] = ()

    @property
    def number(self) -> bool | None:
        """The diagonal is one number (broadcast along it): True, False, or None (it may be)."""
        return _both(*(number for _, _, number, _ in self.terms))

    @property
    def windows(self) -> list[Window]:
        """The windows of its terms, each once (its number: the whole diagonal)."""
        found = [WHOLE] if self.const else []
        for _, _, _, w in self.terms:
            if w not in found:
                found.append(w)
        return found

    def within(self, window: Window) -> Vec:
        """The terms on ``window`` (and the number, on the whole diagonal)."""
        const = self.const if window == WHOLE else 0.0
        return Vec(const, tuple(term for term in self.terms if term[3] == window))

    def scaled(self, c: float) -> Vec:
        return Vec(self.const * c, tuple((k * c, t, number, w) for k, t, number, w in self.terms))

    def plus(self, other: Vec) -> Vec:
        terms = list(self.terms)
        keys = [(_key(t), w) for _, t, _, w in terms]
        for k, t, number, w in other.terms:
            if (_key(t), w) in keys:
                i = keys.index((_key(t), w))
                terms[i] = (terms[i][0] + k, t, number, w)
            else:
                terms.append((k, t, number, w))
                keys.append((_key(t), w))
        return Vec(self.const + other.const, tuple(terms))


@dataclass
class Band:
    """A batched value of the sweep by its diagonals; its rows have the shape of ``witness``."""

    witness: Var
    vecs: dict[int, Vec]
    owned: set[int] = field(default_factory=set)  # buffers this band made (written in place)


@dataclass
class Bands:
    """The band form of a sweep: ``eqns`` compute each term ``diagonals[(d, start, stop, k)]`` of
    diagonal ``d`` on its window (a vector of the window's size, or a number; ``k`` 1: the numbers
    of the window apart from its arrays, ``k`` 0) where these tests hold: ``vectors`` of one dimension,
    ``numbers`` of none, ``same`` pairs of one shape, ``either`` pairs of which the first is a
    number or of the second's shape."""

    eqns: list[Eqn]
    diagonals: dict[tuple[int, int, int, int], Atom]
    vectors: list[Var]
    numbers: list[Var]
    same: list[tuple[Var, Var]]
    #: pairs ``(c, w)``: ``c`` a number or of the shape of ``w``
    either: list[tuple[Var, Var]] = field(default_factory=list)
    #: the shape classes of the rows: where the tests hold, values of these classes are arrays (a
    #: new array made of them may be written into in place)
    arrays: set[frozenset] = field(default_factory=set)


def band(
    rows: list[Eqn],
    kinds: dict[int, str],
    seed: tuple[Var, Var],
    out: tuple[Atom, Var],
    known: list[Eqn],
    classes: ShapeClasses,
) -> Bands:
    """The band form of the sweep ``rows`` (batched by rules ``kinds``, by position) seeded with the
    identity's rows: ``seed`` is the seed and the value whose shape it has (``hess_NAME``'s ``v`` and
    ``x``, ``vjp_NAME``'s ``dout`` and the value), ``out`` the result and the value whose shape it
    must have; ``known``: the equations before the sweep (the witnesses of slices, the shapes, the
    values to read rather than compute again); ``classes``: the shape classes of the tape.  Raises
    ``NotBanded``.  Row ``j + d`` of the result's rows (the seed's element ``j + d``), column ``j``
    (the result's element ``j``), is diagonal ``d``'s element ``j``."""
    return _Banding(known, classes).run(rows, kinds, seed, out)


def with_band(tape: Tape, table: RuleTable) -> Tape:
    """``tape`` with its band form (``Facts.band``, a ``BandForm``; None where it has none): the
    sweep of ``hess_NAME`` (one ``--wrt`` parameter), ``hvp_NAME``, ``vjp_NAME`` or ``jvp_NAME`` (one
    parameter, one seed), seeded with the identity's rows, where it keeps diagonals diagonals."""
    tape.facts.band = None
    facts, mode = tape.facts, tape.facts.mode
    hvp, forward = mode.order == 2, mode.forward
    names = [facts.seed] if mode.by_rows or not (forward or hvp) else facts.tangents
    seeds = [i.var for i in tape.inputs if i.path[0] in names]
    xs = [i.var for i in tape.inputs if i.path[0] in facts.wrt and len(i.path) == 1]
    value = tape.outputs[0] if tape.outputs and facts.value else None  # (the reverse sweep's seed's shape)
    if len(seeds) != 1 or len(xs) != 1 or len(facts.wrt) != 1 or facts.seeds or facts.rows or facts.columns:
        return tape
    if table.complex_values or not (hvp or isinstance(value, Var)) or any(e.regions for e in tape.eqns):
        return tape
    (seed,), (x,) = seeds, xs
    before, sweep, seeded = [], [], {seed.id}
    for e in tape.eqns:  # (the equations that read the seed, and those that read what they make)
        if any(isinstance(a, Var) and a.id in seeded for a in e.args):
            sweep.append(e)
            seeded.update(o.id for o in e.outs)
        else:
            before.append(e)
    classes = shape_classes(tape, table, scalar_keys=frozenset())
    classes.same.update(facts.same_shape)
    after = {a.id for a in tape.outputs if isinstance(a, Var)}
    batched = batch(sweep, [seed], after, classes, takes=not hvp)
    result = tape.outputs[-1] if hvp else tape.outputs[1]  # (H's row, after the value and the gradient)
    if batched is None or any(isinstance(a, Var) and a.id in seeded for a in tape.outputs if a is not result):
        return tape
    ends = (
        ((seed, x), (result, x)) if hvp else ((seed, x), (result, value)) if forward else ((seed, value), (result, x))
    )
    try:
        bands = band(sweep, batched.kinds, ends[0], ends[1], before, classes)
    except NotBanded:
        return tape
    kept = list(tape.outputs[:-1]) if hvp else [value]
    pairs = [*bands.same, *bands.either]
    tested = [*bands.vectors, *bands.numbers, *(a for pair in pairs for a in pair)]
    whole = tape.copy_header()
    whole.eqns = [*before, *bands.eqns]
    whole.outputs = [*kept, *bands.diagonals.values(), *tested]  # (what the tests read kept too)
    whole = optimize(whole, table)
    done = len(kept) + len(bands.diagonals)
    out, tested = whole.outputs[:done], whole.outputs[done:]
    n, m, k = len(bands.vectors), len(bands.numbers), len(bands.same)
    tests = [
        *(("ndim", a, 1) for a in tested[:n]),
        *(("ndim", a, 0) for a in tested[n : n + m]),
        *(
            ("shape" if j < k else "either", a, b)
            for j, (a, b) in enumerate(zip(tested[n + m :: 2], tested[n + m + 1 :: 2], strict=True))
        ),
    ]
    arrays = frozenset(a.id for e in whole.eqns for a in e.args if isinstance(a, Var) and classes.of(a) in bands.arrays)
    diagonals = dict(zip(bands.diagonals, out[len(kept) :], strict=True))
    facts.band = BandForm(whole.eqns, out[: len(kept)], diagonals, tests, arrays, forward, seed)
    return tape


class _Banding:
    """The walk of ``band``: the diagonals of each value of the sweep, and the equations written."""

    def __init__(self, known: list[Eqn], classes: ShapeClasses):
        self.classes = classes
        self.eqns: list[Eqn] = []
        self.span: Span | None = None
        self.same: list[tuple[Var, Var]] = []
        self.joined: dict[frozenset, frozenset] = {}  # shape classes compared: one shape
        self.numbers: list[Var] = []
        self.either: list[tuple[Var, Var]] = []
        self.witnesses: set[int] = set()
        self.shapes = {e.out.id: e.args[0] for e in known if e.prim == "shape" and len(e.args) == 1}
        self.slices: dict[tuple, Var] = {}
        self.bases: dict[int, frozenset] = {}  # the shape classes of the values sliced
        self.made: dict[tuple, Var] = {}  # the values written, by (prim, args, params): each once
        self.defs = {e.out.id: e for e in known if len(e.outs) == 1}
        self.joins = {
            tuple(_key(p) for p in e.args): e.out
            for e in known
            if e.prim == "concatenate" and e.params.get("axis", 0) == 0 and len(e.outs) == 1
        }
        for e in known:
            if e.prim == "getindex" and isinstance(e.args[0], Var) and len(e.args) == 1:
                self.slices.setdefault((e.args[0].id, e.params.get("index")), e.out)
                self.bases[e.args[0].id] = classes.of(e.args[0])
            if not e.regions and len(e.outs) == 1 and e.prim in ("mul", "add", "sub", "neg", "truediv", "getindex"):
                self.made.setdefault(_eqn_key(e.prim, e.args, e.params), e.out)

    def run(self, rows: list[Eqn], kinds: dict[int, str], seed: tuple[Var, Var], out: tuple[Atom, Var]) -> Bands:
        (seed, x), (out, y) = seed, out
        bands: dict[int, Band] = {seed.id: Band(x, {0: Vec(1.0)})}
        for n, eqn in enumerate(rows):
            self.span = eqn.span
            bands[eqn.out.id] = self.step(eqn, kinds[n], bands)
            if len(bands[eqn.out.id].vecs) > MAX_BANDS:
                raise NotBanded
        if not isinstance(out, Var) or out.id not in bands:
            raise NotBanded
        result = bands[out.id]
        self.same_shape(result.witness, y)
        diagonals: dict[tuple[int, int, int, int], Atom] = {}
        for d, v in sorted(result.vecs.items()):
            for w in sorted(v.windows) or [WHOLE]:
                part = v.within(w)  # (its numbers apart from its arrays: added where the matrix is written)
                numbers = Vec(part.const, tuple(t for t in part.terms if t[2] is True))
                arrays = Vec(0.0, tuple(t for t in part.terms if t[2] is not True))
                split = arrays.terms and (numbers.terms or numbers.const)
                for k, terms in enumerate((arrays, numbers) if split else (part,)):
                    diagonals[(d, *w, k)] = self.values(terms)
        vectors = [x] if self.root(self.classes.of(x)) == self.root(self.classes.of(y)) else [x, y]
        rows = [*vectors, *(v for v in self.slices.values() if v.id in self.witnesses)]
        roots = {self.root(self.classes.of(w)) for w in rows}
        arrays = roots | {c for c in self.joined if self.root(c) in roots}
        return Bands(self.eqns, diagonals, vectors, self.numbers, self.same, either=self.either, arrays=arrays)

    # ------------------------------------------------------------------ the steps
    def step(self, eqn: Eqn, kind: str, bands: dict[int, Band]) -> Band:
        """The band of ``eqn``'s result."""
        prim, args = eqn.prim, eqn.args
        band = [bands.get(a.id) if isinstance(a, Var) else None for a in args]
        if kind == "zeros":
            if not isinstance(args[0], Var) or band[0] is not None:
                raise NotBanded
            return Band(args[0], {})
        if kind == "index" and band[0] is not None:
            a, s = _shift(eqn.params["index"])
            w = self.slice_of(band[0].witness, eqn.params["index"])
            self.witnesses.add(w.id)
            return Band(w, {d + a: self.sliced(v, s, band[0].witness) for d, v in band[0].vecs.items()})
        if kind in ("index_add", "index_copy") and band[0] is None and band[1] is not None:
            band[0] = self.zeros(args[0])  # (a gradient's zeros, made before the sweep: no diagonal)
        if kind in ("index_add", "index_copy") and band[0] is not None and band[1] is not None:
            index = eqn.params["index"]
            part = self.slice_of(band[0].witness, index)
            return self.index_add(index, band[0], band[1], part, in_place=kind == "index_add")
        if prim in ("concat_part", "join_place") and band[0] is not None and not any(band[1:]):
            return self.joined_part(eqn, band[0])
        if kind in ("rows_unbroadcast", "rows_broadcast") and band[0] is not None:  # that keep the shape
            target = self.shapes.get(args[1].id) if prim == "broadcast_to" and isinstance(args[1], Var) else args[1]
            if not isinstance(target, Var) or target.id in bands:
                raise NotBanded
            self.same_shape(band[0].witness, target)
            return Band(target, dict(band[0].vecs))
        if kind == "elementwise":
            return self.elementwise(eqn, band)
        if prim in PRODUCTS:
            rows, other = PRODUCTS[prim]
            if band[rows] is None or any(band[i] is not None for i in range(3) if i != rows):
                raise NotBanded
            self.same_shape(args[other], band[rows].witness)  # (both vectors: the product is g times the row)
            return self.times(band[rows], args[0], number=True)
        raise NotBanded

    def elementwise(self, eqn: Eqn, band: list[Band | None]) -> Band:
        prim, args = eqn.prim, eqn.args
        if prim == "neg" and band[0] is not None:
            return Band(band[0].witness, {d: v.scaled(-1.0) for d, v in band[0].vecs.items()})
        if prim in ("add", "sub") and band[0] is not None and band[1] is not None:
            a, b = band
            self.same_shape(a.witness, b.witness)
            sign = 1.0 if prim == "add" else -1.0
            vecs = dict(a.vecs)
            for d, v in b.vecs.items():
                v = v.scaled(sign)
                vecs[d] = vecs[d].plus(v) if d in vecs else v
            return Band(a.witness, vecs)
        if prim == "mul" and (band[0] is None) != (band[1] is None):
            i = 0 if band[0] is not None else 1
            return self.times(band[i], args[1 - i])
        if prim == "truediv" and band[0] is not None and band[1] is None:
            c = args[1]
            if isinstance(c, Lit):
                if not _number(c) or c.value == 0:
                    raise NotBanded
                return self.times(band[0], Lit(1.0 / c.value))
            number = self.operand(c, band[0].witness)
            w = band[0].witness
            return Band(w, {d: self.apply(v, "truediv", c, number, w) for d, v in band[0].vecs.items()})
        raise NotBanded

    def times(self, band: Band, c: Atom, number: bool = False) -> Band:
        """``band`` times the unbatched ``c``: a number, or a value of the rows' shape (``number``:
        a number, tested where the function runs unless the shapes prove it)."""
        if isinstance(c, Lit):
            if not _number(c):
                raise NotBanded
            return Band(band.witness, {d: v.scaled(c.value) for d, v in band.vecs.items()})
        if not isinstance(c, Var):
            raise NotBanded
        is_number = self.operand(c, band.witness, number)
        w = band.witness
        return Band(w, {d: self.apply(v, "mul", c, is_number, w) for d, v in band.vecs.items()})

    def apply(self, v: Vec, prim: str, c: Var, number: bool | None, witness: Var) -> Vec:
        """``v`` times (or over) the unbatched ``c``: a number times ``c`` stays unwritten; one term
        keeps its number (``400.0 * (t * c)``); else the sum on each window is written, then
        multiplied (by the window's slice of an array ``c``; of the rows' shape ``witness``)."""
        if not v.terms and prim == "mul":
            return Vec(0.0, ((v.const, c, number, WHOLE),))
        if number is None and v.windows != [WHOLE]:  # (a number or an array: no slice of it is written)
            v = Vec(0.0, ((1.0, self.whole(v, witness), v.number, WHOLE),))
        out = Vec()
        for w in v.windows:
            part, cw = v.within(w), c if number or w == WHOLE else self.emit("getindex", [c], {"index": _slice(w)})
            if len(part.terms) == 1 and not part.const:
                k, t, is_number, _ = part.terms[0]
            else:
                k, t, is_number = 1.0, self.values(part), part.number
            out = out.plus(Vec(0.0, ((k, self.emit(prim, [t, cw]), _both(is_number, number), w),)))
        return out

    def operand(self, c: Var, witness: Var, number: bool = False) -> bool | None:
        """``c`` as the other operand of a row of ``witness``'s shape: True where it is a number
        (proven by the shapes, or ``number``: tested where the function runs); False where the
        shapes prove it an array of the witness's shape; else None, tested where the function runs
        to be the one or the other (``Bands.either``)."""
        if self.classes.of(c) == SCALAR:
            return True
        if number:
            if all(g.id != c.id for g in self.numbers):
                self.numbers.append(c)
            return True
        if self.root(self.classes.of(c)) == self.root(self.classes.of(witness)):
            return False
        if (c, witness) not in self.either:
            self.either.append((c, witness))
        return None

    def joined_part(self, eqn: Eqn, g: Band) -> Band:
        """``np.concatenate(parts)``'s adjoint's part ``k`` of the rows ``g`` (``concat_part``: the
        slice ``g[:, a:-b]``, ``a`` and ``b`` the lengths of the parts before and after it), or the
        rows ``g`` of part ``k`` placed in zeros of the join's shape (``join_place``), where those
        parts' lengths are numbers written in the source (``np.zeros(1)``)."""
        parts, k = eqn.args[1:], eqn.params.get("part")
        if eqn.params.get("axis", 0) != 0 or eqn.params.get("join", "concatenate") != "concatenate":
            raise NotBanded
        if type(k) is not int or not isinstance(parts[k], Var):
            raise NotBanded
        lengths = [self.length(p) for n, p in enumerate(parts) if n != k]
        if any(n is None for n in lengths):
            raise NotBanded
        a, b = sum(lengths[:k]), sum(lengths[k:])
        joined = self.joins.get(tuple(_key(p) for p in parts))
        if joined is None:
            raise NotBanded
        index = (Slice(a, -b if b else None),)
        if eqn.prim == "concat_part":
            self.same_shape(g.witness, joined)
            return Band(parts[k], {d + a: self.sliced(v, index[0], g.witness) for d, v in g.vecs.items()})
        return self.index_add(index, Band(joined, {}), g, parts[k], in_place=True)

    def zeros(self, a: Atom) -> Band | None:
        """``a``, zeros of the shape of a value (``grad_zeros``) that reads no seed, as rows: no
        diagonal; None for any other value."""
        d = self.defs.get(a.id) if isinstance(a, Var) else None
        if d is None or d.prim != "grad_zeros" or not isinstance(d.args[0], Var):
            return None
        return Band(d.args[0], {})

    def length(self, a: Atom) -> int | None:
        """The length of the vector ``a`` where the source gives it as a number (``np.zeros(1)``)."""
        d = self.defs.get(a.id) if isinstance(a, Var) else None
        if d is None or d.prim not in ("zeros", "ones") or len(d.args) != 1 or not isinstance(d.args[0], Lit):
            return None
        n = d.args[0].value
        n = n[0] if type(n) is tuple and len(n) == 1 else n
        return n if type(n) is int else None

    def index_add(self, index: tuple, buf: Band, value: Band, part: Var, in_place: bool) -> Band:
        """``buf[:, s] += value``: each diagonal ``d`` of ``value`` added to ``buf``'s ``d - a``
        (``part``: a value of the shape of ``buf``'s rows' ``[s]``)."""
        a, s = _shift(index)
        self.same_shape(value.witness, part)
        vecs, owned = dict(buf.vecs), set(buf.owned) if in_place else set()
        if s.stop is None or s.stop < 0:  # (each term moved to its window of the buffer's diagonal)
            b = s.stop or 0
            for d, v in value.vecs.items():
                v = Vec(0.0, ((1.0, Lit(v.const), True, WHOLE),) if v.const else ()).plus(v)
                moved = Vec(0.0, tuple((k, t, number, (w[0] + a, w[1] + b)) for k, t, number, w in v.terms))
                vecs[d - a] = vecs[d - a].plus(moved) if d - a in vecs else moved
            return Band(buf.witness, vecs, owned)
        for d, v in value.vecs.items():
            old = vecs.get(d - a)
            if old is not None and _owned(old, owned):
                into = old.terms[0][1]
            else:
                into = self.whole(old, buf.witness) if old is not None and old.number is False else None
                if into is None or not isinstance(into, Var):  # (an array of the buffer's shape: a new one)
                    into = self.emit("zeros", [self.emit("shape", [buf.witness])], numbered=False)
                    if old is not None:
                        into = self.emit("add", [into, self.whole(old, buf.witness)], numbered=False)
            made = self.emit("index_add", [into, self.whole(v, value.witness)], {"index": (s,)}, numbered=False)
            owned.add(made.id)
            vecs[d - a] = Vec(0.0, ((1.0, made, False, WHOLE),))
        return Band(buf.witness, vecs, owned)

    # ------------------------------------------------------------------ values and shapes
    def whole(self, v: Vec, witness: Var) -> Atom:
        """The values of the whole diagonal ``v``: its terms on other windows than the whole
        written into zeros of the shape of ``witness``."""
        if v.windows in ([], [WHOLE]):
            return self.values(v)
        into: Atom = self.emit("zeros", [self.emit("shape", [witness])], numbered=False)
        for w in v.windows:
            part = self.values(v.within(w))
            if w == WHOLE:
                into = self.emit("add", [into, part], numbered=False)
            else:
                into = self.emit("index_add", [into, part], {"index": _slice(w)}, numbered=False)
        return into

    def values(self, v: Vec) -> Atom:
        """The diagonal's values on the window of its terms (one): its terms, their numbers folded
        in (``t1 - 400.0 * t2 + 2.0``)."""
        out: Atom | None = None
        for k, t, _, _ in v.terms:
            if out is None:  # (the first term carries its sign: -400.0 * t, -t)
                out = t if k == 1.0 else self.emit("neg", [t]) if k == -1.0 else self.emit("mul", [Lit(k), t])
            else:
                term = t if abs(k) == 1.0 else self.emit("mul", [Lit(abs(k)), t])
                out = self.emit("add" if k >= 0 else "sub", [out, term])
        if out is None:
            return Lit(v.const)
        if v.const:
            out = self.emit("add" if v.const > 0 else "sub", [out, Lit(abs(v.const))])
        return out

    def sliced(self, v: Vec, s: Slice, witness: Var) -> Vec:
        """The elements ``s`` of the diagonal ``v`` (of rows of the shape of ``witness``): each term's
        window cut by ``s``, and its values with it."""
        if any(number is None for _, _, number, _ in v.terms):  # (a number has no slice)
            raise NotBanded
        a, b = s.start or 0, s.stop or 0
        if b > 0 and v.windows not in ([], [WHOLE]):  # (a stop from the start: the windows written first)
            v = Vec(0.0, ((1.0, self.whole(v, witness), False, WHOLE),))
        terms = []
        for k, t, number, (ws, we) in v.terms:
            if (ws, we) == WHOLE:  # (an array of the rows' shape: its slice)
                terms.append((k, t if number else self.emit("getindex", [t], {"index": (s,)}), number, WHOLE))
                continue
            cut = _slice((max(a - ws, 0), min(we, b) - we))  # (the elements of t the window keeps)
            t = t if number or cut == _slice(WHOLE) else self.emit("getindex", [t], {"index": cut})
            terms.append((k, t, number, (max(ws - a, 0), min(we, b) - b)))
        return Vec(v.const, tuple(terms))

    def slice_of(self, w: Var, index: tuple) -> Var:
        """The unbatched value ``w[index]`` the tape computes (the witness of a slice of rows)."""
        found = self.slices.get((w.id, index))
        if found is None:  # (that of a value of the same shape: its slice has the same shape too)
            root = self.root(self.classes.of(w))
            found = next(
                (v for (base, i), v in self.slices.items() if i == index and self.root(self.bases[base]) == root), None
            )
        if found is None:
            raise NotBanded
        return found

    def same_shape(self, a: Atom, b: Atom) -> None:
        """Require ``a`` and ``b`` of one shape: proven by the shape classes (the same class, or
        classes already compared), else compared where the function runs."""
        if not (isinstance(a, Var) and isinstance(b, Var)):
            raise NotBanded
        root_a, root_b = self.root(self.classes.of(a)), self.root(self.classes.of(b))
        if root_a != root_b:
            self.same.append((a, b) if a.id < b.id else (b, a))
            self.joined[root_a] = root_b

    def root(self, cls: frozenset) -> frozenset:
        while cls in self.joined:
            cls = self.joined[cls]
        return cls

    def emit(self, prim: str, args: list[Atom], params: dict | None = None, numbered: bool = True) -> Var:
        """The value of ``prim(args)``: the one already written where ``numbered`` (a value is never
        written into, but for a buffer's own zeros, which nothing else reads), else a new equation."""
        params = params or {}
        key = _eqn_key(prim, args, params)
        if numbered and key in self.made:
            return self.made[key]
        eqn = Eqn(prim, list(args), dict(params), [Var()], self.span, (), Section.BACKWARD)
        self.eqns.append(eqn)
        self.classes.add_eqn(eqn)
        if numbered:
            self.made[key] = eqn.out
        return eqn.out


def _both(*numbers: bool | None) -> bool | None:
    """Whether a product (or a sum) of terms is one number: True where each is, False where one is an
    array (of the diagonal's shape), else None (it may be)."""
    if any(n is False for n in numbers):
        return False
    return True if all(n is True for n in numbers) else None


def _key(a: Atom) -> tuple:
    return ("var", a.id) if isinstance(a, Var) else ("lit", a.key())


def _eqn_key(prim: str, args: list[Atom], params: dict) -> tuple:
    keys = [_key(a) for a in args]
    if primitive(prim).commutative:
        keys.sort()
    return (prim, tuple(keys), tuple(sorted(params.items())) if params else ())


def _owned(v: Vec, owned: set[int]) -> bool:
    """``v`` is one array a buffer of the sweep made (written in place where the buffer is read once)."""
    if v.const or len(v.terms) != 1:
        return False
    k, t, _, w = v.terms[0]
    return k == 1.0 and w == WHOLE and isinstance(t, Var) and t.id in owned


def _number(c: Lit) -> bool:
    return type(c.value) in (int, float)


def _slice(w: Window) -> tuple[Slice]:
    """The index of the elements of the window ``w``."""
    return (Slice(w[0], w[1] or None),)


def _shift(index: tuple) -> tuple[int, Slice]:
    """The shift of a slice ``a:b`` (step 1, ``a`` a number from the start) and the slice."""
    if len(index) != 1 or type(index[0]) is not Slice:
        raise NotBanded
    s = index[0]
    ok = s.step in (None, 1) and (s.start is None or (type(s.start) is int and s.start >= 0))
    if not ok or not (s.stop is None or type(s.stop) is int):
        raise NotBanded
    return s.start or 0, s
