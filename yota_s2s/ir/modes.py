"""What a generated function computes: one record per mode (``grad_NAME``, ``vjp_NAME``, ...).

A mode is named once, where the user chooses it (``--vjp`` on the command line, ``mode = "vjp"``
in a ``[tool.yota-s2s]`` entry, ``mode="vjp"`` in the Python API), and turned into its record by
``mode_named`` where generation starts.  Every stage then reads what it needs of the record
(``Facts.mode``): the prefix of the written function, whether the sweep is seeded by an input,
whether the function stacks one derivative per unit seed, whether its value must be a number, what
it returns and how its docstring says so (``returned``, ``docstring``).  No stage compares a mode's name; adding a mode is a record
here and the transforms that compose it.

    >>> mode_named("jacobian").prefix, JACOBIAN.by_rows, JACOBIAN.scalar_value
    ('jac_', True, False)
    >>> [m.flag for m in MODES.values()]
    [None, '--vjp', '--jvp', '--jacobian', '--hvp', '--hessian', '--holomorphic']
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol


class Tape(Protocol):
    """What a mode reads of a tape (``ir.core.Tape``; named here, not imported: ``core`` imports this)."""

    name: str
    params: list
    facts: Any


@dataclass(frozen=True, eq=False)
class Mode:
    """One kind of generated function (compared by identity: there is one record per mode)."""

    #: The user's name for it: the config's ``mode`` and the Python API's ``mode=``.
    name: str
    #: The command-line flag that asks for it (None: the default, ``grad_NAME``).
    flag: str | None
    #: The prefix of the written function's name: ``grad_``, ``jac_``, ...
    prefix: str
    #: The order of the derivatives: 2 differentiates the gradient tape again (``transform.second``).
    order: int = 1
    #: The reverse sweep is seeded by an input (``dout``), not by 1.0: ``vjp_NAME``'s parameter, or a
    #: local of ``jac_NAME`` set to each unit vector in turn.
    seeded: bool = False
    #: That seed is a parameter of the written function (``vjp_NAME(..., dout)``).
    seed_param: bool = False
    #: Forward mode: a tangent parameter per ``--wrt`` parameter in, the value's tangent out.
    forward: bool = False
    #: One derivative per unit seed, stacked (``jac_NAME``'s rows, ``hess_NAME``'s rows): the seed
    #: is a local of a loop over them, or the leading axis of a batched sweep.
    by_rows: bool = False
    #: The value is a number (a gradient is of a scalar): shapes may assume it, and where they cannot
    #: prove it the written function checks it.
    scalar_value: bool = True
    #: Shape proofs of the derivative's tape may assume its first output, the value, is a number
    #: (``ir.shapes``; the written function checks it where they cannot prove it).  The second-order
    #: tapes assume nothing yet.
    assumes_scalar: bool = False
    #: Returns the products ``H @ v`` with seed parameters (``hvp_NAME``), not the matrix.
    products: bool = False
    #: Its sweeps may run on blocks of columns of the arguments (``codegen.columns``): no seed
    #: whose columns the blocks would need (a plain gradient).
    column_blocks: bool = False
    #: ``--buffers`` writes a class beside it that reuses its arrays across calls (``codegen.buffered``).
    buffered: bool = False
    #: The derivative of a holomorphic function (``--holomorphic``): ``grad_NAME`` of complex arguments.
    holomorphic: bool = False
    #: Of a function with complex values, the complex Jacobian ``d f_i / d z_j`` of a holomorphic
    #: function (its ``--wrt`` parameters complex, no conjugation): ``--jacobian`` and ``--jvp``.
    complex_jacobian: bool = False
    #: How the docstring names a returned derivative of parameter ``w``: ``dw``, ``J_w``.
    derivative_prefix: str = "d"
    #: The docstring's text after ``Return (...): ``, given the tape and its call ``f(x, y)``.
    describe: Callable[[Tape, str], str] | None = None

    @property
    def value_rows(self) -> bool:
        """The rows are the value's elements (``jac_NAME``: a reverse sweep per element of the value),
        not the gradient's (``hess_NAME``)."""
        return self.by_rows and self.order == 1

    def __repr__(self) -> str:
        return f"Mode({self.name!r})"


def returned(tape: Tape) -> str:
    """What the written function returns, as its docstring says it: ``(f(x, y), dx, dy)``, or the
    derivatives alone without the value (``(dx,)``); ``J_x`` for a Jacobian, ``Hv``/``H`` after the
    gradients at second order, ``dvalue`` in forward mode."""
    facts, mode = tape.facts, tape.facts.mode
    params = _call_params(tape)
    if mode.forward:
        return f"({tape.name}({params}), dvalue)" if facts.value else "(dvalue,)"
    grads = ", ".join(f"{mode.derivative_prefix}{w}" for w in facts.wrt)
    if mode.order == 2:
        several = len(facts.wrt) > 1  # (second_blocks: Hv_A, Hv_B, ...; H the nested blocks)
        products = ", ".join(f"Hv_{w}" for w in facts.wrt) if several else "Hv"
        grads += ", " + products if mode.products else ", H"
        return f"({tape.name}({params}), {grads})" if facts.value else f"({grads})"
    if not facts.value:
        return f"({grads}{',' if len(facts.wrt) == 1 else ''})"
    return f"({tape.name}({params}), {grads})"


def docstring(tape: Tape) -> str:
    """The docstring of the written function: ``Return (...): ...``, in triple quotes."""
    return f'"""Return {returned(tape)}: {tape.facts.mode.describe(tape, f"{tape.name}({_call_params(tape)})")}"""'


def _call_params(tape: Tape) -> str:
    """The parameters of the differentiated function (without the seeds and tangents added)."""
    facts = tape.facts
    return ", ".join(p.name for p in tape.params if p.name != facts.seed and p.name not in facts.tangents)


def _gradients(tape: Tape, value: str) -> str:
    return f"the gradients of {value}." if not tape.facts.value else "the value and its gradients."


def _vjp(tape: Tape, value: str) -> str:
    what = f"dout (the shape of {value}) times its Jacobians"
    return f"{what}." if not tape.facts.value else f"the value and {what}."


def _jvp(tape: Tape, value: str) -> str:
    facts = tape.facts
    products = " + ".join(f"J_{w} @ {t}" for w, t in zip(facts.wrt, facts.tangents, strict=True))
    if not facts.value:
        return f"dvalue = {products}, the Jacobians of {value} times the tangents."
    return f"the value and dvalue = {products}, its Jacobians times the tangents."


def _jacobian(tape: Tape, value: str) -> str:
    facts = tape.facts
    w = facts.wrt[0] if facts.wrt else "x"
    # rows elementwise in w[0], w[1], ...: a batch of points, a Jacobian per point (Facts.batch)
    batch = f" For a batch of points ({w}[0] an array), J_{w}[i, k] is d value[i] / d {w}[k] at each." * facts.batch
    if not facts.value:
        return f"the Jacobians of {value} (J_{w}.shape == np.shape({tape.name}(...)) + np.shape({w})).{batch}"
    return f"the value and its Jacobians (J_{w}.shape == np.shape(value) + np.shape({w})).{batch}"


def _second(tape: Tape, value: str) -> str:
    facts, mode = tape.facts, tape.facts.mode
    wrt = facts.wrt
    if len(wrt) > 1 and mode.products:  # the blocks of several parameters (transform.second_blocks)
        sums = [" + ".join(f"H_{a}_{b} @ {t}" for b, t in zip(wrt, facts.tangents, strict=True)) for a in wrt]
        what = "; ".join(f"Hv_{a} = {s}" for a, s in zip(wrt, sums, strict=True))
        what = f"times ({', '.join(facts.tangents)}) by blocks: {what}"
        what = f"the gradients and the Hessian H of {value} with respect to ({', '.join(wrt)}), {what}"
    elif len(wrt) > 1:
        rows = ", ".join("(" + ", ".join(f"H_{a}_{b}" for b in wrt) + ")" for a in wrt)
        a, b = wrt[0], wrt[1]
        what = f"by blocks: H = ({rows}), H_{a}_{b}.shape == np.shape({a}) + np.shape({b})"
        what = f"the gradients and the Hessian H of {value} with respect to ({', '.join(wrt)}), {what}"
    else:
        w = wrt[0]
        what = f"Hv = H @ {facts.tangents[0]}" if mode.products else f"H.shape == np.shape({w}) + np.shape({w})"
        what = f"the gradient and the Hessian H of {value} with respect to {w} ({what})"
    return f"{'the value, ' if facts.value else ''}{what}."


GRAD = Mode("grad", None, "grad_", assumes_scalar=True, column_blocks=True, buffered=True, describe=_gradients)
VJP = Mode("vjp", "--vjp", "vjp_", seeded=True, seed_param=True, scalar_value=False, describe=_vjp)
JVP = Mode("jvp", "--jvp", "jvp_", forward=True, scalar_value=False, complex_jacobian=True, describe=_jvp)
JACOBIAN = Mode(
    "jacobian",
    "--jacobian",
    "jac_",
    seeded=True,
    by_rows=True,
    scalar_value=False,
    complex_jacobian=True,
    derivative_prefix="J_",
    describe=_jacobian,
)
HVP = Mode("hvp", "--hvp", "hvp_", order=2, products=True, describe=_second)
HESSIAN = Mode("hessian", "--hessian", "hess_", order=2, by_rows=True, describe=_second)
HOLOMORPHIC = Mode(
    "holomorphic",
    "--holomorphic",
    "grad_",
    assumes_scalar=True,
    column_blocks=True,
    holomorphic=True,
    describe=_gradients,
)

#: Every mode by its user's name, in the order the command line lists their flags.
MODES: dict[str, Mode] = {m.name: m for m in (GRAD, VJP, JVP, JACOBIAN, HVP, HESSIAN, HOLOMORPHIC)}


@dataclass(frozen=True, eq=False)
class Form:
    """Which algorithms a generated function may hold (``--form``), where its shapes leave a choice
    that only the call can make: ``auto`` keeps each choice as one commented branch chosen when it
    runs; the others commit one algorithm and keep no branch (compared by identity)."""

    #: The user's name for it (``--form NAME``, the config's ``form``, the Python API's ``form=``).
    name: str
    #: The run-time choices that are not an algorithm of their own: ``grad_NAME``'s column guard
    #: (large arrays in place, by blocks of columns) and ``jac_NAME``'s branch for a batch of points.
    choices: bool = False
    #: Reverse sweeps batched over the rows: ``jac_NAME`` = batch(VJP), ``hess_NAME`` = batch(HVP).
    rows: bool = False
    #: ``jac_NAME`` by forward sweeps batched over the columns: batch(JVP).
    columns: bool = False
    #: ``hess_NAME`` by its diagonals, where the sweep keeps them.
    band: bool = False
    #: What the form is for, in the words of its errors and its docs.
    describe: str = ""
    #: The name of the one mode it is a form of (None: any mode).
    of_mode: str | None = None


AUTO = Form("auto", choices=True, rows=True, columns=True, band=True, describe="each choice chosen when it runs")
ROWS = Form("rows", rows=True, describe="reverse sweeps batched over the rows, no branch")
COLUMNS = Form("columns", columns=True, describe="jac_NAME by forward columns", of_mode="jacobian")
BAND = Form("band", band=True, describe="hess_NAME by its diagonals", of_mode="hessian")
#: Every form by its user's name.
FORMS: dict[str, Form] = {f.name: f for f in (AUTO, ROWS, COLUMNS, BAND)}


def form_named(name: str | Form) -> Form:
    """The record of the form the user named (a record is returned as it is)."""
    if isinstance(name, Form):
        return name
    try:
        return FORMS[name]
    except KeyError:
        raise ValueError(f"unknown form {name!r} (the forms are {', '.join(FORMS)})") from None


def mode_named(name: str | Mode) -> Mode:
    """The record of the mode the user named (a record is returned as it is)."""
    if isinstance(name, Mode):
        return name
    try:
        return MODES[name]
    except KeyError:
        raise ValueError(f"unknown mode {name!r} (the modes are {', '.join(MODES)})") from None
