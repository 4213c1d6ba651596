"""Splicing a rule into a tape: a ``Rule``, its operands and ``dout`` in, the gradient equations out.

``instantiate`` evaluates a rule's formulas over tape atoms, adding one equation per
operation through a builder (``Builder.add``), so the gradient is made of primitives that
CSE and DCE see like any others.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from typing import Protocol

from ..ir.core import Atom, Lit, Var
from ..ir.primitives import BINOPS
from .rule import STATIC_HELPERS, Rule, RuleTable, bind


class Builder(Protocol):
    """What instantiation needs from a tape builder: add one equation, get its result."""

    def add(self, prim: str, args: list[Atom], params: dict[str, object]) -> Atom: ...


def instantiate(
    rule: Rule,
    wanted: Sequence[tuple[str, int]],
    operands: Sequence[Atom],
    params: dict[str, object],
    out: Atom,
    dout: Atom,
    builder: Builder,
    table: RuleTable,
) -> dict[tuple[str, int], Atom]:
    """Splice the formulas for the ``wanted`` operands into ``builder``.

    ``wanted`` holds ``(operand name, argument position)`` pairs; for the variadic operand
    the formula is instantiated once per element, with ``i`` bound to the element's
    index.  Temporaries are instantiated on first use, once (per element).  Raises
    ``NotImplementedError`` with the rule's reason for an operand marked ``not_implemented``.
    """
    n_fixed = len(rule.operands)
    value, env, temps = _evaluator(rule, operands, params, out, dout, builder, table)
    result = {}
    for name, position in wanted:
        if name in rule.not_implemented:
            raise NotImplementedError(rule.not_implemented[name])
        if name == rule.variadic:
            env["i"] = position - n_fixed
            temps.clear()
        result[name, position] = value(rule.grads[name])
    return result


def instantiate_tangent(
    rule: Rule,
    operands: Sequence[Atom],
    tangents: Sequence[Atom],
    params: dict[str, object],
    out: Atom,
    builder: Builder,
    table: RuleTable,
) -> Atom:
    """Splice the rule's forward formula (``out_dot = ...``: the tangent of ``out`` from the
    operands' tangents ``<operand>_dot``, one per operand, zeros for a constant one) into
    ``builder``; the rule must have one (``rule.tangent``)."""
    assert rule.tangent is not None
    value, _, _ = _evaluator(rule, operands, params, out, Lit(None), builder, table, tangents)
    return value(rule.tangent)


def _evaluator(
    rule: Rule,
    operands: Sequence[Atom],
    params: dict[str, object],
    out: Atom,
    dout: Atom,
    builder: Builder,
    table: RuleTable,
    tangents: Sequence[Atom] = (),
) -> tuple[Callable[[ast.expr], Atom], dict[str, object], dict[str, Atom]]:
    """The function that evaluates a formula of ``rule`` over tape atoms, its environment (the
    operands, static parameters, ``out``, ``dout``, the tangents ``<operand>_dot``) and the cache of
    its temporaries."""
    n_fixed = len(rule.operands)
    env: dict[str, object] = dict(zip(rule.operands, operands))
    sequences = {rule.variadic: list(operands[n_fixed:])} if rule.variadic else {}
    if tangents:
        env.update((name + "_dot", t) for name, t in zip(rule.operands, tangents))
        if rule.variadic:
            sequences[rule.variadic + "_dot"] = list(tangents[n_fixed:])
    env.update(params)
    env["out"] = out
    env["dout"] = dout
    temps: dict[str, Atom] = {}

    def value(node: ast.expr) -> Atom:
        if isinstance(node, ast.Constant):
            return Lit(node.value)
        if isinstance(node, ast.Name):
            if node.id in rule.temps:
                if node.id not in temps:
                    temps[node.id] = value(rule.temps[node.id])
                return temps[node.id]
            v = env[node.id]
            return v if isinstance(v, Var | Lit) else Lit(v)
        if isinstance(node, ast.Tuple):
            return Lit(tuple(static(e) for e in node.elts))
        if isinstance(node, ast.BinOp):
            return builder.add(BINOPS[type(node.op)], [value(node.left), value(node.right)], {})
        if isinstance(node, ast.UnaryOp):
            operand = value(node.operand)
            return operand if isinstance(node.op, ast.UAdd) else builder.add("neg", [operand], {})
        if isinstance(node, ast.Call):
            target, fixed, rest, ps = _bound(node, table[node.func.id])
            args = [value(o) for o in fixed]
            if rest is not None:
                args += sequence(rest)
            return builder.add(target.name, args, {k: static(v) for k, v in ps})
        raise AssertionError(f"unvalidated formula node {ast.dump(node)}")  # loader rejects these

    def sequence(node: ast.expr) -> list[Atom]:
        if isinstance(node, ast.Name) and node.id in sequences:
            return sequences[node.id]
        if isinstance(node, ast.Tuple | ast.List):
            return [value(e) for e in node.elts]
        raise NotImplementedError(f"{rule.name}: a variadic call needs a tuple of values")

    def static(node: object) -> object:
        if not isinstance(node, ast.AST):
            return node  # a default value from the signature
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            v = env[node.id]
            if isinstance(v, Lit):
                return v.value
            if isinstance(v, Var):
                raise NotImplementedError(f"{rule.name}: {node.id!r} is used as a static value but is not constant")
            return v
        if isinstance(node, ast.Tuple):
            return tuple(static(e) for e in node.elts)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
            inner = static(node.operand)
            if isinstance(inner, int | float) and not isinstance(inner, bool):
                return -inner if isinstance(node.op, ast.USub) else inner
        if isinstance(node, ast.Call) and node.func.id in STATIC_HELPERS:
            return STATIC_HELPERS[node.func.id](*(static(a) for a in node.args))
        raise NotImplementedError(f"{rule.name}: a static parameter got a non-constant formula")

    return value, env, temps


#: A formula's call bound to its primitive's signature, once per call node and rule (``_bound``):
#: ``id(node)`` -> (the node, the rule, the operand nodes, the variadic operand's node or None,
#: the static parameters' nodes or defaults).  Rule tables live as long as the process; the node is
#: kept so that its id is never another's.
_BOUND: dict[int, tuple] = {}


def _bound(node: ast.Call, target: Rule) -> tuple[Rule, list, ast.expr | None, list[tuple[str, object]]]:
    """``bind`` of the formula's call ``node`` to ``target``, made once per node and rule (issue 38:
    a rule's calls were bound again for each equation the rule was instantiated for)."""
    found = _BOUND.get(id(node))
    if found is None or found[0] is not node or found[1] is not target:
        ops, ps = bind(target, node.args, {k.arg: k.value for k in node.keywords})
        fixed, rest = (ops[:-1], ops[-1]) if target.variadic else (ops, None)
        found = _BOUND[id(node)] = (node, target, fixed, rest, list(ps.items()))
    return found[1:]
