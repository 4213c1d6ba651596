"""Writing what ``hvp_NAME`` and ``hess_NAME`` add to a gradient (``transform.second``).

- ``hvp_NAME(..., v)`` checks that the value is a number and that ``v`` has the shape of the
  ``--wrt`` parameter, then runs the forward sweep, the gradient's reverse sweep and the second
  reverse sweep seeded with ``v``, straight-line.
- ``hess_NAME`` runs the second sweep once per element of ``x``, seeded with each unit vector in
  turn (the rows of ``H``); what the sweep computes without reading the seed (the value, the
  gradient, the factors the second sweep multiplies by) is written once, before the loop::

      H = np.empty((np.size(x),) + np.shape(x))
      for _k in range(np.size(x)):
          v = np.zeros(np.shape(x))
          v.flat[_k] = 1.0
          ...                                   # the second reverse sweep, seeded with v
          H[_k] = Hv
      H = H.reshape(np.shape(x) + np.shape(x))
"""

from __future__ import annotations

import ast

from ..errors import InternalError, at_span
from ..ir.batching import BatchedSweep
from ..ir.core import Eqn, Section, Var
from ..ir.live import live_eqns
from . import batched as batching
from .banded import BandWriter, NotBanded
from .base import WriterBase, named, tuple_of
from .batched import Target, seed_of
from .seeds import _part
from .statements import Else, Line


class SecondWriter:
    """The loop of ``hess_NAME``, written into the writer ``writer``'s statements: the rows
    batched (``writer.batching``) or in the band form (``BandWriter``)."""

    def __init__(self, writer: WriterBase):
        self.w = writer
        self.band = BandWriter(writer)

    def split_second(self, seed: Var) -> tuple[list[Eqn], list[Eqn]]:
        """The equations before the loop over the rows and those of each row: as the pipeline split
        them where it batched the sweep (``Facts.batched``), else the plan's (``split.split_seeded``)."""
        sweep = self.w.batching.composed([seed], batching.BATCH_ROWS)
        return sweep.split(self.w.tape.eqns) if sweep is not None else self.w.plan.split_seeded(seed)

    def rows_check(self) -> list[ast.stmt]:
        """``if np.shape(x) != (m,): raise ValueError(...)``: ``hess_NAME`` whose ``m`` rows are
        written out (``Facts.rows``: the gradient built by the elements ``x[0]``, ..., ``x[m-1]``)
        holds for a vector ``x`` of ``m`` numbers only; none for any other function."""
        tape = self.w.tape
        if tape.facts.mode.order != 2 or not tape.facts.rows:
            return []
        w, m = tape.facts.wrt[0], tape.facts.rows
        x = next(i.var for i in tape.inputs if i.path[0] == w)
        shape = self.w.backend.call("shape", [self.w.atom(x)])
        why = f"{self.w.function_name()}: the Hessian's rows are written for {w} of shape ({m},), not "
        message = ast.BinOp(ast.Constant(why), ast.Add(), ast.Call(named("str"), [shape], []))
        error = ast.Raise(ast.Call(named("ValueError"), [message], []))
        test = ast.Compare(shape, [ast.NotEq()], [ast.Tuple([ast.Constant(m)], ast.Load())])
        return [ast.If(test, [error], [])]

    def hessian_rows(self, body: list[Line]) -> ast.expr:
        """Append the statements of ``hess_NAME`` (see the module docstring); return the expression
        it returns."""
        tape = self.w.tape
        if tape.facts.seeds:
            return self.hessian_blocks(body)
        seed, rows = self.w.seeds.before_rows(body, self.split_second)
        H = self.block_row(rows, seed, None, body)[0]
        value, gradient = self.w.atom(tape.outputs[0]), self.w.atom(tape.outputs[1])
        H = ast.Subscript(named(H), ast.Tuple([], ast.Load()), ast.Load())  # H[()]: a number for a scalar x
        return tuple_of([value, gradient, H] if tape.facts.value else [gradient, H])

    def hessian_blocks(self, body: list[Line]) -> ast.expr:
        """``hess_NAME`` with respect to several parameters (``transform.second_blocks``): the
        equations that read no seed, then for each parameter ``P`` the sweep seeded with ``v_P``
        (batched, or a loop over ``P``'s unit vectors), filling the block row ``H_PA, H_PB, ...``;
        the blocks returned nested, ``((H_AA, H_AB), (H_BA, H_BB))``."""
        tape = self.w.tape
        facts = tape.facts
        n = len(facts.wrt)
        seeds = [next(i.var for i in tape.inputs if i.path[0] == s) for s in facts.seeds]
        parts = [self.split_second(s)[1] for s in seeds]
        made = [{o.id for e in part for o in e.outs} for part in parts]
        # through loops, one sweep reads every seed (transform.second_blocks._tangents): each block
        # row runs it with the other seeds zeros
        shared = any(e.regions for e in tape.eqns)
        if not shared and sum(len(m) for m in made) != len(set().union(*made)):
            raise InternalError(f"hess_{tape.name}: an equation of the second sweeps reads two block rows' seeds")
        per_row = set().union(*made)
        rows = [e for e in tape.eqns if any(o.id in per_row for o in e.outs)]
        before = [e for e in tape.eqns if not any(o.id in per_row for o in e.outs)]
        self.w.seeds.before_rows(body, lambda _seed: (before, rows))
        outputs = {a.id for a in tape.outputs[: 1 + n] if isinstance(a, Var)}
        xs = [next(i.var for i in tape.inputs if i.path[0] == w) for w in facts.wrt]
        blocks = []
        consts = dict(self.w.consts)
        for p, (seed, part) in enumerate(zip(seeds, parts, strict=True)):
            row = tape.outputs[1 + n + p * n : 1 + n + (p + 1) * n]
            targets = [(a, xs[q], f"H_{facts.wrt[p]}_{facts.wrt[q]}") for q, a in enumerate(row)]
            if shared:  # (the value and the gradients from the last block row's sweep alone)
                # the same equations written again: a region input the last block bound to a
                # constant (a backward loop's) is the outer value again where the forward loop binds it
                self.w.consts.clear()
                self.w.consts.update(consts)
                wanted = {a.id for a, _, _ in targets if isinstance(a, Var)}
                if p == n - 1:
                    wanted |= outputs
                part = live_eqns(rows, wanted, self.w.table)
                for other, x_other in zip(seeds, xs, strict=True):
                    if other is not seed:
                        name = self.w.names.get(other.id) or self.w.namer.fresh(other.hint)
                        self.w.names[other.id] = name
                        zeros = self.w.backend.call("zeros", [self.w.backend.call("shape", [self.w.atom(x_other)])])
                        body.append(
                            Line(Section.BACKWARD, None, ast.Assign([named(name, ast.Store())], zeros, lineno=0), 0)
                        )
            names = self.block_row(part, seed, targets, body)
            blocks.append(ast.Tuple([named(h) for h in names], ast.Load()))
        H = ast.Tuple(blocks, ast.Load())
        gradients = [self.w.atom(a) for a in tape.outputs[1 : 1 + n]]
        return tuple_of([self.w.atom(tape.outputs[0]), *gradients, H] if facts.value else [*gradients, H])

    def block_row(self, rows: list[Eqn], seed: Var, targets: list[Target] | None, body: list[Line]) -> list[str]:
        """The second sweep ``rows`` seeded with ``seed`` for all its unit vectors, batched where the
        pipeline batched it (``Facts.batched``), else a loop over them; the names of the arrays it
        fills (``H``, or those of ``targets``: ``batched_rows``)."""
        tape = self.w.tape
        batched = self.w.batching.composed([seed], batching.BATCH_ROWS)
        if batched is not None and targets is None:
            return self.banded_or_batched(batched, seed, body)
        if not tape.facts.form.rows:
            self.not_banded("several parameters" if targets is not None else "")
        if batched is not None:
            return self.w.batching.batched_rows(batched, seed, body, targets)
        seed_name, x = seed_of(tape, seed)
        if targets is None:
            targets = [(tape.outputs[2], x, "H")]
        size = self.w.backend.call("size", [self.w.atom(x)])
        shape = self.w.backend.call("shape", [self.w.atom(x)])
        k = self.w.namer.fresh("_k")
        names = [self.w.namer.fresh(t[2]) for t in targets]
        for name, (_, xq, _) in zip(names, targets, strict=True):
            other = self.w.backend.call("shape", [self.w.atom(xq)])
            empty = self.w.backend.call("empty", [ast.BinOp(tuple_of([size]), ast.Add(), other)])
            body.append(Line(Section.BACKWARD, None, ast.Assign([named(name, ast.Store())], empty, lineno=0), 0))
        header = ast.For(named(k, ast.Store()), ast.Call(named("range"), [size], []), [], [], lineno=0)
        body.append(Line(Section.BACKWARD, None, header, 0, header=True, comment="one second sweep per row"))
        zeros = ast.Assign([named(seed_name, ast.Store())], self.w.backend.call("zeros", [shape]), lineno=0)
        unit = ast.Subscript(ast.Attribute(named(seed_name), "flat", ast.Load()), named(k), ast.Store())
        body.append(Line(Section.BACKWARD, None, zeros, 1))
        body.append(Line(Section.BACKWARD, None, ast.Assign([unit], ast.Constant(1.0), lineno=0), 1))
        self.w.names[seed.id] = seed_name
        self.w.block(_part(tape, rows), 1, body)
        for name, (out, _, _) in zip(names, targets, strict=True):
            row = ast.Subscript(named(name), named(k), ast.Store())
            body.append(Line(Section.BACKWARD, None, ast.Assign([row], self.w.atom(out), lineno=0), 1))
        for name, (_, xq, _) in zip(names, targets, strict=True):
            new_shape = ast.BinOp(shape, ast.Add(), self.w.backend.call("shape", [self.w.atom(xq)]))
            reshape = ast.Call(ast.Attribute(named(name), "reshape", ast.Load()), [new_shape], [])
            body.append(Line(Section.BACKWARD, None, ast.Assign([named(name, ast.Store())], reshape, lineno=0), 0))
        return names

    def not_banded(self, why: str = "") -> None:
        """YS043 (``--form band``): ``hess_NAME`` has no band form (``why``: what keeps it from one, where known)."""
        span = next((e.span for e in self.w.tape.eqns if e.span is not None), None)
        because = f" ({why})" if why else ""
        raise at_span("YS043", f"--form band: {self.w.function_name()} is not written by its diagonals{because}", span)

    def banded_or_batched(self, batched: BatchedSweep, seed: Var, body: list[Line]) -> list[str]:
        """The Hessian by its diagonals where the sweep keeps them (``banded``), under the test that
        the run-time shapes allow it, else (and where the sweep does not) the batched sweep."""
        H = self.w.namer.fresh("H")
        form = self.w.tape.facts.form
        try:
            if not form.band:
                raise NotBanded
            test, lines = self.band.banded_rows(seed_of(self.w.tape, seed)[1], H)
        except NotBanded:
            if not form.rows:
                self.not_banded()
            return self.w.batching.batched_rows(batched, seed, body, None, [H])
        diagonals = len(self.band.diagonals)
        comment = f"H is banded ({diagonals} diagonal{'s' * (diagonals > 1)}): written diagonal by diagonal"
        body.append(Line(Section.BACKWARD, None, ast.If(test, [], []), 0, header=True, comment=comment))
        body.extend(lines)
        if not form.rows:  # --form band: the diagonals alone, where the shapes allow them when it runs
            why = f"{self.w.function_name()}: --form band: the shapes of the arguments do not give a banded Hessian"
            error = ast.Raise(ast.Call(named("ValueError"), [ast.Constant(why)], []))
            body.append(Line(Section.BACKWARD, None, Else(), 0, header=True))
            body.append(Line(Section.BACKWARD, None, error, 1))
            return [H]
        body.append(Line(Section.BACKWARD, None, Else(), 0, header=True, comment="the rows, batched"))
        return self.w.batching.batched_rows(batched, seed, body, None, [H], depth=1)
