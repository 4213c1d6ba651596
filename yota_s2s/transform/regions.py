"""The rewrites of loops and branches, part of the rewriter (``rewrite``): each takes a backward
loop or branch of the tape being rewritten and gives an equivalent one that does less work.

- ``spread_carries``: a backward loop whose carried adjoint is one scalar spread over an array
  (the gradient of ``sum``) carries the scalar, and the array is made once, after the loop;
- ``accumulate_in_loop``: ``acc + for_back(...)[j]``, where the loop's accumulator ``j`` starts
  from zeros, starts it from ``acc``;
- ``accumulate_in_branches``: ``acc + if_back(...)[j]``: each branch adds its contribution to
  ``acc`` itself (a gradient buffer updated in place, not rebuilt).

For example (``x = 2 * x`` in a loop, ``np.sum`` of the result)::

    d = for_back(..., unreduce(s, X)) { d' = 2 * d }    ->    t = for_back(..., s) { t' = 2 * t }
                                                              d = unreduce(t, X)

The regions they make are optimized on their own (``optimize_region``, the whole optimizer);
``simplify_add`` calls the two ``accumulate_*`` rewrites, ``RewriterBase.run`` the first.
"""

from __future__ import annotations

from ..ir.core import Atom, Eqn, Input, Lit, Section, Tape, Var, uses
from ..ir.regions import LEADING, first_carried
from .dce import dce
from .rewrite import RewriterBase


class RegionRewrites(RewriterBase):
    """The rewrites of backward loops and branches."""

    def spread_carries(self, eqn: Eqn, args: list[Atom]) -> tuple[Eqn, list[Atom], dict] | None:
        """Carry a spread scalar through a backward loop as the scalar itself.

        The adjoint of ``sum`` is one scalar spread over an array (``unreduce(s, X)``); when a
        backward loop's carried adjoint enters spread and each iteration maps it to a spread
        scalar again (``dx = dx * 2``: ``unreduce(2 * s, X)``), the loop carries ``s`` alone and
        the array is made once, after the loop.  Every rewrite that keeps a value spread keeps
        its shape, so the adjoint has ``X``'s shape at every iteration: no shape assumption.

        Returns the rewritten equation, its arguments, and for each scalarized output the
        ``(scalar result, X, params)`` to spread it back with; None when no carry qualifies.
        """
        region = eqn.regions[0]
        lead, k, first = LEADING[eqn.prim], eqn.params["n_carry"], first_carried(eqn)
        spread: dict[Var, tuple[Var, Atom, dict]] = {}
        args, inputs, outs = list(args), list(region.inputs), list(eqn.outs)
        for j in range(k):
            u = self._spread(args[lead + j])
            if u is None:
                continue
            s_in, x_in = Var(grad_of=inputs[first + j].var.grad_of), Var()
            trial = Tape(region.name, [*inputs, Input(x_in, ("#spread", str(x_in.id)))], [], list(region.outputs))
            trial.inputs[first + j] = Input(s_in, inputs[first + j].path)
            seed = inputs[first + j].var
            trial.eqns = [Eqn("unreduce", [s_in, x_in], dict(u.params), [seed], eqn.span, (), Section.BACKWARD)]
            trial.eqns += region.eqns
            # the carried scalar has the shape of a number (so that a loop inside spreads it too)
            trial.facts = region.facts.copy()
            trial.facts.same_shape[s_in.id] = Lit(0.0)
            trial = self.optimize_region(trial)
            result = trial.outputs[j]
            back = next((e for e in trial.eqns if result in e.outs), None) if isinstance(result, Var) else None
            if back is None or back.prim != "unreduce" or back.args[1] is not x_in or back.params != u.params:
                continue
            trial.outputs[j] = back.args[0]
            trial = dce(trial, self.table)
            # the shape to spread over, inside the loop and after it (the same, see _initial_value)
            ref = self._initial_value(eqn.outs[j]) or u.args[1]
            if x_in.id in uses(trial):
                args.append(ref)
            else:  # an operand the loop would only keep alive
                trial.inputs = [i for i in trial.inputs if i.var is not x_in]
            region, inputs = trial, list(trial.inputs)
            args[lead + j] = u.args[0]
            outs[j] = Var(grad_of=outs[j].grad_of)
            spread[eqn.outs[j]] = (outs[j], ref, dict(u.params))
        if not spread:
            return None
        self.changed = True
        return Eqn(eqn.prim, args, dict(eqn.params), outs, eqn.span, (region,), eqn.section), args, spread

    def _initial_value(self, adjoint: Var) -> Var | None:
        """The value a backward loop's output is the adjoint of: the forward loop's initial value
        of that carry (``x`` for ``for ...: x = 2 * x``), when it is a value of this tape.

        A spread carried through the loop has the shape ``X`` of the loop's result at every
        iteration, and an adjoint has its value's shape, so the initial value has ``X``'s shape
        too; spreading over it leaves the forward loop to the values that need it (none, when
        only its result's shape was read).
        """
        result = adjoint.grad_of
        fwd = self.defs.get(result.id) if isinstance(result, Var) else None
        if fwd is None or fwd.prim not in ("for", "while") or fwd.section == Section.BACKWARD:
            return None
        m = next(i for i, o in enumerate(fwd.outs) if o is result)
        if m >= fwd.params["n_carry"]:
            return None
        init = fwd.args[LEADING[fwd.prim] + m]
        return init if isinstance(init, Var) else None

    def accumulate_in_loop(self, eqn: Eqn, out: Var, acc: Atom) -> Atom | None:
        """``acc + loop_back(...)[j]`` where the loop's accumulator ``j`` starts from ``grad_zeros``:
        start it from ``acc`` instead."""
        j = eqn.outs.index(out)
        at = LEADING[eqn.prim] + j
        z = self.def_of(eqn.args[at], "grad_zeros")
        if z is None or self.cls(acc) != self.cls(z.args[0]):
            return None
        args = list(eqn.args)
        args[at] = acc
        new = Eqn(eqn.prim, args, dict(eqn.params), list(eqn.outs), eqn.span, eqn.regions, eqn.section)
        self.new.eqns[self.new.eqns.index(eqn)] = new
        for o in new.outs:
            self.defs[o.id] = new
        self.changed = True
        return out

    def accumulate_in_branches(self, eqn: Eqn, out: Var, acc: Atom) -> Atom:
        """``acc + if_back(...)[j]``: each branch adds its contribution to ``acc`` itself, so that a
        gradient buffer is updated in place (``np.add.at(dx, i, g)``) instead of being rebuilt."""
        j = eqn.outs.index(out)
        regions = []
        for r in eqn.regions:
            acc_in = Var()
            contribution = r.outputs[j]
            region = Tape(r.name, [*r.inputs, Input(acc_in, ("#acc", str(acc_in.id)))], list(r.eqns), list(r.outputs))
            region.facts = r.facts.copy()
            region.facts.same_shape[acc_in.id] = contribution
            total = Var()
            region.eqns.append(Eqn("add", [acc_in, contribution], {}, [total], eqn.span, (), Section.BACKWARD))
            region.outputs[j] = total
            regions.append(self.optimize_region(region))
        params = {**eqn.params, "accs": (*eqn.params.get("accs", ()), j)}
        new = Eqn(eqn.prim, [*eqn.args, acc], params, list(eqn.outs), eqn.span, tuple(regions), eqn.section)
        self.new.eqns[self.new.eqns.index(eqn)] = new
        for o in new.outs:
            self.defs[o.id] = new
        self.changed = True
        return out
