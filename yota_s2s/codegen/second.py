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
import dataclasses

from ..ir.core import Eqn, Section, Var
from ..ir.regions import LEADING
from . import batched as batching
from .base import named, tuple_of
from .batched import BatchWriter, batch_plan
from .seeds import _part
from .statements import Line


class SecondWriter(BatchWriter):
    """The loop of ``hess_NAME`` (a part of ``writer.FunctionWriter``)."""

    def split_second(self, seed: Var) -> tuple[list[Eqn], list[Eqn]]:
        """The equations before the loop over the rows and those of each row (``_split``)."""
        return _split(self.tape.eqns, seed, self.plan.inplace)

    def rows_check(self) -> list[ast.stmt]:
        """``if np.shape(x) != (m,): raise ValueError(...)``: ``hess_NAME`` whose ``m`` rows are
        written out (``Facts.rows``: the gradient built by the elements ``x[0]``, ..., ``x[m-1]``)
        holds for a vector ``x`` of ``m`` numbers only; none for any other function."""
        tape = self.tape
        if tape.facts.mode != "hessian" or not tape.facts.rows:
            return []
        w, m = tape.facts.wrt[0], tape.facts.rows
        x = next(i.var for i in tape.inputs if i.path[0] == w)
        shape = self.backend.call("shape", [self.atom(x)])
        why = f"{self.function_name()}: the Hessian's rows are written for {w} of shape ({m},), not "
        message = ast.BinOp(ast.Constant(why), ast.Add(), ast.Call(named("str"), [shape], []))
        error = ast.Raise(ast.Call(named("ValueError"), [message], []))
        test = ast.Compare(shape, [ast.NotEq()], [ast.Tuple([ast.Constant(m)], ast.Load())])
        return [ast.If(test, [error], [])]

    def hessian_rows(self, body: list[Line]) -> ast.expr:
        """Append the statements of ``hess_NAME`` (see the module docstring); return the expression
        it returns."""
        tape = self.tape
        seed_name = tape.facts.seed
        seed, rows = self.before_rows(body, self.split_second)
        outputs = {a.id for a in tape.outputs[:2] if isinstance(a, Var)}
        kinds = batch_plan(rows, seed, outputs) if batching.BATCH_ROWS and not self.backend.standard else None
        if (
            kinds is not None
            and isinstance(tape.outputs[2], Var)
            and tape.outputs[2].id in {o.id for e in rows for o in e.outs}
        ):
            self.plan = dataclasses.replace(self.plan, inline=self.plan.inline - {o.id for e in rows for o in e.outs})
            H = self.batched_rows(rows, kinds, seed, body)
            value, gradient = self.atom(tape.outputs[0]), self.atom(tape.outputs[1])
            return tuple_of([value, gradient, H] if tape.facts.value else [gradient, H])
        w = tape.facts.wrt[0]
        x = next(i.var for i in tape.inputs if i.path[0] == w)
        size = self.backend.call("size", [self.atom(x)])
        shape = self.backend.call("shape", [self.atom(x)])
        k = self.namer.fresh("_k")
        name = self.namer.fresh("H")
        empty = ast.Assign(
            [named(name, ast.Store())],
            self.backend.call("empty", [ast.BinOp(tuple_of([size]), ast.Add(), shape)]),
            lineno=0,
        )
        body.append(Line(Section.BACKWARD, None, empty, 0))
        header = ast.For(named(k, ast.Store()), ast.Call(named("range"), [size], []), [], [], lineno=0)
        body.append(Line(Section.BACKWARD, None, header, 0, header=True, comment="one second sweep per row"))
        zeros = ast.Assign([named(seed_name, ast.Store())], self.backend.call("zeros", [shape]), lineno=0)
        unit = ast.Subscript(ast.Attribute(named(seed_name), "flat", ast.Load()), named(k), ast.Store())
        body.append(Line(Section.BACKWARD, None, zeros, 1))
        body.append(Line(Section.BACKWARD, None, ast.Assign([unit], ast.Constant(1.0), lineno=0), 1))
        self.names[seed.id] = seed_name
        self.block(_part(tape, rows), 1, body)
        row = ast.Subscript(named(name), named(k), ast.Store())
        body.append(Line(Section.BACKWARD, None, ast.Assign([row], self.atom(tape.outputs[2]), lineno=0), 1))
        new_shape = ast.BinOp(shape, ast.Add(), self.backend.call("shape", [self.atom(x)]))
        reshape = ast.Call(ast.Attribute(named(name), "reshape", ast.Load()), [new_shape], [])
        body.append(Line(Section.BACKWARD, None, ast.Assign([named(name, ast.Store())], reshape, lineno=0), 0))
        value, gradient = self.atom(tape.outputs[0]), self.atom(tape.outputs[1])
        return tuple_of([value, gradient, named(name)] if tape.facts.value else [gradient, named(name)])


#: The loops, whose carried values the writer may name like their initial values.
_LOOPS = ("for", "while", "for_back", "while_back")


def _split(eqns: list[Eqn], seed: Var, inplace: dict[int, int]) -> tuple[list[Eqn], list[Eqn]]:
    """The equations of ``hess_NAME`` written before the loop over the rows (those that read no
    seed: the value, the gradient) and those of each row.  A buffer a row writes into in place
    (``inplace``: a member of a group written in place) is made in the row; one that is not is
    copied by the writes into it (``_index_add``), so the gradient's and each row's may share it."""
    groups: dict[int, list[int]] = {}
    for v, root in inplace.items():
        groups.setdefault(root, []).append(v)
    members = {m for ms in groups.values() for m in ms} | set(groups)
    defs = {o.id: e for e in eqns for o in e.outs}
    per_row = {seed.id}
    while True:
        before = len(per_row)
        for eqn in eqns:
            if any(isinstance(a, Var) and a.id in per_row for a in eqn.args):
                per_row.update(o.id for o in eqn.outs)
                for a in eqn.args:
                    d = defs.get(a.id) if isinstance(a, Var) else None
                    if d is not None and d.prim == "grad_zeros" and a.id in members:
                        per_row.update(o.id for o in d.outs)
                if eqn.prim in _LOOPS:  # (forward over reverse) each row's loop starts from its initial values
                    lead, k = LEADING[eqn.prim], eqn.params["n_carry"]
                    for a in eqn.args[lead : lead + k]:
                        d = defs.get(a.id) if isinstance(a, Var) else None
                        if d is not None and not d.regions:
                            per_row.update(o.id for o in d.outs)
        for ms in groups.values():
            if any(m in per_row for m in ms):
                per_row.update(ms)
        if len(per_row) == before:
            break
    rows = [e for e in eqns if any(o.id in per_row for o in e.outs)]
    return [e for e in eqns if not any(o.id in per_row for o in e.outs)], rows
