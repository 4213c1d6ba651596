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
from ..ir.core import Atom, Eqn, Lit, Tape, Var
from ..ir.modes import JVP
from ..ir.regions import all_tapes
from .differentiate import added_params, refuse_objects, refuse_passed, transposed
from .sweep import activity
from .tangent_flow import TangentFlow
from .tangents import TangentBuilder, zero_tangent


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
    activity(tape.eqns, seeds, table, passed)
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
    flow = TangentFlow(table, {o.id: e for t in all_tapes(tape) for e in t.eqns for o in e.outs})
    jvp.eqns = flow.sweep(tape.eqns, tan)
    value = tape.outputs[0]
    builder = TangentBuilder(jvp.eqns, None)
    dvalue = tan[value.id] if isinstance(value, Var) and value.id in tan else zero_tangent(value, builder)
    jvp.params = added_params(tape.params, names)
    jvp.outputs = [value, dvalue]
    jvp.out_tree = [0, 1]
    jvp.facts.mode = JVP
    jvp.facts.wrt = list(wrt)
    jvp.facts.seed = None
    jvp.facts.tangents = names
    jvp.facts.check_scalar = True  # each tangent has its parameter's shape (checked when it runs)
    jvp.facts.same_shape = same
    if isinstance(dvalue, Var):
        dvalue.hint = "dvalue"
    return jvp


def gradient_tangent(grad: Tape, x: Var | None, v: Var, g: Atom, table: RuleTable) -> tuple[Tape, Atom]:
    """Forward over reverse: ``grad`` (a gradient tape, its loops pushing and popping) with the
    tangent of each of its values in the direction ``v`` of the parameter ``x``; returns the
    tape and the tangent of the gradient ``g`` (``H @ v``; ``None`` where ``g`` does not depend on
    ``x``)."""
    out, (hv,) = gradient_tangents(grad, {x.id: v} if x is not None else {}, [g], table)
    return out, hv


def gradient_tangents(grad: Tape, seeds: dict[int, Var], gs: list[Atom], table: RuleTable) -> tuple[Tape, list[Atom]]:
    """``gradient_tangent`` in the direction of several parameters at once (``seeds``: parameter id
    -> its tangent ``v_P``): the tangents of the gradients ``gs`` (``sum_P H_QP @ v_P`` for each
    ``g_Q``; ``None`` where one does not depend on them)."""
    flow = TangentFlow(table, {o.id: e for t in all_tapes(grad) for e in t.eqns for o in e.outs})
    tan: dict[int, Atom] = dict(seeds)
    out = Tape(grad.name, list(grad.inputs), [], [], None, list(grad.params), grad.facts.copy())
    out.eqns = flow.sweep(grad.eqns, tan)
    return out, [tan.get(g.id, Lit(None)) if isinstance(g, Var) else Lit(None) for g in gs]
