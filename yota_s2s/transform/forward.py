"""Forward mode: a primal ``Tape`` in, the tape of its Jacobian-vector product (``--jvp``) out.

``jvp_tape`` follows the tape's own structure: after each active equation, the tangent of its
result, from its operands' tangents (``tangents``: each primitive's tangent derived by
transposing its VJP once, or the rule's ``out_dot``).  A loop carries (value, tangent) pairs:
the tangent of each active carried value is one more carried value, the tangent of each active
free value one more free value, and the body is transformed the same way; a ``while`` loop's
condition reads the values only; a branch passes the tangents of its free values in and returns
those of its results.  Nothing is saved: the tangents run alongside the values.

``jvp`` is what ``--jvp`` writes: the transposed VJP (``differentiate.transposed``) of a function
without loops and branches where every primitive of its reverse sweep has a rule for its gradient
operand, forward mode otherwise (loops, branches, ``np.concatenate``, lists).

    >>> from yota_s2s.dsl.load import load_rules
    >>> from yota_s2s.ir.core import Eqn, Lit, Param, Tape, Var
    >>> body = Tape("body"); i = body.add_input("i"); c = body.add_input("c")
    >>> body.outputs = [body.add_eqn("sin", [c])]  # for i in range(3): c = np.sin(c)
    >>> t = Tape("f"); x = t.add_input("x"); y = Var(); t.params = [Param("x")]
    >>> t.eqns = [Eqn("for", [Lit(0), Lit(3), Lit(1), x], {"n_carry": 1}, [y], None, (body,))]
    >>> t.outputs = [y]
    >>> j = jvp_tape(t, ["x"], load_rules())
    >>> loop = j.eqns[0]; loop.params["n_carry"], [e.prim for e in loop.regions[0].eqns]
    (2, ['sin', 'cos', 'mul'])
    >>> [p.name for p in j.params], j.outputs[1] is loop.outs[1]
    (['x', 'x_dot'], True)
"""

from __future__ import annotations

from ..dsl.rule import RuleTable
from ..errors import UserError
from ..ir.core import NO_DEFAULT, Atom, Eqn, Input, Param, ParamKind, Tape, Var
from ..ir.regions import LEADING, all_tapes, first_carried, is_control
from .differentiate import refuse_objects, refuse_passed, transposed
from .sweep import activity, control_activity, is_active
from .tangents import TangentBuilder, Tangents, zero_tangent


def jvp(tape: Tape, wrt: list[str], table: RuleTable) -> Tape:
    """``--jvp``: the transposed VJP where it is written (no loop or branch, every primitive of the
    reverse sweep with a rule for its gradient operand), ``jvp_tape`` otherwise."""
    if not any(e.regions for t in all_tapes(tape) for e in t.eqns):
        try:
            return transposed(tape, wrt, table)
        except UserError as exc:
            if exc.code != "YS107":
                raise
    return jvp_tape(tape, wrt, table)


def jvp_tape(tape: Tape, wrt: list[str], table: RuleTable) -> Tape:
    """The forward-mode tape of ``tape``: its parameters, then a tangent ``x_dot`` per ``wrt``
    parameter (keyword-only where a parameter before it has a default); its outputs the value and
    ``dvalue``, the sum of the Jacobians times the tangents (zeros where no path reaches it)."""
    refuse_objects(tape, wrt)
    passed: list[Eqn] = []
    seeds = {i.var.id for i in tape.inputs if i.path[0] in wrt}
    active = activity(tape.eqns, seeds, table, passed)
    refuse_passed(tape, passed)
    jvp = tape.copy_header()
    taken = {p.name for p in tape.params} | {i.path[0] for i in tape.inputs}
    tan: dict[int, Atom] = {}
    same: dict[int, Atom] = {}
    names: list[str] = []
    for name in wrt:
        t = name + "_dot"
        while t in taken:
            t += "_"
        taken.add(t)
        names.append(t)
        v = jvp.add_input(t)
        x = next((i.var for i in tape.inputs if i.path[0] == name), None)
        if x is not None:
            tan[x.id] = v
            same[v.id] = x
    sweep = _Forward(table)
    sweep.tangents.defs = {o.id: e for t in all_tapes(tape) for e in t.eqns for o in e.outs}
    jvp.eqns = sweep.sweep(tape.eqns, tan, active)
    value = tape.outputs[0]
    builder = TangentBuilder(jvp.eqns, None)
    dvalue = tan[value.id] if is_active(value, active) else zero_tangent(value, builder)
    params = list(tape.params)
    at = sum(1 for p in params if p.kind is not ParamKind.KEYWORD_ONLY)
    kind = ParamKind.KEYWORD_ONLY if any(p.default is not NO_DEFAULT for p in params[:at]) else ParamKind.POSITIONAL
    jvp.params = [*params[:at], *(Param(n, kind) for n in names), *params[at:]]
    jvp.outputs = [value, dvalue]
    jvp.out_tree = [0, 1]
    jvp.facts.mode = "jvp"
    jvp.facts.wrt = list(wrt)
    jvp.facts.seed = None
    jvp.facts.tangents = names
    jvp.facts.check_scalar = True  # each tangent has its parameter's shape (checked when it runs)
    jvp.facts.same_shape = same
    if isinstance(dvalue, Var):
        dvalue.hint = "dvalue"
    return jvp


def _dot(hint: str | None) -> str | None:
    return hint + "_dot" if hint else None


class _Forward:
    """The forward sweep over a list of equations, loops and branches carrying tangents."""

    def __init__(self, table: RuleTable):
        self.table = table
        self.tangents = Tangents(table)

    def sweep(self, eqns: list[Eqn], tan: dict[int, Atom], active: set[int]) -> list[Eqn]:
        """``eqns`` with the tangent of each active result after it (``tan``: the active values'
        tangents, extended with the results')."""
        out: list[Eqn] = []
        builder = TangentBuilder(out, None)
        for eqn in eqns:
            if not any(o.id in active for o in eqn.outs):
                out.append(eqn)
            elif is_control(eqn.prim):
                out.append(self._control(eqn, tan, active, builder))
            else:
                out.append(eqn)
                tan[eqn.out.id] = self.tangents.of(eqn, tan, active, builder)
        return out

    def _control(self, eqn: Eqn, tan: dict[int, Atom], active: set[int], builder: TangentBuilder) -> Eqn:
        """A loop or branch that also carries the tangents of its active values."""
        k = eqn.params["n_carry"]
        lead = LEADING[eqn.prim]
        flags = control_activity(eqn, active, self.table)
        init = [] if eqn.prim == "if" else eqn.args[lead : lead + k]
        free = eqn.args[lead:] if eqn.prim == "if" else eqn.args[lead + k :]
        free_act = [is_active(a, active) for a in free]
        builder.span = eqn.span
        defs = self.tangents.defs
        t_init = [
            tan[a.id] if is_active(a, active) else zero_tangent(a, builder, defs) for a, f in zip(init, flags) if f
        ]
        t_free = [tan[a.id] for a, f in zip(free, free_act) if f]
        regions = tuple(self._region(eqn, r, flags, free_act) for r in eqn.regions)
        t_outs = [Var(hint=_dot(o.hint)) for o, f in zip(eqn.outs, flags) if f]
        for o, t in zip([o for o, f in zip(eqn.outs, flags) if f], t_outs):
            tan[o.id] = t
        args = [*eqn.args[:lead], *init, *t_init, *free, *t_free]
        params = {**eqn.params, "n_carry": k + len(t_outs)}
        return Eqn(eqn.prim, args, params, [*eqn.outs, *t_outs], eqn.span, regions, eqn.section)

    def _region(self, eqn: Eqn, region: Tape, flags: list[bool], free_act: list[bool]) -> Tape:
        """A loop body or branch with a tangent input per active carried and free value, and a
        tangent output per active result; a ``while`` condition gets the inputs only."""
        k = 0 if eqn.prim == "if" else eqn.params["n_carry"]
        first = first_carried(eqn, region)
        head, carried, free = region.inputs[:first], region.inputs[first : first + k], region.inputs[first + k :]
        tan: dict[int, Atom] = {}

        def tangent_inputs(inputs: list[Input], which: list[bool]) -> list[Input]:
            made = []
            for i, f in zip(inputs, which):
                if f:
                    v = Var(hint=_dot(i.var.hint), hint_depth=i.var.hint_depth)
                    tan[i.var.id] = v
                    made.append(Input(v, (*i.path[:-1], i.path[-1] + "_dot")))
            return made

        t_carried = tangent_inputs(carried, flags if k else [])
        t_free = tangent_inputs(free, free_act)
        inputs = [*head, *carried, *t_carried, *free, *t_free]
        if eqn.prim == "while" and region is eqn.regions[0]:  # the condition: values only
            return Tape(region.name, inputs, list(region.eqns), list(region.outputs), facts=region.facts.copy())
        act = activity(region.eqns, set(tan), self.table)
        eqns = self.sweep(region.eqns, tan, act)
        builder = TangentBuilder(eqns, None)
        defs = self.tangents.defs
        t_outs = [
            tan[o.id] if is_active(o, act) else zero_tangent(o, builder, defs)
            for o, f in zip(region.outputs, flags)
            if f
        ]
        return Tape(region.name, inputs, eqns, [*region.outputs, *t_outs], facts=region.facts.copy())
