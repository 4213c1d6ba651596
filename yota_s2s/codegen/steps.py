"""Writing a loop whose step computes on numbers (``ir.loop_shapes.numbers_step``): a part of the flow
writer (``flow.FlowWriter.steps``).

Before the forward loop, one flag, checked once (``_shaped``): the values the step reads from
outside are numbers (or vectors it reads by constant indices) and a carried ``np.array([...])``
starts with its shape.  Under it, the backward step's ``unbroadcast`` that are then the identity
are written ``g if _numbers else _unbroadcast(g, x)``, and the two bodies read the elements of
their vectors at once, as Python floats where they are float64::

    _numbers = _shaped((dt, 0), (a, 0), (y, (2,)))
    for _ in range(T):
        x1, y1 = y_1.tolist() if _numbers and y_1.dtype == np.float64 else (y_1[0], y_1[1])
"""

from __future__ import annotations

import ast

from ..ir.core import Eqn, Lit, Tape, Var
from ..ir.loop_shapes import numbers_step
from ..ir.regions import LEADING, all_tapes
from .base import WriterBase, call, named, tuple_of
from .plan import float_safe
from .statements import Line
from .target import constant


class NumberSteps:
    """The flags and element reads of loops whose step computes on numbers."""

    def __init__(self, writer: WriterBase):
        self.w = writer
        #: the stack of a forward loop whose step may compute on numbers -> its flag's name and the
        #: backward step's ``unbroadcast`` values that are then the identity (``flag``)
        self.flags: dict[int, tuple[str, frozenset[int]]] = {}
        #: a body of such loops -> the flag and its inputs that are then vectors of n numbers (``elements``)
        self.vectors: dict[int, tuple[str, dict[int, int]]] = {}

    def flag(self, eqn: Eqn, depth: int, body: list) -> None:
        """Before a ``for`` loop whose backward step computes on numbers when a few shapes are as
        ``loop_shapes.numbers_step`` assumes: one flag, checked once, under which each of the step's
        ``unbroadcast`` that is then the identity is written ``g if _numbers else _unbroadcast(g, x)``
        (RK4: 14 calls a step)."""
        stack = eqn.outs[eqn.params["n_carry"]]
        lead = LEADING["for_back"]
        back = next((e for e in self.w.plan.tape.eqns if e.prim == "for_back" and e.args[lead - 1] is stack), None)
        if back is None:
            return
        step = numbers_step(eqn, back, self.w.table)
        if step is None:
            return
        name = self.w.namer.fresh("_numbers")
        self.w.helpers.add("_shaped")
        pairs = [tuple_of([self.w.atom(a), constant(s)]) for a, s in step.checks]
        test = ast.Assign([named(name, ast.Store())], ast.Call(named("_shaped"), pairs, []), lineno=0)
        note = "the step computes on numbers: _unbroadcast is the identity in it"
        body.append(Line(eqn.section, None, test, depth, comment=note))
        self.flags[stack.id] = (name, step.marks)
        if all(float_safe(e) for r in (eqn.regions[-1], back.regions[-1]) for t in all_tapes(r) for e in t.eqns):
            for r in (eqn.regions[-1], back.regions[-1]):
                self.vectors[id(r)] = (name, step.vectors)

    def elements(self, region: Tape, depth: int, body: list) -> None:
        """The elements a loop body whose step computes on numbers reads of its vectors (``y[0]``,
        ``y[1]`` of ``y = np.array([...])`` carried), read at once, as Python floats where they are
        float64 (about twice as fast as NumPy's scalars, and the same results: ``float_safe``)::

            x1, y1 = y.tolist() if _numbers and y.dtype == np.float64 else (y[0], y[1])
        """
        flag, vectors = self.vectors[id(region)]
        reads: dict[int, list[tuple[int, Var]]] = {}
        for e in region.eqns:
            v = e.args[0] if e.args else None
            if not isinstance(v, Var) or v.id not in vectors or e.regions:
                continue
            if e.prim == "getindex" and len(e.params["index"]) == 1 and type(e.params["index"][0]) is int:
                k = e.params["index"][0]
            elif e.prim == "take" and e.params.get("axis") in (0, -1) and isinstance(e.args[1], Lit):
                k = e.args[1].value
            else:
                continue
            if type(k) is int and -vectors[v.id] <= k < vectors[v.id]:
                reads.setdefault(v.id, []).append((k % vectors[v.id], e.outs[0]))
        for vid, found in reads.items():
            if len(found) < 2 or any(o.id in self.w.plan.inline for _, o in found):
                continue
            targets: list[str | None] = [None] * vectors[vid]
            for k, o in found:
                if targets[k] is None:
                    targets[k] = self.w.name_for(o)
                self.w.names[o.id] = targets[k]
                self.w.unpacked.add(o.id)
            v = ast.Name(self.w.names[vid], ast.Load())
            f64 = ast.Compare(ast.Attribute(v, "dtype", ast.Load()), [ast.Eq()], [self.w.backend.attr("float64")])
            test = ast.BoolOp(ast.And(), [named(flag), f64])
            listed = call(v, "tolist", [])
            each = [
                ast.Subscript(v, ast.Constant(k), ast.Load()) if t else ast.Constant(None)
                for k, t in enumerate(targets)
            ]
            names = ast.Tuple([named(t or "_", ast.Store()) for t in targets], ast.Store())
            stmt = ast.Assign([names], ast.IfExp(test, listed, ast.Tuple(each, ast.Load())), lineno=0)
            span = next(e.span for e in region.eqns if e.outs and e.outs[0].id in self.w.unpacked)
            body.append(Line(self.w.section_of(region), span, stmt, depth))
