"""Stage 4, optimize: a ``Tape`` in, an equivalent smaller ``Tape`` out.

Runs to a fixed point, in one forward walk per round (the rewriter, ``rewrite.py``):

- **constant folding**: ``mul(2, 3)`` -> ``6``;
- **algebraic identities** (``simplify.py``): ``mul(x, 1.0)`` -> ``x``, ``add(a, neg(b))`` ->
  ``sub(a, b)``, ``neg(neg(x))`` -> ``x``, ``unbroadcast(g, x)`` -> ``g`` when the shape classes
  of ``g`` and ``x`` are equal (see ``shapes``), a scalar spread by ``unreduce`` kept scalar
  through elementwise steps (``mul(unreduce(1.0, e), e)`` -> ``e``), gradient contributions of
  ``x[i]`` reads folded into one buffer (``add(A, index_add(grad_zeros(x), g, i))`` ->
  ``index_add(A, g, i)``), and in the backward sweep factors constant along a sum's axes taken
  out of it (``sum(q * b, 1, keepdims)`` -> ``q * sum(b, 1, keepdims)``), ``a / b * b`` -> ``a``
  and ``g - g`` -> zeros, kept zero through products (the ``max`` of a stable log-sum-exp gets
  no gradient);
- **CSE** (``rewrite.py``): value numbering on ``(prim, args, params)`` over pure primitives,
  with ``add``/``mul`` arguments in a canonical order; the forward and backward sections are
  numbered together, so the backward sweep reuses forward values;
- **loops and branches** (``regions.py``): each region optimized on its own; a spread scalar
  carried through a backward loop as the scalar; gradient contributions added inside the
  backward loop or branch that makes them;

then **DCE** (``dce.py``) drops equations whose values nothing uses.  Every rewrite keeps the
value of every output (tests check it with the interpreter on random inputs).

After the fixed point the pipeline runs the finishing passes once each, in this order:
``finish.drop_value`` (``--no-value``), ``factor.common_factors``, ``factor.merge_reciprocals``,
``finish.stand_ins``, ``finish.float_literals``.

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
from ..ir.core import Tape
from ..ir.shapes import shape_classes
from .dce import dce
from .regions import RegionRewrites
from .simplify import Identities

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
    """``region`` (a loop body, a branch) optimized as a region: its first output is no value to
    assume a scalar."""
    region.facts.region = True
    return optimize(region, table, reduce_powers)


class _Rewriter(Identities, RegionRewrites):
    """One round of the optimizer: value numbering (``rewrite``), the identities (``simplify``)
    and the rewrites of loops and branches (``regions``), each region optimized by ``optimize``."""

    def optimize_region(self, region: Tape) -> Tape:
        return _optimize_region(region, self.table, self.reduce_powers)
