"""The reverse sweep and activity analysis, shared by a whole tape and by a loop body or branch.

``reverse_sweep`` takes a list of equations, the ids of their *active* values, and the gradient
contributions their results have received so far (``contributions``: value id -> atoms to sum);
it appends the backward equations to a ``BackwardBuilder``'s tape, last equation first, and
leaves in ``contributions`` what flowed back to the values the equations did not define (the
inputs).  An active loop or branch is differentiated by the *plan* the forward sweep made for it
(``adjoint``), which the sweep calls in its place.  ``differentiate`` runs the sweeps on the
whole tape, ``adjoint`` on each region.

A value is active when it depends on an active one through differentiable operands (not
``nondiff`` ones):

    >>> from yota_s2s.dsl.load import load_rules
    >>> from yota_s2s.ir.core import Tape
    >>> t = Tape("f"); x = t.add_input("x"); y = t.add_input("y")
    >>> a = t.add_eqn("exp", [x]); b = t.add_eqn("mul", [a, y]); c = t.add_eqn("shape", [y])
    >>> sorted(activity(t.eqns, {x.id}, load_rules())) == sorted([x.id, a.id, b.id])
    True
"""

from __future__ import annotations

from collections.abc import Callable

from ..dsl.rule import RuleTable
from ..dsl.splice import instantiate
from ..errors import at_span
from ..ir.core import Atom, Eqn, Lit, Section, Span, Tape, Var
from ..ir.folding import fold_lits
from ..ir.regions import LEADING, first_carried, is_control
from .complexes import complex_adjoint


class BackwardBuilder:
    """Appends backward equations to the gradient tape, folding constants."""

    def __init__(self, tape: Tape):
        self.tape = tape
        self.span: Span | None = None
        self.created: set[int] = set()

    def add(self, prim: str, args: list[Atom], params: dict[str, object]) -> Atom:
        if all(isinstance(a, Lit) for a in args) and (folded := fold_lits(prim, args)) is not None:
            return folded
        out = self.tape.add_eqn(prim, args, params, self.span, section=Section.BACKWARD)
        self.created.add(out.id)
        return out


#: The backward part of an active loop or branch, made by the forward sweep (``adjoint``): called
#: by ``reverse_sweep`` with the contributions so far, it appends the backward loop or branch.
Plan = Callable[[dict[int, list[Atom]], BackwardBuilder], None]


# ---------------------------------------------------------------------------- activity


def activity(eqns: list[Eqn], active: set[int], table: RuleTable, passed: list[Eqn] | None = None) -> set[int]:
    """The ids of values that depend on ``active`` ones through differentiable operands.

    A ``static`` equation (code passed through, rules/python.py) has no gradient: one whose
    value may depend differentiably on an active operand (its ``through``) is appended to
    ``passed``, for the caller to refuse."""
    active = set(active)
    for eqn in eqns:
        if is_control(eqn.prim):
            flags = control_activity(eqn, active, table, passed)
            active.update(o.id for o, a in zip(eqn.outs, flags) if a)
            continue
        through = eqn.params["through"] if eqn.prim == "static" else ()
        if passed is not None and any(is_active(eqn.args[k], active) for k in through):
            passed.append(eqn)
        rule = table[eqn.prim]
        if any(
            isinstance(a, Var) and a.id in active and name not in rule.nondiff
            for name, a in zip(rule.operand_names(len(eqn.args)), eqn.args)
        ):
            active.update(o.id for o in eqn.outs)
    return active


def is_active(a: Atom, active: set[int]) -> bool:
    return isinstance(a, Var) and a.id in active


def control_activity(eqn: Eqn, active: set[int], table: RuleTable, passed: list[Eqn] | None = None) -> list[bool]:
    """Which outputs of a loop or branch are active (carried values to a fixed point)."""
    k = eqn.params["n_carry"]
    lead = LEADING[eqn.prim]
    if eqn.prim == "if":
        free = [is_active(a, active) for a in eqn.args[lead:]]
        flags = [False] * k
        for region in eqn.regions:
            inner = activity(region.eqns, {i.var.id for i, f in zip(region.inputs, free) if f}, table, passed)
            flags = [f or is_active(o, inner) for f, o in zip(flags, region.outputs)]
        return flags
    body = eqn.regions[-1]
    carried = [is_active(a, active) for a in eqn.args[lead : lead + k]]
    free = [is_active(a, active) for a in eqn.args[lead + k :]]
    first = first_carried(eqn)
    while True:
        ins = body.inputs[first:]
        inner = activity(body.eqns, {i.var.id for i, f in zip(ins, carried + free) if f}, table, passed)
        new = [c or is_active(o, inner) for c, o in zip(carried, body.outputs)]
        if new == carried:
            return carried
        carried = new


# ---------------------------------------------------------------------------- the reverse sweep


def reverse_sweep(
    eqns: list[Eqn],
    plans: dict[int, Plan],
    active: set[int],
    contributions: dict[int, list[Atom]],
    builder: BackwardBuilder,
    table: RuleTable,
) -> None:
    """The reverse sweep over ``eqns``: gradient contributions flow from outputs to operands."""
    for eqn in reversed(eqns):
        if not any(o.id in contributions for o in eqn.outs):
            continue
        builder.span = eqn.span
        if id(eqn) in plans:
            plans[id(eqn)](contributions, builder)
            continue
        out = eqn.out
        dout = accumulate(contributions.pop(out.id), out, builder)
        rule = table[eqn.prim]
        needed = [
            (name, k, a)
            for k, (name, a) in enumerate(zip(rule.operand_names(len(eqn.args)), eqn.args))
            if isinstance(a, Var) and a.id in active and name not in rule.nondiff
        ]
        if not needed:
            continue
        try:
            wanted = [(n, k) for n, k, _ in needed]
            grads = complex_adjoint(eqn, rule, wanted, dout, builder, table) if table.complex_values else None
            if grads is None:
                grads = instantiate(rule, wanted, eqn.args, eqn.params, out, dout, builder, table)
        except NotImplementedError as exc:
            name = next((n for n, _, _ in needed if n in rule.not_implemented), needed[0][0])
            raise at_span("YS107", f"no gradient of {eqn.prim}() with respect to {name!r}: {exc}", eqn.span) from None
        for name, k, a in needed:
            contributions.setdefault(a.id, []).append(grads[name, k])


def final_gradient(contributions: dict[int, list[Atom]], var: Var, builder: BackwardBuilder) -> Atom:
    """The gradient of ``var`` (an input): the sum of its contributions, ``None`` if it has none."""
    parts = contributions.pop(var.id, None)
    if not parts:
        return Lit(None)
    return accumulate(parts, var, builder)


def accumulate(parts: list[Atom], primal: Var, builder: BackwardBuilder) -> Atom:
    """Sum the gradient contributions of ``primal`` and mark the result as its gradient."""
    total = parts[0]
    for p in parts[1:]:
        total = builder.add("add", [total, p], {})
    if isinstance(total, Var) and total.id in builder.created and total.grad_of is None:
        total.grad_of = primal
    return total
