"""What the generated function checks of its arguments, and which gradients it makes numbers.

The rules are proven for real floating values.  ``differentiated_inputs`` are the inputs with a
gradient: the function checks each is real floating (``_float_arg``: a TypeError for a complex,
integer or boolean value); ``value_inputs`` are the others the computation reads as values, checked
not complex.  ``zero_d_gradients`` are the gradients that may be a 0-d array where their argument is
a number (``np.where(x > 0, g, 0.0)`` of numbers is one): the function makes them NumPy scalars, as
NumPy's arithmetic gives for numbers.  The plan (``plan``) records the three; the writer prints them.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..ir.core import Atom, Eqn, Lit, Tape, Var
from ..ir.primitives import primitive
from ..ir.printer import format_path
from ..ir.regions import LEADING

#: Primitives whose result is a number for numbers (a reduction, a gradient buffer: ``_grad_zeros``).
_SCALAR_FOR_SCALARS = frozenset({"sum", "mean", "max", "min", "prod", "unreduce"})


def differentiated_inputs(tape: Tape) -> tuple[tuple[Var, str, Atom], ...]:
    """The inputs of a gradient tape whose gradient is not None, each with its name in the source
    (``x``, ``m.W``, ``m.layers[0].W``) and its gradient, in the order of the inputs."""
    wrt = tape.facts.wrt
    if tape.facts.mode.forward:  # one output, the product with the tangents: each wrt input is checked
        used = {a.id for e in tape.eqns for a in e.args if isinstance(a, Var)}
        return tuple(
            (i.var, format_path(i.path), Lit(0.0)) for i in tape.inputs if i.path[0] in wrt and i.var.id in used
        )
    return tuple(
        (inp.var, format_path(inp.path), tape.outputs[k])
        for inp, k in tape.gradient_places()
        if not (isinstance(tape.outputs[k], Lit) and tape.outputs[k].value is None)
    )


def value_inputs(tape: Tape, tapes: list[Tape]) -> tuple[tuple[Var, str], ...]:
    """The inputs without a gradient that an equation reads as a value: not as a shape (``np.size``,
    a shape operand), an index, a loop's bounds or a branch's condition (a static ``w`` in ``x * w``:
    a complex ``w`` would make the real rules wrong)."""
    read: set[int] = set()
    inputs = {i.var.id for i in tape.inputs}  # (the values asked about: each equation's reads of them alone)
    for eqn in (e for t in tapes for e in t.eqns):
        for k, a in enumerate(eqn.args):
            if not isinstance(a, Var) or a.id not in inputs or a.id in read:
                continue
            record = primitive(eqn.prim)
            if record.python_value:
                break
            if eqn.regions and k < LEADING[eqn.prim]:
                continue
            if k in record.shape_operands or (record.index_from is not None and k >= record.index_from):
                continue
            read.add(a.id)
    checked = {v.id for v, _, _ in differentiated_inputs(tape)}
    if tape.facts.mode.by_rows:  # its seed is a local of the loop over the rows, not an argument
        seeds = {tape.facts.seed, *tape.facts.seeds}  # (hess_NAME of several parameters: one per block row)
        checked |= {i.var.id for i in tape.inputs if i.path[0] in seeds}
        checked |= {i.var.id for i in tape.inputs if i.path[0] in tape.facts.columns}  # (its columns' tangents)
    return tuple((i.var, format_path(i.path)) for i in tape.inputs if i.var.id in read and i.var.id not in checked)


def real_only(tape: Tape, inputs) -> tuple[tuple[Var, str], ...]:
    """``inputs`` (``(var, name)`` pairs) without the parameters declared complex (``z: complex``):
    those may be complex, or real (docs/complex.md)."""
    declared = tape.facts.complex_params
    by_var = {i.var.id: i.path[0] for i in tape.inputs}
    return tuple((v, p) for v, p in inputs if by_var.get(v.id) not in declared)


def zero_d_gradients(tape: Tape, tapes: list[Tape], defs: Mapping[int, Eqn]) -> tuple[Var, ...]:
    """The returned gradients that may be a 0-d array for a number (a Python or NumPy scalar)
    argument, in order: NumPy's arithmetic, ufuncs and reductions give a scalar for scalars (and
    ``_grad_zeros``, ``_unreduce`` a number for a number); ``np.where``, a loop's or a branch's
    result and the rest may not.  An argument used as an array (``x.T``, ``x @ w``, ``x[0]``) is none."""
    inputs = {i.var.id for i in tape.inputs}
    arrays = set(tape.facts.array_inputs)
    for eqn in (e for t in tapes for e in t.eqns):
        if eqn.prim in ("matmul", "like_matmul"):  # (np.matmul refuses a number)
            arrays.update(a.id for a in eqn.args if isinstance(a, Var))
        elif eqn.prim in ("getindex", "len") and isinstance(eqn.args[0], Var):  # a number has neither
            arrays.add(eqn.args[0].id)
    found: dict[int, Var] = {}
    for x, _, a in differentiated_inputs(tape):
        if x.id in arrays or not isinstance(a, Var) or a.id in inputs or a.id in found:
            continue
        if _may_be_0d(tape, defs, a):
            found[a.id] = a
    return tuple(found.values())


def _may_be_0d(tape: Tape, defs: Mapping[int, Eqn], a: Atom, depth: int = 0) -> bool:
    if isinstance(a, Lit):
        return False
    if a.id not in defs:  # an argument (as the caller gave it), or a region's input
        return not any(i.var.id == a.id for i in tape.inputs)
    d = defs[a.id]
    record = primitive(d.prim)
    if d.prim in ("if", "if_back") and depth < 50 and all(len(r.outputs) == len(d.outs) for r in d.regions):
        j = d.outs.index(a)  # a branch's result: what either branch gives
        return any(_may_be_0d(tape, defs, r.outputs[j], depth + 1) for r in d.regions)
    if d.regions or depth > 50:
        return True
    if d.prim == "grad_zeros":  # a number's are a number; _like's stand-in for a number is a 0-d array
        return _may_be_0d(tape, defs, d.args[0], depth + 1)
    if record.python_arithmetic or record.ufunc or d.prim in _SCALAR_FOR_SCALARS:
        return False
    if d.prim in ("unbroadcast", "index_add"):  # g itself (a scalar's), or a buffer
        return _may_be_0d(tape, defs, d.args[0], depth + 1) if d.prim == "unbroadcast" else False
    return True
