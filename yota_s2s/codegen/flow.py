"""Writing loops and branches: the statements of an equation that owns regions, from the plan.

A forward ``for`` or ``while`` loop keeps one name for each carried value (its initial value,
its value in the body and its result: ``carry``), pushes what its backward sweep needs on a
stack (``_stack.append(...)``) once the last of those values is computed, and the backward loop
pops it (``for i in reversed(range(n)):``).  A branch is an ``if``/``else`` whose two sides give
their results the same names, and save what their backward sides need in one tuple.  A region
input that stands for an outer value goes by that value's name (``bind``); a carried value's new
value takes the carried name where the old one is not read after it (``rename_outputs``).
"""

from __future__ import annotations

import ast

from ..ir.core import Atom, Eqn, Lit, Section, Tape, Var
from ..ir.regions import LEADING, all_tapes, bound_inputs, bound_positions, first_carried
from .appends import carried_inits, owns
from .base import WriterBase, call, named, tuple_of
from .checkpoints import released, replay, step_values, written
from .statements import Else, Line
from .steps import NumberSteps


class FlowWriter:
    """The statements of loops and branches, for the writer that holds it
    (``writer.FunctionWriter.flow``), whose ``block`` writes a region's equations."""

    def __init__(self, writer: WriterBase):
        self.w = writer
        #: each loop region's carried input -> the loop's initial value of it (``appends.carried_inits``)
        self._inits: dict | None = None
        #: the stack of a checkpointed forward loop -> the name of its checkpoints (``--checkpoint``)
        self._checkpoints: dict | None = None
        self._readers: dict | None = None  # (unread: value -> what reads it)
        self.deleted: set[str] = set()  # the names a del before a checkpointed backward loop released
        self.steps = NumberSteps(writer)  # (a loop whose step computes on numbers)

    @property
    def checkpoints(self) -> dict[int, str]:
        if self._checkpoints is None:
            self._checkpoints = {}
        return self._checkpoints

    def bind(self, var: Var, a: Atom, depth: int, body: list, section: Section) -> None:
        """Name a region input after the outer value it stands for (a constant is written in place)."""
        if isinstance(a, Lit):
            self.w.consts[var.id] = a
            return
        if isinstance(a, Var) and a.id in self.w.names and a.id not in self.w.plan.inline:
            self.w.names[var.id] = self.w.names[a.id]
            return
        name = self.w.name_for(var)
        self.w.names[var.id] = name
        body.append(Line(section, None, ast.Assign([ast.Name(name, ast.Store())], self.w.atom(a), lineno=0), depth))

    def carry(self, eqn: Eqn, depth: int, body: list, preset: dict[int, str]) -> list[str]:
        """Name each carried value of a loop (one name for its initial value, its value in the body and
        its final value); assign the initial values that live under another name."""
        lead = LEADING[eqn.prim]
        k = eqn.params["n_carry"]
        names = []
        inputs = eqn.regions[-1].inputs[first_carried(eqn) :]
        for init, out, inp in zip(eqn.args[lead : lead + k], eqn.outs, inputs):
            if out.id in preset:
                name = preset[out.id]
            elif init.id in self.w.plan.alias if isinstance(init, Var) else False:
                name = self.w.names[init.id]
            else:
                name = self.w.name_for(out)
            value = self.w.atom(init)
            plan = self.w.plan
            if self._inits is None:
                self._inits = carried_inits(plan.tape)
            if plan.inplace.get(inp.var.id) == inp.var.id and not owns(
                init, plan.uses, plan.defs, plan.inplace, self._inits
            ):
                value = call(value, "copy", [])  # the loop writes into an array of its own
            elif isinstance(init, Var) and self.w.names.get(init.id) == name:
                names.append(name)
                self.w.names[out.id] = name
                continue
            body.append(Line(eqn.section, None, ast.Assign([ast.Name(name, ast.Store())], value, lineno=0), depth))
            self.w.names[out.id] = name
            names.append(name)
        return names

    def region_body(
        self, region: Tape, carried: list[tuple[Var, str]], n_out: int, depth: int, body: list, stack: str | None = None
    ) -> None:
        """Emit ``region`` whose first ``n_out`` outputs go to the names in ``carried`` (input, name);
        with ``stack``, the other outputs are pushed on it once the last of them is computed."""
        push = None
        if stack is not None:
            where = {o.id: n for n, e in enumerate(region.eqns) for o in e.outs}
            saved = region.outputs[n_out:]
            at = max((where[a.id] for a in saved if isinstance(a, Var) and a.id in where), default=-1)

            def statement() -> ast.stmt:
                values = [self.w.atom(a) for a in saved]
                item = ast.Constant(None) if not values else values[0] if len(values) == 1 else tuple_of(values)
                return ast.Expr(call(named(stack), "append", [item]))

            push = (at, statement)
        preset = self.rename_outputs(region, carried, n_out, push[0] if push else None)
        if id(region) in self.steps.vectors:
            self.steps.elements(region, depth, body)
        self.w.block(region, depth, body, preset, push)
        targets, values = [], []
        for (_, name), a in zip(carried, region.outputs[:n_out]):
            if isinstance(a, Var) and self.w.names.get(a.id) == name and a.id not in self.w.plan.inline:
                continue
            targets.append(ast.Name(name, ast.Store()))
            values.append(self.w.atom(a))
        if targets:
            stmt = ast.Assign(
                [targets[0] if len(targets) == 1 else ast.Tuple(targets, ast.Store())],
                values[0] if len(values) == 1 else ast.Tuple(values, ast.Load()),
                lineno=0,
            )
            body.append(Line(self.w.section_of(region), None, stmt, depth))

    def rename_outputs(
        self, region: Tape, carried: list[tuple[Var | None, str]], n_out: int, pushed: int | None
    ) -> dict[int, str]:
        """Give a carried value's new value the carried name where the old value is not read after it."""
        position: dict[int, int] = {}
        for n, eqn in enumerate(region.eqns):
            for o in eqn.outs:
                position[o.id] = n
        users: dict[int, int] = {}
        for n, eqn in enumerate(region.eqns):
            for a in eqn.args:
                if isinstance(a, Var):
                    users[a.id] = n

        def when(n: int) -> int:  # where equation n is written: an inlined one, at its user
            eqn = region.eqns[n]
            while eqn.out.id in self.w.plan.inline and eqn.out.id in users:
                n = users[eqn.out.id]
                eqn = region.eqns[n]
            return n

        last_read: dict[int, int] = {}
        for n, eqn in enumerate(region.eqns):
            for a in eqn.args:
                if isinstance(a, Var):
                    last_read[a.id] = max(last_read.get(a.id, -1), when(n))
        end = len(region.eqns)
        outputs = region.outputs
        preset: dict[int, str] = {}
        for j, ((inp, name), a) in enumerate(zip(carried, outputs)):
            if not isinstance(a, Var) or a.id not in position or a.id in self.w.plan.inline:
                continue
            if outputs[:n_out].count(a) != 1 or a.id in self.w.plan.inplace:
                continue
            # the inputs that go by the same name (a carried value; a value bound to an outer name)
            same = [i.var for i in region.inputs if self.w.names.get(i.var.id) == name]
            if inp is not None and inp not in same:
                same.append(inp)
            defined = when(position[a.id])
            later = self.namesakes(region, same, a)
            if any(when(position[v.id]) > defined for v in later):  # it would write over ``a``
                continue
            if any(self.clobbers(v, a, j, outputs, n_out, pushed, last_read, defined, end) for v in same + later):
                continue
            preset[a.id] = name
        return preset

    def namesakes(self, region: Tape, same: list[Var], a: Var) -> list[Var]:
        """The values of ``region`` (but ``a``) that take the name of ``same``: the writes into
        their buffer in place (``da[0] += g`` is still ``da``), and a loop's result where its
        initial value lends it its name (``plan.alias``), and so on."""
        names = {v.id for v in same}
        roots = {self.w.plan.inplace[v.id] for v in same if v.id in self.w.plan.inplace}
        found: list[Var] = []
        for eqn in region.eqns:
            if eqn.regions and eqn.prim not in ("if", "if_back"):
                lead = LEADING[eqn.prim]
                inits = eqn.args[lead : lead + eqn.params["n_carry"]]
                for init, out in zip(inits, eqn.outs):
                    if isinstance(init, Var) and init.id in names and self.w.plan.alias.get(init.id) is out:
                        names.add(out.id)
                        roots.add(self.w.plan.inplace.get(out.id, out.id))
                        found.append(out)
            for o in eqn.outs:
                if o.id not in names and o is not a and self.w.plan.inplace.get(o.id) in roots:
                    names.add(o.id)
                    found.append(o)
        return found

    @staticmethod
    def clobbers(inp, a, j, outputs, n_out, pushed, last_read, defined, end) -> bool:
        """Naming ``a`` (output ``j``) like input ``inp`` would overwrite ``inp`` while it is still read."""
        if any(o is inp for i, o in enumerate(outputs[:n_out]) if i != j):
            return True
        read = last_read.get(inp.id, -1)
        if pushed is not None and any(o is inp for o in outputs[n_out:]):
            read = max(read, pushed + 1)  # the push statement is written after equation `pushed`
        return read > defined or read >= end

    def control(self, eqn: Eqn, depth: int, body: list, preset: dict[int, str]) -> None:
        sec = eqn.section
        lead = LEADING[eqn.prim]
        k = eqn.params["n_carry"]
        inner = depth + 1
        if eqn.prim == "if" or eqn.prim == "if_back":
            self.branches(eqn, depth, body, preset)
            return
        region = eqn.regions[-1]
        first = first_carried(eqn)
        n_saved = eqn.params.get("n_saved", 0)
        names = self.carry(eqn, depth, body, preset)
        back = eqn.prim.endswith("_back")
        carried_inputs = region.inputs[first : first + k]
        for inp, name in zip(carried_inputs, names):
            self.w.names[inp.var.id] = name
        for r in eqn.regions[:-1]:  # a while loop's condition reads the carried values too
            for inp, name in zip(r.inputs[:k], names):
                self.w.names[inp.var.id] = name
        for var, a in bound_inputs(eqn):
            self.bind(var, a, depth, body, sec)
        if eqn.prim == "for" and depth == 0 and len(eqn.outs) > k and self.w.backend.host:
            self.steps.flag(eqn, depth, body)
        stack = None
        replayed = eqn.prim == "while" or eqn.params.get("exit", -1) >= 0  # the stack counts the iterations
        if not back and len(eqn.outs) > k and self.w.plan.uses.get(eqn.outs[k].id) and (n_saved or replayed):
            stack = self.w.namer.fresh("_stack")
            self.w.names[eqn.outs[k].id] = stack
            body.append(
                Line(sec, None, ast.Assign([named(stack, ast.Store())], ast.List([], ast.Load()), lineno=0), depth)
            )
        lines: list = []
        checkpoints = stack if eqn.params.get("checkpoint") and eqn.prim == "for" else None
        if checkpoints is not None:  # --checkpoint S: the schedule, once the trip count is known
            self.w.helpers.update(("_ck_start", "_ck_save", "_ck_drop"))
            ck = self.w.namer.fresh("_ck")
            self.checkpoints[eqn.outs[k].id] = ck
            steps = ast.Call(named("range"), self.range_args(eqn.args[:3]), [])
            made = ast.Call(named("_ck_start"), [steps, ast.Constant(eqn.params["checkpoint"])], [])
            body.append(Line(sec, None, ast.Assign([named(ck, ast.Store())], made, lineno=0), depth))
        if back and eqn.params.get("checkpoint") and self.checkpoints.get(eqn.args[lead - 1].id):
            dead = released(self, eqn)  # (the forward result: a state for the whole backward loop)
            if dead:
                body.append(Line(sec, None, ast.Delete([named(n, ast.Del()) for n in dead]), depth))
        if eqn.prim in ("for", "for_back"):
            index = region.inputs[0].var  # the backward loop shares the forward loop's index
            if index.id not in self.w.names:
                self.w.names[index.id] = self.w.name_for(index)
            iterated = ast.Call(named("range"), self.range_args(eqn.args[:3]), [])
            if back:
                iterated = ast.Call(named("reversed"), [iterated], [])
            header = ast.For(named(self.w.names[index.id], ast.Store()), iterated, [], [], lineno=0)
            body.append(Line(sec, eqn.span, header, depth, header=True))
        elif eqn.prim == "while":
            cond = eqn.regions[0]
            self.w.block(cond, inner, lines)
            flag = self.w.atom(cond.outputs[0])
            if lines:
                body.append(Line(sec, eqn.span, ast.While(ast.Constant(True), [], []), depth, header=True))
                body.extend(lines)
                body.append(Line(sec, None, ast.If(ast.UnaryOp(ast.Not(), flag), [ast.Break()], []), inner))
            else:
                body.append(Line(sec, eqn.span, ast.While(flag, [], []), depth, header=True))
        else:  # while_back
            body.append(Line(sec, eqn.span, ast.While(named(self.w.names[eqn.args[0].id]), [], []), depth, header=True))
        if back and eqn.params.get("checkpoint") and self.checkpoints.get(eqn.args[lead - 1].id):
            replay(self, eqn, inner, body)  # (before the pop: it pushes the record again)
        step_start = len(body)
        if back:
            saved = region.inputs[first - n_saved : first] if eqn.prim == "for_back" else region.inputs[:n_saved]
            if eqn.prim == "for_back":
                saved = region.inputs[1 : 1 + n_saved]
            stack_name = self.w.names.get(eqn.args[lead - 1].id) if isinstance(eqn.args[lead - 1], Var) else None
            if saved:
                for inp in saved:
                    self.name_restored(inp.var)
                targets = [named(self.w.names[i.var.id], ast.Store()) for i in saved]
                target = targets[0] if len(targets) == 1 else ast.Tuple(targets, ast.Store())
                pop = ast.Assign([target], call(named(stack_name), "pop", []), lineno=0)
                body.append(Line(sec, None, pop, inner))
            elif eqn.prim == "while_back":
                body.append(Line(sec, None, ast.Expr(call(named(stack_name), "pop", [])), inner))
        if checkpoints is not None:
            state = [named(ck), named(self.w.names[index.id]), tuple_of([named(n) for n in names])]
            save = ast.Call(named("_ck_save"), state + written(self.w.plan, eqn), [])
            body.append(Line(sec, None, ast.Expr(save), inner))
        start = len(body)
        if eqn.prim == "for_back" and isinstance(eqn.args[lead - 1], Var):
            self.w.numbers = self.steps.flags.get(eqn.args[lead - 1].id)
        self.region_body(region, list(zip([i.var for i in carried_inputs], names)), k, inner, body, stack)
        self.w.numbers = None
        if checkpoints is not None:  # the record is kept only when the backward loop reads it next
            drop = ast.Call(named("_ck_drop"), [named(ck), named(self.w.names[index.id])], [])
            pop = ast.Expr(call(named(stack), "pop", []))
            body.append(Line(sec, None, ast.If(drop, [pop], []), inner))
        if back and eqn.params.get("checkpoint") and self.checkpoints.get(eqn.args[lead - 1].id):
            done = step_values(self, eqn, body[step_start:], inner, names)  # (not held through the next replay)
            if done:
                body.append(Line(sec, None, ast.Delete([named(n, ast.Del()) for n in done]), inner))
        if eqn.params.get("exit", -1) >= 0:  # break, or a return, ends the loop
            body.append(Line(sec, None, ast.If(named(names[eqn.params["exit"]]), [ast.Break()], []), inner))
        if len(body) == start and not (back and n_saved):
            body.append(Line(sec, None, ast.Pass(), inner))

    def name_restored(self, var: Var) -> None:
        """Name a value the backward sweep takes back from a stack or a branch's saved tuple.

        It keeps its forward name only where no other value has that name (a region input that
        stands for it is the same value): a name several values share (a carried value's, which
        is also the loop's result; an initial value lent to a loop; an in-place buffer) may still
        be read after the backward loop or branch, which must not overwrite it.  One that nothing
        reads (a tangent pushed beside its value, which this backward sweep does not need) gets a
        temporary's name, which linters read as unused on purpose."""
        if self.unread(var):
            self.w.names[var.id] = self.w.namer.temp()
            return
        name = self.w.names.get(var.id)
        bound = self.w.plan.bound  # a region input that stands for an outer value is that value
        if name is None or any(n == name and v != var.id and v not in bound for v, n in self.w.names.items()):
            self.w.names[var.id] = self.w.name_for(var)

    def unread(self, var: Var) -> bool:
        """Nothing reads ``var``: no equation or output, but loops and branches that pass it to an
        input of their regions that nothing reads either."""
        if self._readers is None:  # value id -> per read, None or the region inputs it is passed to
            readers: dict[int, list[list[Var] | None]] = {}
            for t in all_tapes(self.w.plan.tape):
                for e in t.eqns:
                    bound: dict[int, list[Var]] = {}
                    for pos, v in bound_positions(e) if e.regions else ():
                        bound.setdefault(pos, []).append(v)
                    for pos, a in enumerate(e.args):
                        if isinstance(a, Var):
                            readers.setdefault(a.id, []).append(bound.get(pos))
                for a in t.outputs:
                    if isinstance(a, Var):
                        readers.setdefault(a.id, []).append(None)
            self._readers = readers
        return all(r is not None and all(self.unread(v) for v in r) for r in self._readers.get(var.id, []))

    def range_args(self, bounds: list[Atom]) -> list[ast.expr]:
        start, stop, step = bounds
        if _is_lit(step, 1):
            if _is_lit(start, 0):
                return [self.w.atom(stop)]
            return [self.w.atom(start), self.w.atom(stop)]
        return [self.w.atom(b) for b in bounds]

    def branches(self, eqn: Eqn, depth: int, body: list, preset: dict[int, str]) -> None:
        sec = eqn.section
        k = eqn.params["n_carry"]
        n_saved = eqn.params.get("n_saved", (0, 0))
        back = eqn.prim == "if_back"
        outs = eqn.outs if back else eqn.outs[:k]
        names = [
            self.w.names[self.w.plan.inplace[o.id]]
            if o.id in self.w.plan.inplace
            else preset.get(o.id) or self.w.name_for(o)
            for o in outs
        ]
        for i, o in enumerate(outs):  # (a result nothing reads, a tangent carried out of the branch: a temporary)
            if not names[i].startswith("_") and o.id not in self.w.plan.inplace and self.unread(o):
                names[i] = self.w.namer.temp()
        for o, name in zip(outs, names):
            self.w.names[o.id] = name
        saved_name = None
        if not back and len(eqn.outs) > k:
            saved_name = self.w.name_for(eqn.outs[k])
            self.w.names[eqn.outs[k].id] = saved_name
        for var, a in bound_inputs(eqn):
            self.bind(var, a, depth, body, sec)
        flag = self.w.atom(eqn.args[0])
        parts: list[list] = []
        for b, region in enumerate(eqn.regions):
            part: list = []
            parts.append(part)
            if back and n_saved[b]:
                saved = region.inputs[: n_saved[b]]
                for inp in saved:
                    self.name_restored(inp.var)
                targets = ast.Tuple([named(self.w.names[i.var.id], ast.Store()) for i in saved], ast.Store())
                stack = named(self.w.names[eqn.args[1].id])
                part.append(Line(sec, None, ast.Assign([targets], stack, lineno=0), depth + 1))
            n_out = len(outs)
            self.region_body(region, [(None, n) for n in names], n_out, depth + 1, part)
            if saved_name is not None:
                item = tuple_of([self.w.atom(a) for a in region.outputs[k:]])
                part.append(Line(sec, None, ast.Assign([named(saved_name, ast.Store())], item, lineno=0), depth + 1))
        then, other = parts
        if not then and not other:
            return
        if not then:  # only the else side does something
            test = eqn.args[0]
            flag = ast.UnaryOp(ast.Not(), self.w.atom(test))
            then, other = other, []
        body.append(Line(sec, eqn.span, ast.If(flag, [], []), depth, header=True))
        body.extend(then)
        if other:
            body.append(Line(sec, None, Else(), depth))
            body.extend(other)


def _is_lit(a: Atom, value: int) -> bool:
    return isinstance(a, Lit) and type(a.value) is int and a.value == value
