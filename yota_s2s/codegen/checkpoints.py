"""Writing checkpointed loops (``--checkpoint S``, ``transform/checkpoint.py``): the replay before
each backward step, which runs the forward steps again from a snapshot when the record the step
reads is not on the stack (``runtime/checkpoint.py``), which carried values a snapshot copies, and
what is released with ``del`` so that it is not held through the backward sweep (``released``,
``step_values``).  Parts of ``flow.FlowWriter``, given it."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from ..ir.core import Eqn, Var
from ..ir.regions import LEADING, all_tapes, bound_inputs
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


def released(flow, eqn: Eqn) -> list[str]:
    """The names of the forward loop's results that nothing reads from the backward loop
    ``eqn`` on: ``del`` before it, so that the forward result (``u_1``, read by ``du_1 = 2 *
    u_1`` only) is not held through the whole backward sweep.  Only a result read by equations
    of ``eqn``'s own tape before it, not returned, whose name no other value has."""
    plan = flow.w.plan
    fwd = plan.defs.get(eqn.args[LEADING[eqn.prim] - 1].id)
    tape = plan.home.get(eqn.outs[0].id) if eqn.outs else None
    if fwd is None or tape is None or plan.home.get(fwd.outs[0].id) is not tape:
        return []
    at = next(n for n, e in enumerate(tape.eqns) if e is eqn)
    before = {id(e) for e in tape.eqns[:at] if not e.regions}
    readers: dict[int, list[Eqn]] = {}
    for t in all_tapes(tape):
        for e in t.eqns:
            for a in e.args:
                if isinstance(a, Var):
                    readers.setdefault(a.id, []).append(e)

    def written(e: Eqn, depth: int = 0) -> Eqn:  # the statement an inlined value is written in
        users = readers.get(e.outs[0].id, []) if len(e.outs) == 1 and e.outs[0].id in plan.inline else []
        return written(users[0], depth + 1) if len(users) == 1 and depth < 64 else e

    body = fwd.regions[-1]
    own = (
        {o.id for o in fwd.outs} | {i.var.id for i in body.inputs} | {a.id for a in body.outputs if isinstance(a, Var)}
    )
    returned = {a.id for a in tape.outputs if isinstance(a, Var)}
    dead: list[str] = []
    for o in fwd.outs[: fwd.params["n_carry"]]:
        name = flow.w.names.get(o.id)
        if name is None or name in flow.deleted or o.id in returned or o.id in plan.inplace:
            continue
        if not all(id(written(e)) in before for e in readers.get(o.id, [])):
            continue
        if any(n == name and v not in own for v, n in flow.w.names.items()):
            continue
        dead.append(name)
    flow.deleted.update(dead)
    return dead


def step_values(flow, eqn: Eqn, lines: list, depth: int, carried: list[str]) -> list[str]:
    """The names a backward step assigns at its top level (``lines``, at ``depth``) that are not
    its results: ``del`` at its end, so that the step's record and temporaries are not held
    while the next step runs the forward steps again from a snapshot."""
    region = eqn.regions[-1]
    keep = set(carried) | {flow.w.names[a.id] for a in region.outputs if isinstance(a, Var) and a.id in flow.w.names}
    keep |= {flow.w.names[i.var.id] for i in region.inputs[:1] if i.var.id in flow.w.names}  # (the index)
    keep |= {flow.w.names[v.id] for v, _ in bound_inputs(eqn) if v.id in flow.w.names}
    done: list[str] = []
    for line in lines:
        if line.depth != depth or not isinstance(line.node, ast.Assign):
            continue
        for target in line.node.targets:
            for n in ast.walk(target):
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id not in keep | set(done):
                    done.append(n.id)
    return done
