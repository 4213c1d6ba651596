"""``jac_NAME`` by forward columns or by reverse rows, chosen when it runs (``Facts.columns``, from
``transform.jac_columns``).

A Jacobian of ``m`` rows and ``N`` columns (``N = np.size(A) + np.size(B) + ...``) costs ``m``
reverse sweeps by rows and ``N`` forward sweeps by columns.  The function computes what both need
(the value, and what the sweeps multiply by), then takes the columns where the value has more
elements than the parameters together (the rows are written first, as without columns)::

    _n = np.size(t) + np.size(w)
    if np.size(curve) <= _n:                      # reverse rows (seeds.SeedWriter.jacobian_rows)
        ...
    else:                                         # forward columns: fewer inputs than outputs
        _C = np.empty((_n,) + np.shape(curve))
        _step = _rows_step(curve, ...)            # columns a block: its values of 2**16 numbers at most
        for _k in range(0, _n, _step):            # the forward sweep on a block of columns at once
            t_dot, w_dot = _cols_seeds(_k, _step, t, w)
            ...                                   # the JVP, every value batched
            _C[_k:_k + len(t_dot)] = dvalue
        J_t, J_w = _cols_split(_C, curve, t, w)   # the columns moved to the last axes

The block of columns is ``hess_NAME``'s batched sweep (``batched``): the tangents have a leading
axis of ``k`` columns, each primitive its rule for it; where one has none, the columns are
computed one at a time (``_cols_unit``: the unit tangent of column ``_k``).
"""

from __future__ import annotations

import ast

from ..ir.core import Eqn, Section, Tape, Var
from .base import WriterBase, named, tuple_of
from .seeds import _part, jacobian_parameters
from .split import split_seeded
from .statements import Else, Line

#: Write the columns batched where every primitive of the JVP has a rule (tests set it False to
#: compare with the columns one at a time).
BATCH_COLUMNS = True
#: The comments on the branches.
ROWS_COMMENT = "reverse rows: no more outputs than inputs"
COLUMNS_COMMENT = "forward columns: fewer inputs than outputs"


class ForwardColumnsWriter:
    """``jac_NAME`` with both forms, written into the writer ``writer``'s statements."""

    def __init__(self, writer: WriterBase):
        self.w = writer

    def jacobian_choice(self, body: list[Line]) -> ast.expr:
        """Append the statements of ``jac_NAME`` (see the module docstring); return what it returns."""
        tape = self.w.tape
        facts = tape.facts
        dout = next(i.var for i in tape.inputs if i.path[0] == facts.seed)
        _, rows = self.w.seeds.split_rows(dout)
        tangents = {i.path[0]: i.var for i in tape.inputs if i.path[0] in facts.columns}
        params = jacobian_parameters(tape)
        # (parameter, its tangent) of each Jacobian computed
        active = [(p[2], tangents[t]) for p, t in zip(params, facts.columns, strict=True) if p is not None]
        composed = self.w.batching.composed([t for _, t in active], BATCH_COLUMNS)
        if composed is not None:  # (split as the pipeline split it to batch it)
            cols = composed.split(tape.eqns)[1]
        else:
            cols = split_seeded(tape.eqns, list(tangents.values()), self.w.plan.inplace)[1]
        apart = {id(e) for e in rows} | {id(e) for e in cols}
        before = [e for e in tape.eqns if id(e) not in apart]
        self.w.checked = True  # (no check of a seed: the loops make theirs)
        common, rows_first, cols_first = _preludes(tape, before, rows, cols)
        self.w.block(_part(tape, common), 0, body)
        value = self.w.atom(tape.outputs[0])
        count = self.w.namer.fresh("_n")
        total: ast.expr = self.w.backend.call("size", [self.w.atom(active[0][0])])
        for x, _ in active[1:]:
            total = ast.BinOp(total, ast.Add(), self.w.backend.call("size", [self.w.atom(x)]))
        body.append(Line(Section.BACKWARD, None, ast.Assign([named(count, ast.Store())], total, lineno=0), 0))
        if not facts.form.rows:  # --form columns: the columns alone
            jacobians = self.w.seeds.jacobian_names(params)
            self.w.block(_part(tape, cols_first), 0, body)
            self.columns(cols, active, [j.id for j in jacobians if isinstance(j, ast.Name)], count, body, 0)
            return tuple_of([value, *jacobians] if facts.value else jacobians)
        test = ast.Compare(self.w.backend.call("size", [value]), [ast.LtE()], [named(count)])
        body.append(Line(Section.BACKWARD, None, ast.If(test, [], []), 0, header=True, comment=ROWS_COMMENT))
        self.w.block(_part(tape, rows_first), 1, body)
        returned = self.w.seeds.jacobian_rows(body, 1, (dout, rows))
        assert isinstance(returned, ast.Tuple)
        names = [e.id for e in returned.elts[len(returned.elts) - len(facts.wrt) :] if isinstance(e, ast.Name)]
        body.append(Line(Section.BACKWARD, None, Else(), 0, header=True, comment=COLUMNS_COMMENT))
        self.w.block(_part(tape, cols_first), 1, body)
        self.columns(cols, active, names, count, body)
        return returned

    def columns(
        self, cols: list[Eqn], active: list[tuple[Var, Var]], names: list[str], count: str, body, depth: int = 1
    ) -> None:
        """The columns branch: the JVP seeded with blocks of unit tangents (one at a time where a
        primitive has no batched rule), its results moved to the Jacobians ``names``; ``depth``:
        of its loop."""
        tape = self.w.tape
        start = len(body)
        value = self.w.atom(tape.outputs[0])
        dvalue = tape.outputs[-1]
        seeds = [t for _, t in active]
        batched_cols = self.w.batching.composed(seeds, BATCH_COLUMNS)
        store = self.w.namer.fresh("_C")
        shape = ast.BinOp(tuple_of([named(count)]), ast.Add(), self.w.backend.call("shape", [value]))
        empty = ast.Assign([named(store, ast.Store())], self.w.backend.call("empty", [shape]), lineno=0)
        body.append(Line(Section.BACKWARD, None, empty, 1))
        k = self.w.namer.fresh("_k")
        xs = [self.w.atom(x) for x, _ in active]
        for _, t in active:
            self.w.names[t.id] = next(i.path[0] for i in tape.inputs if i.var is t)
        targets = [named(self.w.names[t.id], ast.Store()) for t in seeds]
        target = targets[0] if len(targets) == 1 else ast.Tuple(targets, ast.Store())
        if batched_cols is not None:
            step = self.w.namer.fresh("_step")
            body.append(self.w.batching.step_line(step, value, batched_cols, set(), 1))
            span = ast.Call(named("range"), [ast.Constant(0), named(count), named(step)], [])
            comment = "the forward sweep on a block of columns at once"
            header = ast.For(named(k, ast.Store()), span, [], [], lineno=0)
            body.append(Line(Section.BACKWARD, None, header, 1, header=True, comment=comment))
            if len(seeds) == 1:  # x_dot = _rows_seed(x, _k, _step): columns _k, _k + 1, ... of the identity
                self.w.helpers.add("_rows_seed")
                seeded = ast.Call(named("_rows_seed"), [xs[0], named(k), named(step)], [])
            else:
                self.w.helpers.add("_cols_seeds")
                seeded = ast.Call(named("_cols_seeds"), [named(k), named(step), *xs], [])
            body.append(Line(Section.BACKWARD, None, ast.Assign([target], seeded, lineno=0), 2))
            self.w.batching.write_batched(batched_cols, 2, body)
            stop = ast.BinOp(named(k), ast.Add(), ast.Call(named("len"), [named(self.w.names[seeds[0].id])], []))
            where = ast.Subscript(named(store), ast.Slice(named(k), stop, None), ast.Store())
        else:
            header = ast.For(named(k, ast.Store()), ast.Call(named("range"), [named(count)], []), [], [], lineno=0)
            comment = "one forward sweep per column"
            body.append(Line(Section.BACKWARD, None, header, 1, header=True, comment=comment))
            self.w.helpers.add("_cols_unit")
            unit: ast.expr = ast.Call(named("_cols_unit"), [named(k), *xs], [])
            if len(seeds) == 1:
                unit = ast.Subscript(unit, ast.Constant(0), ast.Load())
            body.append(Line(Section.BACKWARD, None, ast.Assign([target], unit, lineno=0), 2))
            self.w.block(_part(tape, cols), 2, body)
            where = ast.Subscript(named(store), named(k), ast.Store())
        if batched_cols is not None:
            dvalue = batched_cols.result(dvalue)
        body.append(Line(Section.BACKWARD, None, ast.Assign([where], self.w.atom(dvalue), lineno=0), 2))
        self.w.helpers.add("_cols_split")
        split: ast.expr = ast.Call(named("_cols_split"), [named(store), value, *xs], [])
        if len(names) == 1:
            split = ast.Subscript(split, ast.Constant(0), ast.Load())
            out: ast.expr = named(names[0], ast.Store())
        else:
            out = ast.Tuple([named(n, ast.Store()) for n in names], ast.Store())
        body.append(Line(Section.BACKWARD, None, ast.Assign([out], split, lineno=0), 1))
        for line in body[start:]:  # (written at depth 1, in the branch of the columns)
            line.depth += depth - 1


def _preludes(tape: Tape, before: list[Eqn], rows: list[Eqn], cols: list[Eqn]) -> tuple[list[Eqn], ...]:
    """``before`` (the equations that read no seed) in three: those the value needs or both forms
    (written before the branch), those of the rows alone and those of the columns alone (written
    first in their branch: the other form does not pay for them)."""
    defs = {o.id: e for e in before for o in e.outs}

    def reach(roots: list) -> set[int]:
        found: set[int] = set()
        todo = [a.id for a in roots if isinstance(a, Var)]
        while todo:
            e = defs.get(todo.pop())
            if e is not None and id(e) not in found:
                found.add(id(e))
                todo.extend(a.id for a in e.args if isinstance(a, Var))
        return found

    wrt = len(tape.facts.wrt)
    value = reach([tape.outputs[0]])
    by_rows = reach([a for e in rows for a in e.args] + list(tape.outputs[1 : 1 + wrt]))
    by_cols = reach([a for e in cols for a in e.args] + [tape.outputs[-1]])
    rows_first = [e for e in before if id(e) in by_rows and id(e) not in by_cols and id(e) not in value]
    cols_first = [e for e in before if id(e) in by_cols and id(e) not in by_rows and id(e) not in value]
    alone = {id(e) for e in rows_first + cols_first}
    return [e for e in before if id(e) not in alone], rows_first, cols_first
