"""The rewriter's core: one round of value numbering over a ``Tape``.  A ``Tape`` in, an
equivalent ``Tape`` out, and whether anything changed.

``RewriterBase.run`` walks the equations in order.  Each one, its arguments replaced by what
they were rewritten to (``subst``), is simplified (``simplify``: constant folding and the
identities of ``simplify.py``) until no identity applies, then looked up among the pure
equations made so far: value numbering on ``(prim, args, params)``, with the arguments of a
commutative primitive (``add``, ``mul``) in a canonical order.  A hit replaces the equation's
result by the earlier one (common-subexpression elimination); a miss adds the equation to the
new tape.  The forward and backward sections are numbered together, so the backward sweep
reuses forward values.  An impure primitive (a random draw) is never numbered: two
``rng.normal()`` are two values.

A loop or branch is never merged with the tape around it: its regions are optimized on their
own (``optimize_region``), after the rewrites of ``regions.py`` that carry a spread scalar
through a backward loop.  Simplifying ``acc + back[j]`` may move the addition into a backward
loop or branch (``regions.py``).

The rewriter is a class made of parts (mixins), each in its module, on this base, which defines
every attribute they share and declares the methods one part needs from another:

- ``simplify`` (``simplify.Identities``): one rewrite of ``prim(args)``;
- ``spread_carries``, ``accumulate_in_loop``, ``accumulate_in_branches``
  (``regions.RegionRewrites``): the rewrites of loops and branches;
- ``optimize_region`` (``optimize``): the whole optimizer on a region.

    >>> from yota_s2s.dsl.load import load_rules
    >>> from yota_s2s.ir.core import Tape
    >>> class Numbering(RewriterBase):  # value numbering alone: no identity, no region
    ...     def simplify(self, prim, args, params): return None
    >>> t = Tape("f"); x = t.add_input("x"); y = t.add_input("y")
    >>> t.outputs = [t.add_eqn("mul", [t.add_eqn("add", [x, y]), t.add_eqn("add", [y, x])])]
    >>> new, changed = Numbering(t, load_rules(), frozenset()).run()
    >>> [e.prim for e in new.eqns], changed
    (['add', 'mul'], True)
"""

from __future__ import annotations

import functools

from ..dsl.rule import RuleTable
from ..ir.core import Atom, Eqn, Section, Tape, Var, uses
from ..ir.primitives import primitive
from ..ir.shapes import ShapeClasses
from .values import bool_values, value_key

#: What one simplification step gives: the value itself (an atom), a new ``(prim, args, params)``
#: to simplify again, or None (no identity applies).
Step = Atom | tuple[str, list[Atom], dict] | None

#: The most simplification steps taken on one equation (each applies one identity).
_MAX_STEPS = 16


class RewriterBase:
    """One round of the optimizer over ``old``, writing ``new`` (see the module docstring).

    The attributes every part of the rewriter shares:
    """

    #: the rule table (which primitives are pure; shape inference)
    table: RuleTable
    #: False: ``x ** 3`` stays a power (the pipeline's primal tape, see ``optimize``)
    reduce_powers: bool
    #: the tape this round rewrites (how many times each of its values is read: ``old_uses``)
    old: Tape
    #: the rewritten tape, equations appended as the walk goes
    new: Tape
    #: the shape classes of the values of ``new``, filled as its equations are added
    sc: ShapeClasses
    #: value id in ``old`` -> the atom that replaced it (follow it with ``resolve``)
    subst: dict[int, Atom]
    #: value id -> the equation of ``new`` that defines it
    defs: dict[int, Eqn]
    #: value numbers: ``(prim, argument keys, params)`` -> the value of ``new`` that computes it
    cse: dict[tuple, Var]
    #: primitive -> (its values are numbered: pure, its arguments in a canonical order: commutative)
    numbering: dict[str, tuple[bool, bool]]
    #: some rewrite applied this round (another round may find more)
    changed: bool
    #: the equation of ``old`` being rewritten (its span and section go to what replaces it)
    current: Eqn | None

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
        self.subst = {}
        self.defs = {}
        self.cse = {}
        self.numbering = {}
        self.changed = False
        self.current = None

    # ------------------------------------------------------------------ facts of ``old``, made when first asked
    # (most rounds ask for none: a straight-line tape has no loop to accumulate into, and only
    # ``x ** 2`` asks whether ``x`` may be a bool; each is a pass over a tape of 100,000 equations)
    @functools.cached_property
    def old_uses(self) -> dict[int, int]:
        """How many times each value of ``old`` is read (``ir.core.uses``)."""
        return uses(self.old)

    @functools.cached_property
    def bools(self) -> set[int]:
        """The ids of the values of ``old`` (and of its regions) that may be NumPy bools."""
        return bool_values(self.old)

    @functools.cached_property
    def old_ids(self) -> set[int]:
        """The ids of the values ``old``'s equations make."""
        return {o.id for e in self.old.eqns for o in e.outs}

    # ------------------------------------------------------------------ what the parts provide
    def simplify(self, prim: str, args: list[Atom], params: dict) -> Step:
        """One rewrite of ``prim(args)``: an atom, a new ``(prim, args, params)``, or None."""
        raise NotImplementedError  # simplify.Identities

    def spread_carries(self, eqn: Eqn, args: list[Atom]) -> tuple[Eqn, list[Atom], dict] | None:
        """A backward loop carrying a spread scalar as the scalar itself, or None."""
        raise NotImplementedError  # regions.RegionRewrites

    def accumulate_in_loop(self, eqn: Eqn, out: Var, acc: Atom) -> Atom | None:
        """``acc + loop_back(...)[j]`` with the loop's accumulator started from ``acc``, or None."""
        raise NotImplementedError  # regions.RegionRewrites

    def accumulate_in_branches(self, eqn: Eqn, out: Var, acc: Atom) -> Atom:
        """``acc + if_back(...)[j]`` with each branch adding its contribution to ``acc``."""
        raise NotImplementedError  # regions.RegionRewrites

    def hoist_reads(self, eqn: Eqn, args: list[Atom]) -> tuple[Eqn, list[Atom]] | None:
        raise NotImplementedError  # regions.RegionRewrites

    def optimize_region(self, region: Tape) -> Tape:
        """``region`` (a loop body, a branch, a trial body) optimized on its own."""
        raise NotImplementedError  # optimize

    # ------------------------------------------------------------------ the walk and value numbering
    def run(self) -> tuple[Tape, bool]:
        """Rewrite ``old`` into ``new``; returns ``new`` and whether anything changed."""
        for eqn in self.old.eqns:
            self.current = eqn
            subst = self.subst
            args = [self.resolve(a) if isinstance(a, Var) and a.id in subst else a for a in eqn.args]
            if eqn.regions:  # a loop or branch: its regions are optimized on their own, never merged
                spread = self.spread_carries(eqn, args) if eqn.prim in ("for_back", "while_back") else None
                if spread is not None:
                    eqn, args, spread = spread
                eqn, args = (self.hoist_reads(eqn, args) if eqn.prim == "for" else None) or (eqn, args)
                for r in eqn.regions:  # its inputs that may hold an outer bool (bool_values)
                    r.facts.bool_inputs = frozenset(i.var.id for i in r.inputs if i.var.id in self.bools)
                regions = tuple(self.optimize_region(r) for r in eqn.regions)
                new = Eqn(eqn.prim, args, dict(eqn.params), list(eqn.outs), eqn.span, regions, eqn.section)
                self.new.eqns.append(new)
                self.sc.add_eqn(new)
                for o in new.outs:
                    self.defs[o.id] = new
                for old, (out, ref, params) in (spread or {}).items():
                    self.subst[old.id] = self.add("unreduce", [out, ref], params)
                    self.keep_name(old, self.subst[old.id])
                continue
            out = eqn.out
            result = self.process(eqn.prim, args, eqn.params, out)
            if result is not out:
                subst[out.id] = result
                self.keep_name(out, result)
        self.new.outputs = [self.resolve(a) for a in self.old.outputs]
        return self.new, self.changed

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
        """What ``a`` was rewritten to (through every substitution)."""
        while isinstance(a, Var) and a.id in self.subst:
            a = self.subst[a.id]
        return a

    def cls(self, a: Atom) -> frozenset:
        """The shape class of ``a`` (see ``ir.shapes``)."""
        return self.sc.of(a)

    def def_of(self, a: Atom, prim: str) -> Eqn | None:
        """The equation that defines ``a``, when it is a ``prim``."""
        eqn = self.defs.get(a.id) if isinstance(a, Var) else None
        return eqn if eqn is not None and eqn.prim == prim else None

    def process(self, prim: str, args: list[Atom], params: dict, out: Var | None) -> Atom:
        """Simplify ``prim(args)``, look it up for CSE, else append it; return its value."""
        for _ in range(_MAX_STEPS):
            step = self.simplify(prim, args, params)
            if step is None:
                break
            self.changed = True
            if type(step) is not tuple:  # an atom
                return step
            prim, args, params = step
        numbering = self.numbering.get(prim)
        if numbering is None:  # (whether prim is numbered, and its arguments sorted: once per primitive)
            rule = self.table.rules.get(prim)
            record = primitive(prim)
            numbering = self.numbering[prim] = ((rule is None or rule.pure) and not record.distinct, record.commutative)
        pure, commutative = numbering
        key = None
        if pure:
            arg_keys = [("var", a.id) if type(a) is Var else value_key(a) for a in args]
            if commutative:
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
        """A new equation made by a rewrite, itself simplified and numbered: its value."""
        return self.process(prim, args, params or {}, None)

    # ------------------------------------------------------------------ queries the parts share
    def before(self, a: Atom, eqn: Eqn) -> bool:
        """``a`` is available where ``eqn`` stands in the new tape."""
        if not isinstance(a, Var) or a.id not in self.defs:
            return True  # a constant or an input
        d = self.defs[a.id]
        return self.new.eqns.index(d) < self.new.eqns.index(eqn)

    def _backward(self) -> bool:
        """The equation being simplified is in the backward sweep (its values are gradients:
        floats, free of the forward's promise to compute exactly what the user wrote)."""
        return self.current is not None and self.current.section == Section.BACKWARD

    def _spread(self, a: Atom) -> Eqn | None:
        """The ``unreduce(s, X)`` that defines ``a`` when it spreads one scalar over all of ``X``."""
        u = self.def_of(a, "unreduce")
        return u if u is not None and u.params["axis"] is None and self.cls(u.args[0]) == frozenset() else None
