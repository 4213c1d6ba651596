"""Second order with respect to several parameters: ``hvp_NAME`` and ``hess_NAME`` of ``(A, B, ...)``.

With the gradients ``dA, dB, ...`` of ``f`` (the tape ``grad``, as ``grad_NAME`` computes it) and
seeds ``v_A, v_B, ...`` of the parameters' shapes, the gradient of ``s = sum(dA * v_A) + sum(dB *
v_B) + ...`` with respect to each parameter is its part of ``H @ v``: ``Hv_A = H_AA v_A + H_AB v_B
+ ...`` (``H_AB[i..., j...] = d2f / dA[i...] dB[j...]``, the blocks of the Hessian, which is
symmetric: ``H_BA`` is ``H_AB`` with its axes swapped).  One second reverse sweep gives them all::

    hvp_f(A, B, v_A, v_B)  ->  (f(A, B), dA, dB, Hv_A, Hv_B)

``hess_NAME`` writes one second sweep per parameter ``P``, of ``s_P = sum(dP * v_P)`` alone: with
``v_P`` each unit vector of ``P`` in turn (the seed is a local of its loop: ``Facts.seeds``), its
gradient with respect to ``Q`` is a row of ``H_PQ``, so the sweep of ``P`` fills the block row
``(H_PA, H_PB, ...)``.  The blocks nest as JAX's ``hessian(f, argnums=(0, 1))`` nests them::

    hess_f(A, B)  ->  (f(A, B), dA, dB, ((H_AA, H_AB), (H_BA, H_BB)))    # H_AB.shape == A.shape + B.shape

The sweeps share the forward sweep and the gradient (the equations of ``grad``); each sweep's
own equations read its seed only (the code generator tells them apart by the seed they read).

    >>> from yota_s2s.dsl.load import load_rules
    >>> from yota_s2s.ir.core import Param, Tape
    >>> from yota_s2s.ir.modes import HESSIAN
    >>> t = Tape("f"); a = t.add_input("a"); b = t.add_input("b"); t.params = [Param("a"), Param("b")]
    >>> t.outputs = [t.add_eqn("sum", [t.add_eqn("mul", [t.add_eqn("exp", [a]), b])], {"axis": None, "keepdims": False})]
    >>> h = several(t, ["a", "b"], load_rules(), HESSIAN)
    >>> h.facts.seeds, len(h.outputs), h.out_tree
    (['v_a', 'v_b'], 7, [0, 1, 2, [[3, 4], [5, 6]]])
"""

from __future__ import annotations

import dataclasses

from ..dsl.rule import RuleTable
from ..errors import UserError, at_span
from ..ir.core import Atom, Lit, Tape, Var
from ..ir.modes import GRAD, HESSIAN, HVP, Mode
from .complex_types import again_table
from .differentiate import added_params, differentiate
from .forward import gradient_tangents
from .optimize import optimize
from .sweep import BackwardBuilder


def several(tape: Tape, wrt: list[str], table: RuleTable, mode: Mode) -> Tape:
    """The tape of ``hvp_NAME`` (``mode`` ``HVP``) or ``hess_NAME`` (``HESSIAN``) of ``tape`` with
    respect to the parameters ``wrt`` (two or more, arrays or numbers): see the module docstring."""
    grad = optimize(differentiate(tape, wrt, table, GRAD), table)  # (its unbroadcasts proven away first)
    loops = any(e.regions for e in grad.eqns)
    xs = read_inputs(tape, wrt, mode)
    taken = {p.name for p in tape.params} | {i.path[0] for i in grad.inputs}
    names = []
    for w in wrt:
        name = "v_" + w
        while name in taken:
            name += "_"
        taken.add(name)
        names.append(name)
    if loops:  # forward over reverse, one sweep for all the parameters' tangents
        out, seeds, grads = _tangents(tape, grad, wrt, names, table, xs, mode)
    elif mode.products:
        out, seeds, grads = _products(tape, grad, wrt, names, table, xs)
    else:
        out, seeds, grads = _block_rows(tape, grad, wrt, names, table, xs)
    out.facts.mode = mode
    out.facts.wrt = list(wrt)
    out.facts.check_scalar = grad.facts.check_scalar or (mode.products and isinstance(out.outputs[0], Var))
    same: dict[int, Atom] = {}
    for w, x, v, g in zip(wrt, xs, seeds, grads, strict=True):
        same[v.id] = x
        if isinstance(g, Var):
            same[g.id] = x
            if g.hint is None:
                g.hint = "d" + w
    n = len(wrt)
    for k, h in enumerate(out.outputs[1 + n :]):  # Hv_Q (hvp), or a row of H_PQ (hessian): Q's shape
        if isinstance(h, Var):
            same[h.id] = xs[k % n]
    out.facts.same_shape = same
    return out


def read_inputs(tape: Tape, wrt: list[str], mode: Mode) -> list[Var]:
    """The input of each parameter of ``wrt`` (arrays and numbers): one the function does not read has
    no shape to give its ``Hv`` and its blocks of ``H`` (``YS004``)."""
    xs = []
    for w in wrt:
        x = next((i.var for i in tape.inputs if i.path == (w,)), None)
        if x is None:
            why = f"{mode.flag} of {tape.name}() with respect to {w}: {tape.name}() does not read {w} (leave it out of --wrt)"
            read = next((e for e in tape.eqns if e.span is not None), None)
            raise at_span("YS004", why, read.span if read is not None else None)
        xs.append(x)
    return xs


def _aux(tape: Tape, grad: Tape) -> Tape:
    """A tape of ``grad``'s equations, to which the seeds and the pairing are added."""
    aux = Tape(tape.name, list(grad.inputs), list(grad.eqns), [], None, list(tape.params), tape.facts.copy())
    aux.facts.mode = GRAD
    return aux


def _pairing(aux: Tape, grads: list[Atom], seeds: list[Var]) -> Atom:
    """``sum(dA * v_A) + sum(dB * v_B) + ...`` (the gradients that are None left out)."""
    total: Atom = Lit(0.0)
    for g, v in zip(grads, seeds, strict=True):
        if isinstance(g, Lit) and g.value is None:
            continue
        part = aux.add_eqn("sum", [aux.add_eqn("mul", [g, v])], {"axis": None, "keepdims": False})
        total = part if isinstance(total, Lit) else aux.add_eqn("add", [total, part])
    return total


def _again(aux: Tape, wrt: list[str], table: RuleTable, mode: Mode) -> Tape:
    try:
        return differentiate(aux, wrt, again_table(aux, table))
    except UserError as exc:
        why = f"{mode.flag} differentiates the gradient of {aux.name}() again: {exc.message}"
        raise dataclasses.replace(exc, message=why) from None


def _or_zeros(builder: BackwardBuilder, a: Atom, x: Var, hint: str | None = None) -> Atom:
    """``a`` (named ``hint``), or zeros of ``x``'s shape where it is None (no differentiable path)."""
    if isinstance(a, Lit) and a.value is None:
        return builder.add("grad_zeros", [x], {})
    if isinstance(a, Var) and hint is not None:
        a.hint = hint
    return a


def _products(
    tape: Tape, grad: Tape, wrt: list[str], names: list[str], table: RuleTable, xs: list[Var]
) -> tuple[Tape, list[Var], list[Atom]]:
    """``hvp_NAME``: one second sweep, of ``s = sum(dA * v_A) + sum(dB * v_B) + ...``."""
    value, grads = grad.outputs[0], list(grad.outputs[1:])
    aux = _aux(tape, grad)
    seeds = [aux.add_input(n) for n in names]
    aux.outputs = [_pairing(aux, grads, seeds)]
    second = _again(aux, wrt, table, HVP)
    builder = BackwardBuilder(second)
    grads = [_or_zeros(builder, g, x) for g, x in zip(grads, xs, strict=True)]
    products = [_or_zeros(builder, h, x, "Hv_" + w) for h, x, w in zip(second.outputs[1:], xs, wrt, strict=True)]
    out = second.copy_header()
    out.eqns = second.eqns
    out.inputs = list(second.inputs)
    return _returned(out, tape, HVP, [value, *grads, *products], names), seeds, grads


def _tangents(
    tape: Tape, grad: Tape, wrt: list[str], names: list[str], table: RuleTable, xs: list[Var], mode: Mode
) -> tuple[Tape, list[Var], list[Atom]]:
    """Through loops and branches: the tangent of each gradient ``dQ`` in the direction ``(v_A, v_B,
    ...)``, ``Hv_Q = H_QA @ v_A + H_QB @ v_B + ...`` (forward over reverse, as for one parameter).
    ``hess_NAME``'s block row ``P`` is that sweep with ``v_P`` each unit vector of ``P`` and the
    other seeds zeros: every block row reads the same ``Hv_A, Hv_B, ...`` (``codegen.second``)."""
    value, grads = grad.outputs[0], list(grad.outputs[1:])
    aux = _aux(tape, grad)
    seeds = [aux.add_input(n) for n in names]
    try:
        second, tangents = gradient_tangents(aux, {x.id: v for x, v in zip(xs, seeds, strict=True)}, grads, table)
    except UserError as exc:
        why = f"{mode.flag} takes the tangent of the gradient of {tape.name}(): {exc.message}"
        raise dataclasses.replace(exc, message=why) from None
    builder = BackwardBuilder(second)
    grads = [_or_zeros(builder, g, x) for g, x in zip(grads, xs, strict=True)]
    products = [_or_zeros(builder, h, x, "Hv_" + w) for h, x, w in zip(tangents, xs, wrt, strict=True)]
    out = second.copy_header()
    out.eqns = second.eqns
    out.inputs = list(second.inputs)
    every = products if mode.products else products * len(wrt)  # (each block row reads the same tangents)
    return _returned(out, tape, mode, [value, *grads, *every], names), seeds, grads


def _block_rows(
    tape: Tape, grad: Tape, wrt: list[str], names: list[str], table: RuleTable, xs: list[Var]
) -> tuple[Tape, list[Var], list[Atom]]:
    """``hess_NAME``: one second sweep per parameter ``P``, of ``sum(dP * v_P)``, whose gradients
    are the rows of the block row ``(H_PA, H_PB, ...)``, appended to ``grad``'s equations."""
    value, grads = grad.outputs[0], list(grad.outputs[1:])
    eqns = list(grad.eqns)
    inputs = list(grad.inputs)
    seeds: list[Var] = []
    rows: list[Atom] = []
    for name, g in zip(names, grads, strict=True):
        aux = _aux(tape, grad)
        seed = aux.add_input(name)
        aux.outputs = [_pairing(aux, [g], [seed])]
        second = _again(aux, wrt, table, HESSIAN)
        builder = BackwardBuilder(second)
        rows += [_or_zeros(builder, h, x, "Hv_" + w) for h, x, w in zip(second.outputs[1:], xs, wrt, strict=True)]
        shared = second.eqns[: len(grad.eqns)]
        if len(shared) != len(grad.eqns) or any(a is not b for a, b in zip(shared, grad.eqns, strict=True)):
            raise AssertionError("the second sweep of a block row does not extend the gradient's equations")
        eqns += second.eqns[len(grad.eqns) :]
        inputs.append(second.inputs[-1])
        seeds.append(seed)
    out = grad.copy_header()
    out.inputs = inputs
    out.eqns = eqns
    builder = BackwardBuilder(out)
    grads = [_or_zeros(builder, g, x) for g, x in zip(grads, xs, strict=True)]
    return _returned(out, tape, HESSIAN, [value, *grads, *rows], names), seeds, grads


def _returned(out: Tape, tape: Tape, mode: Mode, outputs: list[Atom], names: list[str]) -> Tape:
    """``out`` returning ``outputs``: ``hvp_NAME``'s ``(value, dA, dB, ..., Hv_A, Hv_B, ...)``, its
    seeds ``names`` parameters; ``hess_NAME``'s ``(value, dA, dB, ..., ((H_AA, H_AB), ...))``, the
    blocks nested, its seeds ``names`` the locals of its loops over unit vectors."""
    out.outputs = outputs
    if mode.products:
        out.out_tree = list(range(len(outputs)))
        out.params = added_params(tape.params, names)
        out.facts.tangents = list(names)
        out.facts.seed = None
        return out
    n = len(names)
    out.out_tree = [*range(1 + n), [[1 + n + p * n + q for q in range(n)] for p in range(n)]]
    out.params = list(tape.params)
    out.facts.seed = names[0]
    out.facts.seeds = list(names)
    out.facts.tangents = []
    return out
