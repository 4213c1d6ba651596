"""Second order: ``--hvp`` and ``--hessian``, by differentiating the gradient tape once more.

The gradient tape of ``f`` (its forward and backward sweeps, as ``grad_NAME`` computes them) is
itself a program of primitives, each with a rule, so it can be differentiated again
(reverse-over-reverse): the tape of ``s(x, v) = sum(g(x) * v)``, with ``g`` the gradient of ``f``
with respect to the one ``--wrt`` parameter ``x`` and ``v`` a new input of ``x``'s shape, has the
gradient ``ds/dx = H.T @ v = H @ v`` (the Hessian is symmetric), which a second reverse sweep
computes without forming ``H``.  Where the gradient has loops or branches, its tangent in the
direction ``v`` is taken instead (forward over reverse, ``forward.gradient_tangent``): the
same ``H @ v``, each backward loop popping the tangents its forward loop pushed.  The value and
``g`` stay outputs, so one call returns all three::

    hvp_f(x, v)  ->  (f(x), dx, Hv)          # Hv = H @ v, of x's shape
    hess_f(x)    ->  (f(x), dx, H)           # H.shape == x.shape + x.shape

With several ``--wrt`` parameters, ``second_blocks`` writes the blocks of ``H`` (``Hv_A, Hv_B,
...``; ``H`` nested as ``jax.hessian(f, argnums=(0, 1))`` nests them).

``hess_NAME`` is the same tape with ``v`` left for the code generator to set to each unit vector in
turn (``Facts.seed``): the equations that do not read ``v`` (the value, the gradient, what the
second sweep needs of them) are written once, before the loop (``codegen.seeds``).

Every primitive the first sweep writes needs a rule for each operand the second sweep reaches
(``rules/helpers.py``: ``unbroadcast``, ``index_add``, ``matmul_dx``, ...); one marked
``not_implemented`` is refused, located, with the reason (YS017 as for a gradient); through loops,
a primitive whose tangent cannot be derived (YS107).

    >>> from yota_s2s.dsl.load import load_rules
    >>> from yota_s2s.ir.core import Param, Tape
    >>> from yota_s2s.ir.modes import HVP
    >>> t = Tape("f"); x = t.add_input("x"); t.params = [Param("x")]
    >>> t.outputs = [t.add_eqn("sum", [t.add_eqn("exp", [x])], {"axis": None, "keepdims": False})]
    >>> h = second_order(t, ["x"], load_rules(), HVP)
    >>> [p.name for p in h.params], len(h.outputs), h.facts.tangents
    (['x', 'v'], 3, ['v'])
"""

from __future__ import annotations

import dataclasses

from ..dsl.rule import RuleTable
from ..errors import UserError, at_span
from ..ir.core import Atom, Lit, Section, Tape, Var
from ..ir.modes import GRAD, HESSIAN, JACOBIAN, Mode
from .complex_types import again_table
from .differentiate import ROWS_WRITTEN, added_params, differentiate, refuse_objects
from .forward import gradient_tangent
from .optimize import optimize
from .second_blocks import read_inputs, several
from .sweep import BackwardBuilder

#: ``hess_NAME`` of a gradient built by its elements writes its rows out (a reverse sweep each,
#: sharing subexpressions: Python floats, the fastest form for a few parameters) while the equations
#: the elements read, counted once per row, are at most this many times the gradient's; beyond,
#: the batched sweep over the unit vectors, whose size is the gradient's sweep once.  Measured
#: (lines of hess_NAME / lines of grad_NAME): the 30-term polynomial of x[0..7] of bench_hessian
#: reads 1.13x (rows: 2.3x the lines), Rosenbrock of x[0..3] 0.86x (2.0x), katsura's energy of 4
#: unknowns 2.1x (rows: 3.8x; batched 2.6x), of 8 3.7x (rows 8.3x), of 16 6.7x (rows 12.3x).
ROWS_READ = 1.5


def second_order(tape: Tape, wrt: list[str], table: RuleTable, mode: Mode) -> Tape:
    """The tape of ``hvp_NAME`` (``mode`` ``HVP``) or ``hess_NAME`` (``HESSIAN``) of ``tape``
    with respect to the parameters ``wrt`` names (see the module docstring; several: ``second_blocks``)."""
    flag = mode.flag
    if not wrt:
        why = f"{flag} differentiates with respect to the parameters --wrt names, and {tape.name}() has none to differentiate"
        read = next((e for e in tape.eqns if e.span is not None), None)
        raise at_span("YS004", why, read.span if read is not None else None)
    refuse_objects(tape, wrt, "--hvp and --hessian")
    read_inputs(tape, wrt, mode)
    if len(wrt) > 1:  # the blocks of H (second_blocks)
        return several(tape, wrt, table, mode)
    grad = optimize(differentiate(tape, wrt, table, GRAD), table)  # (its unbroadcasts proven away first)
    loops = any(e.regions for e in grad.eqns)
    name = wrt[0]
    value, g = grad.outputs[0], grad.outputs[1]
    x = next((i.var for i in grad.inputs if i.path[0] == name), None)
    if mode.by_rows and not loops:
        elements = _gradient_elements(grad, x)
        if elements is not None and _reads_per_row(grad, elements) <= ROWS_READ * len(grad.eqns):
            written = _rows_written(tape, grad, elements, wrt, table)
            if written is not None:
                return written
    if loops and table.complex_values:
        first = next((e.span for e in grad.eqns if e.regions and e.span is not None), None)
        raise at_span(
            "YS022", f"{flag} of a function with complex values through loops or branches is not written", first
        )
    aux = Tape(tape.name, list(grad.inputs), list(grad.eqns), [], None, list(tape.params), tape.facts.copy())
    aux.facts.mode = GRAD
    taken = {p.name for p in tape.params} | {i.path[0] for i in grad.inputs}
    v_name = "v"
    while v_name in taken:
        v_name += "_"
    v = aux.add_input(v_name)
    if loops:  # forward over reverse: the gradient's tangent in the direction v
        try:
            second, hv = gradient_tangent(aux, x, v, g, table)
        except UserError as exc:
            why = f"{flag} takes the tangent of the gradient of {tape.name}(): {exc.message}"
            raise dataclasses.replace(exc, message=why) from None
        return _second_tape(second, tape, wrt, mode, grad, value, g, hv, x, v, v_name)
    if isinstance(g, Lit) and g.value is None:  # no differentiable path: f does not depend on x
        aux.outputs = [Lit(0.0)]
    else:
        aux.outputs = [aux.add_eqn("sum", [aux.add_eqn("mul", [g, v])], {"axis": None, "keepdims": False})]
    try:
        second = differentiate(aux, wrt, again_table(aux, table))
    except UserError as exc:
        why = f"{flag} differentiates the gradient of {tape.name}() again: {exc.message}"
        raise dataclasses.replace(exc, message=why) from None
    return _second_tape(second, tape, wrt, mode, grad, value, g, second.outputs[1], x, v, v_name)


def _second_tape(
    second: Tape,
    tape: Tape,
    wrt: list[str],
    mode: Mode,
    grad: Tape,
    value: Atom,
    g: Atom,
    hv: Atom,
    x: Var | None,
    v: Var,
    v_name: str,
) -> Tape:
    """The tape of ``hvp_NAME`` or ``hess_NAME`` from ``second``, whose equations compute the value,
    the gradient ``g`` and ``hv``, the product of the Hessian and ``v``."""
    builder = BackwardBuilder(second)
    if isinstance(g, Lit) and g.value is None:
        g = builder.add("grad_zeros", [x], {})
    if isinstance(hv, Lit) and hv.value is None:  # f linear in x (or no path): H is zero
        hv = builder.add("grad_zeros", [x], {})
    out = second.copy_header()
    out.eqns = second.eqns
    out.inputs = list(second.inputs)
    out.outputs = [value, g, hv]
    out.out_tree = [0, 1, 2]
    out.facts.mode = mode
    out.facts.wrt = list(wrt)
    # (hvp_NAME checks v's shape where it would check the value's: that check is always written)
    out.facts.check_scalar = grad.facts.check_scalar or (mode.products and isinstance(value, Var))
    if mode.products:
        out.params = added_params(tape.params, [v_name])
        out.facts.tangents = [v_name]
        out.facts.seed = None
    else:  # the seed: a local of the loop over the unit vectors
        out.params = list(tape.params)
        out.facts.seed = v_name
        out.facts.tangents = []
    same: dict[int, Atom] = {}
    if x is not None:
        same[v.id] = x
        for a in (g, hv):
            if isinstance(a, Var):
                same[a.id] = x
    out.facts.same_shape = same
    if isinstance(hv, Var):
        hv.hint = "Hv"
    if isinstance(g, Var) and g.hint is None:
        g.hint = "d" + wrt[0]
    return out


def _gradient_elements(grad: Tape, x: Var | None) -> list[Atom] | None:
    """The elements ``d0, d1, ..., d(m-1)`` of a gradient built by elements (``index_add`` at ``0``,
    ``1``, ... into ``grad_zeros(x)``, as the gradient of a function of ``x[0]``, ``x[1]``, ...
    is), every index once and at most ``ROWS_WRITTEN`` of them; None for any other gradient."""
    g = grad.outputs[1]
    defs = {e.out.id: e for e in grad.eqns if len(e.outs) == 1}
    found: dict[int, Atom] = {}
    while isinstance(g, Var) and g.id in defs and defs[g.id].prim == "index_add":
        eqn = defs[g.id]
        index = eqn.params.get("index", ())
        if len(eqn.args) != 2 or len(index) != 1 or type(index[0]) is not int or index[0] in found:
            return None
        found[index[0]] = eqn.args[1]
        g = eqn.args[0]
    zeros = defs.get(g.id) if isinstance(g, Var) else None
    if zeros is None or zeros.prim != "grad_zeros" or zeros.args[0] is not x or not found:
        return None
    if sorted(found) != list(range(len(found))) or len(found) > ROWS_WRITTEN:
        return None
    return [found[k] for k in range(len(found))]


def _reads_per_row(grad: Tape, elements: list[Atom]) -> int:
    """The equations of the gradient each of its ``elements`` reads (itself and those it reads, on
    to the inputs), summed over the elements: about the size of the rows' sweeps written out."""
    cones: dict[int, int] = {}  # value -> the set of equations it reads, as bits of their positions
    for i, eqn in enumerate(grad.eqns):
        bits = 1 << i
        for a in eqn.args:
            if isinstance(a, Var):
                bits |= cones.get(a.id, 0)
        for o in eqn.outs:
            cones[o.id] = bits
    return sum(cones.get(a.id, 0).bit_count() for a in elements if isinstance(a, Var))


def _rows_written(tape: Tape, grad: Tape, elements: list[Atom], wrt: list[str], table: RuleTable) -> Tape | None:
    """``hess_NAME`` of a gradient built by its ``m`` elements: the Jacobian of ``np.stack([d0, ...,
    d(m-1)])``, one reverse sweep per row written out (``--jacobian``'s rows), all of them sharing
    subexpressions with each other, the gradient and the value; ``Facts.rows`` is ``m`` (the
    generated code checks that ``x`` has the shape ``(m,)``).  None where the rows cannot be written
    out (an element proven an array): the loop over unit vectors then."""
    value, g = grad.outputs[0], grad.outputs[1]
    aux = Tape(tape.name, list(grad.inputs), list(grad.eqns), [], None, list(tape.params), tape.facts.copy())
    aux.facts.mode = JACOBIAN
    aux.outputs = [aux.add_eqn("stack", list(elements), {"axis": 0}, section=Section.BACKWARD)]
    try:
        second = differentiate(aux, wrt, again_table(aux, table), JACOBIAN)
    except UserError as exc:
        why = f"--hessian differentiates the gradient of {tape.name}() again: {exc.message}"
        raise dataclasses.replace(exc, message=why) from None
    if not second.facts.rows:  # (the rows were not written out: the loop over unit vectors instead)
        return None
    H = second.outputs[1]
    if isinstance(H, Lit) and H.value is None:  # no element depends on x
        return None
    out = second.copy_header()
    out.eqns = second.eqns
    out.params = list(tape.params)
    out.outputs = [value, g, H]
    out.out_tree = [0, 1, 2]
    out.facts.mode = HESSIAN
    out.facts.wrt = list(wrt)
    out.facts.seed = None
    out.facts.tangents = []
    out.facts.rows = len(elements)
    out.facts.check_scalar = grad.facts.check_scalar
    out.facts.same_shape = {}
    if isinstance(H, Var):
        H.hint = "H"
    return out
