"""Symbolic shape classes: which values provably have the same shape.

A class is a frozenset of *atoms*; an atom stands for one unknown shape and is
hash-consed from how the shape was computed (``("getindex", class of x,
(int,))``), so ``x[3]`` and ``x[8]`` share a class.  Broadcasting is the union
of atom sets (commutative, associative, idempotent, like ``np.broadcast_shapes``)
and the empty set is the scalar shape ``()``.  Two values with equal classes
have equal shapes; unequal classes prove nothing.

The tool differentiates scalar-valued functions, so the analysis assumes the
output is a scalar: every atom of the output's class is scalar.  With it,
``unbroadcast`` disappears from scalar code such as the polynomial ``x[3] *
x[8] ** 3 - ...`` whose ``x[i]`` are numbers.

    >>> from yota_s2s.ir import Tape
    >>> from yota_s2s.ruledsl import load_rules
    >>> t = Tape("f"); x = t.add_input("x")
    >>> a = t.add_eqn("getindex", [x], {"index": (3,)})
    >>> b = t.add_eqn("getindex", [x], {"index": (8,)})
    >>> c = t.add_eqn("mul", [a, b]); t.outputs = [c]
    >>> sc = shape_classes(t, load_rules())
    >>> sc.of(a) == sc.of(b) == sc.of(c) == SCALAR
    True
"""

from __future__ import annotations

from .ir import Atom, Eqn, Lit, Tape, Var
from .ruledsl import RuleTable

SCALAR: frozenset = frozenset()
_NUMBER = (int, float, complex, bool)


class ShapeClasses:
    """Shape classes of the values of one tape, filled equation by equation."""

    def __init__(self, table: RuleTable, scalar_keys: frozenset = frozenset()):
        self.table = table
        self.scalar_keys = scalar_keys
        self.atom_ids: dict[object, int] = {}
        self.atom_keys: dict[int, object] = {}
        self.atom_classes: dict[object, frozenset] = {}  # key -> its one-atom class, made once
        self.classes: dict[int, frozenset] = {}
        self.pending: dict[int, Eqn] = {}  # value id -> its equation, class not inferred yet
        #: values known to have the shape of another (a region's seed: the shape of its output)
        self.same: dict[int, Atom] = {}
        self.resolve = lambda a: a

    def atom(self, key: object) -> frozenset:
        cls = self.atom_classes.get(key)
        if cls is not None:
            return cls
        if key in self.scalar_keys:
            cls = SCALAR
        else:
            n = len(self.atom_ids) + 1
            self.atom_ids[key] = n
            self.atom_keys[n] = key
            cls = frozenset({n})
        self.atom_classes[key] = cls
        return cls

    def of(self, a: Atom) -> frozenset:
        if isinstance(a, Lit):
            return SCALAR if isinstance(a.value, _NUMBER) else self.atom(("lit", a.key()))
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
        classes, pending = self.classes, self.pending
        while stack:
            top = stack[-1]
            if top in classes:
                stack.pop()
                continue
            eqn = pending[top]
            missing = [
                a.id
                for a in eqn.args
                if type(a) is Var and a.id not in classes and a.id in pending and a.id not in self.same
            ]
            if missing:
                stack.extend(missing)
                continue
            stack.pop()
            classes[top] = self.infer(eqn.prim, eqn.args, eqn.params, eqn.outs[0])
        return classes[vid]

    def infer(self, prim: str, args: list[Atom], params: dict, out: Var | None = None) -> frozenset:
        """The class of ``prim(args, params)``."""
        rule = self.table.rules.get(prim)
        kind = rule.shape if rule else "opaque"
        if kind == "elementwise":
            if len(args) == 2:  # most arithmetic
                return self.of(args[0]) | self.of(args[1])
            return frozenset().union(*(self.of(a) for a in args))
        if kind == "scalar":
            return SCALAR
        if kind == "reduce" and params.get("axis") is None and not params.get("keepdims"):
            return SCALAR
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
        key = (prim, tuple(self.of(a) for a in args), tuple(sorted(shown.items(), key=lambda kv: kv[0])))
        return self.atom(key)


def shape_classes(tape: Tape, table: RuleTable, scalar_keys: frozenset | None = None) -> ShapeClasses:
    """Classes of every value of ``tape``, assuming its first output is a scalar.

    With ``scalar_keys`` given, use them instead of deriving them from the output.
    """
    if scalar_keys is not None:
        return _run(tape, table, scalar_keys)
    keys: frozenset = frozenset()
    for _ in range(8):
        sc = _run(tape, table, keys)
        if not tape.outputs:
            return sc
        out_class = sc.of(tape.outputs[0])
        if not out_class:
            return sc
        keys = keys | {sc.atom_keys[n] for n in out_class}
    return sc


def _run(tape: Tape, table: RuleTable, keys: frozenset) -> ShapeClasses:
    sc = ShapeClasses(table, keys)
    for inp in tape.inputs:
        sc.add_input(inp.var, inp.path)
    for eqn in tape.eqns:
        sc.add_eqn(eqn)
    return sc
