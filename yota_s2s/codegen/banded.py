"""``hess_NAME`` by its diagonals, where the second sweep proves the Hessian banded.

The batched sweep (``batched``) gives every value a leading axis of rows, one per unit seed: the
Hessian of a function of ``n`` numbers costs every step of the sweep ``n * n`` numbers, though
for a chain of elementwise steps on shifted slices (Rosenbrock, a discretized energy, a chain of
springs) almost all of them are zeros.  Seeded with all of the identity's rows, the seed is the
diagonal of ones; a slice ``v[:, a:b]`` shifts a diagonal by ``a``; a product by an unbatched
array, a sum of two batched values, a broadcast or an unbroadcast that keeps the shape keep each
diagonal a diagonal; a write into a slice of a buffer shifts it back.  Where every step of the
sweep is one of these, each value of the sweep is a few diagonals, ``{d: vec}`` with row ``j +
d``, column ``j`` holding ``vec[j]``, and the sweep is written on them: O(n) numbers a step, not
O(n^2), and the Hessian written diagonal by diagonal (``_rows_diagonal``)::

    if np.ndim(x) == 1 and np.shape(_t9) == np.shape(_t2) and ...:  # diagonals -1, 0, 1
        _t14 = -400.0 * _t2
        ...
        H = np.zeros((np.size(x), np.size(x)))
        _rows_diagonal(H, -1, _t20)
        ...
    else:
        ...                                          # the batched sweep, as before

The numbers that multiply a diagonal are carried with it and folded into the statement that
first needs its values (``-400.0 * _t2`` for ``-(2 * _t2) * 200.0``), and a diagonal of one
number is never made an array.

What the band form assumes is checked where the function runs, before it is taken: ``x`` is a
vector, and every pair of shapes the steps need equal (a product's operands, a broadcast's
operand and target) and that the shape classes do not prove is compared; anything else keeps
the batched sweep.  Each value's rows have the shape of an unbatched value of the tape (its
*witness*: ``x[1:]`` for ``v[:, 1:]``), which is what these checks compare.
"""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass, field

from ..ir.core import Atom, Eqn, Lit, Section, Slice, Var
from ..ir.shapes import SCALAR
from .base import WriterBase, named
from .statements import Line

#: The most diagonals a value may have: past them, the batched sweep's blocks cost no more.
MAX_BANDS = 32

#: The products whose rows are a number times the batched operand where both operands are vectors:
#: (the position of the batched operand, that of the unbatched one) among ``(g, x, y)``.
PRODUCTS = {"dot_dx": (2, 1), "matmul_dx": (2, 1), "dot_dy": (1, 2), "matmul_dy": (1, 2)}


class NotBanded(Exception):
    """A step of the sweep that does not keep diagonals diagonals: the batched sweep is written."""


@dataclass(frozen=True)
class Vec:
    """One diagonal, a sum ``const + k1 * t1 + k2 * t2 + ...`` kept unwritten until its values are
    needed (a product by an array, a write): each term ``(k, t, scalar)`` an expression ``t`` of the
    diagonal's values (``scalar``: one number, broadcast along the diagonal)."""

    const: float = 0.0
    terms: tuple[tuple[float, ast.expr, bool], ...] = ()

    @property
    def number(self) -> bool:
        """The diagonal is one number (broadcast along it)."""
        return all(scalar for _, _, scalar in self.terms)

    def scaled(self, c: float) -> Vec:
        return Vec(self.const * c, tuple((k * c, t, scalar) for k, t, scalar in self.terms))

    def plus(self, other: Vec) -> Vec:
        terms = list(self.terms)
        keys = [ast.dump(t) for _, t, _ in terms]
        for k, t, scalar in other.terms:
            key = ast.dump(t)
            if key in keys:
                i = keys.index(key)
                terms[i] = (terms[i][0] + k, t, scalar)
            else:
                terms.append((k, t, scalar))
                keys.append(key)
        return Vec(self.const + other.const, tuple(terms))

    def sliced(self, s: Slice) -> Vec:
        sub = tuple(
            (k, t if scalar else ast.Subscript(t, _slice_node(s), ast.Load()), scalar) for k, t, scalar in self.terms
        )
        return Vec(self.const, sub)

    def expression(self) -> ast.expr:
        """The diagonal's values: its terms, their numbers folded in (``t1 - 400.0 * t2 + 2.0``)."""
        out: ast.expr | None = None
        for k, t, _ in self.terms:
            if out is None:  # (the first term carries its sign: -400.0 * t, -t)
                out = (
                    t
                    if k == 1.0
                    else ast.UnaryOp(ast.USub(), t)
                    if k == -1.0
                    else ast.BinOp(ast.Constant(k), ast.Mult(), t)
                )
            else:
                term = t if abs(k) == 1.0 else ast.BinOp(ast.Constant(abs(k)), ast.Mult(), t)
                out = ast.BinOp(out, ast.Add() if k >= 0 else ast.Sub(), term)
        if out is None:
            return ast.Constant(self.const)
        if self.const:
            out = ast.BinOp(out, ast.Add() if self.const > 0 else ast.Sub(), ast.Constant(abs(self.const)))
        return out


@dataclass
class Band:
    """A batched value of the sweep by its diagonals; its rows have the shape of ``witness``."""

    witness: Var
    vecs: dict[int, Vec]
    owned: set[str] = field(default_factory=set)  # arrays this buffer made (written in place)


class BandWriter:
    """``hess_NAME``'s band form, written by a ``SecondWriter`` into the writer ``writer``'s
    statements."""

    def __init__(self, writer: WriterBase):
        self.w = writer

    def banded_rows(
        self, rows: list[Eqn], kinds: dict[int, str], seed: Var, x: Var, H: str, earlier: list[Line]
    ) -> tuple[ast.expr, list[Line]]:
        """The test under which the band form holds and its statements (depth 1), computing ``H``;
        raises ``NotBanded`` (the writer's names left as they were) where a step is not banded.
        ``earlier``: the function's statements written before them, whose values the band form
        reads by their names rather than computing them again (``reusable``)."""
        saved = (copy.copy(self.w.namer.taken), dict(self.w.namer.counts), set(self.w.helpers), set(self.w.imports))
        try:
            return self._banded(rows, kinds, seed, x, H, earlier)
        except NotBanded:
            self.w.namer.taken, self.w.namer.counts, helpers, imports = saved
            self.w.helpers.clear()
            self.w.helpers.update(helpers)
            self.w.imports.clear()
            self.w.imports.update(imports)
            raise

    def _banded(
        self, rows: list[Eqn], kinds: dict[int, str], seed: Var, x: Var, H: str, earlier: list[Line]
    ) -> tuple[ast.expr, list[Line]]:
        if self.w.table.complex_values:  # (complex values: their sweep's real parts, batched)
            raise NotBanded
        tape = self.w.tape
        self._lines: list[Line] = []
        self._checks: list[tuple[Atom, Atom]] = []
        self._joined: dict[frozenset, frozenset] = {}  # shape classes compared: one shape
        self._earlier = earlier
        self._made: dict[str, str] | None = None  # the arrays made, by their expressions (at the first)
        self._scalars: list[Atom] = []
        shapes = {e.outs[0].id: e.args[0] for e in tape.eqns if e.prim == "shape" and len(e.args) == 1}
        made = {o.id for e in rows for o in e.outs}
        slices = {}
        for e in tape.eqns:
            if e.prim == "getindex" and isinstance(e.args[0], Var) and e.args[0].id not in made and len(e.args) == 1:
                slices.setdefault((e.args[0].id, e.params.get("index")), e.outs[0])
        self._slices = slices
        bands: dict[int, Band] = {seed.id: Band(x, {0: Vec(1.0)})}
        for n, eqn in enumerate(rows):
            self._span = eqn.span
            bands[eqn.outs[0].id] = self._step(eqn, kinds[n], bands, shapes)
            if len(bands[eqn.outs[0].id].vecs) > MAX_BANDS:
                raise NotBanded
        out = tape.outputs[2]
        if not isinstance(out, Var) or out.id not in bands:
            raise NotBanded
        result = bands[out.id]
        self._same(result.witness, x)
        size = self.w.backend.call("size", [self.w.atom(x)])
        zeros = self.w.backend.call("zeros", [ast.Tuple([size, size], ast.Load())])
        self._emit(ast.Assign([named(H, ast.Store())], zeros, lineno=0), None)
        self.w.helpers.add("_rows_diagonal")
        for d in sorted(result.vecs):
            put = ast.Call(named("_rows_diagonal"), [named(H), ast.Constant(d), result.vecs[d].expression()], [])
            self._emit(ast.Expr(put), None)
        ndim = ast.Compare(self.w.backend.call("ndim", [self.w.atom(x)]), [ast.Eq()], [ast.Constant(1)])
        tests: list[ast.expr] = [ndim]
        for g in self._scalars:
            tests.append(ast.Compare(self.w.backend.call("ndim", [self.w.atom(g)]), [ast.Eq()], [ast.Constant(0)]))
        for a, b in self._checks:
            shape_a, shape_b = (
                self.w.backend.call("shape", [self.w.atom(a)]),
                self.w.backend.call("shape", [self.w.atom(b)]),
            )
            tests.append(ast.Compare(shape_a, [ast.Eq()], [shape_b]))
        test = tests[0] if len(tests) == 1 else ast.BoolOp(ast.And(), tests)
        return test, self._shared(self._lines)

    def _shared(self, lines: list[Line]) -> list[Line]:
        """``lines`` with each value written twice or more (a diagonal added to two places: ``H``'s
        diagonals are carried apart, their expressions built apart) computed once, named before its
        first use; a value that reads an array the lines write into is left where it is."""
        written = set()
        for line in lines:
            node = line.node
            target = node.target if isinstance(node, ast.AugAssign) else None
            if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Subscript):
                target = node.targets[0]
            while isinstance(target, ast.Subscript):
                target = target.value
            if isinstance(target, ast.Name):
                written.add(target.id)
        count: dict[str, int] = {}
        for line in lines:
            for value in _values(line.node):
                reads = {n.id for n in ast.walk(value) if isinstance(n, ast.Name)}
                if not isinstance(value, ast.Name | ast.Constant) and not reads & written:
                    key = ast.dump(value)
                    count[key] = count.get(key, 0) + 1
        names: dict[str, str] = {}
        out: list[Line] = []
        for line in lines:
            for value, put in _slots(line.node):
                key = ast.dump(value)
                if count.get(key, 0) < 2:
                    continue
                if key not in names:
                    names[key] = self.w.namer.temp()
                    out.append(
                        Line(line.section, line.span, ast.Assign([named(names[key], ast.Store())], value, lineno=0), 1)
                    )
                put(named(names[key]))
            out.append(line)
        return out

    def _step(self, eqn: Eqn, kind: str, bands: dict[int, Band], shapes: dict[int, Atom]) -> Band:
        """The band of ``eqn``'s result, its statements emitted."""
        prim, args = eqn.prim, eqn.args
        band = [bands.get(a.id) if isinstance(a, Var) else None for a in args]
        if kind == "zeros":
            if not isinstance(args[0], Var) or band[0] is not None:
                raise NotBanded
            return Band(args[0], {})
        if kind == "index" and band[0] is not None:
            a, s = _shift(eqn.params["index"])
            w = self._slice_of(band[0].witness, eqn.params["index"])
            return Band(w, {d + a: v.sliced(s) for d, v in band[0].vecs.items()})
        if kind in ("index_add", "index_copy") and band[0] is not None and band[1] is not None:
            return self._index_add(eqn, band[0], band[1], in_place=kind == "index_add")
        if (
            kind in ("rows_unbroadcast", "rows_broadcast") and band[0] is not None
        ):  # broadcast_to / unbroadcast that keep the shape
            target = shapes.get(args[1].id) if prim == "broadcast_to" and isinstance(args[1], Var) else args[1]
            if not isinstance(target, Var) or target.id in bands:
                raise NotBanded
            self._same(band[0].witness, target)
            return Band(target, dict(band[0].vecs))
        if kind == "elementwise":
            return self._elementwise(eqn, band)
        if prim in PRODUCTS:
            rows, other = PRODUCTS[prim]
            g = args[0]
            if band[rows] is None or any(band[i] is not None for i in range(3) if i != rows):
                raise NotBanded
            self._same(args[other], band[rows].witness)  # (both vectors: the product is g times the row)
            return self._times(band[rows], g, number=True)
        raise NotBanded

    def _elementwise(self, eqn: Eqn, band: list[Band | None]) -> Band:
        prim, args = eqn.prim, eqn.args
        if prim == "neg" and band[0] is not None:
            return Band(band[0].witness, {d: v.scaled(-1.0) for d, v in band[0].vecs.items()})
        if prim in ("add", "sub") and band[0] is not None and band[1] is not None:
            a, b = band
            self._same(a.witness, b.witness)
            sign = 1.0 if prim == "add" else -1.0
            vecs = dict(a.vecs)
            for d, v in b.vecs.items():
                v = v.scaled(sign)
                vecs[d] = vecs[d].plus(v) if d in vecs else v
            return Band(a.witness, vecs)
        if prim == "mul" and (band[0] is None) != (band[1] is None):
            i = 0 if band[0] is not None else 1
            return self._times(band[i], args[1 - i])
        if prim == "truediv" and band[0] is not None and band[1] is None:
            c = args[1]
            if isinstance(c, Lit):
                if not _number(c) or c.value == 0:
                    raise NotBanded
                return self._times(band[0], Lit(1.0 / c.value))
            scalar = self._operand(c, band[0].witness)
            return Band(band[0].witness, {d: self._apply(v, ast.Div(), c, scalar) for d, v in band[0].vecs.items()})
        raise NotBanded

    def _times(self, band: Band, c: Atom, number: bool = False) -> Band:
        """``band`` times the unbatched ``c``: a number, or a value of the rows' shape (``number``:
        a number, checked where the function runs unless the shapes prove it)."""
        if isinstance(c, Lit):
            if not _number(c):
                raise NotBanded
            return Band(band.witness, {d: v.scaled(c.value) for d, v in band.vecs.items()})
        if not isinstance(c, Var):
            raise NotBanded
        scalar = self._operand(c, band.witness, number)
        return Band(band.witness, {d: self._apply(v, ast.Mult(), c, scalar) for d, v in band.vecs.items()})

    def _apply(self, v: Vec, op: ast.operator, c: Var, scalar: bool) -> Vec:
        """``v`` times (or over) the unbatched ``c``: a number times ``c`` stays unwritten; one term
        keeps its number (``400.0 * (t * c)``); else the sum is written, then multiplied."""
        if not v.terms and isinstance(op, ast.Mult):
            return Vec(0.0, ((v.const, self.w.atom(c), scalar),))
        if len(v.terms) == 1 and not v.const:
            k, t, number = v.terms[0]
            name = self._fresh(ast.BinOp(t, op, self.w.atom(c)))
            return Vec(0.0, ((k, name, number and scalar),))
        name = self._fresh(ast.BinOp(v.expression(), op, self.w.atom(c)))
        return Vec(0.0, ((1.0, name, v.number and scalar),))

    def _operand(self, c: Var, witness: Var, number: bool = False) -> bool:
        """``c`` as the other operand of a row of ``witness``'s shape: True where it is a number
        (proven by the shapes, or ``number``: checked where the function runs); else False, its
        shape compared with the witness's where the function runs."""
        if self.w.batching.shape_classes().of(c) == SCALAR:
            return True
        if number:
            if all(g.id != c.id for g in self._scalars):
                self._scalars.append(c)
            return True
        self._same(c, witness)
        return False

    def _index_add(self, eqn: Eqn, buf: Band, value: Band, in_place: bool) -> Band:
        """``buf[:, s] += value``: each diagonal ``d`` of ``value`` added to ``buf``'s ``d - a``."""
        index = eqn.params["index"]
        a, s = _shift(index)
        self._same(value.witness, self._slice_of(buf.witness, index))
        vecs, owned = dict(buf.vecs), set(buf.owned) if in_place else set()
        for d, v in value.vecs.items():
            old = vecs.get(d - a)
            if old is not None and _owned(old, owned):
                name = old.terms[0][1]
            else:
                name = named(self.w.namer.temp())
                zeros = self.w.backend.call("zeros", [self.w.backend.call("shape", [self.w.atom(buf.witness)])])
                self._emit(ast.Assign([named(name.id, ast.Store())], zeros, lineno=0), eqn.span)
                if old is not None:
                    self._emit(ast.AugAssign(named(name.id, ast.Store()), ast.Add(), old.expression()), eqn.span)
                owned.add(name.id)
            target = ast.Subscript(named(name.id), _slice_node(s), ast.Store())
            self._emit(ast.AugAssign(target, ast.Add(), v.expression()), eqn.span)
            vecs[d - a] = Vec(0.0, ((1.0, named(name.id), False),))
        return Band(buf.witness, vecs, owned)

    def _slice_of(self, w: Var, index: tuple) -> Var:
        """The unbatched value ``w[index]`` the tape computes (the witness of a slice of rows)."""
        found = self._slices.get((w.id, index))
        if found is None:
            raise NotBanded
        return found

    def _same(self, a: Atom, b: Atom) -> None:
        """Require ``a`` and ``b`` of one shape: proven by the shape classes (the same class, or
        classes already compared), else compared where the function runs."""
        if not (isinstance(a, Var) and isinstance(b, Var)):
            raise NotBanded
        classes = self.w.batching.shape_classes()
        root_a, root_b = self._root(classes.of(a)), self._root(classes.of(b))
        if root_a != root_b:
            self._checks.append((a, b) if a.id < b.id else (b, a))
            self._joined[root_a] = root_b

    def _root(self, cls: frozenset) -> frozenset:
        while cls in self._joined:
            cls = self._joined[cls]
        return cls

    def _fresh(self, expr: ast.expr) -> ast.Name:
        """A new array of the values of ``expr``, or the one already made of the same expression (the
        arrays are never written into, but for a buffer's own zeros, which no expression reads)."""
        key = ast.dump(expr)
        if self._made is None:  # (made when first asked: a sweep found not banded first never asks)
            self._made = reusable(self._earlier)
        if key in self._made:
            return named(self._made[key])
        name = self._made[key] = self.w.namer.temp()
        self._emit(ast.Assign([named(name, ast.Store())], expr, lineno=0), self._span)
        return named(name)

    def _emit(self, stmt: ast.stmt, span) -> None:
        self._lines.append(Line(Section.BACKWARD, span, stmt, 1))


def reusable(lines: list[Line]) -> dict[str, str]:
    """The values ``lines`` (a function's statements so far) leave named, by their expressions
    (``ast.dump``), that a statement after them may read instead of computing them again: the
    right-hand side of an assignment of the function's top level (it runs before anything after
    it), that calls nothing, whose name and every name it reads are bound once and never written
    into (``du[:-1] += ...``)."""
    bound: dict[str, int] = {}
    written: set[str] = set()
    for line in lines:
        for node in ast.walk(line.node):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                bound[node.id] = bound.get(node.id, 0) + 1
            target = node.target if isinstance(node, ast.AugAssign | ast.For) else None
            if isinstance(node, ast.Assign):
                target = node.targets[0]
            while isinstance(target, ast.Subscript | ast.Attribute):
                target = target.value
                if isinstance(target, ast.Name):
                    written.add(target.id)
            if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                written.add(node.target.id)
    out: dict[str, str] = {}
    for line in lines:
        node = line.node
        if line.depth or line.header or not isinstance(node, ast.Assign) or len(node.targets) != 1:
            continue
        target = node.targets[0]
        if not isinstance(target, ast.Name) or isinstance(node.value, ast.Name | ast.Constant):
            continue
        reads = [n for n in ast.walk(node.value) if isinstance(n, ast.Name)]
        if any(isinstance(n, ast.Call) for n in ast.walk(node.value)):
            continue
        if all(bound.get(n.id, 0) <= 1 and n.id not in written for n in [target, *reads]):
            out.setdefault(ast.dump(node.value), target.id)
    return out


def _slots(stmt: ast.stmt) -> list[tuple[ast.expr, object]]:
    """The values a band statement writes (a right-hand side, a diagonal's vector), each with the
    function that puts another expression in its place."""
    if isinstance(stmt, ast.Assign | ast.AugAssign) and not (
        isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name)
    ):
        return [(stmt.value, lambda e, s=stmt: setattr(s, "value", e))]
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and len(stmt.value.args) == 3:
        args = stmt.value.args
        return [(args[2], lambda e, a=args: a.__setitem__(2, e))]
    return []


def _values(stmt: ast.stmt) -> list[ast.expr]:
    return [value for value, _ in _slots(stmt)]


def _owned(v: Vec, owned: set[str]) -> bool:
    """``v`` is one array a buffer of the sweep made (written in place where the buffer is read once)."""
    if v.const or len(v.terms) != 1:
        return False
    k, t, _ = v.terms[0]
    return k == 1.0 and isinstance(t, ast.Name) and t.id in owned


def _number(c: Lit) -> bool:
    return type(c.value) in (int, float)


def _shift(index: tuple) -> tuple[int, Slice]:
    """The shift of a slice ``a:b`` (step 1, ``a`` a number from the start) and the slice."""
    if len(index) != 1 or type(index[0]) is not Slice:
        raise NotBanded
    s = index[0]
    ok = s.step in (None, 1) and (s.start is None or (type(s.start) is int and s.start >= 0))
    if not ok or not (s.stop is None or type(s.stop) is int):
        raise NotBanded
    return s.start or 0, s


def _slice_node(s: Slice) -> ast.Slice:
    def bound(b):
        return None if b is None else ast.Constant(b) if b >= 0 else ast.UnaryOp(ast.USub(), ast.Constant(-b))

    return ast.Slice(bound(s.start), bound(s.stop), None)
