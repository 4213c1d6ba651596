"""What shapes prove of a function's value: an array where a scalar is wanted (YS024).

(Which values may be complex is ``transform.complexes``'s.)
"""

from __future__ import annotations

from ..dsl.rule import RuleTable
from ..ir.core import Atom, Eqn, Lit, Tape

# ---------------------------------------------------------------------------- a vector value


def vector_value(tape: Tape, table: RuleTable) -> tuple[int, tuple | None] | None:
    """``(rank, shape)`` when the value of ``tape`` (its first output) is proven an array of one
    or more dimensions (``np.array([e0, e1])``, ``np.zeros(3) + x``): a lower bound of its rank,
    and its shape where every length is known (None otherwise); None when shapes cannot prove
    it (the generated code then checks the value at run time).  Only the function's own level
    is read: a loop's or a branch's results are unknown."""
    value = tape.outputs[0] if tape.outputs else None
    if not _has_array_source(tape) and not (isinstance(value, Lit) and type(value.value) is tuple):
        return None  # (every rank is 0: a pass over the equations without computing one)
    known: dict[int, tuple[int, tuple | None]] = {}

    def of(a: Atom) -> tuple[int, tuple | None]:
        if isinstance(a, Lit):
            shape = _literal_shape(a.value)
            return (len(shape), shape) if shape is not None else (0, None)
        return known.get(a.id, (0, None))

    for eqn in tape.eqns:
        if not eqn.regions and len(eqn.outs) == 1:
            known[eqn.out.id] = _rank(eqn, [of(a) for a in eqn.args], table)
    rank, shape = of(value) if value is not None else (0, None)
    return (rank, shape) if rank > 0 else None


#: The primitives whose result ``_rank`` may give a rank above 0 whatever their operands' ranks (the
#: others' is at most their operands' largest, or 0).
_ARRAY_SOURCES = frozenset({"zeros", "ones", "eye", "arange", "concatenate", "hstack", "vstack", "stack"})


def _has_array_source(tape: Tape) -> bool:
    """Some equation of ``tape``'s own level is an ``_ARRAY_SOURCES`` or reads a constant tuple (a
    literal of rank 1 or more): without one, every value's rank is 0 (issue 38: the 10,000-term
    polynomial's 60,000 equations, each ranked)."""
    for eqn in tape.eqns:
        if eqn.regions:
            continue
        if eqn.prim in _ARRAY_SOURCES:
            return True
        for a in eqn.args:
            if type(a) is Lit and type(a.value) is tuple:
                return True
    return False


def _literal_shape(value: object) -> tuple | None:
    """The shape of a literal: () for a number, (n, ...) for a nested tuple of numbers."""
    if isinstance(value, bool | int | float):
        return ()
    if isinstance(value, tuple) and value:
        inner = {_literal_shape(v) for v in value}
        if len(inner) == 1 and None not in inner:
            return (len(value), *inner.pop())
    return None


def _rank(eqn: Eqn, args: list[tuple[int, tuple | None]], table: RuleTable) -> tuple[int, tuple | None]:
    """A lower bound of the rank of ``eqn``'s result, and its shape when known, from its operands'."""
    prim, params = eqn.prim, eqn.params
    ranks = [r for r, _ in args]
    shapes = [s for _, s in args]
    if prim in ("zeros", "ones") and eqn.args and isinstance(eqn.args[0], Lit):
        n = eqn.args[0].value
        shape = (n,) if isinstance(n, int) else tuple(n) if isinstance(n, tuple) else None
        return (len(shape), shape) if shape is not None else (0, None)
    if prim == "eye":
        return 2, None
    if prim in ("arange", "concatenate", "hstack"):
        return max([1, *ranks]), None
    if prim == "vstack":
        return max([2, *ranks]), None
    if prim == "stack":
        same = len(set(shapes)) == 1 and shapes[0] is not None and params.get("axis", 0) == 0
        return 1 + max(ranks, default=0), ((len(args), *shapes[0]) if same else None)
    if prim in ("setindex", "index_add"):  # a[i] = v: the array a, written
        return args[0] if args else (0, None)
    if prim in ("asarray", "transpose", "copy", "neg"):
        shape = shapes[0] if shapes and prim != "transpose" else None
        return (ranks[0] if ranks else 0), shape
    if prim in ("sum", "mean", "max", "min", "prod") and ranks:
        axis = params.get("axis")
        if axis is None:
            return 0, ()
        if params.get("keepdims"):
            return ranks[0], None
        return max(ranks[0] - (len(axis) if isinstance(axis, tuple) else 1), 0), None
    if table[prim].shape == "elementwise" and args:
        known_shapes = [s for s in shapes if s is not None]
        shape = _broadcast(known_shapes) if len(known_shapes) == len(shapes) else None
        return max(ranks), shape
    return 0, None


def _broadcast(shapes: list[tuple]) -> tuple | None:
    n = max(len(s) for s in shapes)
    out = []
    for i in range(n):
        lengths = {s[len(s) - n + i] for s in shapes if len(s) - n + i >= 0} - {1}
        if len(lengths) > 1:
            return None
        out.append(lengths.pop() if lengths else 1)
    return tuple(out)
