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

    >>> from yota_s2s.ir import Tape
    >>> from yota_s2s.ruledsl import load_rules
    >>> t = Tape("f"); x = t.add_input("x"); t.params = [("x", None)]
    >>> t.outputs = [t.add_eqn("exp", [x])]
    >>> g = differentiate(t, ["x"], load_rules())
    >>> [e.prim for e in g.eqns]
    ['exp', 'mul']
"""

from __future__ import annotations

from .errors import UserError
from .ir import Atom, Lit, Span, Tape, Var
from .lower import fold_constant
from .ruledsl import RuleTable, instantiate
from .shapes import SCALAR, shape_classes


class _Builder:
    """Appends backward equations to the gradient tape, folding constants."""

    def __init__(self, tape: Tape):
        self.tape = tape
        self.span: Span | None = None
        self.created: set[int] = set()

    def emit(self, prim: str, args: list[Atom], params: dict[str, object]) -> Atom:
        if all(isinstance(a, Lit) for a in args):
            ok, value = fold_constant(prim, [a.value for a in args])
            if ok:
                return Lit(value)
        out = self.tape.add_eqn(prim, args, params, self.span, section="backward")
        self.created.add(out.id)
        return out


def differentiate(tape: Tape, wrt: list[str], table: RuleTable) -> Tape:
    """The gradient tape of ``tape`` with respect to the parameters named in ``wrt``."""
    grad = tape.copy_header()
    grad.name = tape.name
    grad.eqns = list(tape.eqns)
    wanted = set(wrt)
    active: set[int] = {inp.var.id for inp in tape.inputs if inp.path[0] in wanted}
    for eqn in tape.eqns:
        rule = table[eqn.prim]
        if any(
            isinstance(a, Var) and a.id in active and name not in rule.nondiff
            for name, a in zip(rule.operand_names(len(eqn.args)), eqn.args)
        ):
            active.update(o.id for o in eqn.outs)

    builder = _Builder(grad)
    contributions: dict[int, list[Atom]] = {}
    value = tape.outputs[0]
    if isinstance(value, Var) and value.id in active:
        contributions[value.id] = [Lit(1.0)]

    for eqn in reversed(tape.eqns):
        out = eqn.out
        if out.id not in contributions:
            continue
        builder.span = eqn.span
        dout = _accumulate(contributions.pop(out.id), out, builder)
        rule = table[eqn.prim]
        needed = [
            (name, k, a)
            for k, (name, a) in enumerate(zip(rule.operand_names(len(eqn.args)), eqn.args))
            if isinstance(a, Var) and a.id in active and name not in rule.nondiff
        ]
        if not needed:
            continue
        try:
            grads = instantiate(rule, [(n, k) for n, k, _ in needed], eqn.args, eqn.params, out, dout, builder, table)
        except NotImplementedError as exc:
            name = next((n for n, _, _ in needed if n in rule.not_implemented), needed[0][0])
            span = eqn.span
            raise UserError(
                "YS107",
                f"no gradient of {eqn.prim}() with respect to {name!r}: {exc}",
                span.path if span else "<input>",
                span.at_line if span else 0,
                span.col if span else 0,
                span.at_text if span else None,
            ) from None
        for name, k, a in needed:
            contributions.setdefault(a.id, []).append(grads[name, k])

    builder.span = None
    outputs: list[Atom] = [value]
    tree: list[object] = [0]
    by_param: dict[str, list] = {}
    for inp in tape.inputs:
        by_param.setdefault(inp.path[0], []).append(inp)
    object_params = set(tape.meta.get("object_params", ()))
    for name in wrt:
        inputs = by_param.get(name, [])
        if name in object_params:
            node: dict = {}
            for inp in inputs:
                leaf = node
                for part in inp.path[1:-1]:
                    leaf = leaf.setdefault(part, {})
                leaf[inp.path[-1]] = len(outputs)
                outputs.append(_final(contributions, inp.var, builder))
            tree.append(node)
        elif inputs:
            tree.append(len(outputs))
            outputs.append(_final(contributions, inputs[0].var, builder))
        else:
            tree.append(len(outputs))
            outputs.append(Lit(None))
    grad.outputs = outputs
    grad.out_tree = tree
    grad.meta["wrt"] = list(wrt)
    # the gradient assumes a scalar value; where shapes cannot prove it, the output checks it
    proven = shape_classes(tape, table, scalar_keys=frozenset()).of(value) == SCALAR
    grad.meta["check_scalar"] = bool(isinstance(value, Var) and value.id in active and not proven)
    return grad


def _final(contributions: dict[int, list[Atom]], var: Var, builder: _Builder) -> Atom:
    parts = contributions.pop(var.id, None)
    if not parts:
        return Lit(None)
    return _accumulate(parts, var, builder)


def _accumulate(parts: list[Atom], primal: Var, builder: _Builder) -> Atom:
    """Sum the gradient contributions of ``primal`` and mark the result as its gradient."""
    total = parts[0]
    for p in parts[1:]:
        total = builder.emit("add", [total, p], {})
    if isinstance(total, Var) and total.id in builder.created and total.grad_of is None:
        total.grad_of = primal
    return total
