"""Symbolic shape classes: which values provably have the same shape.

A class is a frozenset of *atoms*; an atom stands for one unknown shape and is
hash-consed from how the shape was computed (``("getindex", class of x,
(int,))``), so ``x[3]`` and ``x[8]`` share a class.  Broadcasting is the union
of atom sets (commutative, associative, idempotent, like ``np.broadcast_shapes``)
and the empty set is the scalar shape ``()``.  Two values with equal classes
have equal shapes; unequal classes prove nothing.

A reduction with ``keepdims=True`` (``np.max(z, axis=1, keepdims=True)``) has
the shape of its input with the reduced axes set to 1, whatever the input's
rank: its atom records that (``("keepdims", class of z, (1,))``).  Such a shape
broadcast against its input's shape gives the input's shape back (NumPy
broadcasts a 1 against any length, 0 included), so a class holding both the
atom and every atom of the input's class drops the former: ``z - zmax`` has
the class of ``z``.  ``keepdims_of`` tells ``optimize`` which axes to sum when
``unbroadcast`` undoes that broadcast.

The tool differentiates scalar-valued functions, so the analysis assumes the
output is a scalar: every atom of the output's class is scalar.  With it,
``unbroadcast`` disappears from scalar code such as the polynomial ``x[3] *
x[8] ** 3 - ...`` whose ``x[i]`` are numbers.

    >>> from types import SimpleNamespace as Rule  # (a table of the rules it reads: ``primitives.Rules``)
    >>> from yota_s2s.ir.core import Tape
    >>> table = Rule(rules={"getindex": Rule(pure=True, shape="opaque", operands=("x",)),
    ...                     "mul": Rule(pure=True, shape="elementwise", operands=("x", "y"))})
    >>> t = Tape("f"); x = t.add_input("x")
    >>> a = t.add_eqn("getindex", [x], {"index": (3,)})
    >>> b = t.add_eqn("getindex", [x], {"index": (8,)})
    >>> c = t.add_eqn("mul", [a, b]); t.outputs = [c]
    >>> sc = shape_classes(t, table)
    >>> sc.of(a) == sc.of(b) == sc.of(c) == SCALAR
    True
"""

from __future__ import annotations

from dataclasses import dataclass

from .core import Atom, Dyn, Eqn, Lit, Slice, Tape, Var
from .primitives import Rules, primitive

SCALAR: frozenset = frozenset()


@dataclass(frozen=True)
class Numbers:
    """The value of a literal that stands, in a shape fact, for a vector of ``n`` numbers (``None``:
    of some length, the length of the value ``of``): ``Lit(Numbers(2))`` has the class of
    ``np.array([a, b])`` of numbers, and an element of it is a number (``numbers_step``).  It is
    never written into a tape."""

    n: int | None
    of: int = 0


#: The Python types of a literal number (its shape is ``()``).
NUMBER = (int, float, complex, bool)


class ShapeClasses:
    """Shape classes of the values of one tape, filled equation by equation."""

    def __init__(self, table: Rules, scalar_keys: frozenset = frozenset()):
        self.table = table
        self.scalar_keys = scalar_keys
        self.atom_ids: dict[object, int] = {}
        self.atom_keys: dict[int, object] = {}
        self.canon: dict[int, object] = {}  # atom id -> its canonical key (``canonical``)
        self.atom_classes: dict[object, frozenset] = {}  # key -> its one-atom class, made once
        self.classes: dict[int, frozenset] = {}
        self.pending: dict[int, Eqn] = {}  # value id -> its equation, class not inferred yet
        #: atom id -> (class of the reduced value, its axes sorted, its ``axis``): the atom of a
        #: reduction with keepdims (``keepdims``) or without (``removed``)
        self.keepdims: dict[int, tuple[frozenset, tuple | None, object]] = {}
        self.removed: dict[int, tuple[frozenset, tuple | None, object]] = {}
        #: values known to have the shape of another (a region's seed: the shape of its output)
        self.same: dict[int, Atom] = {}
        self.resolve = lambda a: a
        #: class -> the value a region's input of that class is told it has the shape of (``stand_in``)
        self.stand_ins: dict[frozenset, Atom] = {}
        #: values known to be integers (a loop's index, ``i + 1``): ``v[i]`` of a vector is a number
        self.ints: frozenset[int] = frozenset()

    def atom(self, key: object) -> frozenset:
        cls = self.atom_classes.get(key)
        if cls is not None:
            return cls
        if self.scalar_keys and self.canonical_key(key) in self.scalar_keys:
            cls = SCALAR
        else:
            n = len(self.atom_ids) + 1
            self.atom_ids[key] = n
            self.atom_keys[n] = key
            cls = frozenset({n})
        self.atom_classes[key] = cls
        return cls

    def canonical_key(self, key: object) -> object:
        """``key`` with each atom it names (the ids in its classes) replaced by that atom's own
        canonical key: the same for the same shape in another ``ShapeClasses``, whose atoms are
        numbered in another order (``scalar_keys`` are such keys, carried from one to another)."""
        if isinstance(key, frozenset):
            return frozenset(self.canonical(i) if i in self.atom_keys else i for i in key)
        if isinstance(key, tuple):
            return tuple(self.canonical_key(k) for k in key)
        return key

    def canonical(self, n: int) -> object:
        """The canonical key of atom ``n`` (``canonical_key``), made once."""
        found = self.canon.get(n)
        if found is None:
            found = self.canon[n] = self.canonical_key(self.atom_keys[n])
        return found

    def reduced(self, base: frozenset, axis: object, keepdims: bool = True) -> frozenset:
        """The class of a reduction over ``axis`` of a value of class ``base``: with ``keepdims``,
        ``base``'s lengths but 1 on those axes; without, ``base``'s lengths without those axes.

        The shape depends on nothing else, so ``max(z, axis=1)`` and ``sum(z, axis=1)`` share it.
        """
        axes = _axes(axis)
        cls = self.atom(("keepdims" if keepdims else "reduced", base, axes))
        if len(cls) == 1:
            (self.keepdims if keepdims else self.removed).setdefault(next(iter(cls)), (base, axes, axis))
        return cls

    def keepdims_of(self, reduced: frozenset, base: frozenset) -> object:
        """The ``axis`` (an int, a tuple, ``None`` for all) of a keepdims reduction of a value of
        class ``base`` when ``reduced`` is its class, else ``False``.

        A value of class ``reduced`` then has the lengths of ``base`` except 1 on those axes.
        """
        if len(reduced) != 1:
            return False
        found = self.keepdims.get(next(iter(reduced)))
        return found[2] if found is not None and found[0] == base else False

    def kept_along(self, reduced: frozenset, base: frozenset, axis: object) -> bool:
        """A value of class ``reduced`` has the shape of a keepdims reduction over ``axis`` of a
        value of class ``base``: it broadcasts to ``base``'s shape along those axes only."""
        found = self.keepdims_of(reduced, base)
        return found is not False and _static_axis(axis) and _axes(found) == _axes(axis)

    def broadcast(self, classes: list[frozenset]) -> frozenset:
        """The class of values of ``classes`` broadcast together (the union of their atoms, each
        keepdims reduction dropped when all of its input's atoms are there)."""
        cls = frozenset().union(*classes)
        if self.keepdims and len(cls) > 1:
            dropped = [
                n for n in cls if n in self.keepdims and self.keepdims[n][0] and self.keepdims[n][0] <= cls - {n}
            ]
            if dropped:
                cls = cls - frozenset(dropped)
        return cls

    def of(self, a: Atom) -> frozenset:
        if type(a) is Var and not self.same:  # (the common case first: a value already classed)
            cls = self.classes.get(a.id)
            if cls is not None:
                return cls
        if isinstance(a, Lit):
            if type(a.value) is Numbers:
                return self.atom(("vector", a.value.n if a.value.n is not None else ("of", a.value.of)))
            return SCALAR if isinstance(a.value, NUMBER) else self.atom(("lit", a.key()))
        if a.id in self.same:
            other = self.resolve(self.same[a.id])
            if other is not a:
                return self.of(other)
        cls = self.classes.get(a.id)
        if cls is not None:
            return cls
        if a.id in self.pending:
            return self.force(a.id)
        return self.atom(("var", a.id))

    def stand_in(self, a: Atom) -> Atom:
        """A value standing for the shape class of ``a`` in a region (a loop body) that reads
        ``a`` from outside: ``0.0`` for a number's, else one new variable per class, so that two
        inputs of one class outside have one class inside."""
        cls = self.of(a)
        if not cls:
            return Lit(0.0)
        found = self.stand_ins.get(cls)
        if found is None:
            found = self.stand_ins[cls] = Var()
        return found

    def add_input(self, var: Var, path: tuple[str, ...]) -> None:
        self.classes[var.id] = self.atom(("input", path))

    def add_eqn(self, eqn: Eqn) -> None:
        """Record ``eqn``; the class of its result is inferred when first asked for (most never are)."""
        if eqn.regions or len(eqn.outs) > 1:  # a loop or branch: nothing is known of its results
            for o in eqn.outs:
                self.classes[o.id] = self.atom(("var", o.id))
            return
        self.pending[eqn.outs[0].id] = eqn

    def force(self, vid: int) -> frozenset:
        """Infer the class of the pending value ``vid`` and of the pending values it depends on,
        operands first, with an explicit stack (a chain of equations may be longer than Python's
        recursion limit)."""
        stack = [vid]
        classes, pending, same, infer = self.classes, self.pending, self.same, self.infer
        while stack:
            top = stack[-1]
            if top in classes:
                stack.pop()
                continue
            eqn = pending[top]
            missing = False
            for a in eqn.args:
                if type(a) is Var:
                    i = a.id
                    if i not in classes and i in pending and i not in same:
                        stack.append(i)
                        missing = True
            if not missing:
                stack.pop()
                classes[top] = infer(eqn.prim, eqn.args, eqn.params, eqn.outs[0])
        return classes[vid]

    def infer(self, prim: str, args: list[Atom], params: dict, out: Var | None = None) -> frozenset:
        """The class of ``prim(args, params)``."""
        rule = self.table.rules.get(prim)
        kind = rule.shape if rule else "opaque"
        if kind == "elementwise":
            of = self.of
            if len(args) == 2:  # (most are: a + b, a * b)
                first, second = of(args[0]), of(args[1])
                if first is second or not second:
                    return first
                if not first:
                    return second
                return self.broadcast([first, second])
            return self.broadcast([of(a) for a in args])
        if kind == "scalar":
            return SCALAR
        if kind == "reduce" and params.get("axis") is None and not params.get("keepdims"):
            return SCALAR
        if prim == "stack" and params.get("axis") == 0 and not any(self.of(a) for a in args):
            return self.atom(("vector", len(args)))  # np.array([a, b]) of numbers: (2,)
        if prim in ("getindex", "take") and self.vector(args[0]) and one_int(prim, args, params, self.ints):
            return SCALAR  # an element of a vector of numbers
        keepdims = params.get("keepdims", False)
        if kind == "reduce" and len(args) == 1 and type(keepdims) is bool and _static_axis(params.get("axis", 0.5)):
            return self.reduced(self.of(args[0]), params["axis"], keepdims)
        if prim == "keep_axes" and keepdims is False and _static_axis(params.get("axis", 0.5)):
            # keep_axes(r, axis) of r = reduce(x, axis): the shape of the keepdims reduction of x
            source = self.of(args[0])
            found = self.removed.get(next(iter(source))) if len(source) == 1 else None
            if found is not None and found[1] == _axes(params["axis"]):
                return self.reduced(found[0], params["axis"])
        if prim == "getindex" and len(args) == 1:
            # m[:, None] of m = reduce(z, axis=1): new axes where the reduction removed them
            source = self.of(args[0])
            index = params["index"]
            key = self.atom_keys.get(next(iter(source))) if len(source) == 1 else None
            if key and key[0] == "shape" and len(index) == 1 and type(index[0]) is int:
                return SCALAR  # X.shape[0]: an element of a tuple of ints
            found = self.removed.get(next(iter(source))) if len(source) == 1 else None
            if found is not None and found[1] is not None and _new_axes(params["index"]) == found[1]:
                return self.reduced(found[0], found[2])
        if prim == "getindex" and len(args) == 1 and (removed := _slices_remove(params["index"])) is not None:
            # x[:-2], x[1:-1] and x[2:] have one shape: each is two shorter than x (or empty)
            source = self.of(args[0])
            return source if not any(removed) else self.atom(("slices", source, removed))
        if prim == "broadcast_to" and len(args) == 2 and len(shaped := self.of(args[1])) == 1:
            key = self.atom_keys.get(next(iter(shaped)))  # np.broadcast_to(g, np.shape(x)): x's
            if key and key[0] == "shape" and len(key[1]) == 1:
                return key[1][0]
        if prim == "join_place" and params.get("join") == "concatenate":  # zeros of the join's shape, d placed
            return self.infer("concatenate", args[1:], {"axis": params["axis"]})
        if prim == "concat_part" and self.of(args[0]) == self.infer("concatenate", args[1:], {"axis": params["axis"]}):
            return self.of(args[1 + params["part"]])  # the block of g = the adjoint of concatenate(xs): xs[part]'s
        if rule and kind in rule.operands:
            return self.of(args[rule.operands.index(kind)])
        if rule and not rule.pure and out is not None:
            return self.atom(("var", out.id))
        if prim == "take" and isinstance(args[1], Lit) and type(args[1].value) is int and args[1].value >= 0:
            # np.take(g, i, axis) of a value shaped like np.stack(xs, axis): the shape of xs[i]
            source = self.of(args[0])
            key = self.atom_keys.get(next(iter(source))) if len(source) == 1 else None
            stacked = key and key[0] == "stack" and dict(key[2]).get("axis") == params.get("axis")
            if stacked and args[1].value < len(key[1]):
                return key[1][args[1].value]
        shown = params
        if prim == "getindex":  # x[3] and x[8] have one shape: any integer drops one axis
            shown = {"index": tuple("int" if type(i) is int else i for i in params["index"])}
        classes = tuple(self.of(a) for a in args)
        key = (prim, classes, tuple(sorted(shown.items(), key=lambda kv: kv[0])), self.values(prim, args))
        return self.atom(key)

    def vector(self, a: Atom) -> bool:
        """``a`` is a vector of numbers (``np.array([a, b])`` of numbers, ``Lit(Numbers(n))``)."""
        cls = self.of(a)
        return len(cls) == 1 and (self.atom_keys.get(next(iter(cls))) or ("",))[0] == "vector"

    def values(self, prim: str, args: list[Atom]) -> tuple:
        """What tells apart, besides their classes, the operands of ``prim`` whose values may give
        its result's shape: the operand itself (a literal's value, a variable's identity).

        A number's class is ``()`` whatever its value, yet ``np.zeros(3)`` and ``np.zeros(1)``
        (``np.zeros(n)`` and ``np.zeros(n + 2)``, ``x.reshape(n, -1)``) differ in shape; only a
        primitive whose record says so (``shape_from_shapes``) is known by its operands' classes.
        The index operands of ``x[i]`` are known by their classes: any integer drops one axis
        (``x[i - 1]`` and ``x[i + 1]`` in a loop share a shape).  (Two boolean masks of one
        shape may keep different counts: that is assumed not to meet a broadcast.)
        """
        record = primitive(prim)
        first = len(args) if record.index_from is None else record.index_from
        return tuple(
            None if k >= first or record.shape_from_shapes else a.key() if isinstance(a, Lit) else ("value", a.id)
            for k, a in enumerate(args)
        )


def one_int(prim: str, args: list[Atom], params: dict, ints: frozenset[int] = frozenset()) -> bool:
    """``x[k]`` or ``np.take(x, k, axis=0)`` of one constant integer ``k``, or ``x[i]`` of one of
    the integers ``ints``."""
    if prim == "take":
        k = args[1] if len(args) == 2 else None
        return isinstance(k, Lit) and type(k.value) is int and params.get("axis") in (0, -1)
    index = params.get("index", ())
    if len(index) == 1 and type(index[0]) is Dyn:
        return len(args) == 2 and isinstance(args[1], Var) and args[1].id in ints
    return len(args) == 1 and len(index) == 1 and type(index[0]) is int


def ints_of(region: Tape) -> frozenset[int]:
    """The integers of a loop body: its index, and sums, differences and products of them and
    integer literals (``e + 1``)."""
    found = {region.inputs[0].var.id}
    for e in region.eqns:
        if e.prim in ("add", "sub", "mul") and all(
            (isinstance(a, Var) and a.id in found) or (isinstance(a, Lit) and type(a.value) is int) for a in e.args
        ):
            found.add(e.outs[0].id)
    return frozenset(found)


def _slices_remove(index: tuple) -> tuple[int, ...] | None:
    """How many elements each slice of ``index`` leaves out of its axis, where every item is a slice
    of step 1 that starts a number of elements from the front and stops a number from the back
    (``a:-b``, ``a:``): its length is ``max(0, n - a - b)``, a function of ``a + b`` alone.  None
    for any other index (a number, a new axis, a stop from the front)."""
    out = []
    for s in index:
        if type(s) is not Slice or s.step not in (None, 1):
            return None
        start = 0 if s.start is None else s.start
        stop = 0 if s.stop is None else s.stop
        if type(start) is not int or type(stop) is not int or start < 0 or stop > 0:
            return None
        out.append(start - stop)
    return tuple(out) if out else None


def _axes(axis: object) -> tuple | None:
    """``axis`` as a sorted tuple (``None``: all axes)."""
    return None if axis is None else tuple(sorted(axis)) if isinstance(axis, tuple) else (axis,)


def _new_axes(index: tuple) -> tuple | None:
    """The positions of the new axes of an index made of full slices and ``None`` only."""
    if not all(i is None or i == Slice() for i in index):
        return None
    return tuple(k for k, i in enumerate(index) if i is None)


def _static_axis(axis: object) -> bool:
    """``axis`` is None, an int or a tuple of ints (a constant known here)."""
    if axis is None or type(axis) is int:
        return True
    return isinstance(axis, tuple) and all(type(a) is int for a in axis)


def shape_classes(tape: Tape, table: Rules, scalar_keys: frozenset | None = None) -> ShapeClasses:
    """Classes of every value of ``tape``, assuming its first output is a scalar.

    With ``scalar_keys`` given, use them instead of deriving them from the output.  A tape whose
    value may be an array (``--vjp``, ``--jacobian``: ``facts.mode.assumes_scalar``) assumes nothing, but a
    Jacobian whose rows are written out (``facts.rows``) assumes its value's elements are
    numbers (the generated code checks it).
    """
    if scalar_keys is None and not tape.facts.mode.assumes_scalar:
        targets = _row_elements(tape) if tape.facts.rows else []
        if not targets:
            scalar_keys = frozenset()
    else:
        targets = tape.outputs[:1]
    if scalar_keys is not None:
        return _run(tape, table, scalar_keys)
    keys: frozenset = frozenset()
    for _ in range(8):
        sc = _run(tape, table, keys)
        if not targets:
            return sc
        classes = [sc.of(t) for t in targets]
        if not any(classes):
            return sc
        keys = keys | {sc.canonical(n) for c in classes for n in c}
    return sc


def _row_elements(tape: Tape) -> list[Atom]:
    """The elements of a Jacobian's value whose rows are written out (``np.stack`` of numbers)."""
    value = tape.outputs[0] if tape.outputs else None
    eqn = next((e for e in tape.eqns if value in e.outs), None) if isinstance(value, Var) else None
    return list(eqn.args) if eqn is not None and eqn.prim == "stack" else []


def _run(tape: Tape, table: Rules, keys: frozenset) -> ShapeClasses:
    sc = ShapeClasses(table, keys)
    for inp in tape.inputs:
        sc.add_input(inp.var, inp.path)
    pending = sc.pending
    for eqn in tape.eqns:
        outs = eqn.outs
        if eqn.regions or len(outs) != 1:
            sc.add_eqn(eqn)
        else:  # (add_eqn's common case, inline: it runs per equation)
            pending[outs[0].id] = eqn
    return sc
