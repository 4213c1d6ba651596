"""``--sparse`` (``transform.compressed``): a compressed sweep's products and sums regrouped, so that
fewer operations are on batched values (each is colors times larger than the function's own).

A batched sweep is linear in its seeds: each batched value is a seed's image times factors of the
function's own values.  The optimizer orders a product as the rules wrote it, ``(v * t1) * t1``
(two operations on colors x n numbers); here a chain of products with one batched factor multiplies
the unbatched ones first, ``v * (t1 * t1)`` (one; ``t1 * t1`` is found where the tape already has
it), and a sum that adds one batched product several times multiplies its unbatched factor instead
(``p + p + p`` with ``p = v * t``: ``v * (t * 3.0)``).  The terms of a sum that ``transform.compressed``
keeps (they read the seeds alone) are added first, so that their sum is kept too.

The order of a product or a sum changes the last bits of a result, as any optimizer's does.
Broadcasting stays as it was: in a chain with no ``rows_lift`` between its operations, the batched
factor's rows have at least the dimensions of every other factor (the batching lifts it otherwise).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from ..ir.core import Eqn, Lit, Var

Term = tuple[object, float]  # an operand of a sum and its sign (or coefficient)


def _key(a: object) -> object:
    return ("v", a.id) if isinstance(a, Var) else ("l", repr(getattr(a, "value", a)))


class _Regrouper:
    def __init__(self, eqns: list[Eqn], seeded: set[int], uses: dict[int, int]):
        self.eqns, self.seeded, self.uses = eqns, seeded, uses
        self.defs = {o.id: e for e in eqns for o in e.outs}
        self.products: dict[frozenset | tuple, Var] = {}  # (a, b) -> a * b, where the tape has it
        self.dropped: set[int] = set()  # (id of equations folded into another)
        self.out: list[Eqn] = []
        self.subst: dict[int, object] = {}  # (a product the tape computed before: its value)
        self.made: dict[int, Eqn] = {}  # (each value's equation as written)

    def read(self, a: object) -> object:
        return self.subst.get(a.id, a) if isinstance(a, Var) else a

    def batched(self, a: object) -> bool:
        return isinstance(a, Var) and a.id in self.seeded

    def inner(self, a: object, prims: tuple[str, ...]) -> Eqn | None:
        """The equation of ``a`` when it is a step of the same chain (one use, no parameters)."""
        if not isinstance(a, Var) or self.uses.get(a.id, 0) != 1:
            return None
        d = self.defs.get(a.id)
        return d if d is not None and d.prim in prims and not d.params and not d.regions else None

    def factors(self, eqn: Eqn, chain: list[Eqn]) -> list[object]:
        found = []
        for a in eqn.args:
            d = self.inner(a, ("mul",))
            if d is not None:
                chain.append(d)
                found += self.factors(d, chain)
            else:
                found.append(self.read(a))
        return found

    def terms(self, eqn: Eqn, sign: float, chain: list[Eqn]) -> list[Term]:
        found: list[Term] = []
        for n, a in enumerate(eqn.args):
            s = -sign if eqn.prim == "sub" and n == 1 else sign
            d = self.inner(a, ("add", "sub"))
            if d is not None and len(d.args) == 2:
                chain.append(d)
                found += self.terms(d, s, chain)
            else:
                found.append((self.read(a), s))
        return found

    def product(self, a: object, b: object, like: Eqn) -> Var:
        """``a * b``: the tape's where it has it, else a new equation."""
        key = frozenset((_key(a), _key(b))) if _key(a) != _key(b) else (_key(a),)
        found = self.products.get(key)
        if found is not None:
            return found
        out = Var(hint=None)
        self.out.append(dataclasses.replace(like, prim="mul", args=[a, b], params={}, outs=[out]))
        self.made[out.id] = self.out[-1]
        self.products[key] = out
        if self.batched(a) or self.batched(b):
            self.seeded.add(out.id)
        return out

    def regroup_product(self, eqn: Eqn, fixed: Callable[[object], bool]) -> bool:
        chain: list[Eqn] = []
        leaves = self.factors(eqn, chain)
        batched = [a for a in leaves if self.batched(a)]
        if len(batched) != 1 or len(leaves) < 3:
            return False
        (k,) = batched
        others = [a for a in leaves if not self.batched(a)]
        if fixed(k):  # (a kept factor takes the numbers: their product is kept with it)
            for a in [a for a in others if isinstance(a, Lit)]:
                k = self.product(k, a, eqn)
            others = [a for a in others if not isinstance(a, Lit)]
            if not others:
                return False
        acc = others[0]
        for a in others[1:]:
            acc = self.product(acc, a, eqn)
        self.dropped.update(id(d) for d in chain)
        self.emit(dataclasses.replace(eqn, args=[k, acc]))
        return True

    def alias(self, var: Var, value: object) -> None:
        """``var`` read as ``value`` from here on (its readers read ``value`` more often)."""
        self.subst[var.id] = value
        if isinstance(value, Var):
            self.uses[value.id] = self.uses.get(value.id, 0) + self.uses.get(var.id, 0)

    def emit(self, eqn: Eqn) -> None:
        """``eqn`` written, or its value read from the same product written before."""
        if eqn.prim == "mul" and len(eqn.args) == 2 and not eqn.params and not eqn.regions:
            a, b = eqn.args
            key = frozenset((_key(a), _key(b))) if _key(a) != _key(b) else (_key(a),)
            found = self.products.get(key)
            if found is not None:
                self.alias(eqn.out, found)
                return
            self.products[key] = eqn.out
        self.out.append(eqn)
        self.made[eqn.out.id] = eqn

    def negated_factor(self, eqn: Eqn, fixed: Callable[[object], bool]) -> bool:
        """``-(k * t)``, ``k`` kept (``fixed``) and the product read here alone: ``(-k) * t``,
        whose negation is kept with ``k`` (one operation on batched values fewer a call)."""
        (a,) = eqn.args
        d = self.made.get(a.id) if isinstance(a, Var) and self.uses.get(a.id) == 1 else None
        if d is None or d.prim != "mul" or d.params or len(d.args) != 2:
            return False
        k, t = d.args if fixed(d.args[0]) else d.args[::-1]
        if not fixed(k) or self.batched(t):
            return False
        negated = Var(hint=None)
        self.out.append(dataclasses.replace(eqn, prim="neg", args=[k], params={}, outs=[negated]))
        self.seeded.add(negated.id)
        self.dropped.add(id(d))
        self.out.append(dataclasses.replace(d, args=[negated, t], outs=eqn.outs))
        return True

    def regroup_sum(self, eqn: Eqn, fixed: Callable[[object], bool]) -> bool:
        chain: list[Eqn] = []
        terms = self.terms(eqn, 1.0, chain)
        if len(terms) < 3:
            return False
        counts: dict[object, list] = {}
        for a, s in terms:
            counts.setdefault(_key(a), [a, 0.0])[1] += s
        merged = [(a, c) for a, c in counts.values() if c != 0]
        changed = len(merged) < len(terms)
        scaled: list[Term] = []
        for a, c in merged:
            d = self.made.get(a.id) if isinstance(a, Var) else None
            if abs(c) != 1.0 and d is not None and d.prim == "mul" and not d.params and len(d.args) == 2:
                k, t = [self.read(x) for x in (d.args if self.batched(d.args[0]) else d.args[::-1])]
                if self.batched(k) and not self.batched(t):  # (p + p + p, p = k * t: k * (t * 3.0))
                    a, c = self.product(k, self.product(t, Lit(abs(c)), eqn), eqn), 1.0 if c > 0 else -1.0
            scaled.append((a, c))
        if any(abs(c) != 1.0 for _, c in scaled) or not scaled:
            return False  # (a repeated term that is no batched product: as it was)
        kept = [n for n, (a, _) in enumerate(scaled) if fixed(a)]
        if not changed and (len(kept) < 2 or kept == list(range(len(kept)))):
            return False  # (nothing to merge, and the kept terms are added first already)
        order = sorted(range(len(scaled)), key=lambda n: (n not in kept, scaled[n][1] < 0, n))
        ordered = [scaled[n] for n in order]
        first, sign = ordered[0]
        acc = first
        if sign < 0:
            acc = Var(hint=None)
            self.out.append(dataclasses.replace(eqn, prim="neg", args=[first], params={}, outs=[acc]))
            self.seeded.add(acc.id)
        for n, (a, s) in enumerate(ordered[1:], 1):
            last = n == len(ordered) - 1
            out = eqn.outs if last else [Var(hint=None)]
            self.out.append(
                dataclasses.replace(eqn, prim="add" if s > 0 else "sub", args=[acc, a], params={}, outs=out)
            )
            acc = out[0]
            self.seeded.add(acc.id)
        if len(ordered) == 1:  # (one term left: the sum is its value)
            self.alias(eqn.out, acc)
        self.dropped.update(id(d) for d in chain)
        return True


def regrouped(
    eqns: list[Eqn], seeded: set[int], outputs: set[int], fixed: Callable[[object], bool]
) -> tuple[list[Eqn], dict[int, object]]:
    """``eqns`` (a batched sweep's tape, ``seeded``: the ids of its batched values) with its
    products and sums regrouped (see the module's text), and the values now read from another
    (a product written twice: its first); ``fixed(a)``: ``a`` is a batched value that reads the
    seeds alone (``transform.compressed`` keeps it)."""
    uses: dict[int, int] = dict.fromkeys(outputs, 1)
    for e in eqns:
        for a in e.args:
            if isinstance(a, Var):
                uses[a.id] = uses.get(a.id, 0) + 1
    r = _Regrouper(eqns, set(seeded), uses)
    parents: set[int] = set()  # (ids of the equations a chain reads as a step)
    for eqn in eqns:
        if eqn.prim in ("mul", "add", "sub") and not eqn.params:
            prims = ("mul",) if eqn.prim == "mul" else ("add", "sub")
            parents.update(id(d) for a in eqn.args if (d := r.inner(a, prims)) is not None)
    origin: dict[int, int] = {}  # (an equation reading a product written before: the equation it was)
    copies: list[Eqn] = []
    for first in eqns:
        eqn = first
        if any(isinstance(a, Var) and a.id in r.subst for a in eqn.args):
            eqn = dataclasses.replace(eqn, args=[r.read(a) for a in eqn.args])
            origin[id(eqn)] = id(first)
            copies.append(eqn)  # (alive to the end: its id is a key)
        if id(first) in parents:
            r.out.append(eqn)
            continue
        if eqn.params or eqn.regions or not r.batched(eqn.out):
            r.emit(eqn)
            continue
        done = False
        if eqn.prim == "neg" and len(eqn.args) == 1:
            done = r.negated_factor(eqn, fixed)
        elif eqn.prim == "mul" and len(eqn.args) == 2:
            done = r.regroup_product(eqn, fixed)
        elif eqn.prim in ("add", "sub") and len(eqn.args) == 2:
            done = r.regroup_sum(eqn, fixed)
        if not done:
            r.emit(eqn)
    return [e for e in r.out if id(e) not in r.dropped and origin.get(id(e), id(e)) not in r.dropped], r.subst
