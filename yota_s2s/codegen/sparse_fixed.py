"""``--sparse``: the values of a compressed sweep that are the same at every call of a prepared pattern.

``jac_NAME`` (``hess_NAME``) prepares a pattern once per key: the ``--wrt`` parameters' shapes and
dtypes and every other argument's value (``_sp_key``), and with it the seeds of its colors.  A value
of the batched sweep that reads only the seeds, the other arguments and the shapes of the rest (a
stencil's part of a forward sweep, ``0.1 * (np.roll(u_dot, 1) + ...)``; the seeds gathered by an
edge list, ``x_dot[:, I] - x_dot[:, J]``) is then the same at every call of that key: it is computed
once, by ``_jvp_NAME_fixed`` (``_vjp_``, ``_hvp_``), kept in the prepared record (``_sp_fixed``),
and passed to ``_jvp_NAME_colors`` as a parameter.  The linear part of a function costs a sweep once,
not once per call: a 2-D Brusselator's forward sweep at m = 64 goes from about 1.6 ms to 0.45 ms.

A kept value is read, never written: the plan writes in place only into arrays its function made
(``plan.chains``: a parameter has no equation), and the decompression gathers into a new array.

    def _jvp_f_fixed(x, a, x_dot):    # the colors function's parameters, its values kept: the
        ...                            # equations they need (a primal value read for its shape)
        return _t4, _t9

    def _jvp_f_colors(x, a, x_dot, _k1, _k2):
        ...                            # the other equations, _k1 and _k2 read where _t4 and _t9 were
"""

from __future__ import annotations

import dataclasses

from ..dsl.rule import RuleTable
from ..ir.core import Eqn, Input, Param, Section, Tape, Var
from ..ir.live import live_eqns
from ..ir.primitives import primitive
from .layout import fit_module
from .plan import plan_function
from .sparse_regroup import regrouped
from .target import Backend
from .writer import FunctionWriter

#: The operands that batched primitives (``ir.batching``) read for their shape and dtype alone:
#: position -> from that position on (``_rows_concat_part(g, *xs)``: every part of ``xs``).
_SHAPE_FROM = {"rows_unbroadcast": 1, "rows_zeros": 0, "rows_lift": 1, "rows_concat_part": 1, "rows_join_place": 1}


def _shape_only(eqn: Eqn, k: int) -> bool:
    """Operand ``k`` of ``eqn`` is read for its shape and dtype alone (which the key fixes)."""
    record = primitive(eqn.prim)
    start = _SHAPE_FROM.get(eqn.prim)
    return record.size_query or k in record.shape_operands or (start is not None and k >= start)


def _classify(tape: Tape, seeds: list[Var], wrt: list[str], table: RuleTable) -> tuple[set[int], set[int]]:
    """The values of ``tape`` that read a seed and otherwise only parameters not in ``wrt``, literals
    and shapes (those ``fixed_values`` may keep), and every value that reads a seed (the batched)."""
    fixed = {s.id for s in seeds} | {i.var.id for i in tape.inputs if i.path[0] not in wrt}
    seeded = {s.id for s in seeds}
    batched = {s.id for s in seeds}
    kept: set[int] = set()
    for eqn in tape.eqns:
        args = [(k, a) for k, a in enumerate(eqn.args) if isinstance(a, Var)]
        outs = {o.id for o in eqn.outs}
        if any(a.id in batched and not _shape_only(eqn, k) for k, a in args):
            batched |= outs
        if eqn.regions or not table.rules.get(eqn.prim, _PURE).pure:
            continue
        if all(a.id in fixed or _shape_only(eqn, k) for k, a in args):
            fixed |= outs
            if any(a.id in seeded and not _shape_only(eqn, k) for k, a in args):
                seeded |= outs
                kept |= outs
            elif primitive(eqn.prim).buffer:  # (zeros to add into: kept where what is added is)
                seeded |= outs
    return kept, batched


def regroup(tape: Tape, seeds: list[Var], wrt: list[str], table: RuleTable) -> None:
    """``tape``'s batched products and sums regrouped (``sparse_regroup``), in place."""
    kept, batched = _classify(tape, seeds, wrt, table)
    outputs = {a.id for a in tape.outputs if isinstance(a, Var)}
    eqns, subst = regrouped(tape.eqns, batched, outputs, lambda a: isinstance(a, Var) and a.id in kept)
    tape.outputs = [subst.get(a.id, a) if isinstance(a, Var) else a for a in tape.outputs]
    tape.eqns = live_eqns(eqns, {a.id for a in tape.outputs if isinstance(a, Var)}, table)


def fixed_values(tape: Tape, seeds: list[Var], wrt: list[str], table: RuleTable) -> list[Var]:
    """The values of ``tape`` (a batched sweep: its seeds ``seeds``) that read a seed and otherwise
    only parameters not in ``wrt``, literals and shapes, and that an equation reading a parameter of
    ``wrt`` (or the outputs) reads: those worth keeping."""
    kept = _classify(tape, seeds, wrt, table)[0]
    if not kept:
        return []
    wanted: dict[int, Var] = {}
    for eqn in tape.eqns:
        if any(o.id in kept for o in eqn.outs):
            continue
        for a in eqn.args:
            if isinstance(a, Var) and a.id in kept:
                wanted.setdefault(a.id, a)
    for a in tape.outputs:
        if isinstance(a, Var) and a.id in kept:
            wanted.setdefault(a.id, a)
    return list(wanted.values())


class _Pure:
    pure = True


_PURE = _Pure()


class _FixedWriter(FunctionWriter):
    """``_jvp_NAME_fixed`` (``_vjp_``, ``_hvp_``): the kept values of the colors function."""

    prefix = ""

    def function_name(self) -> str:
        return f"_{self.prefix}{self.tape.name}_fixed"

    def docstring(self) -> str:
        return (
            f'"""The values _{self.prefix}{self.tape.name}_colors reads that depend on its seeds, the other\n'
            f'    arguments and the shapes alone: the same at every call of one prepared pattern (_sp_fixed)."""'
        )


@dataclasses.dataclass
class Split:
    """A colors function's tape without its kept values (they are parameters ``names``), and the
    text of the function that computes them (``helpers``: the helpers it calls)."""

    tape: Tape
    names: list[str]
    text: str
    helpers: set[str]


def split_fixed(whole: Tape, seeds: list[Var], wrt: list[str], table: RuleTable, backend: Backend) -> Split | None:
    """``whole`` (a colors function's tape) split into the function of its kept values
    (``fixed_values``) and itself reading them as parameters; None where none is worth keeping."""
    kept = fixed_values(whole, seeds, wrt, table)
    if not kept:
        return None
    names = [f"_k{n + 1}" for n in range(len(kept))]
    fixed = whole.copy_header()
    fixed.eqns = live_eqns(whole.eqns, {v.id for v in kept}, table)
    fixed.outputs = list(kept)
    fixed.out_tree = list(range(len(kept)))
    mode = whole.facts.mode
    fixed.facts.mode = dataclasses.replace(mode, products=False, seeded=False, seed_param=False, forward=False)
    fixed.facts.tangents = []
    fixed.facts.seed = None
    fixed.facts.wrt = []
    plan = plan_function(fixed, table, backend, columns=False)
    writer = _FixedWriter(dataclasses.replace(plan, check_scalar=False), table, backend)
    writer.prefix = mode.prefix
    text = fit_module(writer.write())
    rest = whole.copy_header()
    ids = {v.id for v in kept}
    at = {v.id: Var(hint=v.hint) for v in kept}
    rest.inputs = [*whole.inputs, *(Input(at[v.id], (name,)) for v, name in zip(kept, names, strict=True))]
    rest.params = [*whole.params, *(Param(name) for name in names)]
    computed = []
    for eqn in whole.eqns:
        if any(o.id in ids for o in eqn.outs):
            continue
        if eqn.prim in _WRITES and isinstance(eqn.args[0], Var) and eqn.args[0].id in ids:
            # a kept value added into: a copy of it, which the plan writes into in place
            copy = Eqn("copy", [at[eqn.args[0].id]], {}, [Var(hint=eqn.args[0].hint)], None, (), Section.BACKWARD)
            computed.append(copy)
            eqn = dataclasses.replace(eqn, args=[copy.out, *eqn.args[1:]])
        computed.append(eqn)
    rest.eqns = live_eqns([_read_kept(e, at) for e in computed], _outputs(whole, at), table)
    rest.outputs = [at.get(a.id, a) if isinstance(a, Var) else a for a in whole.outputs]
    rest.facts.array_inputs = rest.facts.array_inputs | {v.id for v in at.values()}
    return Split(rest, names, text, writer.helpers)


#: The primitives that write into their first operand (in place where the plan may).
_WRITES = ("index_add", "setindex")


def _read_kept(eqn: Eqn, at: dict[int, Var]) -> Eqn:
    """``eqn`` reading the kept values' parameters where it read the values."""
    if not any(isinstance(a, Var) and a.id in at for a in eqn.args):
        return eqn
    args = [at.get(a.id, a) if isinstance(a, Var) else a for a in eqn.args]
    return dataclasses.replace(eqn, args=args)


def _outputs(whole: Tape, at: dict[int, Var]) -> set[int]:
    return {at.get(a.id, a).id for a in whole.outputs if isinstance(a, Var)}
