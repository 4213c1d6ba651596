"""Stage 3, differentiate: a primal ``Tape`` in, the gradient ``Tape`` out.

The gradient tape holds the primal equations (section ``forward``), then a
reverse sweep (section ``backward``): for each equation, last to first, the
rule template of its primitive is instantiated for each operand that needs a
gradient, with ``out`` bound to the equation's result and ``dout`` to the
sum of the gradient contributions its result received.  Its outputs are the
value and one gradient per ``wrt`` parameter: an atom, ``None`` (no
differentiable path), or a dict of attribute gradients for an object.

Only *active* values are differentiated: those that depend on a ``wrt``
parameter through differentiable operands (not ``nondiff`` ones).  A rule's
formula for a constant operand is never instantiated, so ``x ** 2.0`` carries
no ``log(x)``.

The parts: activity analysis and the reverse sweep are in ``sweep``; the forward sweep, which
makes each active loop and branch save what its backward part needs, and those backward parts
(``for_back``, ``while_back``, ``if_back``) are in ``adjoint``.  This module runs them on the
whole tape and collects one gradient per ``wrt`` parameter.

    >>> from yota_s2s.dsl.load import load_rules
    >>> from yota_s2s.ir.core import Param, Tape
    >>> t = Tape("f"); x = t.add_input("x"); t.params = [Param("x")]
    >>> t.outputs = [t.add_eqn("exp", [x])]
    >>> g = differentiate(t, ["x"], load_rules())
    >>> [e.prim for e in g.eqns]
    ['exp', 'mul']
"""

from __future__ import annotations

from ..dsl.rule import RuleTable
from ..errors import UserError
from ..ir.core import Atom, Eqn, Lit, Tape, Var
from ..ir.regions import all_tapes
from ..ir.shapes import SCALAR, shape_classes
from .adjoint import forward_sweep
from .sweep import BackwardBuilder, activity, final_gradient, reverse_sweep


def differentiate(tape: Tape, wrt: list[str], table: RuleTable) -> Tape:
    """The gradient tape of ``tape`` with respect to the parameters named in ``wrt``."""
    grad = tape.copy_header()
    grad.name = tape.name
    wanted = set(wrt)
    passed: list[Eqn] = []
    active = activity(tape.eqns, {inp.var.id for inp in tape.inputs if inp.path[0] in wanted}, table, passed)
    refuse_passed(tape, passed)
    grad.eqns, plans = forward_sweep(tape.eqns, active, table)

    builder = BackwardBuilder(grad)
    contributions: dict[int, list[Atom]] = {}
    value = tape.outputs[0]
    if isinstance(value, Var) and value.id in active:
        contributions[value.id] = [Lit(1.0)]
    reverse_sweep(grad.eqns, plans, active, contributions, builder, table)

    builder.span = None
    outputs: list[Atom] = [value]
    tree: list[object] = [0]
    by_param: dict[str, list] = {}
    for inp in tape.inputs:
        by_param.setdefault(inp.path[0], []).append(inp)
    object_params = set(tape.facts.object_params)
    for name in wrt:
        inputs = by_param.get(name, [])
        if name in object_params:
            node: dict = {}
            for inp in inputs:
                leaf = node
                for part in inp.path[1:-1]:
                    leaf = leaf.setdefault(part, {})
                leaf[inp.path[-1]] = len(outputs)
                outputs.append(final_gradient(contributions, inp.var, builder))
            tree.append(node)
        elif inputs:
            tree.append(len(outputs))
            outputs.append(final_gradient(contributions, inputs[0].var, builder))
        else:
            tree.append(len(outputs))
            outputs.append(Lit(None))
    grad.outputs = outputs
    grad.out_tree = tree
    grad.facts.wrt = list(wrt)
    # the gradient assumes a scalar value; where shapes cannot prove it, the output checks it
    proven = shape_classes(tape, table, scalar_keys=frozenset()).of(value) == SCALAR
    grad.facts.check_scalar = bool(isinstance(value, Var) and not proven)  # (active or not: f is scalar)
    return grad


def refuse_passed(tape: Tape, passed: list[Eqn]) -> None:
    """Refuse the first ``static`` equation of ``passed`` (code passed through with a
    differentiated operand) whose value something uses: it has no rule, so its gradient would be
    lost.  The error is the one lowering met first (``no derivative rule for ...``), located."""
    if not passed:
        return
    used = {a.id for t in all_tapes(tape) for e in t.eqns for a in e.args if isinstance(a, Var)}
    used |= {a.id for t in all_tapes(tape) for a in t.outputs if isinstance(a, Var)}
    for eqn in passed:
        if eqn.out.id in used:
            code, message, line, col, text = eqn.params["refusal"]
            why = f"{message} (it is computed from a differentiated value, so its gradient is needed)"
            raise UserError(code, why, eqn.span.path if eqn.span else "<input>", line, col, text or None)
