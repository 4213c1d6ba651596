"""Complex values of one function: its rule table for them, its refusals, and run-time checks.

``complex_types`` reads which values of a function may be complex (``complexes.complex_values``)
from its complex literals and its parameters declared complex, refuses what a gradient cannot
be of (a complex value of the function in ``grad`` mode; complex values in ``--hvp``, ``--hessian``:
YS022), and returns the rule table its adjoints use (``complexes.complex_table``).
``complex_seeds`` lets ``vjp_NAME``'s ``dout`` and ``jvp_NAME``'s tangents be complex where
they may be; ``guard_passed_values`` checks, when the generated code runs, the values of code passed through
whose dtype the tool cannot know (docs/complex.md).
"""

from __future__ import annotations

import ast

from ..dsl.rule import RuleTable
from ..errors import at_span
from ..ir.core import Atom, Eqn, Tape, Var
from ..ir.modes import Mode
from ..ir.regions import LEADING, all_tapes
from .complexes import complex_table, complex_values, is_complex, value_args
from .sweep import activity


def complex_types(tape: Tape, declared: list[str], wrt: list[str], table: RuleTable, mode: Mode) -> RuleTable:
    """The rule table ``tape`` (a function of parameters ``declared`` complex) is differentiated
    with (``complex_table``); records the declared parameters in its facts.  Refuses (YS022) a value
    that may be complex in ``grad`` mode (a gradient is of a real value) and complex values in the
    modes that do not differentiate them (``--hvp``, ``--hessian``).  ``--jacobian`` and ``--jvp`` of a
    function with complex values are holomorphic (its wrt parameters complex, no conjugation, the
    non-holomorphic primitives refused: ``Facts.holomorphic``), as ``--holomorphic`` is; ``--vjp``
    keeps the gradient's convention (``J^H @ dout`` for a holomorphic function)."""
    found = complex_values(tape, {i.var.id for i in tape.inputs if i.path[0] in declared})
    # --jacobian of complex values: the complex Jacobian J[i, j] = d f_i / d z_j, which exists for a
    # holomorphic f only (the others are refused, YS023): the holomorphic rules on its rows
    # --jvp of complex values: J @ t with the same complex J (the transposed VJP of the holomorphic rules)
    holomorphic = mode.holomorphic or (mode.complex_jacobian and bool(found))
    if holomorphic:  # the derivative with respect to a complex variable
        declared = declared + [w for w in wrt if w not in declared]
        found = complex_values(tape, {i.var.id for i in tape.inputs if i.path[0] in declared})
    tape.facts.complex_params = frozenset(declared)
    tape.facts.holomorphic = holomorphic
    value = tape.outputs[0] if tape.outputs else None
    where = _defining_span(tape, value)
    complex_wrt = [w for w in wrt if w in declared]
    if found and mode.order == 2 and complex_wrt:  # (the Hessian of a real f of real variables only)
        first = next((e for e in tape.eqns if any(o.id in found for o in e.outs)), None)
        why = (
            f"{mode.flag} of a complex parameter ({complex_wrt[0]}) is not written: the second derivatives are taken "
            f"with respect to real parameters (pass the real and imaginary parts as two real arrays)"
        )
        raise at_span("YS022", why, first.span if first is not None else where)
    if mode.scalar_value and not mode.holomorphic and value is not None and is_complex(value, found):
        message = (
            f"the value of {tape.name}() may be complex: a gradient is taken of a real value (return "
            f"np.abs(v) ** 2 or np.real(v)); --holomorphic gives the derivative of a holomorphic function"
        )
        raise at_span("YS022", message, where)
    guard_passed_values(tape, {i.var.id for i in tape.inputs if i.path[0] in wrt}, found, table)
    return complex_table(table, found, mode if holomorphic else None)


def again_table(aux: Tape, table: RuleTable) -> RuleTable:
    """The rule table that differentiates the gradient tape ``aux`` again: where the function has
    complex values, those of ``aux`` (its cotangents of complex values are complex too) read from
    its complex literals and its parameters declared complex."""
    if not table.complex_values:
        return table
    declared = {i.var.id for i in aux.inputs if i.path[0] in aux.facts.complex_params}
    return complex_table(table, complex_values(aux, declared))


def complex_seeds(tape: Tape, table: RuleTable) -> Tape:
    """``tape`` (a differentiated one) with ``vjp_NAME``'s ``dout``, where the value may be complex, and
    ``jvp_NAME``'s tangents of a complex derivative (``Facts.holomorphic``) among the parameters that
    may be complex: the generated function does not check them real (docs/complex.md)."""
    facts = tape.facts
    if facts.mode.seed_param and facts.seed and tape.outputs and is_complex(tape.outputs[0], table.complex_values):
        facts.complex_params = facts.complex_params | {facts.seed}
    elif facts.mode.forward and facts.holomorphic:
        facts.complex_params = facts.complex_params | set(facts.tangents)
    return tape


def guard_passed_values(tape: Tape, wrt: set[int], found: frozenset[int], table: RuleTable) -> None:
    """Insert ``real_value`` after each value of code passed through (``static``: ``np.load(...)``,
    a call of a library without rules) that a differentiated equation reads as a value, unless it
    is surely real (``_may_be_complex``): its dtype is unknown to the tool, and a complex one would
    make the real rules wrong.  ``real_value``
    raises TypeError when it runs on a complex value (``_real_value``).  (In a loop or a branch,
    after each such value read as a value.)"""
    act = activity(tape.eqns, wrt, table)
    _guard(tape, lambda eqn: any(o.id in act for o in eqn.outs), found)
    for eqn in tape.eqns:
        for region in eqn.regions:
            for inner in all_tapes(region):
                _guard(inner, lambda e: True, found)


#: Library functions whose values are real for real operands (a static's operands that may be
#: complex make it complex: ``complex_values``): NumPy's constructors and casts, ``math``, builtins.
REAL_FOR_REAL = frozenset(
    "numpy." + n
    for n in (
        "zeros", "ones", "full", "empty", "eye", "identity", "arange", "linspace", "logspace", "geomspace",
        "array", "asarray", "float64", "float32", "float16", "int64", "int32", "int8", "int16", "uint8",
        "bool_", "double", "single", "shape", "size", "ndim", "zeros_like", "ones_like", "full_like",
    )
)  # fmt: skip


def _may_be_complex(eqn: Eqn) -> bool:
    """A ``static`` whose value may be complex for real operands: it calls a library function not
    known to keep real values real (``np.load``, ``np.linalg.eigvals``, a library without rules), or
    ``**`` (a Python float to a fractional power: ``(-8.0) ** (1 / 3)`` is complex)."""
    modules = eqn.params.get("modules", ())
    unknown = [m for m in modules if not (m in REAL_FOR_REAL or m.startswith(("math.", "builtins.")))]
    pow_ = any(isinstance(n, ast.Pow) for n in ast.walk(ast.parse(eqn.params["code"])))
    return bool(unknown) or pow_ or "builtins.pow" in modules


def _guard(tape: Tape, active, found: frozenset[int]) -> None:
    read: dict[int, bool] = {}
    for eqn in tape.eqns:
        if eqn.prim in ("static", "effect"):
            continue
        values = list(eqn.args[LEADING[eqn.prim] :]) if eqn.regions else value_args(eqn)
        for a in values:
            if isinstance(a, Var):
                read[a.id] = read.get(a.id, False) or active(eqn)
    eqns = []
    for eqn in tape.eqns:
        eqns.append(eqn)
        if (
            eqn.prim == "static"
            and len(eqn.outs) == 1
            and read.get(eqn.out.id)
            and eqn.out.id not in found
            and _may_be_complex(eqn)
        ):
            value, raw = eqn.out, Var()
            eqn.outs = [raw]
            what = eqn.span.text.strip() if eqn.span is not None and eqn.span.text else ""
            eqns.append(Eqn("real_value", [raw], {"what": what}, [value], eqn.span, (), eqn.section))
    tape.eqns = eqns


def _defining_span(tape: Tape, value: Atom | None):
    if isinstance(value, Var):
        for eqn in tape.eqns:
            if value in eqn.outs:
                return eqn.span
    return tape.eqns[-1].span if tape.eqns else None
