"""``hess_NAME``'s second sweep for all unit seeds at once: a leading axis of rows through the sweep.

The second sweep is linear in its seed ``v``; seeded with the rows of the identity, stacked
(``v`` of shape ``(k,) + np.shape(x)``), every value the sweep computes gets a leading axis of
``k`` rows, row ``i`` being the loop form's value for the ``i``-th unit vector, and the Hessian's
rows come out of one sweep (what JAX's ``vmap`` does to ``jacfwd(grad)``)::

    H = np.empty((np.size(x),) + np.shape(x))
    _step = _rows_step(x, a, b, ...)                 # rows a block: its values of 2**16 numbers at most
    for _k in range(0, np.size(x), _step):           # (one block for Rosenbrock up to n = 256)
        v = _rows_seed(x, _k, _step)                 # rows _k, _k + 1, ... of the identity
        ...                                          # the second sweep, every value batched
        H[_k:_k + len(v)] = Hv
    H = H.reshape(np.shape(x) + np.shape(x))

The sweep is batched before anything is printed: the pipeline composes it with the tape
(``transform.batched``: split by the seed, batched by ``ir.batching``, each primitive's rule a field
of its record, and optimized with the equations before it), and the tape's ``Facts.batched`` holds
the result (``ir.batching.BatchedSweep``).  This writer prints those equations as it prints any,
with a plan of their own (``write_batched``).  A sweep without one (a primitive that has no rule)
keeps the loop over the unit vectors (``SecondWriter.hessian_rows``), as does ``BATCH_ROWS`` False.
"""

from __future__ import annotations

import ast

from ..ir.batching import BatchedSweep
from ..ir.core import Atom, Eqn, Section, Tape, Var
from ..ir.primitives import primitive
from .base import WriterBase, named, tuple_of
from .plan import plan_function
from .statements import Line

#: Write ``hess_NAME``'s sweep batched where every primitive of it has a rule (tests set it False
#: to compare with the loop form).
BATCH_ROWS = True


#: A block of ``hess_NAME`` with respect to several parameters: the sweep's output (a row of the
#: block), the parameter ``Q`` of the block's columns, the name of the block's array.
Target = tuple[Atom, Var, str]


def seed_of(tape: Tape, seed: Var) -> tuple[str, Var]:
    """The name of ``hess_NAME``'s seed input ``seed`` (a local of its loop) and the input of the
    parameter whose shape it has (``Facts.seed`` and ``wrt[0]``, or one of ``Facts.seeds``)."""
    name = next(i.path[0] for i in tape.inputs if i.var is seed)
    w = tape.facts.wrt[tape.facts.seeds.index(name)] if tape.facts.seeds else tape.facts.wrt[0]
    return name, next(i.var for i in tape.inputs if i.path[0] == w)


class BatchWriter:
    """Batched sweeps (``hess_NAME``'s rows, ``jac_NAME``'s forward columns), for the writer that
    holds it (``writer.FunctionWriter.batching``), which prints them."""

    def __init__(self, writer: WriterBase):
        self.w = writer

    def composed(self, seeds: list[Var], enabled: bool = True) -> BatchedSweep | None:
        """The sweep seeded with ``seeds`` as the pipeline batched and composed it (``Facts.batched``),
        where the target writes batched sweeps and ``enabled`` (the tests' switches); None: a loop."""
        if not (enabled and self.w.backend.batched_rows):
            return None
        return self.w.tape.facts.batched.get(tuple(s.id for s in seeds))

    def write_batched(self, sweep: BatchedSweep, depth: int, body: list[Line]) -> None:
        """Append the statements of a batched sweep: its equations planned as a function's are (what
        to write inline, the buffers written in place) and written by this writer, which names them;
        first, the values of the tape they read that this writer cannot read by a name (``again``)."""
        part = self.w.tape.copy_header()
        part.eqns = [*self.again(sweep), *sweep.eqns]
        part.outputs = [*self.w.tape.outputs, *sweep.results.values()]
        part.facts = part.facts.copy()
        part.facts.array_inputs = part.facts.array_inputs | {s.id for s in sweep.seeds}
        # (written once, not in a loop over seeds: not split by them, issue 38)
        plan = plan_function(part, self.w.table, self.w.backend, columns=False, seeded=False)
        writer = self.w.part_writer(plan)
        writer.block(part, depth, body)

    def again(self, sweep: BatchedSweep) -> list[Eqn]:
        """The equations of the tape written before the loop whose values the sweep reads (the
        optimizer may have shared one with it) but cannot read by a name: written inline, a buffer
        written in place since, or not written (the writer's split by the seed is its plan's): they
        are computed again in the block, first."""
        w = self.w
        made = {o.id: e for e in w.tape.eqns for o in e.outs if o.id not in sweep.swept}
        written = [e for e in w.tape.eqns if not any(o.id in sweep.swept for o in e.outs)]
        writes = [e.args[0] for e in written if primitive(e.prim).writes_into]
        overwritten = {a.id for a in writes if isinstance(a, Var) and a.id in w.plan.inplace}
        again: set[int] = set()
        reads = [a for e in sweep.eqns for a in e.args] + list(sweep.results.values())
        while reads:
            a = reads.pop()
            if not isinstance(a, Var) or a.id not in made or a.id in again or a.id in w.consts:
                continue
            if a.id in w.names and a.id not in w.plan.inline and a.id not in overwritten:
                continue
            again.add(a.id)
            reads.extend(made[a.id].args)
        return [e for e in w.tape.eqns if any(o.id in again for o in e.outs)]

    def step_line(self, step: str, first: ast.expr, sweep: BatchedSweep, unread: set[int], depth: int) -> Line:
        """``_step = _rows_step(first, a, b, ...)``: how many seeds a block of the batched ``sweep``
        takes, its values about as large as the largest of ``first`` and the arrays the sweep reads
        (``a, b, ...``: not its seeds or its own values, nor shapes, nor the ids of ``unread``)."""
        self.w.helpers.add("_rows_step")
        made = {s.id for s in sweep.seeds} | {o.id for e in sweep.eqns for o in e.outs}
        shapes = {o.id for e in self.w.tape.eqns if e.prim == "shape" for o in e.outs}  # (not arrays)
        skip = made | shapes | unread
        read: dict[int, Var] = {}
        for e in sweep.eqns:
            read.update((a.id, a) for a in e.args if isinstance(a, Var) and a.id not in skip)
        stepped = ast.Call(named("_rows_step"), [first, *(self.w.atom(a) for a in read.values())], [])
        return Line(Section.BACKWARD, None, ast.Assign([named(step, ast.Store())], stepped, lineno=0), depth)

    def batched_rows(
        self,
        sweep: BatchedSweep,
        seed: Var,
        body: list[Line],
        targets: list[Target] | None = None,
        names: list[str] | None = None,
        source: Atom | None = None,
        depth: int = 0,
    ) -> list[str]:
        """Append ``hess_NAME``'s sweep, batched and composed as ``sweep`` (see the module docstring);
        return the names of the arrays it fills: ``H`` (``targets`` None), or with several parameters one per ``(atom, x_Q,
        name)`` of ``targets``, the rows of the block ``H_PQ`` (the seed ``seed``, of ``P``'s shape);
        ``names``: those names, chosen by the caller.  ``source``: the value whose elements the rows are
        (``jac_NAME``'s value, its seed of that value's shape), by default the parameter of the seed's shape;
        ``depth``: of the loop."""
        tape = self.w.tape
        start = len(body)
        if source is None:
            seed_name, x = seed_of(tape, seed)
        else:
            seed_name, x = next(i.path[0] for i in tape.inputs if i.var is seed), source
        if targets is None:
            targets = [(tape.outputs[2], x, "H")]
        size = self.w.backend.call("size", [self.w.atom(x)])
        shape = self.w.backend.call("shape", [self.w.atom(x)])
        k = self.w.namer.fresh("_k")
        names = names or [self.w.namer.fresh(t[2]) for t in targets]
        step = self.w.namer.fresh("_step")
        for name, (_, xq, _) in zip(names, targets, strict=True):
            other = self.w.backend.call("shape", [self.w.atom(xq)])
            empty = self.w.backend.call("empty", [ast.BinOp(tuple_of([size]), ast.Add(), other)])
            body.append(Line(Section.BACKWARD, None, ast.Assign([named(name, ast.Store())], empty, lineno=0), 0))
        self.w.helpers.add("_rows_seed")
        body.append(self.step_line(step, self.w.atom(x), sweep, {x.id}, 0))
        header = ast.For(
            named(k, ast.Store()), ast.Call(named("range"), [ast.Constant(0), size, named(step)], []), [], []
        )
        header.lineno = 0
        comment = (
            "the second sweep on a block of rows at once"
            if source is None
            else "the reverse sweep on a block of rows at once"
        )
        body.append(Line(Section.BACKWARD, None, header, 0, header=True, comment=comment))
        seeded = ast.Call(named("_rows_seed"), [self.w.atom(x), named(k), named(step)], [])
        body.append(Line(Section.BACKWARD, None, ast.Assign([named(seed_name, ast.Store())], seeded, lineno=0), 1))
        self.w.names[seed.id] = seed_name
        self.write_batched(sweep, 1, body)
        stop = ast.BinOp(named(k), ast.Add(), ast.Call(named("len"), [named(seed_name)], []))
        for name, (out, _, _) in zip(names, targets, strict=True):
            block = ast.Subscript(named(name), ast.Slice(named(k), stop, None), ast.Store())
            stored = self.w.atom(sweep.result(out))
            body.append(Line(Section.BACKWARD, None, ast.Assign([block], stored, lineno=0), 1))
        for name, (_, xq, _) in zip(names, targets, strict=True):
            new_shape = ast.BinOp(shape, ast.Add(), self.w.backend.call("shape", [self.w.atom(xq)]))
            reshape = ast.Call(ast.Attribute(named(name), "reshape", ast.Load()), [new_shape], [])
            body.append(Line(Section.BACKWARD, None, ast.Assign([named(name, ast.Store())], reshape, lineno=0), 0))
        for line in body[start:]:
            line.depth += depth
        return names
