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

import dataclasses

from ..dsl.rule import RuleTable
from ..errors import UserError, at_span
from ..ir.core import NO_DEFAULT, Atom, Eqn, Listed, Lit, Param, ParamKind, Tape, Var
from ..ir.modes import GRAD, JVP, VJP, Mode
from ..ir.primitives import primitive
from ..ir.regions import all_tapes, substitute
from ..ir.shapes import SCALAR, shape_classes
from .adjoint import forward_sweep
from .optimize import optimize
from .sweep import BackwardBuilder, activity, final_gradient, is_active, reverse_sweep
from .types import vector_value

#: The most elements of a value ``--jacobian`` writes one row each for (a reverse sweep seeded with
#: each element, all of them sharing subexpressions with each other and with the value); a
#: longer value, or one whose length is not known, is differentiated by a loop over its elements.
ROWS_WRITTEN = 64


def differentiate(tape: Tape, wrt: list[str], table: RuleTable, mode: Mode = GRAD) -> Tape:
    """The gradient tape of ``tape`` with respect to the parameters named in ``wrt``.

    ``mode`` (``ir.modes``): ``GRAD`` seeds the reverse sweep with 1.0 (the value is a scalar);
    ``VJP`` with a new input ``dout`` (a parameter of ``vjp_NAME``, the value's shape);
    ``JACOBIAN`` either once per element of a value made of ``ROWS_WRITTEN`` or fewer numbers
    (``np.array([e0, e1, ...])``: each gradient is then the stack of its rows), or like ``VJP``
    with ``dout`` left for the code generator to set to each unit vector in turn (``Facts.rows``)."""
    if mode.order != 1:  # (the pipeline calls second.second_order for them)
        raise ValueError(f"differentiate() writes first derivatives: {mode!r} is second.second_order's")
    if mode.forward:
        return transposed(tape, wrt, table)
    grad = tape.copy_header()
    grad.name = tape.name
    grad.facts.mode = mode
    wanted = set(wrt)
    passed: list[Eqn] = []
    active = activity(tape.eqns, {inp.var.id for inp in tape.inputs if _differentiated(inp, wanted)}, table, passed)
    refuse_passed(tape, passed)
    grad.eqns, plans = forward_sweep(tape.eqns, active, table)
    if mode.seeded:
        refuse_objects(tape, wrt)
    builder = BackwardBuilder(grad)
    value = tape.outputs[0]
    rows = _scalar_rows(tape, table) if mode.by_rows and not plans else None
    if rows is not None:
        forward = list(grad.eqns)
        per_row = []
        for element in rows:
            contributions: dict[int, list[Atom]] = {}
            if is_active(element, active):
                contributions[element.id] = [Lit(1.0)]
            reverse_sweep(forward, plans, active, contributions, builder, table)
            builder.span = None
            per_row.append(_gradients(tape, wrt, contributions, builder)[0])
        outputs = [value, *(_stacked([row[n] for row in per_row], tape, name, builder) for n, name in enumerate(wrt))]
        grad.outputs, grad.out_tree = outputs, list(range(len(outputs)))
        grad.facts.rows = len(rows)
        grad.facts.batch = _elementwise_rows(tape, rows, active, wrt)
    else:
        contributions = {}
        if mode.seeded:
            seed = _seed(grad, tape, mode)
            grad.facts.same_shape[seed.id] = value  # (the generated code checks it)
            if is_active(value, active):
                contributions[value.id] = [seed]
        elif is_active(value, active):
            contributions[value.id] = [Lit(1.0)]
        reverse_sweep(grad.eqns, plans, active, contributions, builder, table)
        builder.span = None
        grads, tree = _gradients(tape, wrt, contributions, builder)
        grad.outputs = [value, *grads]
        grad.out_tree = [0, *tree]
    grad.facts.wrt = list(wrt)
    if mode.assumes_scalar:
        # the gradient assumes a scalar value; where shapes cannot prove it, the output checks it
        proven = shape_classes(tape, table, scalar_keys=frozenset()).of(value) == SCALAR
        grad.facts.check_scalar = bool(isinstance(value, Var) and not proven)  # (active or not: f is scalar)
    else:  # dout's shape, the rows' count or the loop's length: read from the value (or a witness)
        grad.facts.check_scalar = isinstance(value, Var)
    return grad


def transposed(tape: Tape, wrt: list[str], table: RuleTable) -> Tape:
    """The Jacobian-vector products of ``tape`` (``--jvp``): the VJP, which is linear in ``dout``,
    transposed by differentiating it again, with respect to ``dout``, as the function
    ``s = sum(dA * A_dot) + sum(dB * B_dot) + ...`` of new inputs, the tangents ``A_dot``: its
    gradient is ``J_A @ A_dot + J_B @ B_dot + ...``, of the value's shape.  The VJP itself is
    left to dead-code elimination: only the second sweep is returned (it does not depend on
    ``dout``'s values; a read of its shape reads the value's).  Every primitive the first sweep
    writes needs a rule for its ``g`` (``YS107`` otherwise); loops and branches are refused."""
    vjp = optimize(differentiate(tape, wrt, table, VJP), table)  # (its unbroadcasts proven away first)
    control = next((e for e in vjp.eqns if e.regions), None)
    if control is not None:
        why = f"--jvp of {tape.name}(): loops and branches are not transposed yet (use --jacobian)"
        raise at_span("YS107", why, control.span)
    seed_name = vjp.facts.seed
    seed = next(i.var for i in vjp.inputs if i.path[0] == seed_name)
    value, grads = vjp.outputs[0], vjp.outputs[1:]
    aux = Tape(tape.name, list(vjp.inputs), list(vjp.eqns), [], None, list(tape.params), tape.facts.copy())
    aux.facts.mode = GRAD
    taken = {p.name for p in tape.params} | {i.path[0] for i in vjp.inputs}
    tangents = []
    for name in wrt:
        t = name + "_dot"
        while t in taken:
            t += "_"
        taken.add(t)
        tangents.append(aux.add_input(t))
    total: Atom = Lit(0.0)
    for g, t in zip(grads, tangents, strict=True):
        if isinstance(g, Lit) and g.value is None:
            continue
        part = aux.add_eqn("sum", [aux.add_eqn("mul", [g, t])], {"axis": None, "keepdims": False})
        total = part if isinstance(total, Lit) else aux.add_eqn("add", [total, part])
    aux.outputs = [total]
    try:
        second = differentiate(aux, [seed_name], table)
    except UserError as exc:
        why = f"--jvp transposes the VJP of {tape.name}() (use --jacobian): {exc.message}"
        raise dataclasses.replace(exc, message=why) from None
    dvalue = second.outputs[1]
    if isinstance(dvalue, Lit) and dvalue.value is None:  # no path: zeros of the value's shape
        dvalue = BackwardBuilder(second).add("grad_zeros", [value], {})
    jvp = second.copy_header()
    jvp.eqns = second.eqns
    substitute(jvp, {seed.id: value})  # (read for its shape only)
    jvp.inputs = [i for i in second.inputs if i.var is not seed]
    names = [i.path[0] for i in jvp.inputs if i.var in tangents]
    jvp.params = added_params(tape.params, names)
    jvp.outputs = [value, dvalue]
    jvp.out_tree = [0, 1]
    jvp.facts.mode = JVP
    jvp.facts.wrt = list(wrt)
    jvp.facts.seed = None
    jvp.facts.tangents = names
    jvp.facts.check_scalar = True  # each tangent has its parameter's shape
    # the first sweep's gradients and the tangents have their parameters' shapes (checked when it runs)
    same: dict[int, Atom] = {}
    for name, g, t in zip(wrt, grads, tangents, strict=True):
        x = next((i.var for i in tape.inputs if i.path[0] == name), None)
        if x is not None:
            same[t.id] = x
            if isinstance(g, Var):
                same[g.id] = x
    jvp.facts.same_shape = same
    if isinstance(dvalue, Var):
        dvalue.hint = "dvalue"
    return jvp


def _gradients(
    tape: Tape, wrt: list[str], contributions: dict[int, list[Atom]], builder: BackwardBuilder
) -> tuple[list[Atom], list[object]]:
    """The gradient of each parameter of ``wrt`` (an atom, ``None`` when no differentiable path
    reaches it, or for an object a dict of its attributes' gradients), and the out tree of each
    (indices from 1: the value is output 0)."""
    outputs: list[Atom] = []
    tree: list[object] = []
    by_param: dict[str, list] = {}
    for inp in tape.inputs:
        by_param.setdefault(inp.path[0], []).append(inp)
    object_params = set(tape.facts.object_params)
    for name in wrt:
        inputs = by_param.get(name, [])
        if name in object_params:
            node: dict = {}
            for inp in inputs:
                if not _differentiated(inp, wanted=(name,)):
                    continue  # (a dict parameter's keys, list(p.keys()): static)
                leaf = node
                for part in inp.path[1:-1]:
                    leaf = leaf.setdefault(part, {})
                leaf[inp.path[-1]] = len(outputs) + 1
                outputs.append(final_gradient(contributions, inp.var, builder))
            tree.append(node)
        elif inputs:
            tree.append(len(outputs) + 1)
            outputs.append(final_gradient(contributions, inputs[0].var, builder))
        else:
            tree.append(len(outputs) + 1)
            outputs.append(Lit(None))
    return outputs, tree


def _differentiated(inp, wanted) -> bool:
    """``inp`` is an input of a parameter of ``wanted``, and not the keys of a dict parameter read as
    an input tree (``Listed("keys")``: strings, static)."""
    return inp.path[0] in wanted and inp.path[-1] != Listed("keys")


def refuse_objects(tape: Tape, wrt: list[str], flag: str = "--vjp, --jvp and --jacobian") -> None:
    """``--vjp``, ``--jacobian`` (``flag``) differentiate with respect to arrays and numbers (YS004)."""
    objects = [w for w in wrt if w in tape.facts.object_params]
    if objects:
        why = (
            f"{flag} differentiate with respect to arrays and numbers, and {objects[0]!r} "
            f"is an object whose attributes {tape.name}() reads: select the arrays with --wrt"
        )
        read = next((e for e in tape.eqns if e.span is not None), None)
        raise at_span("YS004", why, read.span if read is not None else None)


def _seed(grad: Tape, tape: Tape, mode: Mode) -> Var:
    """The input ``dout`` (``dout_``, ... where a parameter has the name): a parameter of ``vjp_NAME``,
    last of the positional ones (keyword-only where one of them has a default); in ``jac_NAME`` a
    local, each unit vector in turn."""
    taken = {p.name for p in tape.params} | {inp.path[0] for inp in tape.inputs}
    name = "dout"
    while name in taken:
        name += "_"
    seed = grad.add_input(name)
    grad.facts.seed = name
    if mode.seed_param:
        grad.params = added_params(tape.params, [name])
    return seed


def added_params(params: list[Param], names: list[str]) -> list[Param]:
    """``params`` with a parameter per name of ``names`` after the positional ones, keyword-only
    where one of those has a default: ``vjp_NAME``'s ``dout``, ``jvp_NAME``'s tangents,
    ``hvp_NAME``'s seeds."""
    at = sum(1 for p in params if p.kind is not ParamKind.KEYWORD_ONLY)
    kind = ParamKind.KEYWORD_ONLY if any(p.default is not NO_DEFAULT for p in params[:at]) else ParamKind.POSITIONAL
    return [*params[:at], *(Param(n, kind) for n in names), *params[at:]]


def _scalar_rows(tape: Tape, table: RuleTable) -> list[Atom] | None:
    """The elements of a value written ``np.array([e0, e1, ...])`` or ``np.stack([...])`` along axis 0
    with at most ``ROWS_WRITTEN`` of them, none of them proven an array: the rows of its Jacobian
    (the generated code checks that they are numbers); None otherwise."""
    value = tape.outputs[0]
    if not isinstance(value, Var):
        return None
    eqn = next((e for e in tape.eqns if value in e.outs), None)
    if eqn is None or eqn.prim != "stack" or eqn.params.get("axis", 0) != 0 or not 0 < len(eqn.args) <= ROWS_WRITTEN:
        return None
    for a in eqn.args:
        if vector_value(Tape(tape.name, list(tape.inputs), tape.eqns, [a]), table) is not None:
            return None
    return list(eqn.args)


#: The primitives that compute each element of their result from the same element of their operands
#: (NumPy's ufuncs but matmul, and a few more): a value made of them from the rows ``x[k]`` of the
#: parameters has, for a batch of points, one Jacobian per point.
ELEMENTWISE = frozenset({"power", "where", "clip", "erf", "erfc", "expit", "logit", "sinc", "xlogy"})


def _elementwise_rows(tape: Tape, rows: list[Atom], active: set[int], wrt: list[str]) -> bool:
    """Whether every differentiated value the ``rows`` are computed from is an elementwise function
    (``ELEMENTWISE``, or a ufunc) of rows ``x[k]`` (one constant integer index) of ``wrt``
    parameters, which no equation reads whole: then with ``x`` of shape ``(n,) + S``, each element
    of the value has shape ``S``, and its row of the Jacobian, the gradient of its sum, holds the
    derivatives at each point, ``J[i, k, ...] = d value[i, ...] / d x[k, ...]``."""
    if any(len(i.path) > 1 for i in tape.inputs if i.path[0] in wrt):  # (a dict's arrays: no one batch)
        return False
    inputs = {i.var.id for i in tape.inputs if i.path[0] in wrt}
    defs = {o.id: e for e in tape.eqns for o in e.outs}
    todo = [a for a in rows if isinstance(a, Var)]
    seen: set[int] = set()
    while todo:
        v = todo.pop()
        if v.id in seen or not is_active(v, active):
            continue
        seen.add(v.id)
        eqn = defs.get(v.id)
        if eqn is None or eqn.regions:  # a parameter read whole, or a loop's value
            return False
        if eqn.prim == "getindex":
            index = eqn.params["index"]
            if not (
                len(eqn.args) == 1
                and isinstance(eqn.args[0], Var)
                and eqn.args[0].id in inputs
                and len(index) == 1
                and type(index[0]) is int
            ):
                return False
            continue
        prim = primitive(eqn.prim)
        if eqn.prim == "matmul" or not (prim.ufunc or eqn.prim in ELEMENTWISE):
            return False
        todo.extend(a for a in eqn.args if isinstance(a, Var))
    return True


def _stacked(rows: list[Atom], tape: Tape, name: str, builder: BackwardBuilder) -> Atom:
    """The Jacobian of parameter ``name`` from its rows: ``np.stack`` of them (zeros for a row no
    differentiable path reaches), None when none does."""
    if all(isinstance(r, Lit) and r.value is None for r in rows):
        return Lit(None)
    x = next(inp.var for inp in tape.inputs if inp.path[0] == name)
    parts = [builder.add("grad_zeros", [x], {}) if isinstance(r, Lit) and r.value is None else r for r in rows]
    jacobian = builder.add("stack", parts, {"axis": 0})
    if isinstance(jacobian, Var):
        jacobian.hint = f"J_{name}"
    return jacobian


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
