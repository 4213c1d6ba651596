"""The forward sweep of ``transform.forward``: equations in, the same equations with the tangent of
each active result after it, loops and branches carrying (value, tangent) pairs.

It takes a function's tape and a gradient tape alike (forward over reverse, for ``--hvp``): a
gradient tape's forward loops push, each iteration, the values their backward loops pop, and a
forward branch keeps the values its backward branch reads.  Where such a value has a tangent,
the tangent is pushed (kept) alongside it, after the values, and the backward loop (branch) pops
both: the stack's layout is recorded per stack (``saved``) when the forward loop is transformed,
and read when its backward loop is.

The layout of each region (``_Layout``): its inputs are the loop index (``for``, ``for_back``),
the values popped (``*_back``), the carried values, then the bound ones (free values, a backward
branch's seeds); its outputs the carried values (a branch's results), then the values pushed.
Each group gets its tangents right after it, for the active values of the group.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..dsl.rule import RuleTable
from ..ir.core import Atom, Eqn, Input, Tape, Var
from ..ir.regions import LEADING, is_control
from .tangents import TangentBuilder, Tangents, zero_tangent

_BACK_LOOPS = ("for_back", "while_back")


@dataclass
class _Layout:
    """How a region's inputs and outputs are grouped (see the module docstring)."""

    head: int  # the loop index
    popped: int  # values popped from the stack (a backward loop or branch)
    carried: int
    results: int  # outputs that are results of the equation
    pushed: int  # outputs pushed on the stack (a forward loop or branch of a gradient tape)


def _layout(eqn: Eqn, n: int) -> _Layout:
    """The layout of region ``n`` of ``eqn``."""
    p = eqn.params
    k = p["n_carry"]
    saved = p.get("n_saved", 0)
    if eqn.prim == "if":
        return _Layout(0, 0, 0, k, saved[n] if saved else 0)
    if eqn.prim == "if_back":
        return _Layout(0, saved[n], 0, len(eqn.outs), 0)
    head = 1 if eqn.prim in ("for", "for_back") else 0
    if eqn.prim == "while" and n == 0:  # the condition
        return _Layout(0, 0, k, 0, 0)
    if eqn.prim in _BACK_LOOPS:
        return _Layout(head, saved, k, k, 0)
    return _Layout(head, 0, k, k, saved)


def _dot(hint: str | None) -> str | None:
    return hint + "_dot" if hint else None


class TangentFlow:
    """The forward sweep over a list of equations; ``tan`` maps each active value to its tangent."""

    def __init__(self, table: RuleTable, defs: dict[int, Eqn]):
        self.table = table
        self.tangents = Tangents(table)
        self.tangents.defs = defs
        #: Per stack (a forward loop's or branch's extra result): which values pushed, per region,
        #: have a tangent pushed after them.
        self.saved: dict[int, list[list[bool]]] = {}

    # ------------------------------------------------------------------ activity

    def active(self, eqns: list[Eqn], seeds: set[int]) -> set[int]:
        """The values of ``eqns`` that depend on ``seeds`` through differentiable operands."""
        active = set(seeds)
        for eqn in eqns:
            if is_control(eqn.prim):
                flags, _, _ = self._flags(eqn, active)
                active.update(o.id for o, f in zip(eqn.outs, flags) if f)
                continue
            rule = self.table[eqn.prim]
            if any(
                isinstance(a, Var) and a.id in active and name not in rule.nondiff
                for name, a in zip(rule.operand_names(len(eqn.args)), eqn.args)
            ):
                active.update(o.id for o in eqn.outs)
        return active

    def _popped(self, eqn: Eqn, n: int) -> list[bool]:
        """Which values region ``n`` of a backward loop or branch pops have a tangent popped too."""
        lay = _layout(eqn, n)
        stack = eqn.args[LEADING[eqn.prim] - 1] if lay.popped else None
        found = self.saved.get(stack.id) if isinstance(stack, Var) else None
        flags = found[n if eqn.prim == "if_back" else 0] if found else []
        return flags if len(flags) == lay.popped else [False] * lay.popped

    def _pops(self, eqn: Eqn) -> bool:
        """A backward loop or branch pops a tangent, or one inside it does (a backward loop in a
        backward branch pops the tangents its forward loop, in the forward branch, pushed)."""
        if not eqn.prim.endswith("_back"):
            return False
        if any(any(self._popped(eqn, n)) for n in range(len(eqn.regions))):
            return True
        return any(self._pops(e) for region in eqn.regions for e in region.eqns if is_control(e.prim))

    def _flags(self, eqn: Eqn, active: set[int]) -> tuple[list[bool], list[bool], list[list[bool]]]:
        """Which results of a loop or branch are active (carried values to a fixed point), which of
        its carried and bound operands are, and per region which values it pushes are."""
        lead = LEADING[eqn.prim]
        k = _layout(eqn, len(eqn.regions) - 1).carried
        carried = [a.id in active if isinstance(a, Var) else False for a in eqn.args[lead : lead + k]]
        bound = [a.id in active if isinstance(a, Var) else False for a in eqn.args[lead + k :]]
        n_results = _layout(eqn, len(eqn.regions) - 1).results
        while True:
            results = [False] * n_results
            pushed: list[list[bool]] = []
            for n, region in enumerate(eqn.regions):
                lay = _layout(eqn, n)
                if eqn.prim == "while" and n == 0:
                    pushed.append([])
                    continue
                flags = [False] * lay.head + self._popped(eqn, n) + carried + bound
                inner = self.active(region.eqns, {i.var.id for i, f in zip(region.inputs, flags) if f})
                outs = region.outputs
                results = [r or (isinstance(o, Var) and o.id in inner) for r, o in zip(results, outs)]
                pushed.append(
                    [isinstance(o, Var) and o.id in inner for o in outs[lay.results : lay.results + lay.pushed]]
                )
            if not k:
                return results, carried + bound, pushed
            new = [c or r for c, r in zip(carried, results)]
            if new == carried:
                return new, carried + bound, pushed
            carried = new

    # ------------------------------------------------------------------ the sweep

    def sweep(self, eqns: list[Eqn], tan: dict[int, Atom]) -> list[Eqn]:
        """``eqns`` with the tangent of each active result after it (``tan``: the tangents of the
        active values so far, extended with the results')."""
        out: list[Eqn] = []
        builder = TangentBuilder(out, None)
        for eqn in eqns:
            if is_control(eqn.prim):
                flags, _, _ = self._flags(eqn, set(tan))
                # (a backward loop or branch pops the tangents its forward one pushed, even where none
                # of its results has a tangent: the stack's layout is the forward one's)
                out.append(self._control(eqn, tan, builder) if any(flags) or self._pops(eqn) else eqn)
                continue
            rule = self.table[eqn.prim]
            if any(
                isinstance(a, Var) and a.id in tan and name not in rule.nondiff
                for name, a in zip(rule.operand_names(len(eqn.args)), eqn.args)
            ):
                out.append(eqn)
                tan[eqn.out.id] = self.tangents.of(eqn, tan, tan.keys(), builder)
            else:
                out.append(eqn)
        return out

    def _control(self, eqn: Eqn, tan: dict[int, Atom], builder: TangentBuilder) -> Eqn:
        """A loop or branch that also carries, pushes and pops the tangents of its active values."""
        lead = LEADING[eqn.prim]
        last = _layout(eqn, len(eqn.regions) - 1)
        k = last.carried
        results, operands, pushed = self._flags(eqn, set(tan))
        carried_flags = results if k else []
        bound_flags = operands[k:]
        builder.span, builder.section = eqn.span, eqn.section
        defs = self.tangents.defs
        carried = eqn.args[lead : lead + k]
        bound = eqn.args[lead + k :]
        t_carried = [
            tan[a.id] if isinstance(a, Var) and a.id in tan else zero_tangent(a, builder, defs)
            for a, f in zip(carried, carried_flags)
            if f
        ]
        t_bound = [tan[a.id] for a, f in zip(bound, bound_flags) if f]
        regions = []
        popped_all = []
        for n, region in enumerate(eqn.regions):
            popped = self._popped(eqn, n)
            popped_all.append(popped)
            regions.append(self._region(eqn, n, region, popped, carried_flags, bound_flags, results, pushed[n]))
        n_results = last.results
        results_out = eqn.outs[:n_results]
        t_outs = [Var(hint=_dot(o.hint)) for o, f in zip(results_out, results) if f]
        for o, t in zip([o for o, f in zip(results_out, results) if f], t_outs):
            tan[o.id] = t
        extra = eqn.outs[n_results:]
        params = dict(eqn.params)
        if eqn.prim != "if_back":
            params["n_carry"] = eqn.params["n_carry"] + len(t_outs)
        if "n_saved" in params:
            if eqn.prim in ("if", "if_back"):
                grown = pushed if eqn.prim == "if" else popped_all
                params["n_saved"] = tuple(s + sum(f) for s, f in zip(params["n_saved"], grown))
            else:
                grown = pushed[-1] if eqn.prim in ("for", "while") else popped_all[-1]
                params["n_saved"] = params["n_saved"] + sum(grown)
        if extra and eqn.prim in ("for", "while", "if"):
            self.saved[extra[0].id] = pushed if eqn.prim == "if" else [pushed[-1]]
        args = [*eqn.args[:lead], *carried, *t_carried, *bound, *t_bound]
        return Eqn(eqn.prim, args, params, [*results_out, *t_outs, *extra], eqn.span, tuple(regions), eqn.section)

    def _region(
        self,
        eqn: Eqn,
        n: int,
        region: Tape,
        popped: list[bool],
        carried: list[bool],
        bound: list[bool],
        results: list[bool],
        pushed: list[bool],
    ) -> Tape:
        """Region ``n`` with a tangent input after each group of inputs and a tangent output after
        each group of outputs, for the active values of the group; a ``while`` condition gets the
        inputs only."""
        lay = _layout(eqn, n)
        ins = region.inputs
        at = [0, lay.head, lay.head + lay.popped, lay.head + lay.popped + lay.carried, len(ins)]
        groups = [ins[at[i] : at[i + 1]] for i in range(4)]
        tan: dict[int, Atom] = {}

        def tangents(inputs: list[Input], which: list[bool]) -> list[Input]:
            made = []
            for i, f in zip(inputs, which):
                if f:
                    v = Var(hint=_dot(i.var.hint), hint_depth=i.var.hint_depth)
                    tan[i.var.id] = v
                    made.append(Input(v, (*i.path[:-1], str(i.path[-1]) + "_dot")))
            return made

        inputs = [
            *groups[0],
            *groups[1],
            *tangents(groups[1], popped),
            *groups[2],
            *tangents(groups[2], carried if lay.carried else []),
            *groups[3],
            *tangents(groups[3], bound),
        ]
        if eqn.prim == "while" and n == 0:  # the condition: values only
            return Tape(region.name, inputs, list(region.eqns), list(region.outputs), facts=region.facts.copy())
        eqns = self.sweep(region.eqns, tan)
        builder = TangentBuilder(eqns, None)
        builder.section = eqn.section
        defs = self.tangents.defs

        def tangent_outputs(outputs: list[Atom], which: list[bool]) -> list[Atom]:
            return [
                tan[o.id] if isinstance(o, Var) and o.id in tan else zero_tangent(o, builder, defs)
                for o, f in zip(outputs, which)
                if f
            ]

        outs = region.outputs
        main, kept = outs[: lay.results], outs[lay.results : lay.results + lay.pushed]
        outputs = [*main, *tangent_outputs(main, results), *kept, *tangent_outputs(kept, pushed)]
        return Tape(region.name, inputs, eqns, outputs, facts=region.facts.copy())
