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
from ..ir.regions import LEADING, bound_positions, first_carried, substitute
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

    def hoist_reads(self, eqn: Eqn, args: list[Atom]) -> tuple[Eqn, list[Atom]] | None:
        """A ``for`` loop's reads of a value from outside at constant integers (``a = p[0]``), where
        it reads nothing else of it, made once before the loop and read in it as values from outside.  The loop then saves and
        recomputes none of them, its backward loop sums their gradients as numbers (not written
        into ``dp`` at each step), and a parameter ``p`` read so is a list of Python floats when it
        is a 1-D float array (``plan.listed``: RK4's ``a, b, c, d = p[0], p[1], p[2], p[3]``).
        (A read that would raise, ``p[4]`` of a shorter ``p``, then raises when the loop runs no
        step too.)"""
        if eqn.prim != "for" or len(eqn.regions) != 1:
            return None
        body = eqn.regions[0]
        outer = {var.id: pos for pos, var in bound_positions(eqn)}
        reads = [
            e
            for e in body.eqns
            if e.prim == "getindex"
            and len(e.args) == 1
            and isinstance(e.args[0], Var)
            and e.args[0].id in outer
            and all(type(i) is int for i in e.params["index"])
        ]
        # only a value the body reads at constant indices alone (x[i] and x[2] of one x: its
        # gradient stays one array written in place)
        other = {a.id for e in body.eqns if not any(e is r for r in reads) for a in e.args if isinstance(a, Var)}
        other |= {a.id for a in body.outputs if isinstance(a, Var)}
        reads = [e for e in reads if e.args[0].id not in other]
        if not reads:
            return None
        inputs, args, subst = list(body.inputs), list(args), {}
        gone = {id(e) for e in reads}
        hoisted: dict[int, Var] = {}  # the value before the loop -> the body's input for it
        for e in reads:
            value = self.add("getindex", [args[outer[e.args[0].id]]], dict(e.params))
            if isinstance(value, Var) and value.hint is None:  # (the source's name: a = p[0])
                value.hint, value.hint_depth = e.out.hint, e.out.hint_depth
            if isinstance(value, Var) and value.id in hoisted:
                subst[e.out.id] = hoisted[value.id]
                continue
            inputs.append(Input(e.out, ("#free", str(value.id) if isinstance(value, Var) else str(e.out.id))))
            args.append(value)
            if isinstance(value, Var):
                hoisted[value.id] = e.out
        region = Tape(body.name, inputs, [e for e in body.eqns if id(e) not in gone], list(body.outputs))
        region.facts = body.facts.copy()
        substitute(region, subst)
        self.changed = True
        return Eqn(eqn.prim, args, dict(eqn.params), list(eqn.outs), eqn.span, (region,), eqn.section), args

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
