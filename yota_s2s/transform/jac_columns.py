"""Forward columns for ``jac_NAME``: the JVP tape (``differentiate.transposed``) joined to the
tape of reverse rows, so that the generated function computes the Jacobians either way.

A Jacobian of ``m`` rows and ``N`` columns (``N`` the sizes of the ``--wrt`` parameters together)
costs ``m`` reverse sweeps by rows, ``N`` forward sweeps by columns.  Where the shapes do not tell
``m`` and ``N`` when the code is generated (they seldom do: a parameter's size is known only when
the function runs), ``jac_NAME`` has both and chooses when it runs: columns where ``np.size(value)
> N``.  ``with_columns`` returns the rows tape with the JVP's equations after its own, its
tangents as inputs (``Facts.columns``), and the JVP (``J_A @ A_dot + J_B @ B_dot + ...``) as its
last output; the equations of the value they both compute become one when the pipeline optimizes
the tape (value numbering).  The code generator seeds the tangents with unit vectors
(``codegen.forward_cols``).

The rows tape is returned unchanged where columns cannot be written or would not pay:

- the rows are written out (``Facts.rows``: a few numbers, one straight-line sweep each);
- the function has a loop or a branch, or a primitive of its VJP has no rule for its gradient
  operand (``transposed`` refuses it, YS107): reverse rows only;
- the value is proven a number (one row), or of the shape of a ``--wrt`` parameter (a square
  Jacobian at least as wide as it is tall, ``f(x) = x * x - np.roll(x, 1)``: the rows);
- the JVP has more than ``COLUMNS_TEXT`` equations (both forms would make a long function).

    >>> from yota_s2s.dsl.load import load_rules
    >>> from yota_s2s.ir.core import Param, Tape
    >>> from yota_s2s.ir.modes import JACOBIAN
    >>> from yota_s2s.transform.differentiate import differentiate
    >>> t = Tape("f"); x = t.add_input("x"); y = t.add_input("y"); t.params = [Param("x"), Param("y")]
    >>> t.outputs = [t.add_eqn("mul", [t.add_eqn("exp", [x]), y])]
    >>> table = load_rules()
    >>> both = with_columns(differentiate(t, ["x"], table, JACOBIAN), t, ["x"], table)
    >>> both.facts.columns, len(both.outputs)  # (the value, J_x's rows, the JVP)
    (['x_dot'], 3)
    >>> t.outputs = [t.add_eqn("exp", [x])]  # of the shape of x: m <= N, the rows alone
    >>> with_columns(differentiate(t, ["x"], table, JACOBIAN), t, ["x"], table).facts.columns
    []
"""

from __future__ import annotations

from ..dsl.rule import RuleTable
from ..errors import UserError
from ..ir.core import Tape, Var
from ..ir.shapes import SCALAR, shape_classes
from .differentiate import transposed

#: The most equations of the JVP that ``jac_NAME`` writes next to its rows (the two forms in one
#: function, one chosen when it runs); a longer one keeps the rows alone.
COLUMNS_TEXT = 400


def with_columns(rows: Tape, tape: Tape, wrt: list[str], table: RuleTable, forced: bool = False) -> Tape:
    """The tape of ``jac_NAME`` by rows (``rows``, from ``differentiate(tape, wrt, table,
    JACOBIAN)``) with the forward columns of ``tape`` joined to it (see the module docstring),
    or ``rows`` itself where they cannot be written or would not pay; ``forced`` (``--form
    columns``, the columns alone): wherever they can be written."""
    if rows.facts.rows or rows.facts.holomorphic or any(e.regions for e in rows.eqns):
        return rows
    grads = rows.outputs[1 : 1 + len(wrt)]
    if all(getattr(g, "value", 0) is None for g in grads):  # (no differentiable path: no sweep at all)
        return rows
    value = rows.outputs[0]
    classes = shape_classes(tape, table, scalar_keys=frozenset())
    if not isinstance(value, Var):
        return rows
    wrt_inputs = [i.var for i in tape.inputs if i.path[0] in wrt]
    if not forced and (classes.of(value) == SCALAR or any(classes.of(x) == classes.of(value) for x in wrt_inputs)):
        return rows  # (one row, or m <= N proven: the rows)
    try:
        jvp = transposed(tape, wrt, table)
    except UserError:  # (YS107: loops, branches, a primitive without a rule for its g)
        return rows
    if len(jvp.eqns) > COLUMNS_TEXT and not forced:
        return rows
    both = rows.copy_header()
    made = {o.id for e in rows.eqns for o in e.outs} | {i.var.id for i in rows.inputs}
    both.eqns = list(rows.eqns) + [e for e in jvp.eqns if not any(o.id in made for o in e.outs)]
    tangents = [i for i in jvp.inputs if i.path[0] in jvp.facts.tangents]
    both.inputs = list(rows.inputs) + tangents
    same = {**rows.facts.same_shape, **jvp.facts.same_shape}
    both.outputs = [*rows.outputs, jvp.outputs[1]]
    both.facts.same_shape = same
    both.facts.columns = list(jvp.facts.tangents)
    return both
