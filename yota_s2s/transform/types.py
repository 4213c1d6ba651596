"""The types the rules are proven for: a primal tape in, refused (YS023) where a complex part is taken.

The rules are proven for real values (complex differentiation is a later feature).  The front end
refuses every complex value the source makes (``frontend.complexes``, YS022); what it cannot
see is which values are differentiated.  ``np.real``, ``np.imag`` and ``np.conj`` (and
``x.real``, ``x.imag``, ``x.conj()``) only mean something for complex values, and of a
differentiated value they would need complex rules (``np.real(z * np.conj(z))`` differentiated
with the real rules gives the conjugate answer): so they are refused where they take an active
value, at their line.  Of a value that is not differentiated they are left alone (the code runs
as written).  Complex *arguments* are refused at run time by the generated code
(``codegen.writer``'s type checks).

    >>> from yota_s2s.dsl.load import load_rules
    >>> from yota_s2s.frontend.fence import fence
    >>> from yota_s2s.frontend.lower import lower
    >>> src = "import numpy as np\\ndef f(x, c):\\n    return np.sum(np.real(c) * x) + np.sum(np.real(x))\\n"
    >>> table = load_rules()
    >>> tape = lower(fence(src, "f.py"), "f", table)
    >>> refuse_complex_parts(tape, ["x"], table)
    Traceback (most recent call last):
    ...
    yota_s2s.errors.UserError: f.py:3:44: error: the real part (np.real, .real) of a differentiated value: ...
"""

from __future__ import annotations

from ..dsl.rule import RuleTable
from ..errors import at_span
from ..ir.core import Atom, Eqn, Lit, Tape, Var
from ..ir.regions import LEADING, first_carried, is_control
from .sweep import control_activity

#: The primitives that take a part of a complex value, and how the source writes them.
COMPLEX_PARTS = {
    "real": "the real part (np.real, .real)",
    "imag": "the imaginary part (np.imag, .imag)",
    "conj": "the conjugate (np.conj, .conj())",
}


def refuse_complex_parts(tape: Tape, wrt: list[str], table: RuleTable) -> None:
    """Raise YS023 at the first ``real``, ``imag`` or ``conj`` of a value that depends on the
    parameters ``wrt`` (through differentiable operands), in the tape or any loop or branch."""
    _walk(tape.eqns, {inp.var.id for inp in tape.inputs if inp.path[0] in wrt}, table)


def _walk(eqns: list[Eqn], active: set[int], table: RuleTable) -> None:
    for eqn in eqns:
        if is_control(eqn.prim):
            flags = control_activity(eqn, active, table)
            _regions(eqn, active, flags, table)
            active.update(o.id for o, a in zip(eqn.outs, flags) if a)
            continue
        rule = table[eqn.prim]
        live = any(
            isinstance(a, Var) and a.id in active and name not in rule.nondiff
            for name, a in zip(rule.operand_names(len(eqn.args)), eqn.args)
        )
        if eqn.prim in COMPLEX_PARTS and any(isinstance(a, Var) and a.id in active for a in eqn.args):
            message = (
                f"{COMPLEX_PARTS[eqn.prim]} of a differentiated value: complex values are not supported yet "
                f"(yota-s2s differentiates real functions of real values; of a real x, "
                f"np.real(x) and np.conj(x) are x and np.imag(x) is 0)"
            )
            raise at_span("YS023", message, eqn.span)
        if live:
            active.update(o.id for o in eqn.outs)


def _regions(eqn: Eqn, active: set[int], flags: list[bool], table: RuleTable) -> None:
    """Walk the regions of a loop or branch with the activity of their inputs (``flags``: its
    outputs', which for a loop are its carried values' at the fixed point)."""
    lead = LEADING[eqn.prim]
    k = eqn.params["n_carry"]
    if eqn.prim == "if":
        given = [isinstance(a, Var) and a.id in active for a in eqn.args[lead:]]
    else:
        given = flags + [isinstance(a, Var) and a.id in active for a in eqn.args[lead + k :]]
    for region in eqn.regions:
        first = 0 if eqn.prim == "if" else first_carried(eqn, region)
        inner = {i.var.id for i, f in zip(region.inputs[first:], given) if f}
        _walk(region.eqns, inner, table)


# ---------------------------------------------------------------------------- a vector value


def vector_value(tape: Tape, table: RuleTable) -> tuple[int, tuple | None] | None:
    """``(rank, shape)`` when the value of ``tape`` (its first output) is proven an array of one
    or more dimensions (``np.array([e0, e1])``, ``np.zeros(3) + x``): a lower bound of its rank,
    and its shape where every length is known (None otherwise); None when shapes cannot prove
    it (the generated code then checks the value at run time).  Only the function's own level
    is read: a loop's or a branch's results are unknown."""
    known: dict[int, tuple[int, tuple | None]] = {}

    def of(a: Atom) -> tuple[int, tuple | None]:
        if isinstance(a, Lit):
            shape = _literal_shape(a.value)
            return (len(shape), shape) if shape is not None else (0, None)
        return known.get(a.id, (0, None))

    for eqn in tape.eqns:
        if not eqn.regions and len(eqn.outs) == 1:
            known[eqn.out.id] = _rank(eqn, [of(a) for a in eqn.args], table)
    value = tape.outputs[0] if tape.outputs else None
    rank, shape = of(value) if value is not None else (0, None)
    return (rank, shape) if rank > 0 else None


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
