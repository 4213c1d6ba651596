"""The forward sweep, and the adjoints of loops and branches: primal equations in, the same
equations out, each active loop or branch made to save what its backward part needs, with a
*plan* for that backward part.

``forward_sweep`` returns the equations and, for each active ``for``/``while``/``if``, a plan
(``sweep.Plan``) that ``sweep.reverse_sweep`` calls in the equation's place.  A region (a loop
body, a branch) is differentiated as a function of its inputs (``_region_gradient``: the two
sweeps on the region, then ``optimize``), and the optimized tape is split into its forward
equations, which go into the forward loop or branch, and its backward ones, which make the body
of the backward loop (``for_back``/``while_back``, run in reverse) or branch (``if_back``).  The
values the backward part reads from the forward part are saved per iteration (a stack) or per
branch taken; a loop's backward body recomputes those it can cheaply (``remat``: loop-invariant
values, elementwise chains of the carried state) instead of popping them.

    >>> from yota_s2s.dsl.load import load_rules
    >>> from yota_s2s.ir.core import Eqn, Lit, Tape, Var
    >>> body = Tape("body"); i = body.add_input("i"); c = body.add_input("c")
    >>> body.outputs = [body.add_eqn("sin", [c])]  # for i in range(3): c = np.sin(c)
    >>> t = Tape("f"); x = t.add_input("x"); y = Var()
    >>> t.eqns = [Eqn("for", [Lit(0), Lit(3), Lit(1), x], {"n_carry": 1}, [y], None, (body,))]
    >>> eqns, plans = forward_sweep(t.eqns, {x.id, y.id}, load_rules())
    >>> loop = eqns[0]; loop.params["n_saved"], loop.outs[-1].hint  # it pushes c (cos(c) needs it)
    (1, '_stack')
    >>> loop.regions[-1].outputs[-1] is c, len(plans)
    (True, 1)
"""

from __future__ import annotations

from ..dsl.rule import RuleTable
from ..ir.core import Atom, Eqn, Facts, Input, Lit, Section, Tape, Var
from ..ir.loop_shapes import classes_of, loop_facts
from ..ir.regions import LEADING, bound_inputs, first_carried, is_control, substitute
from ..ir.shapes import ShapeClasses
from . import checkpoint, remat, writes
from .dce import dce
from .optimize import optimize
from .sweep import (
    BackwardBuilder,
    Plan,
    accumulate,
    activity,
    control_activity,
    final_gradient,
    is_active,
    reverse_sweep,
)


def forward_sweep(
    eqns: list[Eqn],
    active: set[int],
    table: RuleTable,
    ints: frozenset[int] = frozenset(),
    top: bool = True,
    classes: ShapeClasses | None = None,
) -> tuple[list[Eqn], dict[int, Plan]]:
    """The forward sweep: the primal equations, with each active loop or branch made to save
    what its backward sweep needs.  Returns the equations and a plan per such equation.
    ``ints``: the values known to be integers (an enclosing loop's index); ``top``: the equations
    are the function's own (not a loop body's or a branch's: only there is a loop checkpointed);
    ``classes``: the shape classes of their values (``loop_shapes.classes_of``; made when needed)."""
    out: list[Eqn] = []
    plans: dict[int, Plan] = {}
    for eqn in eqns:
        if is_control(eqn.prim) and any(o.id in active for o in eqn.outs):
            if classes is None:  # (what a body may assume of the shapes of what it reads)
                classes = classes_of(eqns, table)
            plan_of = _branch_plan if eqn.prim == "if" else _loop_plan
            new, plan = plan_of(eqn, active, table, ints, top, classes)
            plans[id(new)] = plan
            out.append(new)
        else:
            out.append(eqn)
    return out, plans


def _region_gradient(
    region: Tape,
    first: int,
    active_inputs: list[bool],
    active_outputs: list[bool],
    table: RuleTable,
    ints: frozenset[int] = frozenset(),
    shapes: dict[int, Atom] | None = None,
) -> tuple[Tape, list[Var], list[Var], list[Atom]]:
    """Differentiate a region as a function of its inputs ``region.inputs[first:]``, told
    ``shapes`` of its inputs' shapes (``Facts.same_shape`` entries: ``loop_shapes.loop_facts``).

    Returns the optimized combined tape (forward equations, then backward ones), the
    seed inputs (one per active output: its adjoint), the accumulator inputs (one per
    active input that is not carried by the caller: ``acc + contribution``), and the
    backward outputs, in this order: the gradient of each active input.
    """
    tape = Tape(region.name, list(region.inputs), facts=Facts(region=True))
    tape.facts.same_shape.update(shapes or {})
    ins = region.inputs[first:]
    act = activity(region.eqns, {i.var.id for i, f in zip(ins, active_inputs) if f}, table)
    classes = classes_of(region.eqns, table, shapes, region.inputs)
    tape.eqns, plans = forward_sweep(region.eqns, act, table, ints, top=False, classes=classes)
    builder = BackwardBuilder(tape)
    contributions: dict[int, list[Atom]] = {}
    seeds: list[Var] = []
    for o, flag in zip(region.outputs, active_outputs):
        if not flag:
            continue
        seed = Var(grad_of=o if isinstance(o, Var) else None)
        seeds.append(seed)
        if isinstance(o, Var):  # an adjoint has the shape of its value
            tape.facts.same_shape[seed.id] = o
        tape.inputs.append(Input(seed, ("#seed", str(len(seeds)))))
        if is_active(o, act):
            contributions.setdefault(o.id, []).append(seed)
    reverse_sweep(tape.eqns, plans, act, contributions, builder, table)
    builder.span = None
    grads = [final_gradient(contributions, i.var, builder) for i, f in zip(ins, active_inputs) if f]
    return tape, seeds, grads, [o for o in region.outputs]


def _split(tape: Tape, n_forward_outputs: int, carried_inputs: set[int]) -> tuple[list[Eqn], list[Eqn], list[Var]]:
    """Split an optimized region gradient into its forward and backward equations, and the
    values the backward part reads from the forward part (to be saved per iteration)."""
    fwd = [e for e in tape.eqns if e.section == Section.FORWARD]
    bwd = [e for e in tape.eqns if e.section != Section.FORWARD]
    made = {o.id for e in fwd for o in e.outs} | carried_inputs
    saved: dict[int, Var] = {}
    for e in bwd:
        for a in e.args:
            if isinstance(a, Var) and a.id in made:
                saved.setdefault(a.id, a)
    for a in tape.outputs[n_forward_outputs:]:
        if isinstance(a, Var) and a.id in made:
            saved.setdefault(a.id, a)
    return fwd, bwd, list(saved.values())


def _adjoints(outs: list[Var], flags: list[bool], contributions: dict, builder: BackwardBuilder) -> list[Atom]:
    """The adjoint of each flagged output of a loop or branch (zeros of its shape if nothing used it)."""
    douts = []
    for o, flag in zip(outs, flags):
        if flag:
            parts = contributions.pop(o.id, None)
            douts.append(accumulate(parts, o, builder) if parts else builder.add("grad_zeros", [o], {}))
    return douts


def _append_back(back: Eqn, targets: list[Atom | None], contributions: dict, builder: BackwardBuilder) -> None:
    """Append a backward loop or branch; its ``k``-th result is a contribution to ``targets[k]``."""
    builder.tape.eqns.append(back)
    builder.created.update(o.id for o in back.outs)
    for out, target in zip(back.outs, targets):
        if target is not None:
            contributions.setdefault(target.id, []).append(out)


def _read_or_none(args: list[Atom], per_region: list[list[Input]], regions: list[Tape]) -> list[Atom]:
    """The outer values of free inputs, ``None`` for those no backward region reads (not saved)."""
    read = set().union(*(_reads(r) for r in regions))
    out = []
    for n, a in enumerate(args):
        used = any(r[n].var.id in read for r in per_region if n < len(r))
        out.append(a if used else Lit(None))
    return out


def _is_none(a: Atom) -> bool:
    return isinstance(a, Lit) and a.value is None


def _reads(tape: Tape) -> set[int]:
    found = {a.id for e in tape.eqns for a in e.args if isinstance(a, Var)}
    return found | {a.id for a in tape.outputs if isinstance(a, Var)}


def _loop_plan(
    eqn: Eqn, active: set[int], table: RuleTable, outer_ints: frozenset[int], top: bool, classes: ShapeClasses
):
    """A ``for``/``while`` loop: the forward loop saves per iteration; the backward loop replays it
    reversed.  Its body is differentiated knowing the shapes of what it reads from outside and of
    the carried values it keeps (``loop_shapes.loop_facts``): ``unbroadcast`` between them folds away."""
    k = eqn.params["n_carry"]
    lead = LEADING[eqn.prim]
    body = eqn.regions[-1]
    first = first_carried(eqn)
    carried_act = control_activity(eqn, active, table)
    free_args = eqn.args[lead + k :]
    read = _reads(body)
    free_act = [is_active(a, active) and i.var.id in read for a, i in zip(free_args, body.inputs[first + k :])]
    # the integers of the body: its index, an enclosing loop's (i + 1 of them too)
    index = {body.inputs[0].var.id} if eqn.prim == "for" else set()
    index |= {v.id for v, a in bound_inputs(eqn) if isinstance(a, Var) and a.id in outer_ints}
    ints = frozenset(writes.int_values(body.eqns, index))
    shapes = loop_facts(eqn, classes, table)[0]
    tape, _seeds, grads, _ = _region_gradient(body, first, carried_act + free_act, carried_act, table, ints, shapes)
    nc = sum(carried_act)
    free_inputs = body.inputs[first + k :]
    # free values the body does not differentiate through get no accumulator
    free_grads = iter(grads[nc:])
    free_act = [f and not _is_none(next(free_grads)) for f in free_act]
    grads = grads[:nc] + [g for g in grads[nc:] if not _is_none(g)]
    # the adjoints of free values accumulate across iterations: acc + contribution
    builder = BackwardBuilder(tape)
    accs: list[Var] = []
    for inp, flag in zip(free_inputs, free_act):
        if flag:
            acc = Var(grad_of=inp.var)
            accs.append(acc)
            tape.inputs.append(Input(acc, inp.path))  # the same path: the shape of the value it is the gradient of
            if inp.var.id in shapes:
                tape.facts.same_shape[acc.id] = shapes[inp.var.id]
            grads[nc + len(accs) - 1] = builder.add("add", [acc, grads[nc + len(accs) - 1]], {})
    # a carried value that nothing in the body reads has a zero adjoint, of its shape (the seeds'
    # shapes are those of the values: optimize relies on it)
    carried_in = [i.var for i, f in zip(body.inputs[first : first + k], carried_act) if f]
    for n, v in enumerate(carried_in):
        if _is_none(grads[n]):
            grads[n] = builder.add("grad_zeros", [v], {})
    tape.outputs = list(body.outputs) + grads
    tape = optimize(tape, table, reduce_powers=False)  # the final pass reduces them, knowing the bools
    # the adjoint of F[i] += f is the adjoint of F itself: no write restores its elements
    tape = dce(writes.drop_restoring_writes(tape, writes.int_values(tape.eqns, ints)), table)
    carried_inputs = {i.var.id for i in body.inputs[first : first + k]}
    # a for loop that may stop early is replayed from its stack: the index is saved, not recomputed
    early = eqn.prim == "for" and eqn.params.get("exit", -1) >= 0
    if early:
        carried_inputs.add(body.inputs[0].var.id)
    fwd, bwd, saved = _split(tape, k, carried_inputs)
    # save less: what the backward body can recompute cheaply from what it has is not pushed
    index = set() if early else {i.var.id for i in body.inputs[:first]}
    saved, again = remat.rematerialize(fwd, saved, {i.var.id for i in free_inputs}, index, table)
    # a carried value saved for the backward sweep gets its own variable there, and so does a
    # value the backward body recomputes
    subst: dict[int, Atom] = {v.id: Var(hint=v.hint) for v in saved if v.id in carried_inputs}
    copies = []
    for e in again:
        out = Var(hint=e.out.hint, hint_depth=e.out.hint_depth)
        subst[e.out.id] = out
        copies.append(Eqn(e.prim, list(e.args), dict(e.params), [out], e.span, (), Section.BACKWARD))
    bwd = copies + bwd
    bwd_saved = [subst.get(v.id, v) for v in saved]
    seed_inputs = [i for i in tape.inputs if i.path[0] == "#seed"]
    # writes without copies: the carried arrays the forward and backward bodies write in place
    fwd, fwd_owned, undo = writes.write_in_place(
        fwd,
        _writable(eqn, body, first, tape.outputs[:k]),
        {a.id for a in [*tape.outputs[:k], *saved] if isinstance(a, Var)},
        {v.id for v in saved},
        bwd,
    )
    acc_inputs = tape.inputs[len(tape.inputs) - len(accs) :]
    bwd, bwd_owned, _ = writes.write_in_place(
        bwd,
        list(zip([i.var for i in seed_inputs + acc_inputs], tape.outputs[k:])),
        {a.id for a in tape.outputs[k:] if isinstance(a, Var)},
        set(),
        [],
    )
    pushed = [undo.get(v.id, v) for v in saved]  # an overwritten element is pushed as its copy
    fwd_region = Tape(body.name, list(body.inputs), fwd, [*tape.outputs[:k], *pushed], facts=Facts(region=True))
    fwd_region.facts.in_place = frozenset(fwd_owned)
    bwd_inputs = (
        body.inputs[: 0 if early else first]
        + [Input(v, ("#saved", str(n))) for n, v in enumerate(bwd_saved)]
        + seed_inputs
        + acc_inputs
        + list(free_inputs)
    )
    bwd_region = Tape(body.name + "_back", bwd_inputs, bwd, list(tape.outputs[k:]), facts=Facts(region=True))
    bwd_region.facts.in_place = frozenset(bwd_owned)
    substitute(bwd_region, subst)
    if early and body.inputs[0].var.id in subst:  # the saved copy of the loop index is an integer
        bwd_region.facts.index_vars = frozenset([subst[body.inputs[0].var.id].id])
    # i + 1 of the index is an integer too: F[i + 1] += g is written in place, not by np.add.at
    for region in (fwd_region, bwd_region):
        region.facts.index_vars = frozenset(writes.int_values(region.eqns, {*ints, *region.facts.index_vars}))
    stack = Var(hint="_stack")
    params = {**eqn.params, "n_saved": len(saved)}
    snapshots = checkpoint.chosen(top, eqn.prim, early, bool(saved))
    if snapshots:  # --checkpoint S: the forward loop keeps snapshots, the backward loop replays
        params["checkpoint"] = snapshots
    new = Eqn(eqn.prim, list(eqn.args), params, [*eqn.outs, stack], eqn.span, (*eqn.regions[:-1], fwd_region))
    carried_args = eqn.args[lead : lead + k]

    def backward(contributions: dict[int, list[Atom]], builder: BackwardBuilder) -> None:
        douts = _adjoints(eqn.outs, carried_act, contributions, builder)
        initial = [a for a, f in zip(carried_args, carried_act) if f]
        free = [a for a, f in zip(free_args, free_act) if f]
        zeros = [builder.add("grad_zeros", [a], {}) for a in free]
        # named after the values they are adjoints of: the loop's results, then the free values
        primals = [o for o, f in zip(eqn.outs, carried_act) if f] + free
        outs = [Var(grad_of=a if isinstance(a, Var) else None) for a in primals]
        # a for loop that saved nothing has no stack to pop (and an enclosing loop must not save it)
        stack_arg = stack if saved or early or eqn.prim != "for" else Lit(None)
        lead_args = [stack] if early else list(eqn.args[:lead]) + [stack_arg]
        back = Eqn(
            "while_back" if early else eqn.prim + "_back",
            [*lead_args, *douts, *zeros, *_read_or_none(free_args, [list(free_inputs)], [bwd_region])],
            {"n_carry": len(outs), "n_saved": len(saved), **({"checkpoint": snapshots} if snapshots else {})},
            outs,
            eqn.span,
            (bwd_region,),
            Section.BACKWARD,
        )
        # the initial values receive the adjoints of the carried values (a constant one needs none)
        targets = [a if is_active(a, active) else None for a in initial]
        _append_back(back, targets + free, contributions, builder)
        # each result is the adjoint of an initial value or a free value, and has its shape
        same = builder.tape.facts.same_shape
        same.update((o.id, a) for o, a in zip(back.outs, initial + free) if isinstance(a, Var))

    return new, backward


def _writable(eqn: Eqn, body: Tape, first: int, results: list[Atom]) -> list[tuple[Var, Atom]]:
    """The carried inputs of a forward loop's body with the body's results for them; a ``while``
    loop's carried value that its condition reads is left out (the condition reads it too)."""
    k = eqn.params["n_carry"]
    cond = _reads(eqn.regions[0]) if eqn.prim == "while" else set()
    inputs = [i.var for i in body.inputs[first : first + k]]
    keep = [eqn.prim != "while" or eqn.regions[0].inputs[j].var.id not in cond for j in range(k)]
    return [(v, r) for v, r, f in zip(inputs, results, keep) if f]


def _branch_plan(
    eqn: Eqn, active: set[int], table: RuleTable, outer_ints: frozenset[int], top: bool, classes: ShapeClasses
):
    """An ``if``: each branch saves what its own backward part needs; the backward ``if`` takes
    the same branch (on the same condition value).  A branch knows the shapes of what it reads."""
    k = eqn.params["n_carry"]
    free_args = eqn.args[1:]
    free_act = [is_active(a, active) for a in free_args]
    out_act = control_activity(eqn, active, table)
    fwd_regions, bwd_regions, n_saved = [], [], []
    all_saved: list[list[Var]] = []
    for region in eqn.regions:
        ints = frozenset(
            i.var.id for i, a in zip(region.inputs, free_args) if isinstance(a, Var) and a.id in outer_ints
        )
        shapes = {v.id: classes.stand_in(a) for v, a in bound_inputs(eqn) if any(v is i.var for i in region.inputs)}
        tape, _seeds, grads, _ = _region_gradient(region, 0, free_act, out_act, table, ints, shapes)
        builder = BackwardBuilder(tape)
        ins = [i for i, f in zip(region.inputs, free_act) if f]
        grads = [
            builder.add("grad_zeros", [i.var], {}) if isinstance(g, Lit) and g.value is None else g
            for g, i in zip(grads, ins)
        ]
        tape.outputs = list(region.outputs) + grads
        tape = optimize(tape, table, reduce_powers=False)  # the final pass reduces them, knowing the bools
        fwd, bwd, saved = _split(tape, k, set())
        fwd_regions.append(
            Tape(region.name, list(region.inputs), fwd, [*tape.outputs[:k], *saved], facts=Facts(region=True))
        )
        seed_inputs = [i for i in tape.inputs if i.path[0] == "#seed"]
        bwd_inputs = [Input(v, ("#saved", str(n))) for n, v in enumerate(saved)] + seed_inputs + list(region.inputs)
        bwd_regions.append(
            Tape(region.name + "_back", bwd_inputs, bwd, list(tape.outputs[k:]), facts=Facts(region=True))
        )
        n_saved.append(len(saved))
        all_saved.append(saved)
    saved_var = Var(hint="_saved") if any(n_saved) else None
    params = {**eqn.params, "n_saved": tuple(n_saved)}
    outs = [*eqn.outs, saved_var] if saved_var is not None else list(eqn.outs)
    new = Eqn("if", list(eqn.args), params, outs, eqn.span, tuple(fwd_regions))

    def backward(contributions: dict[int, list[Atom]], builder: BackwardBuilder) -> None:
        douts = _adjoints(eqn.outs, out_act, contributions, builder)
        outs = [Var(grad_of=a) for a, f in zip(free_args, free_act) if f]
        back = Eqn(
            "if_back",
            [
                eqn.args[0],
                saved_var if saved_var is not None else Lit(None),
                *douts,
                *_read_or_none(
                    free_args, [list(r.inputs[len(r.inputs) - len(free_args) :]) for r in bwd_regions], bwd_regions
                ),
            ],
            {"n_carry": len(douts), "n_saved": tuple(n_saved)},
            outs,
            eqn.span,
            tuple(bwd_regions),
            Section.BACKWARD,
        )
        _append_back(back, [a for a, f in zip(free_args, free_act) if f], contributions, builder)

    return new, backward
