"""Complex values: which values of a tape may be complex, and their adjoints.

The cotangent of a complex value ``z`` is ``dL/dRe(z) + 1j * dL/dIm(z)`` (PyTorch's convention
for a real ``L``; JAX's ``grad`` returns its conjugate; docs/complex.md).  Under it:

- the adjoint of a holomorphic primitive is ``conj(f'(z)) * dout``: the real rule's formula with
  each complex primal value (operand, result, complex literal) conjugated (``CONJUGABLE``, the
  primitives whose formulas are built from holomorphic functions with real coefficients: for
  them, conjugating the primal values conjugates the derivative and leaves ``dout`` alone);
- the others have their own formulas in rules/complex.py (``OVERRIDES``: ``abs``, ``angle``,
  ``imag``, ``power``), and ``real`` (``dout``) and ``conj`` (``conj(dout)``) are right as written;
- a real operand of an equation with a complex operand or result receives the real part of
  what flows back (``real(...)``): a real value's cotangent, a real parameter's gradient, stays
  real, and every real rule sees real values only.

Which values may be complex is read from the source (``complex_values``): complex literals and
constants, parameters declared complex (``z: complex``), and what is computed from them (except
``real``, ``imag``, ``abs``, ``angle`` and shape queries).  A value not found so is real.  An
equation the gradient goes through with a complex operand or result whose primitive has no
complex adjoint here is refused (YS022, at its line); under ``--holomorphic`` the
non-holomorphic ``conj``, ``real``, ``imag``, ``abs`` and ``angle`` are refused too (YS023), and
the real rules apply as written: their formulas, analytic in the primal values, are the chain
rule of the complex derivative ``dout * f'(z)`` (``holomorphic_power`` for ``**``).  A value of
code passed through (``static``), whose dtype is unknown, is checked real when it runs where a
gradient reads it (``complex_types.guard_passed_values``).

    >>> from yota_s2s.dsl.load import load_rules
    >>> from yota_s2s.ir.core import Lit, Tape
    >>> t = Tape("f"); x = t.add_input("x")
    >>> z = t.add_eqn("mul", [Lit(1j), x]); r = t.add_eqn("abs", [t.add_eqn("exp", [z])])
    >>> found = complex_values(t, set()); (z.id in found, r.id in found)
    (True, False)
"""

from __future__ import annotations

import ast
import dataclasses

from ..dsl.rule import Rule, RuleTable
from ..dsl.splice import instantiate
from ..errors import at_span
from ..ir.core import Atom, Eqn, Lit, Tape, Var
from ..ir.modes import Mode
from ..ir.primitives import primitive
from ..ir.regions import LEADING

#: Primitives whose real rule, with the complex primal values conjugated, is the complex adjoint.
CONJUGABLE = frozenset(
    {
        # arithmetic (power: OVERRIDES)
        "add", "sub", "mul", "truediv", "neg", "square", "reciprocal",
        # holomorphic functions with real coefficients
        "exp", "log", "sqrt", "sin", "cos", "tan", "sinh", "cosh", "tanh", "expm1", "log1p",
        "exp2", "log2", "log10",
        # linear: reductions, shapes, selection, products
        "sum", "mean", "cumsum", "getindex", "stack", "concatenate", "hstack", "vstack", "reshape",
        "ravel", "flatten", "transpose", "asarray", "copy", "expand_dims", "squeeze", "flip",
        "where", "matmul", "dot", "trace", "diagonal", "list_make", "list_append", "list_stack",
        # of a complex value, right as written: dout and conj(dout)
        "real", "conj",
    }
)  # fmt: skip
#: Primitives with their own complex adjoint (rules/complex.py).
OVERRIDES = {"abs": "complex_abs", "angle": "complex_angle", "imag": "complex_imag", "power": "complex_power"}
#: The primitives a reverse sweep writes (rules/helpers.py, the adjoints of indexing): linear in
#: their gradient operand, polynomial in the others, with real coefficients; holomorphic, so the
#: transposition of ``--jvp`` applies their rules as written (the sweep of the holomorphic rules).
SWEEP_HELPERS = frozenset(
    {
        "unbroadcast", "broadcast_to", "unreduce", "index_add", "zeros_like", "grad_zeros", "matmul_dx",
        "matmul_dy", "xtx_dx", "xxt_dx", "diag_dv", "keep_axes", "like", "broadcast", "like_matmul", "take",
        "untake",
    }
)  # fmt: skip
#: Their result is real for a complex operand.
REAL_RESULTS = frozenset({"real", "imag", "abs", "angle"})
#: Not holomorphic: refused under --holomorphic.
NOT_HOLOMORPHIC = {
    "conj": "the conjugate (np.conj, .conj())",
    "real": "the real part (np.real, .real)",
    "imag": "the imaginary part (np.imag, .imag)",
    "abs": "the absolute value (abs, np.abs)",
    "angle": "the angle (np.angle)",
}
#: What the refusals list.
SUPPORTED = (
    "+ - * / **, exp, log, sqrt, sin, cos, tan, sinh, cosh, tanh, conj, real, imag, abs, angle, sum, "
    "mean, cumsum, @ and np.dot, indexing, np.array, np.stack, reshape, transpose, np.where"
)


def complex_table(table: RuleTable, found: frozenset[int], holomorphic: Mode | None = None) -> RuleTable:
    """``table`` for one function: its adjoints read which values may be complex (``found``);
    ``holomorphic``: the mode whose derivative is a holomorphic function's (``--holomorphic``; the
    complex Jacobian of ``--jacobian`` and ``--jvp`` of complex values, the latter the VJP of the
    holomorphic rules, transposed), None for the others."""
    if not found and not holomorphic:
        return table
    return dataclasses.replace(table, complex_values=found, holomorphic=holomorphic)


# ---------------------------------------------------------------------------- which values


def is_complex(a: Atom, found: set[int] | frozenset[int]) -> bool:
    if isinstance(a, Lit):
        return _holds_complex(a.value)
    return a.id in found


def _holds_complex(value: object) -> bool:
    if isinstance(value, tuple | list):
        return any(_holds_complex(v) for v in value)
    return isinstance(value, complex)


def complex_values(tape: Tape, inputs: set[int]) -> frozenset[int]:
    """The ids of the values of ``tape`` (in its loops and branches too) that may be complex,
    given the ids of its ``inputs`` that may be."""
    found = set(inputs)
    _walk(tape.eqns, found)
    return frozenset(found)


def value_args(eqn: Eqn) -> list[Atom]:
    """The operands read as values (not for a shape, not as an index)."""
    record = primitive(eqn.prim)
    if record.python_value or record.size_query or record.boolean:
        return []
    last = record.index_from if record.index_from is not None else len(eqn.args)
    return [a for k, a in enumerate(eqn.args[:last]) if k not in record.shape_operands]


def _walk(eqns: list[Eqn], found: set[int]) -> None:
    for eqn in eqns:
        if eqn.regions:
            _control(eqn, found)
        elif _makes_complex(eqn, found):
            found.update(o.id for o in eqn.outs)


def _makes_complex(eqn: Eqn, found: set[int]) -> bool:
    if eqn.prim == "static" and _writes_complex(eqn.params["code"]):  # np.array([1.0, 2j]) of constants
        return True
    return eqn.prim not in REAL_RESULTS and any(is_complex(a, found) for a in value_args(eqn))


def _writes_complex(code: str) -> bool:
    return any(isinstance(n, ast.Constant) and isinstance(n.value, complex) for n in ast.walk(ast.parse(code)))


def _control(eqn: Eqn, found: set[int]) -> None:
    """A loop's or branch's values: its regions' inputs from its operands, carried values to a fixed point."""
    k = eqn.params.get("n_carry", 0)
    lead = LEADING[eqn.prim]
    if eqn.prim == "if":
        for region in eqn.regions:
            found.update(i.var.id for i, a in zip(region.inputs, eqn.args[1:]) if is_complex(a, found))
            _walk(region.eqns, found)
        for j, o in enumerate(eqn.outs[:k]):
            if any(j < len(r.outputs) and is_complex(r.outputs[j], found) for r in eqn.regions):
                found.add(o.id)
        return
    carried = [is_complex(a, found) for a in eqn.args[lead : lead + k]]
    free = [is_complex(a, found) for a in eqn.args[lead + k :]]
    body = eqn.regions[-1]
    while True:
        for region in eqn.regions:
            first = 1 if eqn.prim == "for" else 0
            flags = carried + free
            found.update(i.var.id for i, f in zip(region.inputs[first:], flags) if f)
            _walk(region.eqns, found)
        new = [c or is_complex(o, found) for c, o in zip(carried, body.outputs)]
        if new == carried:
            break
        carried = new
    found.update(o.id for o, c in zip(eqn.outs, carried) if c)


# ---------------------------------------------------------------------------- adjoints


def complex_adjoint(
    eqn: Eqn, rule: Rule, wanted: list[tuple[str, int]], dout: Atom, builder, table: RuleTable
) -> dict | None:
    """The gradient contributions of ``eqn``'s ``wanted`` operands where one of its operands or
    its result may be complex (None where none may: the real rule applies)."""
    found = table.complex_values
    if not found:
        return None
    touched = [a for a in eqn.args if is_complex(a, found)]
    if not touched and not is_complex(eqn.out, found):
        return None
    prim = eqn.prim
    if table.holomorphic and prim in NOT_HOLOMORPHIC:
        if table.holomorphic.complex_jacobian:
            what = "computes J @ t with" if table.holomorphic.forward else "writes"
            why = (
                f"{NOT_HOLOMORPHIC[prim]} of a complex value is not holomorphic: {table.holomorphic.flag} of complex values "
                f"{what} the complex Jacobian d f_i / d z_j, which only a holomorphic function has"
            )
            raise at_span("YS023", why, eqn.span)
        why = f"{NOT_HOLOMORPHIC[prim]} of a complex value is not holomorphic: --holomorphic differentiates holomorphic functions"
        raise at_span("YS023", why + " (drop --holomorphic for the gradient of a real value)", eqn.span)
    if prim == "angle" and eqn.params.get("deg"):
        raise at_span("YS022", "np.angle(z, deg=True) of a complex value is not differentiated (use np.angle(z) * 180 / np.pi)", eqn.span)  # fmt: skip
    # (the VJP's own primitives, transposed)
    helper = bool(table.holomorphic) and table.holomorphic.forward and prim in SWEEP_HELPERS
    if table.holomorphic and (prim in CONJUGABLE or prim == "power" or helper):  # the chain rule of f'(z), as written
        used = table["holomorphic_power"] if prim == "power" else rule
        return instantiate(used, wanted, eqn.args, eqn.params, eqn.out, dout, builder, table)
    if prim in OVERRIDES and not table.holomorphic:
        grads = instantiate(table[OVERRIDES[prim]], wanted, eqn.args, eqn.params, eqn.out, dout, builder, table)
    elif (prim in CONJUGABLE or prim in SWEEP_HELPERS) and not table.holomorphic:  # (helpers: --hvp, --hessian)
        primal = {a.id for a in [*eqn.args, eqn.out] if isinstance(a, Var) and a.id in found}
        conjugating = _Conjugating(builder, primal)
        grads = instantiate(rule, wanted, eqn.args, eqn.params, eqn.out, dout, conjugating, table)
    else:
        named = rule.names[0].replace("numpy.", "np.") if rule.names else prim
        message = f"{named} of a complex value: no complex derivative rule (supported: {SUPPORTED})"
        raise at_span("YS022", message, eqn.span)
    for name, k in wanted:  # a real operand's cotangent is the real part of what flows back
        if not is_complex(eqn.args[k], found):
            grads[name, k] = builder.add("real", [grads[name, k]], {})
    return grads


class _Conjugating:
    """A builder that conjugates the complex primal values (``primal`` ids, complex literals) read as
    values by the equations it adds: the real formula becomes ``conj(f'(z)) * dout``."""

    def __init__(self, builder, primal: set[int]):
        self.builder = builder
        self.primal = primal
        self.made: dict[int, Atom] = {}

    def add(self, prim: str, args: list[Atom], params: dict[str, object]) -> Atom:
        record = primitive(prim)
        if not (record.python_value or record.size_query):
            last = record.index_from if record.index_from is not None else len(args)
            args = [self._conj(a) if k < last and k not in record.shape_operands else a for k, a in enumerate(args)]
        return self.builder.add(prim, args, params)

    def _conj(self, a: Atom) -> Atom:
        if isinstance(a, Lit):
            return Lit(_conjugate(a.value)) if _holds_complex(a.value) else a
        if a.id not in self.primal:
            return a
        if a.id not in self.made:
            self.made[a.id] = self.builder.add("conj", [a], {})
        return self.made[a.id]


def _conjugate(value: object) -> object:
    if isinstance(value, tuple):
        return tuple(_conjugate(v) for v in value)
    return value.conjugate() if isinstance(value, complex) else value
