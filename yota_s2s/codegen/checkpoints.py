"""Writing checkpointed loops (``--checkpoint S``, ``transform/checkpoint.py``): the replay before
each backward step, which runs the forward steps again from a snapshot when the record the step
reads is not on the stack (``runtime/checkpoint.py``), and which carried values a snapshot copies.
Parts of ``flow.FlowWriter``, given it."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from ..ir.core import Eqn, Var
from ..ir.regions import LEADING, bound_inputs
from .base import call, named, tuple_of
from .statements import Line

if TYPE_CHECKING:
    from .plan import FunctionPlan


def replay(flow, back: Eqn, depth: int, body: list) -> None:  # (flow: a flow.FlowWriter, which imports this)
    """Before a checkpointed backward step: run the forward steps again from a snapshot when the
    record of this step is not on the stack (``runtime/checkpoint.py``: ``_ck_replay``).
    ``flow`` is the writer's ``flow.FlowWriter`` (its ``checkpoints``, ``bind`` and ``region_body``; the writer's names, ``flow.w``)."""
    flow.w.helpers.update(("_ck_replay", "_ck_restored"))
    stack_var = back.args[LEADING[back.prim] - 1]
    fwd = flow.w.plan.defs[stack_var.id]
    ck, stack = flow.checkpoints[stack_var.id], flow.w.names[stack_var.id]
    region, k = fwd.regions[-1], fwd.params["n_carry"]
    index = region.inputs[0].var
    carried = [i.var for i in region.inputs[1 : 1 + k]]
    names = [flow.w.namer.fresh((v.hint or "_c") + "_again") for v in carried]
    sec = back.section
    runs = flow.w.namer.fresh("_runs")
    asked = ast.Call(named("_ck_replay"), [named(ck), named(flow.w.names[index.id]), *written(flow.w.plan, fwd)], [])
    body.append(Line(sec, None, ast.Assign([named(runs, ast.Store())], asked, lineno=0), depth))
    inner: list = []
    state = ast.Tuple([named(n, ast.Store()) for n in names], ast.Store())
    restored = ast.Call(named("_ck_restored"), [named(ck)], [])
    inner.append(Line(sec, None, ast.Assign([state], restored, lineno=0), depth + 1))
    step = flow.w.namer.fresh("_i")
    header = ast.For(named(step, ast.Store()), named(runs), [], [], lineno=0)
    inner.append(Line(sec, None, header, depth + 1, header=True))
    state = [named(ck), named(step), tuple_of([named(n) for n in names])]
    save = ast.Call(named("_ck_save"), state + written(flow.w.plan, fwd), [])
    inner.append(Line(sec, None, ast.Expr(save), depth + 2))
    # the forward loop's names, which the backward loop's are made from; its outer values (the
    # backward loop binds those it shares to what it reads of them)
    kept, consts = dict(flow.w.names), dict(flow.w.consts)
    flow.w.names[index.id] = step
    for v, n in zip(carried, names):
        flow.w.names[v.id] = n
    for var, a in bound_inputs(fwd):
        flow.w.consts.pop(var.id, None)
        flow.bind(var, a, depth + 1, inner, sec)
    flow.region_body(region, list(zip(carried, names)), k, depth + 2, inner, stack)
    flow.w.names.update(kept)
    flow.w.consts.clear()
    flow.w.consts.update(consts)
    drop = ast.Call(named("_ck_drop"), [named(ck), named(step)], [])
    inner.append(Line(sec, None, ast.If(drop, [ast.Expr(call(named(stack), "pop", []))], []), depth + 2))
    # the state after the step just recorded is nobody's: not kept alive through the backward step
    inner.append(Line(sec, None, ast.Delete([named(n, ast.Del()) for n in names]), depth + 1))
    body.append(Line(sec, None, ast.If(named(runs), [], []), depth, header=True))
    body.extend(inner)


def written(plan: FunctionPlan, loop: Eqn) -> list[ast.expr]:
    """The positions of the carried values a checkpointed loop may write into in place (arrays
    whose elements it writes, a value it passes to an inner loop or branch, any value when it
    appends to a list in place), which its snapshots copy; none: no argument."""
    region, k = loop.regions[-1], loop.params["n_carry"]
    carried = [i.var for i in region.inputs[1 : 1 + k]]
    if any(o.id in plan.appends for e in region.eqns for o in e.outs):
        found = list(range(k))
    else:
        written = {plan.inplace.get(o.id) for e in region.eqns for o in e.outs}
        written |= {a.id for e in region.eqns if e.regions for a in e.args if isinstance(a, Var)}
        found = [n for n, v in enumerate(carried) if v.id in written or plan.inplace.get(v.id) is not None]
    return [tuple_of([ast.Constant(n) for n in found])] if found else []
