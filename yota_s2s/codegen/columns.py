"""Column blocks: which gradients may be computed on blocks of columns of their arrays.

NumPy runs a chain of elementwise operations one whole-array pass at a time.  On a million
numbers each pass streams megabytes through memory, so ``np.sum(1.0 / (1.0 + np.exp(-x)))``
and its gradient are bound by memory traffic, not arithmetic; XLA fuses the chain into one
loop.  The NumPy equivalent of fusion is to run the whole gradient on blocks of columns (the
last axis) small enough that every intermediate array stays in the cache: the generated
function calls itself on ``x[..., i:i + step]`` and joins the results (``runtime._by_columns``).

That is exact only for a function that keeps columns apart: column ``j`` of every array it
computes depends on column ``j`` of its inputs alone, and its value is a sum over columns.
``column_plan`` proves it on the final gradient tape, forward and backward together, by giving
each value one of three kinds:

- ``COLUMNS``: an array whose last axis is the columns (an input, an elementwise result of one,
  a row ``x[3]`` of an input of rank 2 or more, a gradient buffer of an input);
- ``FREE``: independent of the columns (literals, what is computed from them alone);
- ``ADDS``: a full sum of a ``COLUMNS`` value, or a linear combination of such sums with free
  coefficients: the sum of its per-block values.

Anything else with a column operand (a matrix product, a reduction along an axis, a mean
whose count is the block's, ``x.shape``, a loop) refuses the plan.  The value must be
``ADDS`` and each gradient must provably have its input's shape (``shapes``).  The plan is the
rank each input needs for its indexing to stay off the last axis (``x[3]`` needs two axes):
``_by_columns`` checks it at run time with the rest (ndarrays with one number of columns).

    >>> from yota_s2s.pipeline import generate
    >>> from yota_s2s.dsl.load import load_rules
    >>> tape = generate("import numpy as np\\ndef f(x):\\n    return np.sum(x[0] * np.exp(x[1]))\\n", "f.py")
    >>> column_plan(tape.tapes["optimize"][0], load_rules())
    {'x': 2}
    >>> tape = generate("import numpy as np\\ndef f(x):\\n    return np.mean(x * x - x)\\n", "f.py")
    >>> column_plan(tape.tapes["optimize"][0], load_rules()) is None  # the count is the block's
    True
"""

from __future__ import annotations

from ..dsl.rule import RuleTable
from ..ir.core import Lit, Slice, Tape, Var
from ..ir.primitives import primitive
from ..ir.shapes import SCALAR, shape_classes

COLUMNS, FREE, ADDS = "columns", "free", "adds"
#: Fewer passes over the columns gain nothing: joining the blocks copies the gradients once, and
#: one or two passes (``np.exp(x)`` and its sum) stream memory no slower than blocks compute
#: (measured on a million numbers: 1.16 ms by blocks against 0.96 whole; three passes, 1.22 against 1.45).
_LEAST_PASSES = 3


def column_plan(tape: Tape, table: RuleTable) -> dict[str, int] | None:
    """The rank each input needs for ``tape`` to be computed block by block of columns, by input
    name, or None when it is not a sum over columns that keeps them apart (see the module)."""
    if not tape.inputs or any(len(i.path) != 1 for i in tape.inputs):
        return None
    tree = tape.out_tree
    if not isinstance(tree, list) or not all(type(n) is int for n in tree):
        return None  # a structured gradient (a dict of attributes)
    classes = shape_classes(tape, table, scalar_keys=frozenset())  # no assumption on the value's shape
    kind = {inp.var.id: COLUMNS for inp in tape.inputs}
    need = {inp.var.id: 1 for inp in tape.inputs}  # input -> the least rank its indexing needs
    buffer_of: dict[int, int] = {}  # a gradient buffer of an input (grad_zeros, index_add into it) -> the input

    passes = 0  # operations that pass over column arrays (not a view x[3] nor a stand-in)

    def of(a) -> str:
        return FREE if isinstance(a, Lit) else kind[a.id]

    def scalars(args) -> bool:  # the free operands are scalars: no array of the columns' length
        return all(of(a) != FREE or classes.of(a) == SCALAR for a in args)

    for eqn in tape.eqns:
        if eqn.regions or len(eqn.outs) != 1:
            return None
        rule = table.rules.get(eqn.prim)
        if rule is None or not rule.pure:
            return None
        kinds = tuple(of(a) for a in eqn.args)
        prim, params, args, out = eqn.prim, eqn.params, eqn.args, eqn.outs[0].id
        passes += COLUMNS in kinds and prim not in ("getindex", "like", "broadcast")
        if COLUMNS not in kinds and ADDS not in kinds:
            kind[out] = FREE
        elif ADDS in kinds:
            if not _linear(prim, kinds) or not scalars(args):
                return None
            kind[out] = ADDS
        elif rule.shape == "elementwise" or prim in ("like", "broadcast"):  # stand-ins: of the broadcast shape
            if not scalars(args):
                return None
            kind[out] = COLUMNS
        elif prim == "sum" and params.get("axis") is None and not params.get("keepdims"):
            kind[out] = ADDS
        elif prim in ("getindex", "index_add"):
            index = params["index"]
            if not all(type(i) is int or isinstance(i, Slice) for i in index):
                return None  # None (a new axis), an Ellipsis, an index array
            if prim == "getindex" and (len(args) != 1 or args[0].id not in need):
                return None  # an index of a computed value (x[3][2]): its rank is not tracked
            if prim == "index_add" and (len(args) != 2 or args[0].id not in buffer_of or not scalars(args)):
                return None
            source = args[0].id if prim == "getindex" else buffer_of[args[0].id]
            need[source] = max(need[source], len(index) + 1)
            kind[out] = COLUMNS
            if prim == "index_add":
                buffer_of[out] = source
        elif primitive(prim).column_shaped:
            g, shaped = (None, args[0]) if len(args) == 1 else args[:2]
            if of(shaped) != COLUMNS or params.get("axis") is not None or params.get("keepdims"):
                return None
            if g is not None and (not scalars([g]) or (prim == "unreduce" and of(g) != FREE)):
                return None  # a column value spread (unreduce) is not one of a full sum
            kind[out] = COLUMNS
            if prim == "grad_zeros" and shaped.id in need:
                buffer_of[out] = shaped.id
        else:
            return None
    if passes < _LEAST_PASSES:
        return None
    return _checked_outputs(tape, classes, kind, need)


def _linear(prim: str, kinds: tuple[str, ...]) -> bool:
    """``prim`` of operands of these kinds is a sum of block values: its sums are at positions
    where it is linear (``primitive(prim).linear``), its other operands free."""
    adds = tuple(i for i, k in enumerate(kinds) if k == ADDS)
    return all(k in (ADDS, FREE) for k in kinds) and adds in primitive(prim).linear


def _checked_outputs(tape: Tape, classes, kind: dict[int, str], need: dict[int, int]) -> dict | None:
    """``need`` by input name when the value adds up over blocks and each gradient has its input's
    shape, else None."""
    value = tape.facts.value
    first, grads = tape.outputs[0], tape.outputs[1:]
    if value and (not isinstance(first, Var) or kind[first.id] != ADDS):
        return None
    inputs = {inp.path[0]: inp.var for inp in tape.inputs}
    wrt = tape.facts.wrt
    if len(wrt) != len(grads) or any(w not in inputs for w in wrt):
        return None
    for name, g in zip(wrt, grads):
        if not isinstance(g, Var) or kind[g.id] != COLUMNS or classes.of(g) != classes.of(inputs[name]):
            return None
    return {inp.path[0]: need[inp.var.id] for inp in tape.inputs}
