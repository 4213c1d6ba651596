"""Structured control flow: loops and branches as equations that own sub-tapes (regions).

A part of lowering (a fenced ``Module`` and a function name in, a primal ``Tape`` out;
``state`` lists the parts): a block of statements in, its equations added to the tape and
its names bound. Lowering turns each ``for``, ``while`` and ``if`` statement (and
``a if c else b``) into ONE equation of the enclosing tape; its body is a region: a closed ``Tape``
whose inputs are the loop index (``for``), the *carried* values (names the body assigns
that live across iterations or after the statement) and the *free* values it reads from
outside, and whose outputs are the carried values after one iteration (or a branch's
results). The generated code keeps the loop a loop: its size does not grow with the trip
count.

Primitives (``k`` carried values, ``m`` free values)::

    outs[k]      = for(start, stop, step, *init[k], *free[m])  body(i, *carried, *free) -> carried'
    outs[k]      = while(*init[k], *free[m])      cond(*carried, *free) -> flag; body(...) -> carried'
    outs[k]      = if(flag, *free[m])             then(*free) -> outs; else(*free) -> outs

Differentiation (``differentiate``) adds a ``stack`` output to a forward loop (the
values its backward sweep needs, pushed once per iteration), a ``saved`` tuple to
a branch, and the reversed statements ``for_back``, ``while_back`` and ``if_back``.

    >>> from yota_s2s.dsl.load import load_rules
    >>> from yota_s2s.frontend.fence import fence
    >>> from yota_s2s.frontend.lower import lower
    >>> src = "def f(x, n):\\n    s = 0.0\\n    for i in range(n):\\n        s = s + x * s + x\\n    return s\\n"
    >>> t = lower(fence(src, "f.py"), "f", load_rules())
    >>> [(e.prim, e.params["n_carry"], len(e.regions[0].inputs)) for e in t.eqns]
    [('for', 1, 3)]
"""

from __future__ import annotations

import ast
from dataclasses import replace

from ..errors import UserError
from ..ir.core import Atom, Dyn, Input, Lit, Tape, Var
from ..ir.regions import close_regions, region_eqn
from .dicts import DictItems, _hint
from .exits import Exits, _always_returns, _jumps, _returns, live_after, loaded_outside, read_first, stored_names
from .expressions import NeedsUnrolling
from .generated import fast_path, is_guard
from .rewrites import rewritten
from .source import statement_text
from .state import LoweringState


class ControlLowering:
    """Blocks, loops and branches (a part of ``lower.Lowerer``)."""

    def __init__(self, lo: LoweringState):
        self.lo = lo
        #: The stop flag of the loop lowered last (None: nothing stops it early): ``for ... else``.
        self.stopped_by: str | None = None
        #: Numbers the break/continue flags of loops (``_skip1``, ``_stop1``).
        self.exit_count: int = 0

    # ------------------------------------------------------------------ blocks
    def block(self, stmts: list[ast.stmt], env: dict) -> Atom | None:
        """Lower a statement list; the returned value if it ends in ``return`` (else None)."""
        for idx, stmt in enumerate(stmts):
            if _may_be_rewritten(stmt):
                stmt = self.lo.lists.maps_as_generators(stmt, env)
                plainer = rewritten(stmt, env, self.lo.lists)
                if isinstance(plainer, list):  # first, *rest = xs; functools.reduce(f, xs): the plainer statements
                    return self.block(plainer + stmts[idx + 1 :], env)
                stmt = plainer
                hoisted = self.lo.lists.runtime_comprehensions(stmt, env)
                if hoisted is not None:  # [f(v) for v in lst] of a run-time length: a loop, then stmt
                    return self.block(hoisted + stmts[idx + 1 :], env)
            self.at_statement(stmt)
            if isinstance(stmt, ast.Return):
                return Lit(None) if stmt.value is None else self.lo.expr(stmt.value, env)
            if isinstance(stmt, ast.Raise):  # what follows never runs; a value is never needed here
                self.lo.statement(stmt, env)
                return Lit(None)
            if self.lo.loop_level:
                pass  # in a loop body, returns are flags (see Exits)
            elif isinstance(stmt, ast.If) and _returns([stmt]):
                return self.if_returning(stmt, stmts[idx + 1 :], env)
            elif isinstance(stmt, ast.For | ast.While) and _returns([stmt]):
                # a loop that may return: it sets `returned`/`value` and stops; then the rest runs or not
                returned, value = self.return_flags()
                env[returned], env[value] = Lit(False), Lit(None)
                self.lo.statement(stmt, env)
                test = ast.copy_location(
                    ast.If(ast.Name(returned, ast.Load()), [ast.Return(ast.Name(value))], []), stmt
                )
                return self.if_returning(test, stmts[idx + 1 :], env)
            self.lo.statement(stmt, env)
        return None

    def return_flags(self) -> tuple[str, str]:
        depth = len(self.lo.stack)
        returned, value = self.lo.flag_name(f"_returned{depth}"), self.lo.flag_name(f"_value{depth}")
        self.lo.returned_values.add(value)
        return returned, value

    def loop_body(self, node: ast.For | ast.While, env: dict) -> tuple[list[ast.stmt], str | None]:
        """The loop's body with ``break``/``continue``/``return`` turned into flags, and the flag
        that stops the loop (None when nothing stops it early)."""
        if not _jumps(node.body):
            return node.body, None
        self.exit_count += 1
        exits = Exits(self.exit_count, *self.return_flags())
        exits.skip, exits.stop = self.lo.flag_name(exits.skip), self.lo.flag_name(exits.stop)  # never a user's name
        body = [exits.set(exits.skip, ast.Constant(False), node.body[0]), *exits.rewrite(node.body)]
        if not exits.used_stop:
            return body, None
        env[exits.stop] = Lit(False)
        return body, exits.stop

    def at_statement(self, stmt: ast.stmt) -> None:
        if not hasattr(stmt, "lineno"):  # a statement the loop rewriting made (pass)
            return
        self.lo.stmt_line = stmt.lineno
        self.lo.stmt_text = statement_text(self.lo.module.source, stmt)

    def header_span(self, node: ast.stmt):
        """The span of a loop or branch: its first line (``for i in range(n):``)."""
        line = self.lo.module.source.splitlines()[node.lineno - 1].strip()
        return replace(self.lo.span_at(node), line=node.lineno, text=line)

    def in_region(self, region: Tape, run):
        saved = self.lo.tape, self.lo.stmt_line, self.lo.stmt_text
        self.lo.tape = region
        try:
            return run()
        finally:
            self.lo.tape, self.lo.stmt_line, self.lo.stmt_text = saved

    def carry_value(self, value: object, name: str, node: ast.AST) -> Atom:
        if isinstance(value, tuple):  # a list across a loop or branch: a list built at run time
            return self.lo.lists.as_list(value, node)
        return self.lo.as_array(value, node)

    def initial(self, env: dict, name: str, node: ast.AST) -> Atom:
        if name not in env:
            self.lo.maybe_unbound.add(name)
            return Lit(None)
        return self.carry_value(env[name], name, node)

    def carried_names(self, node: ast.AST, body: list[ast.stmt], env: dict, exclude: set[str] = frozenset()) -> list:
        after = loaded_outside(self.lo.fn_nodes[-1], node)
        stored = stored_names(body)
        if _returns(body):  # a nested loop's return sets the function's return flags
            stored += [n for n in self.return_flags() if n not in stored]
        # a loop body that reads a name before assigning it reads the previous iteration's value
        loop = isinstance(node, ast.For | ast.While)
        return [n for n in stored if n not in exclude and (n in env or n in after or (loop and read_first(body, n)))]

    # ------------------------------------------------------------------ for
    def loop_else(self, node: ast.For | ast.While, env: dict) -> None:
        """``for ... else`` / ``while ... else``: the loop, then its ``else`` block where no
        ``break`` (or ``return``) stopped it, under the loop's stop flag."""
        loop = ast.copy_location(type(node)(**{**{f: getattr(node, f) for f in node._fields}, "orelse": []}), node)
        self.lo.statement(loop, env)
        stop = self.stopped_by
        if stop is None:  # nothing stops it early: the else block always runs
            for stmt in node.orelse:
                self.at_statement(stmt)
                self.lo.statement(stmt, env)
            return
        test = ast.copy_location(ast.UnaryOp(ast.Not(), ast.Name(stop, ast.Load())), node)
        self.stmt_If(ast.copy_location(ast.If(test, node.orelse, []), node.orelse[0]), env)

    def stmt_For(self, node: ast.For, env: dict) -> None:
        if node.orelse:
            return self.loop_else(node, env)
        self.lo.stmt_text = self.header_span(node).text  # the bounds are computed before the loop
        space = self.iteration(node, env)
        if space[0] == "static" and _jumps(node.body):
            raise self.lo.error(
                "YS011", "break/continue/return in a loop over a tuple is not supported; loop over range()", node
            )
        self.stopped_by = None
        if space[0] == "static":  # a loop over a tuple written in the source: unrolled
            for item in space[1]:
                self.lo.assign(node.target, item, env)
                if self.block(node.body, env) is not None:  # pragma: no cover - fence refuses
                    raise self.lo.error("YS012", "'return' inside a loop is not supported", node)
            return
        mark = len(self.lo.tape.eqns)
        try:
            self.kept_loop(node, env, space)
        except NeedsUnrolling:  # params[f"W{i}"]: the key is known in each iteration only
            items = _constant_range(space)
            if items is None or _jumps(node.body):
                raise  # (an outer loop of constant bounds may unroll, and make these bounds constant)
            self.lo.discard(self.lo.tape, mark)
            self.stopped_by = None
            for k in items:
                self.lo.assign(node.target, Lit(k), env)
                self.block(node.body, env)

    def kept_loop(self, node: ast.For, env: dict, space: tuple) -> None:
        """A ``for`` over ``range()`` or the rows of arrays, kept a loop: a ``for`` equation."""
        _, start, stop, step, rows, index_target = space
        targets = [n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)]
        self.lo.stmt_text = self.header_span(node).text  # what the loop computes before it starts
        stmts, stop_flag = self.loop_body(node, env)
        self.stopped_by = stop_flag
        carried = self.carried_names(node, stmts, env, set(targets))
        # the loop variable read after the loop keeps its last value (its value before the loop, or
        # unbound, when the loop does not run): it is carried like a name the body assigns
        carried += [n for n in targets if n not in carried and live_after(self.lo.fn_nodes[-1], node, n)]
        carried = self.lo.dicts.split_dicts(carried, env)
        inits = [self.initial(env, n, node) for n in carried]
        region = Tape("for")
        i_var = Var(hint=index_target or "_i")
        region.inputs.append(Input(i_var, ("#index",)))
        c_vars = [Var(hint=_hint(n)) for n in carried]
        self.lo.lists.mark_lists([[v] for v in inits], c_vars)
        region.inputs.extend(Input(v, ("#carry", n)) for v, n in zip(c_vars, carried))
        body_env = dict(env)
        body_env.update(zip(carried, c_vars))
        self.lo.dicts.join_dicts(body_env, carried)
        self.lo.carried_from.update((v.id, (env.get(n), node.lineno)) for v, n in zip(c_vars, carried))

        def run():
            if rows is None:
                self.lo.assign(node.target, i_var, body_env)
                return self.iteration_body(stmts, body_env, carried, node)
            item = node.target
            if index_target is not None:  # enumerate(X): (i, row)
                self.lo.assign(node.target.elts[0], i_var, body_env)
                item = node.target.elts[1]
            if isinstance(rows, tuple):  # zip(X, Y): a row of each
                for t, r in zip(item.elts, rows):
                    self.lo.assign(t, self.lo.add("getindex", [r, i_var], {"index": (Dyn(0),)}, node.iter), body_env)
            else:
                self.lo.assign(item, self.lo.add("getindex", [rows, i_var], {"index": (Dyn(0),)}, node.iter), body_env)
            return self.iteration_body(stmts, body_env, carried, node)

        iterated = rows if isinstance(rows, tuple) else (rows,)
        self.lo.iterated.extend((r, node.lineno) for r in iterated)  # an update in place would change the rows
        try:
            region.outputs = self.in_region(region, run)
        finally:
            del self.lo.iterated[len(self.lo.iterated) - len(iterated) :]
        outs = [Var(hint=_hint(n)) for n in carried]
        self.lo.lists.mark_lists([[v] for v in inits], outs)
        free = close_regions([region], [1 + len(carried)])
        params = {"n_carry": len(carried), "exit": carried.index(stop_flag) if stop_flag else -1}
        eqn = region_eqn("for", [start, stop, step, *inits, *free], params, [region], outs, self.header_span(node))
        self.lo.tape.eqns.append(eqn)
        self.lo.merges.update((o.id, eqn) for o in outs)  # may an iteration give a shared array?
        env.update(zip(carried, outs))
        self.lo.dicts.join_dicts(env, carried)

    def iteration(self, node: ast.For, env: dict) -> tuple:
        """What a ``for`` iterates over: ``("static", items)`` or ``("range", start, stop, step, rows, i_name)``."""
        it = node.iter
        target = node.target
        if isinstance(it, ast.Call) and not it.keywords and isinstance(it.func, ast.Name):
            callee = self.lo.expr(it.func, env)
            name = getattr(callee, "name", None)
            if name == "builtins.range":
                if not 1 <= len(it.args) <= 3:
                    raise self.lo.error("YS032", "range() takes 1 to 3 arguments", it)
                bounds = [self.lo.as_array(self.lo.expr(a, env), a) for a in it.args]
                if len(bounds) == 1:
                    bounds = [Lit(0), bounds[0]]
                if len(bounds) == 2:
                    bounds.append(Lit(1))
                _check_target(self.lo, target)
                return ("range", *bounds, None, target.id)
            if name == "builtins.enumerate" and len(it.args) == 1:
                if not (isinstance(target, ast.Tuple) and len(target.elts) == 2):
                    raise self.lo.error("YS011", "write 'for i, item in enumerate(...)'", target)
                _check_target(self.lo, target.elts[0])
                zipped = _zipped(self.lo, it.args[0], target.elts[1], env)
                if zipped is not None:  # enumerate(zip(X, Y)): (i, (x, y))
                    if zipped[0] == "static":
                        return ("static", [(Lit(k), v) for k, v in enumerate(zipped[1])])
                    return (*zipped[:-1], target.elts[0].id)
                seq = self.lo.expr(it.args[0], env)
                nested = not isinstance(target.elts[1], ast.Name)
                if nested and isinstance(seq, Lit) and isinstance(seq.value, tuple):  # (a, b) of PAIRS: unrolled
                    seq = tuple(Lit(v) for v in seq.value)
                if not isinstance(seq, tuple):
                    _check_target(self.lo, target.elts[1])
                if isinstance(seq, tuple):
                    return ("static", [(Lit(k), v) for k, v in enumerate(seq)])
                rows = self.lo.as_array(seq, it.args[0])
                stop = self.lo.calls.call_primitive("builtins.len", [rows], {}, it)
                return ("range", Lit(0), stop, Lit(1), rows, target.elts[0].id)
            zipped = _zipped(self.lo, it, target, env)
            if zipped is not None:
                return zipped
        seq = self.lo.expr(_materialized(self.lo, it, env), env)  # (an iterator: a tuple of its items)
        if isinstance(seq, DictItems):  # p.items() of a dict parameter read as an input tree
            return self.lo.dicts.items_loop(seq, target, it)
        if isinstance(seq, Lit) and isinstance(seq.value, tuple):
            seq = tuple(Lit(v) for v in seq.value)
        if isinstance(seq, tuple):
            return ("static", list(seq))
        rows = self.lo.as_array(seq, it)
        if not (isinstance(target, ast.Tuple) and all(isinstance(t, ast.Name) for t in target.elts)):
            _check_target(self.lo, target)  # (for X, y in batches: each row unpacked, its length checked)
        stop = self.lo.calls.call_primitive("builtins.len", [rows], {}, it)
        return ("range", Lit(0), stop, Lit(1), rows, None)

    def iteration_body(self, stmts: list[ast.stmt], env: dict, carried: list[str], node: ast.AST) -> list[Atom]:
        """Lower one iteration of a loop body; the carried values after it."""
        self.lo.loop_level += 1
        try:
            with self.lo.in_scope(env):
                self.block(stmts, env)
        finally:
            self.lo.loop_level -= 1
        self.lo.dicts.sync_dicts(env, carried, node)
        return [self.carry_value(env[n], n, node) for n in carried]

    # ------------------------------------------------------------------ while
    def stmt_While(self, node: ast.While, env: dict) -> None:
        if node.orelse:
            return self.loop_else(node, env)
        stmts, stop = self.loop_body(node, env)
        self.stopped_by = stop
        carried = self.lo.dicts.split_dicts(self.carried_names(node, stmts, env), env)
        inits = [self.initial(env, n, node) for n in carried]
        cond, body = Tape("while_cond"), Tape("while")
        regions = [cond, body]
        c_sets = []
        for region in regions:
            vs = [Var(hint=_hint(n)) for n in carried]
            self.lo.lists.mark_lists([[v] for v in inits], vs)
            region.inputs.extend(Input(v, ("#carry", n)) for v, n in zip(vs, carried))
            c_sets.append(vs)
            self.lo.carried_from.update((v.id, (env.get(n), node.lineno)) for v, n in zip(vs, carried))
        cond_env = dict(env)
        cond_env.update(zip(carried, c_sets[0]))
        self.lo.dicts.join_dicts(cond_env, carried)
        cond.outputs = self.in_region(cond, lambda: [self.lo.as_array(self.lo.expr(node.test, cond_env), node.test)])
        body_env = dict(env)
        body_env.update(zip(carried, c_sets[1]))
        self.lo.dicts.join_dicts(body_env, carried)

        def run():
            return self.iteration_body(stmts, body_env, carried, node)

        body.outputs = self.in_region(body, run)
        outs = [Var(hint=_hint(n)) for n in carried]
        self.lo.lists.mark_lists([[v] for v in inits], outs)
        free = close_regions(regions, [len(carried), len(carried)])
        params = {"n_carry": len(carried), "exit": carried.index(stop) if stop else -1}
        self.lo.tape.eqns.append(region_eqn("while", [*inits, *free], params, regions, outs, self.header_span(node)))
        self.lo.merges.update((o.id, self.lo.tape.eqns[-1]) for o in outs)
        env.update(zip(carried, outs))
        self.lo.dicts.join_dicts(env, carried)

    # ------------------------------------------------------------------ if
    def stmt_If(self, node: ast.If, env: dict) -> None:
        if is_guard(self.lo.module, node):  # a generated function's argument check (``generated``): it only raises
            return
        flag = self.lo.as_array(self.lo.expr(node.test, env), node.test)
        if isinstance(flag, Lit):  # a condition known when generating: only one branch exists, its values as they are
            self.block(node.body if flag.value else node.orelse, env)
            return
        names = self.lo.dicts.split_dicts(self.carried_names(node, node.body + node.orelse, env), env)
        branches = []
        for stmts in (node.body, node.orelse):
            branch_env = dict(env)

            def run(stmts=stmts, branch_env=branch_env):
                with self.lo.in_scope(branch_env):
                    self.block(stmts, branch_env)
                self.lo.dicts.sync_dicts(branch_env, names, node)
                return [self.initial(branch_env, n, node) for n in names]

            branches.append(run)
        outs = self.branch(flag, branches, names, node)
        env.update(zip(names, outs))
        self.lo.dicts.join_dicts(env, names)

    def if_returning(self, node: ast.If, rest: list[ast.stmt], env: dict) -> Atom:
        """``if c: ... return a`` followed by more statements: each branch runs on with the rest."""
        flag = self.lo.as_array(self.lo.expr(node.test, env), node.test)
        blocks = [list(stmts) if _always_returns(stmts) else [*stmts, *rest] for stmts in (node.body, node.orelse)]

        def returned(block: list[ast.stmt], branch_env: dict) -> object:
            value = self.block(block, branch_env)
            if value is None:
                raise self.lo.error("YS021", "this path through the function does not return a value", node)
            return value

        if isinstance(flag, Lit):  # known when generating: the branch taken, its value as it is (a list stays one)
            return returned(blocks[0 if flag.value else 1], env)

        def run(block: list[ast.stmt]) -> list[Atom]:
            branch_env = dict(env)
            with self.lo.in_scope(branch_env):
                return [self.carry_value(returned(block, branch_env), "the returned value", node)]

        (out,) = self.branch(flag, [lambda b=b: run(b) for b in blocks], [None], node)
        return out

    def expr_IfExp(self, node: ast.IfExp, env: dict) -> object:
        if fast_path(
            self.lo.module, node
        ):  # a generated function's scalar fast path: the general one computes the same
            return self.lo.expr(node.orelse, env)
        flag = self.lo.as_array(self.lo.expr(node.test, env), node.test)
        if isinstance(flag, Lit):  # known when generating: the value taken, as it is
            return self.lo.expr(node.body if flag.value else node.orelse, env)
        branches = [
            (lambda e=e: [self.carry_value(self.lo.expr(e, dict(env)), "the value", e)])
            for e in (node.body, node.orelse)
        ]
        (out,) = self.branch(flag, branches, [None], node)
        return out

    def branch(self, flag: Atom, runs: list, names: list, node: ast.AST) -> list[Var]:
        if isinstance(flag, Lit):  # a condition known when generating: only one branch exists
            return runs[0 if flag.value else 1]()
        regions = [Tape("then"), Tape("else")]
        for region, run in zip(regions, runs):
            region.outputs = self.in_region(region, run)
        outs = [Var(hint=None if n is None else _hint(n)) for n in names]
        self.lo.lists.mark_lists([list(values) for values in zip(*(r.outputs for r in regions))], outs)
        free = close_regions(regions, [0, 0])
        params = {"n_carry": len(names)}
        span = self.header_span(node) if isinstance(node, ast.stmt) else self.lo.span_at(node)
        self.lo.tape.eqns.append(region_eqn("if", [flag, *free], params, regions, outs, span))
        self.lo.merges.update((o.id, self.lo.tape.eqns[-1]) for o in outs)  # may a branch give a shared array?
        return outs


def _zipped(lo, it: ast.expr, target: ast.expr, env: dict) -> tuple | None:
    """``zip(X, Y)`` iterated with ``target`` (``x, y``), as ``iteration`` says it; None where
    ``it`` is not a call of zip."""
    if not (isinstance(it, ast.Call) and not it.keywords and it.args and isinstance(it.func, ast.Name)):
        return None
    if getattr(lo.expr(it.func, env), "name", None) != "builtins.zip":
        return None
    seqs = [lo.expr(a, env) for a in it.args]
    seqs = [tuple(Lit(v) for v in s.value) if _constant_tuple(s) else s for s in seqs]
    if all(isinstance(s, tuple) for s in seqs):
        return ("static", list(zip(*seqs)))
    if not (isinstance(target, ast.Tuple) and len(target.elts) == len(seqs)):
        raise lo.error("YS011", f"write 'for {', '.join('abc'[: len(seqs)])} in zip(...)'", target)
    # zip of arrays or lists: the rows of each, up to the shortest
    rows = [lo.lists.as_list(s, a) if isinstance(s, tuple) else lo.as_array(s, a) for s, a in zip(seqs, it.args)]
    lengths = [lo.calls.call_primitive("builtins.len", [r], {}, it) for r in rows]
    stop = lengths[0] if len(lengths) == 1 else lo.calls.call_primitive("builtins.min", lengths, {}, it)
    return ("range", Lit(0), stop, Lit(1), tuple(rows), None)


def _materialized(lo, it: ast.expr, env: dict) -> ast.expr:
    """``tuple(it)`` where ``it`` calls a library function that gives an iterator (``itertools``'
    ``product``, ``combinations``, ...; ``map``, ``filter``, ``iter``) or is a set: the loop is run by index and
    length, which an iterator has not.  Else ``it``."""
    if isinstance(it, ast.Set | ast.SetComp | ast.GeneratorExp):  # (a set: no index; map(): a generator)
        return ast.copy_location(ast.Call(ast.Name("tuple", ast.Load()), [it], []), it)
    if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute | ast.Name)):
        return it
    try:
        name = getattr(lo.expr(it.func, env), "name", None)
    except UserError:
        return it
    if not (isinstance(name, str) and (name.startswith("itertools.") or name in _ITERATORS)):
        return it
    return ast.copy_location(ast.Call(ast.Name("tuple", ast.Load()), [it], []), it)


def _check_target(lo, target: ast.expr) -> None:
    if not isinstance(target, ast.Name):
        raise lo.error("YS011", "a loop variable is one name here", target)


#: The most iterations a loop is unrolled to (``params[f"W{i}"]`` over ``range(n_layers)``).
_UNROLL_LIMIT = 256
#: Builtins that give an iterator: iterated, ``tuple()`` of them (``itertools``' functions too).
_ITERATORS = frozenset({"builtins.filter", "builtins.iter", "builtins.map", "builtins.set", "builtins.frozenset"})


#: What the rewrites before lowering look for (``map``, ``functools.reduce``, ``list``, ``enumerate``,
#: ``reversed`` and ``sum`` calls, a starred target, a comprehension): a statement with none of them
#: is lowered as it is, with one walk instead of one per rewrite (issue 38: a third of lowering).
_REWRITTEN = (ast.Call, ast.Starred, ast.ListComp, ast.GeneratorExp)


def _may_be_rewritten(stmt: ast.stmt) -> bool:
    """``stmt`` has a node one of the rewrites before lowering may rewrite (``_REWRITTEN``)."""
    todo: list[ast.AST] = [stmt]
    while todo:  # (ast.walk, with the nodes of arithmetic passed quickly: a polynomial is most of them)
        node = todo.pop()
        kind = type(node)
        if kind is ast.BinOp:
            todo += (node.left, node.right)
        elif kind is not ast.Name and kind is not ast.Constant:
            if isinstance(node, _REWRITTEN):
                return True
            todo.extend(ast.iter_child_nodes(node))
    return False


def _constant_range(space: tuple) -> range | None:
    """The iterations of ``for i in range(a, b, c)`` of constant bounds (no rows), else None."""
    _, start, stop, step, rows, _ = space
    bounds = (start, stop, step)
    if rows is not None or not all(isinstance(b, Lit) and type(b.value) is int for b in bounds):
        return None
    if step.value == 0:
        return None
    items = range(start.value, stop.value, step.value)
    return items if len(items) <= _UNROLL_LIMIT else None


def _constant_tuple(value: object) -> bool:
    return isinstance(value, Lit) and isinstance(value.value, tuple)
