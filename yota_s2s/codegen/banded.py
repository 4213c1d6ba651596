"""``hess_NAME`` by its diagonals, where the second sweep proves the Hessian banded.

The batched sweep (``ir.batching``) gives every value a leading axis of rows, one per unit seed:
the Hessian of a function of ``n`` numbers costs every step of the sweep ``n * n`` numbers, though
for a chain of elementwise steps on shifted slices (Rosenbrock, a discretized energy, a chain of
springs) almost all of them are zeros.  The band transform (``transform.band``) turns the sweep
into equations on unbatched values computing each diagonal of its result; those equations join
the equations the function wrote before the sweep and go through the optimizer with them
(``compose``: folding, CSE, DCE, so that a value the function already named is read by its
name), and the writer prints them as it prints any equations, then writes the Hessian diagonal
by diagonal (``_rows_diagonal``)::

    if np.ndim(x) == 1:  # H is banded (3 diagonals): written diagonal by diagonal
        _t14 = -400.0 * _t2
        ...
        H = np.zeros((np.size(x), np.size(x)))
        _rows_diagonal(H, -1, _t20)
        ...
    else:
        ...                                          # the batched sweep, as before

What the band form assumes is tested where the function runs, before it is taken
(``transform.band.Bands``: ``x`` a vector, the numbers numbers, the shapes the classes do not
prove equal compared); anything else keeps the batched sweep.
"""

from __future__ import annotations

import ast

from ..ir.batching import BandForm
from ..ir.core import Atom, Eqn, Section, Var
from .base import WriterBase, named
from .plan import plan_function
from .statements import Line


class NotBanded(Exception):
    """The function's sweep has no band form (``Facts.band``): the batched sweep is written."""


def compose(form: BandForm, writer: WriterBase) -> list[Eqn]:
    """The equations of the band form ``form`` (``transform.band``: composed with the tape and
    optimized with it) that the function ``writer`` writes has not written: those the tape does not
    make, and, first, those of the tape they read that ``writer`` cannot read by a name (written
    inline, or a buffer written in place since: computed again)."""
    made = {o.id: e for e in writer.tape.eqns for o in e.outs}
    new = [e for e in form.eqns if not any(o.id in made for o in e.outs)]
    again: set[int] = set()
    reads = [a for e in new for a in e.args] + list(form.diagonals.values())
    while reads:
        a = reads.pop()
        if not isinstance(a, Var) or a.id not in made or a.id in again or a.id in writer.consts:
            continue
        if a.id in writer.names and a.id not in writer.plan.inplace and a.id not in writer.plan.inline:
            continue
        again.add(a.id)
        reads.extend(made[a.id].args)
    first = [e for e in writer.tape.eqns if any(o.id in again for o in e.outs)]
    return _buffers(first + new)


def _buffers(eqns: list[Eqn]) -> list[Eqn]:
    """``eqns`` with each new array of zeros that two equations read (CSE made one of them) made
    again for each after the first, before it: each write into it then goes in place."""
    starts = {e.out.id: e for e in eqns if e.prim == "zeros" and len(e.outs) == 1}
    taken: set[int] = set()
    out: list[Eqn] = []
    for e in eqns:
        args = list(e.args)
        for i, a in enumerate(args):
            if isinstance(a, Var) and a.id in starts:
                if a.id in taken:
                    zeros = starts[a.id]
                    again = Eqn("zeros", list(zeros.args), dict(zeros.params), [Var()], zeros.span, (), zeros.section)
                    out.append(again)
                    args[i] = again.out
                taken.add(a.id)
        if args != e.args:
            e = Eqn(e.prim, args, dict(e.params), list(e.outs), e.span, e.regions, e.section)
        out.append(e)
    return out


class BandWriter:
    """``hess_NAME``'s band form, written by a ``SecondWriter`` into the writer ``writer``'s
    statements."""

    def __init__(self, writer: WriterBase):
        self.w = writer
        self.diagonals: dict[int, list[tuple[tuple[int, int], ast.expr]]] = {}

    def banded_rows(self, x: Var, H: str) -> tuple[ast.expr, list[Line]]:
        """The test under which the band form (``Facts.band``) holds and its statements (depth 1),
        computing ``H``; raises ``NotBanded`` where the tape has none."""
        form = self.w.tape.facts.band
        if not isinstance(form, BandForm):
            raise NotBanded
        eqns = compose(form, self.w)
        part = self.w.tape.copy_header()
        part.eqns = eqns
        part.outputs = [*self.w.tape.outputs, *(a for a in form.diagonals.values() if isinstance(a, Var))]
        part.facts = part.facts.copy()
        part.facts.array_inputs = part.facts.array_inputs | form.arrays
        writer = self.w.part_writer(plan_function(part, self.w.table, self.w.backend, columns=False))
        lines: list[Line] = []
        writer.block(part, 1, lines)
        self.diagonals = {}
        for (d, start, stop, _), a in sorted(
            form.diagonals.items(), key=lambda item: (item[0][0], item[0][1:3] != (0, 0))
        ):
            self.diagonals.setdefault(d, []).append(((start, stop), writer.atom(a)))
        size = self.w.backend.call("size", [self.w.atom(x)])
        zeros = self.w.backend.call("zeros", [ast.Tuple([size, size], ast.Load())])
        lines.append(Line(Section.BACKWARD, None, ast.Assign([named(H, ast.Store())], zeros, lineno=0), 1))
        for d, pieces in self.diagonals.items():  # (a term on the whole diagonal first, then the others, added)
            for n, (window, vec) in enumerate(pieces):
                how, more = ("_rows_diagonal", []) if window == (0, 0) and n == 0 else ("_band_window", list(window))
                self.w.helpers.add(how)
                put = ast.Call(named(how), [named(H), ast.Constant(d), vec, *map(ast.Constant, more)], [])
                lines.append(Line(Section.BACKWARD, None, ast.Expr(put), 1))
        return band_test(self.w, form), lines


def band_test(w: WriterBase, form: BandForm) -> ast.expr:
    """``np.ndim(x) == 1 and ...``: what the band form ``form`` assumes, tested where the function
    runs (``w`` writes it)."""
    b = w.backend
    tests: list[ast.expr] = []
    for kind, a, c in form.tests:
        if kind == "ndim":
            tests.append(ast.Compare(b.call("ndim", [w.atom(a)]), [ast.Eq()], [ast.Constant(c)]))
        elif kind == "shape":
            tests.append(_same_shape(w, a, c))
        else:  # (a number, or an array of the rows' shape)
            number = ast.Compare(b.call("ndim", [w.atom(a)]), [ast.Eq()], [ast.Constant(0)])
            tests.append(ast.BoolOp(ast.Or(), [number, _same_shape(w, a, c)]))
    return tests[0] if len(tests) == 1 else ast.BoolOp(ast.And(), tests)


def _same_shape(w: WriterBase, a: Atom, b: Atom) -> ast.expr:
    return ast.Compare(w.backend.call("shape", [w.atom(a)]), [ast.Eq()], [w.backend.call("shape", [w.atom(b)])])
