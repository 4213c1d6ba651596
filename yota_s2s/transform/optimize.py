"""Stage 4, optimize: a ``Tape`` in, an equivalent smaller ``Tape`` out.

Runs to a fixed point, in one forward walk per round:

- **constant folding**: ``mul(2, 3)`` -> ``6``;
- **algebraic identities**: ``mul(x, 1.0)`` -> ``x``, ``add(a, neg(b))`` ->
  ``sub(a, b)``, ``neg(neg(x))`` -> ``x``, ``unbroadcast(g, x)`` -> ``g`` when
  the shape classes of ``g`` and ``x`` are equal (see ``shapes``), a scalar
  spread by ``unreduce`` kept scalar through elementwise steps
  (``mul(unreduce(1.0, e), e)`` -> ``e``), gradient contributions of
  ``x[i]`` reads folded into one buffer (``add(A, index_add(grad_zeros(x), g,
  i))`` -> ``index_add(A, g, i)``), and in the backward sweep factors constant
  along a sum's axes taken out of it (``sum(q * b, 1, keepdims)`` -> ``q *
  sum(b, 1, keepdims)``), ``a / b * b`` -> ``a`` and ``g - g`` -> zeros, kept
  zero through products (the ``max`` of a stable log-sum-exp gets no gradient);
- **CSE**: value numbering on ``(prim, args, params)`` over pure primitives,
  with ``add``/``mul`` arguments in a canonical order; the forward and
  backward sections are numbered together, so the backward sweep reuses
  forward values;

then **DCE** drops equations whose values nothing uses.  Every rewrite keeps
the value of every output (tests check it with the interpreter on random
inputs).

    >>> from yota_s2s.dsl.load import load_rules
    >>> from yota_s2s.ir.core import Lit, Tape
    >>> t = Tape("f"); x = t.add_input("x")
    >>> a = t.add_eqn("exp", [x]); b = t.add_eqn("exp", [x])
    >>> t.outputs = [t.add_eqn("mul", [t.add_eqn("mul", [a, Lit(1)]), b])]
    >>> [e.prim for e in optimize(t, load_rules()).eqns]
    ['exp', 'mul']
"""

from __future__ import annotations

from ..dsl.rule import RuleTable
from ..ir.core import Atom, Eqn, Input, Lit, Section, Slice, Tape, Var, uses
from ..ir.primitives import fold_constant, primitive
from ..ir.regions import LEADING, first_carried
from ..ir.shapes import SCALAR, ShapeClasses, shape_classes
from .dce import dce
from .values import all_lits, is_const, value_key

_MAX_ROUNDS = 50


def optimize(tape: Tape, table: RuleTable, reduce_powers: bool = True) -> Tape:
    """Fold, simplify, CSE and DCE ``tape`` to a fixed point.

    ``reduce_powers=False`` keeps ``x ** 3`` a power: the pipeline optimizes the primal tape
    that way, so that the gradient uses the power rule (``3 * x ** 2``) rather than the product
    rule through ``x * x * x``; the final pass then writes both as products sharing ``x * x``.
    """
    # a region (a loop body, a branch) has no scalar output to assume
    keys = frozenset() if tape.facts.region else shape_classes(tape, table).scalar_keys
    for _ in range(_MAX_ROUNDS):
        new, changed = _Rewriter(tape, table, keys, reduce_powers).run()
        new = dce(new, table)
        if not changed and len(new.eqns) == len(tape.eqns):
            return new
        if not any(e.regions for e in new.eqns):
            # straight-line code is at its fixed point after one round: each equation is simplified
            # with its arguments already rewritten, and a rewrite's new equations are simplified as
            # they are made.  Only the loop and branch rewrites look at use counts of the previous
            # round's tape, which DCE changes.  (Checked: a second round on the whole test suite's
            # straight-line tapes never changed anything.)
            return new
        tape = new
    return tape


def _optimize_region(region: Tape, table: RuleTable, reduce_powers: bool) -> Tape:
    region.facts.region = True
    return optimize(region, table, reduce_powers)


class _Rewriter:
    def __init__(self, tape: Tape, table: RuleTable, scalar_keys: frozenset, reduce_powers: bool = True):
        self.reduce_powers = reduce_powers
        self.old = tape
        self.table = table
        self.new = tape.copy_header()
        self.sc = ShapeClasses(table, scalar_keys)
        for inp in tape.inputs:
            self.sc.add_input(inp.var, inp.path)
        self.sc.same.update(tape.facts.same_shape)
        self.sc.resolve = self.resolve
        self.subst: dict[int, Atom] = {}
        self.defs: dict[int, Eqn] = {}
        self.cse: dict[tuple, Var] = {}
        self.changed = False
        self.current: Eqn | None = None

    def run(self) -> tuple[Tape, bool]:
        self.old_uses = uses(self.old)
        for eqn in self.old.eqns:
            self.current = eqn
            subst = self.subst
            args = [self.resolve(a) if isinstance(a, Var) and a.id in subst else a for a in eqn.args]
            if eqn.regions:  # a loop or branch: its regions are optimized on their own, never merged
                spread = self.spread_carries(eqn, args) if eqn.prim in ("for_back", "while_back") else None
                if spread is not None:
                    eqn, args, spread = spread
                regions = tuple(_optimize_region(r, self.table, self.reduce_powers) for r in eqn.regions)
                new = Eqn(eqn.prim, args, dict(eqn.params), list(eqn.outs), eqn.span, regions, eqn.section)
                self.new.eqns.append(new)
                self.sc.add_eqn(new)
                for o in new.outs:
                    self.defs[o.id] = new
                for old, (out, ref, params) in (spread or {}).items():
                    self.subst[old.id] = self.add("unreduce", [out, ref], params)
                    self.keep_name(old, self.subst[old.id])
                continue
            result = self.process(eqn.prim, args, eqn.params, eqn.out)
            if result is not eqn.out:
                self.subst[eqn.out.id] = result
                self.keep_name(eqn.out, result)
        self.new.outputs = [self.resolve(a) for a in self.old.outputs]
        return self.new, self.changed

    def spread_carries(self, eqn: Eqn, args: list[Atom]):
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
            trial = _optimize_region(trial, self.table, self.reduce_powers)
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

    def keep_name(self, old: Var, new: Atom) -> None:
        """Carry a user name or gradient name over to the value that replaced it."""
        if not isinstance(new, Var) or new.hint is not None or new.grad_of is not None:
            return
        d = self.defs.get(new.id)
        if old.hint is not None and (d is None or d.section == self.current.section):
            new.hint, new.hint_depth = old.hint, old.hint_depth
        elif old.grad_of is not None and d is not None and d.section == Section.BACKWARD:
            new.grad_of = old.grad_of

    def resolve(self, a: Atom) -> Atom:
        while isinstance(a, Var) and a.id in self.subst:
            a = self.subst[a.id]
        return a

    def cls(self, a: Atom) -> frozenset:
        return self.sc.of(a)

    def def_of(self, a: Atom, prim: str) -> Eqn | None:
        eqn = self.defs.get(a.id) if isinstance(a, Var) else None
        return eqn if eqn is not None and eqn.prim == prim else None

    def process(self, prim: str, args: list[Atom], params: dict, out: Var | None) -> Atom:
        """Simplify ``prim(args)``, look it up for CSE, else append it; return its value."""
        for _ in range(16):
            step = self.simplify(prim, args, params)
            if step is None:
                break
            self.changed = True
            if type(step) is not tuple:  # an atom
                return step
            prim, args, params = step
        rule = self.table.rules.get(prim)
        pure = rule is None or rule.pure
        key = None
        if pure:
            arg_keys = [value_key(a) for a in args]
            if primitive(prim).commutative:
                arg_keys.sort()
            key = (prim, tuple(arg_keys), tuple(sorted(params.items())) if params else ())
            hit = self.cse.get(key)
            if hit is not None:
                self.changed = True
                if out is not None:
                    if hit.hint is None and out.hint is not None:
                        hit.hint, hit.hint_depth = out.hint, out.hint_depth
                    if hit.grad_of is None and hit.hint is None:
                        hit.grad_of = out.grad_of
                return hit
        if out is None:
            out = Var()
        span = self.current.span if self.current else None
        section = self.current.section if self.current else Section.FORWARD
        eqn = Eqn(prim, args, dict(params), [out], span, (), section)
        self.new.eqns.append(eqn)
        self.sc.add_eqn(eqn)
        self.defs[out.id] = eqn
        if key is not None:
            self.cse[key] = out
        return out

    def add(self, prim: str, args: list[Atom], params: dict | None = None) -> Atom:
        return self.process(prim, args, params or {}, None)

    # ------------------------------------------------------------------ identities
    def simplify(self, prim: str, args: list[Atom], params: dict):
        """One rewrite of ``prim(args)``: an atom, a new ``(prim, args, params)``, or None."""
        if all_lits(args):
            ok, value = fold_constant(prim, [a.value for a in args])
            if ok:
                return Lit(value)
        method = _SIMPLIFIERS.get(prim)
        return method(self, args, params) if method else None

    def _keeps_shape(self, prim: str, args: list[Atom], params: dict, a: Atom) -> bool:
        return self.sc.infer(prim, args, params) == self.cls(a)

    def _neutral(self, a: Atom, value: float, other: Atom) -> bool:
        """``a`` is the constant ``value`` and dropping it from ``op(other, a)`` keeps the dtype.

        ``x * 1.0`` turns an int or bool ``x`` into a float, so a float 1.0 or 0.0 is dropped only
        in the backward sweep (whose values are gradients: floats), and never from a comparison's
        boolean result (``dout * (x > 0)`` with ``dout`` 1.0 stays a float).
        """
        if not isinstance(a, Lit) or not is_const(a, value):
            return False
        if type(a.value) is int:
            return True
        d = self.defs.get(other.id) if isinstance(other, Var) else None
        return self._backward() and not isinstance(other, Lit) and (d is None or not primitive(d.prim).boolean)

    def _lazy_scalar(self, prim: str, args: list[Atom]):
        """Keep a spread scalar (the gradient of ``sum``) unspread through elementwise steps.

        ``op(unreduce(s, X), c)`` -> ``unreduce(op(s, c), X)`` for a scalar ``c``;
        ``op(unreduce(s, X), y)`` -> ``op(s, y)`` when ``y`` has the shape of ``X``.
        """
        for i, a in enumerate(args):
            u = self.defs.get(a.id) if isinstance(a, Var) else None
            if u is None or u.prim != "unreduce":
                continue
            others = [b for j, b in enumerate(args) if j != i]
            if others and all(self.cls(b) == frozenset() for b in others):
                inner = list(args)
                inner[i] = u.args[0]
                return "unreduce", [self.add(prim, inner), u.args[1]], dict(u.params)
            if u.params["axis"] is not None and not u.params["keepdims"]:
                continue
            if others and all(self.cls(b) == self.cls(u.args[1]) for b in others):
                new_args = list(args)
                new_args[i] = u.args[0]
                return prim, new_args, {}
        return None

    def simplify_add(self, args: list[Atom], params: dict):
        a, b = args
        if self._neutral(b, 0, a) and self._keeps_shape("add", args, params, a):
            return a
        if self._neutral(a, 0, b) and self._keeps_shape("add", args, params, b):
            return b
        if n := self.def_of(b, "neg"):
            return "sub", [a, n.args[0]], {}
        if n := self.def_of(a, "neg"):
            return "sub", [b, n.args[0]], {}
        if a is b:
            return "mul", [Lit(2), a], {}
        if gram := self._gram_adjoint(a, b) or self._gram_adjoint(b, a):
            return gram
        for acc, part in ((a, b), (b, a)):
            z = self.def_of(part, "grad_zeros")
            if z is not None and self.cls(acc) == self.cls(z.args[0]):
                return acc
        for acc, part in ((a, b), (b, a)):
            if not isinstance(part, Var) or self.old_uses.get(part.id, 0) != 1:
                continue
            d = self.defs.get(part.id)
            if d is not None and d.prim == "if_back" and self.before(acc, d):
                return self.accumulate_in_branches(d, part, acc)
            if d is not None and d.prim in ("for_back", "while_back") and self.before(acc, d):
                folded = self.accumulate_in_loop(d, part, acc)
                if folded is not None:
                    return folded
        for acc, part in ((a, b), (b, a)):
            # acc + index_add(...index_add(grad_zeros(x), g1, i1)..., gn, in): add g1..gn into acc
            chain = []
            ia = self.def_of(part, "index_add")
            while ia is not None:
                chain.append(ia)
                ia = self.def_of(ia.args[0], "index_add")
            if not chain:
                continue
            z = self.def_of(chain[-1].args[0], "grad_zeros")
            if z is not None and self.cls(acc) == self.cls(z.args[0]):
                total = acc
                for ia in reversed(chain[1:]):
                    total = self.add("index_add", [total, *ia.args[1:]], dict(ia.params))
                return "index_add", [total, *chain[0].args[1:]], dict(chain[0].params)
        return self._lazy_scalar("add", args)

    def _gram_adjoint(self, a: Atom, b: Atom):
        """The two contributions to ``dx`` of ``x.T @ x`` (or ``x @ x.T``) as one product.

        ``matmul_dy(g, t, x) + transpose(matmul_dx(g, t, x))`` with ``t = transpose(x)`` ->
        ``xtx_dx(g, x)``, written ``x @ (g + g.T)`` for a matrix (one matmul, not two); and
        ``matmul_dx(g, x, t) + transpose(matmul_dy(g, x, t))`` -> ``xxt_dx(g, x)``.  The helpers
        fall back to the two products for other ranks, so the rewrite holds for any operands.
        """
        outer = self.def_of(b, "transpose")
        if outer is None or outer.params.get("axes") is not None:
            return None
        for prim, other, helper in (("matmul_dy", "matmul_dx", "xtx_dx"), ("matmul_dx", "matmul_dy", "xxt_dx")):
            first, second = self.def_of(a, prim), self.def_of(outer.args[0], other)
            if first is None or second is None or first.args != second.args:
                continue
            g, left, right = first.args
            x, t = (right, left) if helper == "xtx_dx" else (left, right)
            tr = self.def_of(t, "transpose")
            if tr is not None and tr.params.get("axes") is None and tr.args[0] is x:
                return helper, [g, x], {}
        return None

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

    def before(self, a: Atom, eqn: Eqn) -> bool:
        """``a`` is available where ``eqn`` stands in the new tape."""
        if not isinstance(a, Var) or a.id not in self.defs:
            return True  # a constant or an input
        d = self.defs[a.id]
        return self.new.eqns.index(d) < self.new.eqns.index(eqn)

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
            regions.append(_optimize_region(region, self.table, self.reduce_powers))
        params = {**eqn.params, "accs": (*eqn.params.get("accs", ()), j)}
        new = Eqn(eqn.prim, [*eqn.args, acc], params, list(eqn.outs), eqn.span, tuple(regions), eqn.section)
        self.new.eqns[self.new.eqns.index(eqn)] = new
        for o in new.outs:
            self.defs[o.id] = new
        self.changed = True
        return out

    def _backward(self) -> bool:
        """The equation being simplified is in the backward sweep (its values are gradients:
        floats, free of the forward's promise to compute exactly what the user wrote)."""
        return self.current is not None and self.current.section == Section.BACKWARD

    def _zero_operand(self, prim: str, args: list[Atom], params: dict, positions: tuple = (0, 1)):
        """``grad_zeros(w) * y`` (or ``/ y``) -> zeros of the product's shape, when an operand
        (``w`` or ``y``) has that shape: a zero gradient at one of ``positions`` stays zero
        through a product or quotient."""
        for a in (args[i] for i in positions):
            if self.def_of(a, "grad_zeros") is None:
                continue
            result = self.sc.infer(prim, args, params)
            if result == self.cls(a):
                return a
            other = next((b for b in args if b is not a and isinstance(b, Var)), None)
            if other is not None and result == self.cls(other):
                return "grad_zeros", [other], {}
        return None

    def simplify_sub(self, args: list[Atom], params: dict):
        a, b = args
        if a is b and self._backward():
            return "grad_zeros", [a], {}
        if self.def_of(b, "grad_zeros") and self._keeps_shape("sub", args, params, a):
            return a
        if self.def_of(a, "grad_zeros") and self._keeps_shape("sub", args, params, b):
            return "neg", [b], {}
        if self._neutral(b, 0, a) and self._keeps_shape("sub", args, params, a):
            return a
        if self._neutral(a, 0, b) and self._keeps_shape("sub", args, params, b):
            return "neg", [b], {}
        if n := self.def_of(b, "neg"):
            return "add", [a, n.args[0]], {}
        return self._lazy_scalar("sub", args)

    def simplify_mul(self, args: list[Atom], params: dict):
        a, b = args
        if zero := self._zero_operand("mul", args, params):
            return zero
        for x, y in ((a, b), (b, a)):
            q = self.def_of(x, "truediv")
            if q and q.args[1] is y and self._backward() and self._keeps_shape("mul", args, params, q.args[0]):
                return q.args[0]  # a / b * b -> a (a gradient: a float, like the quotient)
            if self._neutral(y, 1, x) and self._keeps_shape("mul", args, params, x):
                return x
            if self._neutral(y, -1, x) and self._keeps_shape("mul", args, params, x):
                return "neg", [x], {}
            if isinstance(y, Lit) and (m := self.def_of(x, "mul")):
                for c, z in (m.args, m.args[::-1]):
                    if isinstance(c, Lit):
                        ok, value = fold_constant("mul", [y.value, c.value])
                        if ok:
                            return "mul", [Lit(value), z], {}
        for i, x in enumerate(args):
            if n := self.def_of(x, "neg"):
                inner = list(args)
                inner[i] = n.args[0]
                return "neg", [self.add("mul", inner)], {}
        return self._lazy_scalar("mul", args)

    def simplify_truediv(self, args: list[Atom], params: dict):
        a, b = args
        if zero := self._zero_operand("truediv", args, params, positions=(0,)):  # 0 / b, never b / 0
            return zero
        if self._neutral(b, 1, a) and self._keeps_shape("truediv", args, params, a):
            return a
        if n := self.def_of(a, "neg"):
            return "neg", [self.add("truediv", [n.args[0], b])], {}
        return self._lazy_scalar("truediv", args)

    def simplify_neg(self, args: list[Atom], params: dict):
        (a,) = args
        if self.def_of(a, "grad_zeros"):
            return a
        if n := self.def_of(a, "neg"):
            return n.args[0]
        if s := self.def_of(a, "sub"):
            return "sub", [s.args[1], s.args[0]], {}
        if u := self.def_of(a, "unreduce"):
            return "unreduce", [self.add("neg", [u.args[0]]), u.args[1]], dict(u.params)
        return None

    def simplify_power(self, args: list[Atom], params: dict):
        """``x ** 1`` -> ``x``; ``x ** 2``, ``x ** 3``, ``x ** 4`` -> products (strength reduction).

        NumPy's ``x ** 3`` on an array takes its slow general path (about 100x ``x * x * x``);
        the products are shared by CSE with the ``x * x`` the gradient needs.
        """
        x, p = args
        if self._neutral(p, 1, x) and self._keeps_shape("power", args, params, x):
            return x
        if self.reduce_powers and isinstance(p, Lit) and type(p.value) in (int, float) and p.value in (2, 3, 4):
            square = self.add("mul", [x, x])
            if p.value == 2:
                return square
            return "mul", [square, x if p.value == 3 else square], {}
        return None

    def simplify_unbroadcast(self, args: list[Atom], params: dict):
        g, x = args
        if self.cls(g) == self.cls(x):
            return g
        if u := self._spread(g):
            # summing a spread scalar s over the axes x was broadcast along: s times their size
            count = self.add("truediv", [self.add("size", [u.args[1]]), self.add("size", [x])])
            return "unreduce", [self.add("mul", [u.args[0], count]), x], dict(u.params)
        return self._unbroadcast_keepdims(g, x)

    def _unbroadcast_keepdims(self, g: Atom, x: Atom):
        """``unbroadcast(g, x)`` -> ``sum(g, axis, keepdims=True)`` when ``x`` has the shape of a
        keepdims reduction over ``axis`` of a value shaped like ``g`` (``zmax = max(z, axis=1,
        keepdims=True)``, ``g`` the gradient of ``z - zmax``): the axes to sum are known, so no
        run-time shape test is needed (see ``shapes.ShapeClasses.keepdims_of``)."""
        axis = self.sc.keepdims_of(self.cls(x), self.cls(g))
        if axis is False:
            return None
        return "sum", [g], {"axis": axis, "keepdims": True}

    def simplify_reshape(self, args: list[Atom], params: dict):
        """``reshape(unreduce(s, X), shape(v))`` -> ``unreduce(s, v)``: a spread scalar reshaped
        to ``v``'s shape is that scalar spread over ``v``."""
        g, newshape = args
        u = self._spread(g)
        target = self.def_of(newshape, "shape")
        if u is not None and target is not None:
            return "unreduce", [u.args[0], target.args[0]], dict(u.params)
        return None

    def _spread(self, a: Atom) -> Eqn | None:
        """The ``unreduce(s, X)`` that defines ``a`` when it spreads one scalar over all of ``X``."""
        u = self.def_of(a, "unreduce")
        return u if u is not None and u.params["axis"] is None and self.cls(u.args[0]) == frozenset() else None

    def simplify_size(self, args: list[Atom], params: dict):
        (a,) = args
        if self.cls(a) == frozenset():  # a scalar has one element
            return Lit(1)
        return None

    def simplify_index_add(self, args: list[Atom], params: dict):
        """``index_add(grad_zeros(x), g, index=[:, None])``: an index of full slices and new axes
        only reshapes ``x``, so the gradient is ``g`` reshaped (no buffer, no scatter)."""
        buf, g, *dynamic = args
        z = self.def_of(buf, "grad_zeros")
        if z is None or dynamic:
            return None
        index = params["index"]
        if not all(i is None or i == Slice() for i in index) or Slice() not in index and None not in index:
            return None
        return "reshape", [g, self.add("shape", [z.args[0]])], {}

    def simplify_sum(self, args: list[Atom], params: dict):
        """In the backward sweep, a factor constant along the summed axes leaves the sum:
        ``sum(-x)`` -> ``-sum(x)``, and ``sum(q * b, axis, keepdims=True)`` -> ``q * sum(b, axis,
        keepdims=True)`` when ``q`` is a scalar or has the shape of a keepdims reduction of ``b``
        over ``axis``.  ``sum(b)`` is then often a forward value (CSE), which is what cancels the
        gradient through the ``max`` of a stable log-sum-exp: ``dlse / s * e`` summed is
        ``dlse / s * s``, that is ``dlse``, and the ``max``'s share ``dlse - dlse`` is zero.
        """
        (x,) = args
        if not self._backward() or type(params.get("keepdims", False)) is not bool:
            return None
        if n := self.def_of(x, "neg"):
            return "neg", [self.add("sum", [n.args[0]], params)], {}
        m = self.def_of(x, "mul")
        if m is None:
            return None
        for q, b in (m.args, m.args[::-1]):
            if (
                self.cls(q) == SCALAR
                or params.get("keepdims")
                and self.sc.kept_along(self.cls(q), self.cls(b), params.get("axis", None))
            ):
                return "mul", [q, self.add("sum", [b], params)], {}
        return None

    def simplify_keep_axes(self, args: list[Atom], params: dict):
        if params["axis"] is None or params["keepdims"]:  # nothing was removed
            return args[0]
        return None


#: ``prim`` -> its ``_Rewriter.simplify_<prim>`` (looked up once, not per equation).
_SIMPLIFIERS = {name[len("simplify_") :]: f for name, f in vars(_Rewriter).items() if name.startswith("simplify_")}
