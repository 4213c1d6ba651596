"""Factoring in the backward sweep: the optimized gradient ``Tape`` in, an equivalent ``Tape`` out
that does fewer multiplications and divisions.

The pipeline runs both passes once, after ``optimize`` (see ``finish`` for the order):

- ``common_factors``: a factor common to terms of a sum is multiplied once
  (``a * t + c + b * (s * t)`` -> ``t * (a + b * s) + c``);
- ``merge_reciprocals``: a reciprocal ``1 / q`` read once is not computed on its own
  (``(1 / b) / c`` -> ``1 / (b * c)``, ``(1 / q) * e`` -> ``e / q``).

Both rewrite only the top level of the backward sweep: the forward sweep computes the user's
expressions as written.

    >>> from yota_s2s.dsl.load import load_rules
    >>> from yota_s2s.ir.core import Lit, Section, Tape
    >>> t = Tape("f"); a = t.add_input("a"); b = t.add_input("b"); s = t.add_input("s")
    >>> def add(prim, *args):
    ...     return t.add_eqn(prim, list(args), section=Section.BACKWARD)
    >>> t.outputs = [Lit(None), add("add", add("mul", a, s), add("mul", b, s))]  # a * s + b * s
    >>> [(e.prim, [x.hint for x in e.args]) for e in common_factors(t, load_rules()).eqns]
    [('add', ['a', 'b']), ('mul', ['s', None])]
"""

from __future__ import annotations

from ..dsl.rule import RuleTable
from ..ir.core import Atom, Eqn, Lit, Section, Tape, Var, uses
from ..ir.folding import fold_constant
from ..ir.primitives import primitive
from ..ir.shapes import shape_classes
from .dce import dce
from .values import all_lits, inexact_values, is_const, value_key


def common_factors(tape: Tape, table: RuleTable) -> Tape:
    """In the backward sweep, a factor common to terms of a sum is multiplied once:
    ``a * t + c + b * (s * t)`` is ``t * (a + b * s) + c``.

    The gradient of ``l ** 4 - l ** 2`` is ``-2.0 * l + 4.0 * (l * l * l)``: four operations,
    each a pass over ``l`` when it is an array; ``l * (4.0 * l * l - 2.0)`` is three.  A sum is
    the terms of its nameless sums, differences and negations read only there, a term the
    product of the factors of its nameless products read only there (a named value keeps its
    line).  Each term, left to right, takes the first of its factors that a later term has too
    (a value, or a constant of the same type and value) out of itself and of every later term
    that has it; what is left of each is multiplied in its order (constants folded), and the sum
    of those rests is factored in turn (``a*b*c + a*b*d`` -> ``a * (b * (c + d))``).  Each term
    taken in saves a multiplication, so every term needs a factor besides the common one (``t +
    a * t`` would become ``t * (1 + a)``: as many operations), and a sum without two such terms
    is left as written.  A boolean rest is left alone (``True + True`` is ``True`` in NumPy,
    where ``t + t`` is two ``t``).  Terms are found by an index of their factors, so a sum of n
    terms costs about n (the gradients of a 10,000-term polynomial are sums of thousands).  Top
    level only; the forward sweep computes the user's expressions as written.
    """
    factoring = _Factoring(tape)
    changed = False
    for eqn in tape.eqns:
        if eqn.section == Section.BACKWARD and eqn.prim in _SUMS and len(eqn.outs) == 1:
            factoring.defs[eqn.out.id] = eqn
            reader = factoring.readers.get(eqn.out.id)
            if (
                factoring.part(eqn.out, _SUMS)
                and reader is not None
                and reader.prim in _SUMS
                and reader.section == Section.BACKWARD
            ):
                pass  # a part of a larger sum, factored with it
            elif factoring.factor_sum(eqn):
                changed = True
                continue
        factoring.new.eqns.append(eqn)
        factoring.defs.update((o.id, eqn) for o in eqn.outs)
    return dce(factoring.new, table) if changed else tape


_SUMS = ("add", "sub")


class _Factoring:
    """One ``common_factors`` pass: the tape it writes, and what it knows of each value (its
    equation, how many read it, which equation reads it) as the walk meets the equations."""

    def __init__(self, tape: Tape):
        #: value id -> how many equations and outputs read it (1 for a value made here)
        self.count: dict[int, int] = uses(tape)
        #: value id -> the (last) equation of ``tape`` that reads it
        self.readers: dict[int, Eqn] = {a.id: eqn for eqn in tape.eqns for a in eqn.args if isinstance(a, Var)}
        #: value id -> its equation: those of ``tape`` met so far, and those made here
        self.defs: dict[int, Eqn] = {}
        #: the factored tape, written as the walk goes
        self.new = tape.copy_header()
        self.new.outputs = list(tape.outputs)

    def part(self, a: Atom, prims: tuple) -> Eqn | None:
        """``a``'s equation, when ``a`` is a part of its one reader (a nameless ``prims``, read once)."""
        d = self.defs.get(a.id) if isinstance(a, Var) else None
        if d is None or d.prim not in prims or self.count.get(a.id) != 1:
            return None
        return d if a.hint is None and a.grad_of is None else None

    def factors(self, a: Atom) -> list[Atom]:
        """The factors of the product ``a``, through its nameless products read only there."""
        found, todo = [], [a]
        while todo:  # (a loop: a product of a thousand factors is a chain a thousand deep)
            b = todo.pop()
            d = self.part(b, ("mul",))
            if d is None:
                found.append(b)
            else:
                todo += [d.args[1], d.args[0]]
        return found

    def terms(self, a: Atom, sign: int) -> list[tuple[int, Atom]]:
        """The signed terms of the sum ``a``, through its nameless sums, differences and negations."""
        found, todo = [], [(a, sign)]
        while todo:
            b, s = todo.pop()
            d = self.part(b, (*_SUMS, "neg"))
            if d is None:
                found.append((s, b))
            elif d.prim == "neg":
                todo.append((d.args[0], -s))
            else:
                todo += [(d.args[1], s if d.prim == "add" else -s), (d.args[0], s)]
        return found

    def boolean(self, a: Atom) -> bool:
        d = self.defs.get(a.id) if isinstance(a, Var) else None
        return (isinstance(a, Lit) and type(a.value) is bool) or (d is not None and primitive(d.prim).boolean)

    def put(self, prim: str, args: list[Atom], span, out: Var | None = None, factor: bool = False) -> Atom:
        """A new equation (``out`` its result if given), folded when its operands are constants;
        a new sum factored when ``factor``."""
        if out is None and all_lits(args):
            ok, value = fold_constant(prim, [a.value for a in args])
            if ok:
                return Lit(value)
        if prim == "add" and _negative(args[0]):  # -2.0 + y -> y - 2.0
            prim, args = "sub", [args[1], Lit(-args[0].value)]
        elif prim in _SUMS and _negative(args[1]):
            prim, args = "sub" if prim == "add" else "add", [args[0], Lit(-args[1].value)]
        eqn = Eqn(prim, args, {}, [out or Var()], span, (), Section.BACKWARD)
        if not (factor and self.factor_sum(eqn)):
            self.new.eqns.append(eqn)
            self.defs[eqn.out.id] = eqn
        self.count.setdefault(eqn.out.id, 1)
        return eqn.out

    def product(self, parts: list[Atom], span) -> Atom:
        lits = [p for p in parts if isinstance(p, Lit)]
        if len(lits) > 1:  # the constants folded into the first one's place
            folded = lits[0]
            for c in lits[1:]:
                folded = self.put("mul", [folded, c], span)
            parts = [folded if p is lits[0] else p for p in parts if not isinstance(p, Lit) or p is lits[0]]
        total = parts[0]
        for p in parts[1:]:
            total = self.put("mul", [total, p], span)
        return total

    def summed(self, items: list[tuple[int, Atom]], span, out: Var | None = None, factor: bool = False) -> Atom:
        """The sum of signed terms, left to right (the first one's sign positive), the last
        equation's result ``out``; factored once, at the end, when ``factor``."""
        total = items[0][1]
        for n, (sign, a) in enumerate(items[1:], 2):
            last = n == len(items)
            total = self.put("add" if sign > 0 else "sub", [total, a], span, out if last else None, factor and last)
        return total

    def factor_sum(self, eqn: Eqn) -> bool:
        """Write ``eqn`` (a sum) factored into ``new`` (its result the same variable); False when
        no two of its terms share a factor."""
        items = self.terms(eqn.args[0], 1) + self.terms(eqn.args[1], 1 if eqn.prim == "add" else -1)
        fs = [self.factors(a) for _, a in items]
        where: dict[object, list[int]] = {}  # a factor's key -> the terms that have it, in order
        for i, f in enumerate(fs):
            if len(f) >= 2:
                for k in dict.fromkeys(_factor_key(t) for t in f if _factor_key(t) is not None):
                    where.setdefault(k, []).append(i)
        alive = [True] * len(items)
        result: list[tuple[int, Atom]] = []
        for i, (sign, a) in enumerate(items):
            if not alive[i]:
                continue
            for t in fs[i] if len(fs[i]) >= 2 else ():
                mine = _without(fs[i], t) if _factor_key(t) is not None else []
                if all(map(self.boolean, mine)):  # (no rest, or a boolean one)
                    continue
                kept, partners = [], []
                for j in where.get(_factor_key(t), ()):
                    if j > i and alive[j]:
                        theirs = _without(fs[j], t)
                        (kept if all(map(self.boolean, theirs)) else partners).append((j, theirs))
                where[_factor_key(t)] = [j for j, _ in kept]  # each term is looked at once per factor it has
                if not partners:
                    continue
                rests = [(1, self.product(mine, eqn.span))]
                for j, theirs in partners:
                    alive[j] = False
                    rests.append((items[j][0] * sign, self.product(theirs, eqn.span)))
                a = self.put("mul", [t, self.summed(rests, eqn.span, factor=True)], eqn.span)
                break
            result.append((sign, a))
        if len(result) == len(items) or not isinstance(result[0][1], Var):
            return False  # (a constant: every term was one, and the sum would have been folded)
        if len(result) == 1:  # the one product, made again as the sum's result
            sign, a = result[0]
            d = self.defs[a.id]
            self.put(d.prim, d.args, eqn.span, eqn.out) if sign > 0 else self.put("neg", [a], eqn.span, eqn.out)
        else:
            if result[0][0] < 0:
                result[0] = (1, self.put("neg", [result[0][1]], eqn.span))
            self.summed(result, eqn.span, eqn.out)
        return True


def _factor_key(a: Atom):
    """What tells factors apart: a value, or a number of the same type and value."""
    if isinstance(a, Var):
        return a.id
    return a.key() if type(a.value) in (int, float) else None  # (not a bool, nor a tuple)


def _without(fs: list[Atom], t: Atom) -> list[Atom]:
    """``fs`` without one ``t`` (a factor with a key)."""
    i = next(i for i, f in enumerate(fs) if _factor_key(f) == _factor_key(t))
    return fs[:i] + fs[i + 1 :]


def _negative(a: Atom) -> bool:
    return isinstance(a, Lit) and type(a.value) in (int, float) and a.value < 0


def merge_reciprocals(tape: Tape, table: RuleTable) -> Tape:
    """In the backward sweep, a reciprocal ``1 / q`` read once is not computed on its own:
    ``(1 / b) / c`` is ``1 / (b * c)`` and ``(1 / q) * e`` is ``e / q``.

    The gradient of ``1.0 / (1.0 + np.exp(-x))`` reuses the quotient ``_t3 = 1.0 / _t2`` as
    ``_t3 / _t2 * _t1``.  Without the value (``--no-value``) nothing else reads ``_t3``, and
    ``_t1 / (_t2 * _t2)`` is one product and one division where that was two divisions and a
    product (a NumPy division costs about 1.4 products).  Where the reciprocal is read again
    (the value), nothing changes; nor where ``q`` (``b``) is smaller than the result: the
    reciprocal of a count, ``1.0 / n * r``, is one division of a number, and ``r / n`` would
    divide the array.  ``b * c`` is made only when ``b`` or ``c`` is surely inexact (an integer
    product could overflow where the quotients do not).  The forward sweep computes the user's
    expressions as written.  Top level only.
    """
    if not any(e.prim == "truediv" and is_const(e.args[0], 1) for e in tape.eqns):
        return tape  # (no reciprocal, in either sweep: the analyses below cost a pass each over a large tape)
    count = uses(tape)
    inexact = inexact_values(tape)
    classes = shape_classes(tape, table, scalar_keys=frozenset())
    made: dict[Atom, frozenset] = {}  # the class of each product made here
    defs: dict[int, Eqn] = {}

    def reciprocal(a: Atom, out: Var) -> Eqn | None:  # the equation of a: 1 / q, read once, q as large as out
        d = defs.get(a.id) if isinstance(a, Var) else None
        if d is None or d.prim != "truediv" or not is_const(d.args[0], 1) or count.get(a.id) != 1:
            return None
        return d if made.get(d.args[1], classes.of(d.args[1])) == classes.of(out) else None

    new = tape.copy_header()
    new.outputs = list(tape.outputs)
    changed = False
    for eqn in tape.eqns:
        if eqn.section == Section.BACKWARD and len(eqn.outs) == 1 and not eqn.regions:
            a, span, outs = eqn.args, eqn.span, list(eqn.outs)
            if (
                eqn.prim == "truediv"
                and (d := reciprocal(a[0], outs[0]))
                and {value_key(d.args[1]), value_key(a[1])} & inexact
            ):
                product = Var()
                made[product] = classes.broadcast([classes.of(d.args[1]), classes.of(a[1])])
                new.eqns.append(Eqn("mul", [d.args[1], a[1]], {}, [product], span, (), Section.BACKWARD))
                eqn, changed = Eqn("truediv", [d.args[0], product], {}, outs, span, (), Section.BACKWARD), True
            elif eqn.prim == "mul":
                for r, other in ((a[0], a[1]), (a[1], a[0])):
                    if d := reciprocal(r, outs[0]):
                        eqn, changed = Eqn("truediv", [other, d.args[1]], {}, outs, span, (), Section.BACKWARD), True
                        break
        defs.update((o.id, eqn) for o in eqn.outs)
        new.eqns.append(eqn)
    return dce(new, table) if changed else tape
