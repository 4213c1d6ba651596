"""Writing one function: a plan in, the text of ``def grad_NAME(...)`` and its statements out.

``FunctionWriter`` walks the tape and writes each equation the plan did not put inline into
its user as a statement (``statements.Line``); its parts write loops and branches (``flow``) and
gradients built by elements (``items``).  The kinds of statement::

    _t1 = np.exp(x)                  # an equation: its expression, named
    dx = _grad_zeros(x)              # a buffer, then the writes into it, in place
    dx[3] += _t7                     # (dx[3] = _t7 for the first write of element 3)
    np.add.at(dx, i, g)              # an index array may repeat an index: each adds
    a = a.copy(); a[i] = v           # a write into an array read again later

A function that returns the value checks that it is a scalar when shapes could not prove it
(``scalar_check``), and one with a column guard starts with it (``column_guard``).
"""

from __future__ import annotations

import ast
import copy

from ..dsl.rule import RuleTable
from ..ir.core import NO_DEFAULT, Dyn, Eqn, Key, Listed, ParamKind, Section, Slice, Tape, Var
from ..ir.modes import docstring
from .base import WriterBase, named, tuple_of
from .batched import BatchWriter
from .flow import FlowWriter
from .forward_cols import ForwardColumnsWriter
from .items import ItemWriter
from .naming import respell
from .plan import FunctionPlan, columns_name
from .second import SecondWriter
from .seeds import SeedWriter
from .statements import Line, render
from .target import Backend, constant, index_expr

#: The size of the first blocked argument from which the column guard calls the columns form
#: (``_by_columns``): from about 8,000 numbers its writes in place cost less than new arrays
#: (katsura8 on 8 x 1,000: 159 against 169 µs), below it the guard's call would not pay.
COLUMNS_FROM = 8192
#: The comment on the column guard's first line (the buffered form leaves the guard out).
GUARD_COMMENT = "large: in place, by blocks of columns"
#: The comment on the statements that make a 0-d array gradient a scalar (the buffered form, whose
#: gradients are arrays it keeps, leaves them out).
NUMBER_COMMENT = "a number's gradient is a number"


class FunctionWriter(WriterBase):
    """Writes ``grad_NAME`` from its plan (see the module docstring).  Its parts, each given the
    writer: ``flow`` (loops and branches), ``items`` (gradients by elements), ``seeds`` (the checks of the arguments and seeds,
    ``jac_NAME``'s rows), ``batching`` (batched sweeps); ``hess_NAME``'s loop (``SecondWriter``) and
    ``jac_NAME``'s two forms (``ForwardColumnsWriter``) are made where the function needs them."""

    def __init__(self, plan: FunctionPlan, table: RuleTable, backend: Backend):
        super().__init__(plan, table, backend)
        self.flow = FlowWriter(self)
        self.items = ItemWriter(self)
        self.seeds = SeedWriter(self)
        self.batching = BatchWriter(self)

    def part_writer(self, plan: FunctionPlan) -> FunctionWriter:
        """A writer of ``plan``, a part of this function (a batched sweep): it writes with this
        writer's names, helpers and imports."""
        writer = copy.copy(self)
        writer.plan, writer.tape = plan, plan.tape
        writer._outer = None
        writer.checked = True
        writer.flow, writer.items = FlowWriter(writer), ItemWriter(writer)
        writer.seeds, writer.batching = SeedWriter(writer), BatchWriter(writer)
        return writer

    def write(self) -> str:
        """The text of the function; its statements are kept in ``body``."""
        self.statements()
        return self.text()

    def text(self) -> str:
        """The text of the function whose statements ``statements`` made (``body``)."""
        lines = [f"def {self.function_name()}({self.signature()}):", f"    {self.docstring()}"]
        return "\n".join(lines + render(self.body, self.tape.name))

    def statements(self) -> list[Line]:
        """Make the function's statements (``body``, returned)."""
        tape = self.tape
        body = self.body
        rows_loop = tape.facts.mode.by_rows and not tape.facts.rows
        for local in [*(tape.facts.seeds or [tape.facts.seed]), *tape.facts.columns] if rows_loop else []:
            self.namer.take(local)  # (locals of the loops over the rows and of the forward columns)
        for inp in tape.inputs:
            if len(inp.path) == 1:
                self.names[inp.var.id] = inp.path[0]
                continue
            name = self.namer.fresh("_".join(p.what if isinstance(p, Listed) else str(p) for p in inp.path))
            self.names[inp.var.id] = name
            value = _path_expr(inp.path)
            body.append(Line(Section.FORWARD, None, ast.Assign([ast.Name(name, ast.Store())], value, lineno=0), 0))
        if self.backend.namespace_at_run_time:  # xp, x, w = _namespace(x, w): the arrays' own library
            body.append(Line(None, None, self.seeds.namespace_line(), 0, comment="the arrays' namespace (array API)"))
        for n, stmt in enumerate(self.seeds.complex_args() + self.seeds.type_checks()):  # (a comment on the first)
            body.append(Line(None, None, stmt, 0, comment=None if n else self.seeds.checks_comment()))
        body.extend(
            Line(None, None, stmt, 0) for stmt in SecondWriter(self).rows_check()
        )  # (hess_NAME's rows written out)
        # x_items = x.tolist() if ... else x, first: the column guard need not test a list's x
        for inp in tape.inputs:
            if inp.var.id in self.plan.listed or inp.var.id in self.plan.element_reads:
                body.extend(Line(None, None, stmt, 0) for stmt in self.items.unpack(inp.var))
        guard = self.column_guard()
        if guard is not None:
            body.append(Line(None, None, guard, 0, comment=GUARD_COMMENT))
        if tape.facts.mode.order == 2 and tape.facts.mode.by_rows and not tape.facts.form.rows and not rows_loop:
            SecondWriter(self).not_banded("its rows are written out")  # (--form band)
        if tape.facts.mode.order == 2 and rows_loop:
            returned = SecondWriter(self).hessian_rows(body)
        elif rows_loop:  # (with forward columns too: the one or the other, chosen when it runs)
            returned = (
                ForwardColumnsWriter(self).jacobian_choice(body)
                if tape.facts.columns
                else self.seeds.jacobian_rows(body)
            )
        else:
            self.block(tape, 0, body)
        if not self.checked:  # no backward equation (a constant gradient): checked before the return
            body.append(Line(Section.BACKWARD, None, self.scalar_check(), 0))
            self.checked = True
        if not tape.facts.mode.value_rows:  # (a Jacobian is an array)
            stmts = self.scalar_gradients()
            body.extend(Line(Section.BACKWARD, None, stmt, 0, comment=NUMBER_COMMENT) for stmt in stmts)
        if not rows_loop:
            returned = self.output_expr(tape.out_tree)
        body.append(Line(Section.BACKWARD, None, ast.Return(returned), 0))
        if self.backend.namespace_at_run_time:  # a function that calls no xp. function: _, x = _namespace(x)
            alias = self.backend.alias
            read = [n for line in body for n in ast.walk(line.node) if isinstance(n, ast.Name) and n.id == alias]
            if all(isinstance(n.ctx, ast.Store) for n in read):
                for n in read:
                    n.id = "_"
        for line in body:  # the helpers and builtins a parameter hides, as the module spells them
            respell(line.node, self.spelling)
        return body

    def block(
        self, tape: Tape, depth: int, body: list, preset: dict[int, str] | None = None, push: tuple | None = None
    ) -> None:
        """Append the statements of ``tape``'s equations; ``preset`` names some of their results;
        ``push`` is ``(n, statement)``: a statement to write after equation ``n`` (-1: first)."""
        preset = preset or {}
        if push is not None and push[0] < 0:
            body.append(Line(self.section_of(tape), None, push[1](), depth))
        rows, fused = self.row_chains(tape) if not self.backend.in_place else ({}, set())
        for n, eqn in enumerate(tape.eqns):
            if push is not None and n - 1 == push[0] and n > 0:
                body.append(Line(eqn.section, None, push[1](), depth))
            if not self.checked and eqn.section == Section.BACKWARD and depth == 0:
                body.append(Line(Section.BACKWARD, None, self.scalar_check(), 0))
                self.checked = True
            if eqn.regions:
                self.flow.control(eqn, depth, body, preset)
                continue
            if eqn.prim == "effect":  # assert, raise, print(...): the statement as the source wrote it
                body.append(Line(eqn.section, eqn.span, self.effect(eqn), depth))
                continue
            out = eqn.out
            if out.id in rows:  # dx = _rows(x, {0: g0, 3: g3}): one array, not a write per row (array API)
                self.names[out.id] = self.name_for(out)
                self.row_arrays.add(out.id)  # (named, where the plan would have put it inline: atom)
                x, written = rows[out.id]
                table = ast.Dict([ast.Constant(k) for k, _ in written], [self.atom(g) for _, g in written])
                self.helpers.add("_rows")
                call = ast.Call(ast.Name("_rows", ast.Load()), [self.atom(x), table], [])
                stmt = ast.Assign([ast.Name(self.names[out.id], ast.Store())], call, lineno=0)
                body.append(Line(eqn.section, eqn.span, stmt, depth))
                continue
            if out.id in self.plan.inline or (depth == 0 and out.id in self.plan.unpacked_reads) or out.id in fused:
                continue
            if out.id in self.unpacked:  # (flow.elements: read with the others, before)
                continue
            if out.id in self.plan.appends:  # lst.append(v): the list keeps its name
                self.names[out.id] = self.names[eqn.args[0].id]
                append = ast.Attribute(ast.Name(self.names[out.id], ast.Load()), "append", ast.Load())
                stmt = ast.Expr(ast.Call(append, [self.atom(eqn.args[1])], []))
                body.append(Line(eqn.section, eqn.span, stmt, depth))
                continue
            root = self.plan.inplace.get(out.id)
            if root is not None and root != out.id:
                self.names[out.id] = self.names[root]
            elif out.id in preset:
                self.names[out.id] = preset[out.id]
            elif root is not None:
                self.names[out.id] = self.name_for(self.plan.group_var[root])
            else:
                self.names[out.id] = self.name_for(out)
            target = ast.Name(self.names[out.id], ast.Store())
            if depth == 0 and self.plan.element_read(eqn) and eqn.args[0].id in self.plan.listed:
                stmt = ast.Assign([target], self.items.unpacked_read(eqn), lineno=0)
            elif root is not None and (root in self.item_names or self.items.start_items(root, eqn, target.id)):
                for stmt in self.items.item_write(root, eqn):
                    body.append(Line(eqn.section, eqn.span, stmt, depth))
                continue
            elif eqn.prim == "index_add" and root is not None and root != out.id:
                # (an index_add that starts its group, its buffer read elsewhere, is a new array:
                # its expression, _index_add's copy; the group's later writes go into that copy)
                stmt: ast.stmt = self.add_in_place(target, eqn)
            elif eqn.prim == "setindex" and self.backend.in_place:
                old = eqn.args[0]
                if root is None or not isinstance(old, Var) or self.plan.inplace.get(old.id) != root:
                    # a = a.copy(); a[i] = v: the old a is used elsewhere
                    copy = ast.Call(ast.Attribute(self.atom(old), "copy", ast.Load()), [], [])
                    body.append(Line(eqn.section, eqn.span, ast.Assign([target], copy, lineno=0), depth))
                stmt = self.set_in_place(target, eqn)
            elif depth == 0 and (written := self.in_place(eqn, target)) is not None:
                *named, stmt = written
                body.extend(Line(eqn.section, eqn.span, n, depth) for n in named)
            else:
                jacobian = self.items.jacobian_stack(eqn) if depth == 0 else None  # (jac_NAME's value and rows)
                stmt = ast.Assign([target], self.expression(eqn) if jacobian is None else jacobian, lineno=0)
            body.append(Line(eqn.section, eqn.span, stmt, depth))
        if push is not None and push[0] >= 0 and push[0] == len(tape.eqns) - 1:
            body.append(Line(self.section_of(tape), None, push[1](), depth))

    def add_in_place(self, target: ast.Name, eqn: Eqn) -> ast.stmt:
        """``dx[3] += g`` for a constant basic index; ``np.add.at(dx, i, g)`` for a computed one
        (an index array may repeat an index: each occurrence adds)."""
        g = self.atom(eqn.args[1])
        dynamic = [self.atom(a) for a in eqn.args[2:]]
        bounds = [p for i in eqn.params["index"] if isinstance(i, Slice) for p in (i.start, i.stop, i.step)]
        in_slices = {p.k for p in bounds if isinstance(p, Dyn)}
        if not dynamic or all(
            (isinstance(a, Var) and a.id in self.plan.index_vars) or k in in_slices for k, a in enumerate(eqn.args[2:])
        ):
            # constant indices, a loop's index (one integer: it cannot repeat), a slice's bounds
            where = ast.Subscript(target, index_expr(eqn.params["index"], dynamic), ast.Store())
            if self.first_write(eqn):
                return ast.Assign([where], g, lineno=0)
            return ast.AugAssign(where, ast.Add(), g)
        buf = ast.Name(target.id, ast.Load())
        call = ast.Call(self.backend.attr("add.at"), [buf, self.backend.index_value(eqn.params, dynamic), g], [])
        return ast.Expr(call)

    def set_in_place(self, target: ast.Name, eqn: Eqn) -> ast.stmt:
        """``a[index] = v`` into the array named ``target``."""
        dynamic = [self.atom(a) for a in eqn.args[2:]]
        where = ast.Subscript(ast.Name(target.id, ast.Load()), index_expr(eqn.params["index"], dynamic), ast.Store())
        return ast.Assign([where], self.atom(eqn.args[1]), lineno=0)

    def column_guard(self) -> ast.If | None:
        """The statement that computes a large call by blocks of columns when the plan has a column
        guard (``columns``): the function's columns form (``columns_form.ColumnsWriter``) is called
        on each block by ``_by_columns``."""
        ranks = self.plan.column_ranks
        if ranks is None:
            return None
        params = [p.name for p in self.tape.params]
        first = next(p for p in params if p in ranks)
        values = 1 if self.tape.facts.value else 0
        joined = self.namer.fresh("_joined")
        self.helpers.add("_by_columns")
        tests = [
            ast.Compare(self.type_of(named(first)), [ast.Is()], [self.backend.attr("ndarray")]),
            ast.Compare(ast.Attribute(named(first), "size", ast.Load()), [ast.GtE()], [ast.Constant(COLUMNS_FROM)]),
        ]
        items = self.items_of.get(next(i.var.id for i in self.tape.inputs if i.path[0] == first))
        if items is not None:  # x[3] needs rows: a list of x's elements never qualifies
            tests.insert(0, ast.Compare(named(items), [ast.Is()], [named(first)]))
        args = [self.global_name(columns_name(self.tape)), tuple_of([named(p) for p in params])]
        args += [constant(tuple(ranks.get(p) for p in params)), ast.Constant(values)]
        args += [ast.Constant(len(self.tape.outputs) - 1)]
        blocked = ast.Assign([named(joined, ast.Store())], ast.Call(named("_by_columns"), args, []), lineno=0)
        done = ast.If(ast.Compare(named(joined), [ast.IsNot()], [ast.Constant(None)]), [ast.Return(named(joined))], [])
        return ast.If(ast.BoolOp(ast.And(), tests), [blocked, done], [])

    def row_chains(self, tape: Tape) -> tuple[dict[int, tuple], set[int]]:
        """The gradients written row by row (array-api target): a ``grad_zeros(x)`` and a chain of
        single-use ``index_add`` at distinct constant rows ``k >= 0`` of it, all in ``tape``.  The last
        write's id -> ``(x, [(k, g), ...])``, and the ids of the buffer and the writes before it (not
        written: ``_rows`` makes the array once)."""
        defs = {e.out.id: e for e in tape.eqns if not e.regions and e.prim != "effect"}
        outputs = {a.id for a in tape.outputs if isinstance(a, Var)}
        uses = self.plan.uses

        def row(e: Eqn) -> int | None:
            if e.prim != "index_add" or len(e.args) != 2:
                return None
            index = e.params["index"]
            ok = len(index) == 1 and type(index[0]) is int
            return index[0] if ok and index[0] >= 0 else None

        fed = {e.args[0].id for e in defs.values() if row(e) is not None and isinstance(e.args[0], Var)}
        chains: dict[int, tuple] = {}
        fused: set[int] = set()
        for e in defs.values():
            if row(e) is None or e.out.id in fed and uses.get(e.out.id) == 1:
                continue  # (not the end of a chain)
            written, members, cur = [], [], e
            while True:
                written.append((row(cur), cur.args[1]))
                prev = cur.args[0]
                single = isinstance(prev, Var) and uses.get(prev.id) == 1 and prev.id not in outputs
                d = defs.get(prev.id) if single else None
                if d is None:
                    break
                members.append(d.out.id)
                if d.prim == "grad_zeros":
                    ks = [k for k, _ in written]
                    if len(ks) >= 2 and len(set(ks)) == len(ks):
                        chains[e.out.id] = (d.args[0], sorted(written, key=lambda kg: kg[0]))
                        fused.update(members)
                    break
                if row(d) is None:
                    break
                cur = d
        return chains, fused

    def in_place(self, eqn: Eqn, target: ast.Name) -> list[ast.stmt] | None:
        """The statements of ``eqn`` written into arrays it may overwrite (the columns form), or None."""
        return None

    def scalar_check(self) -> ast.stmt:
        """``if np.ndim(value) != 0: raise ValueError(...)``: the gradient is of a scalar function.

        A Python float (scalar code) is answered without the call: by type, or for an element
        ``x3`` of ``x_items`` (the value's stand-in without ``--value``) by ``x_items is x``
        (a list's elements are floats), 25 ns less.  ``vjp_NAME`` and ``jac_NAME`` check their
        seed instead (``seeds.SeedWriter.seed_check``)."""
        if not self.tape.facts.mode.scalar_value:
            return self.seeds.seed_check()
        name = self.tape.name
        witness = self.tape.outputs[0]
        value = self.atom(witness)
        message = f"{name}() must return a scalar to be differentiated (sum or index its result)"
        ndim = self.backend.call("ndim", [value])
        if not self.backend.numpy_api:  # (the standard has no xp.ndim)
            ndim = ast.Call(self.global_name("_ndim"), [value], [])
            self.helpers.add("_ndim")
        test = ast.Compare(ndim, [ast.NotEq()], [ast.Constant(0)])
        d = (
            self.plan.defs.get(witness.id)
            if isinstance(witness, Var) and witness.id in self.plan.unpacked_reads
            else None
        )
        items = self.items_of.get(d.args[0].id) if d is not None else None
        if items is not None:
            whole = ast.Compare(ast.Name(items, ast.Load()), [ast.Is()], [self.atom(d.args[0])])
        else:
            is_float = ast.Call(ast.Name("isinstance", ast.Load()), [value, self.global_name("float")], [])
            whole = ast.UnaryOp(ast.Not(), is_float)
        error = ast.Call(ast.Name("ValueError", ast.Load()), [ast.Constant(message)], [])
        check = ast.If(ast.BoolOp(ast.And(), [whole, test]), [ast.Raise(error)], [])
        facts = self.tape.facts
        if (facts.may_return_none or facts.maybe_unbound) and witness is self.tape.outputs[0] and facts.value:
            # a path through the function returned None (np.ndim(None) is 0): no number to differentiate
            none = f"{name}() returned None: a path through it has no return value"
            if not facts.may_return_none:  # a name no statement on the path assigned
                unbound = ", ".join(facts.maybe_unbound)
                none = f"{name}() returned None: the path taken does not assign {unbound} (UnboundLocalError in Python)"
            is_none = ast.Compare(value, [ast.Is()], [ast.Constant(None)])
            raise_none = ast.Raise(ast.Call(ast.Name("TypeError", ast.Load()), [ast.Constant(none)], []))
            check.orelse = [ast.If(is_none, [raise_none], [])]
        if facts.mode.products:  # and v has the shape of x
            last = check
            while last.orelse:
                last = last.orelse[0]
            last.orelse = [self.seeds.tangent_checks()]
        return check

    def scalar_gradients(self) -> list[ast.stmt]:
        """``if type(dx) is np.ndarray and dx.ndim == 0: dx = dx[()]`` for each gradient that may be
        a 0-d array (``plan.may_be_0d``): a number's gradient is a number, as NumPy's arithmetic
        gives (``2.0 * x``), and a 0-d array's a NumPy scalar of its dtype."""
        out = []
        for v in self.plan.may_be_0d:
            name = self.names[v.id]
            is_array = ast.Compare(self.type_of(named(name)), [ast.Is()], [self.backend.attr("ndarray")])
            ndim = ast.Attribute(named(name), "ndim", ast.Load())
            zero_d = ast.Compare(ndim, [ast.Eq()], [ast.Constant(0)])
            item = ast.Subscript(named(name), ast.Tuple([], ast.Load()), ast.Load())
            assign = ast.Assign([named(name, ast.Store())], item, lineno=0)
            out.append(ast.If(ast.BoolOp(ast.And(), [is_array, zero_d]), [assign], []))
        return out

    def output_expr(self, tree: object) -> ast.expr:
        outputs = self.tape.outputs
        # the value (a scalar) may be a gradient too; an argument or another gradient may not be shared
        seen: set[int] = set()
        inputs = {inp.var.id for inp in self.tape.inputs}

        def leaf(i: int) -> ast.expr:
            a = outputs[i]
            expr = self.atom(a)
            if i > 0 and isinstance(a, Var) and (a.id in inputs or a.id in seen):
                # a gradient that is an argument (or another gradient): return a copy, never an alias;
                # +y copies an array and keeps a Python float a float
                if not self.backend.numpy_api:  # (the standard has no xp.copy)
                    expr = ast.Call(self.backend.attr("asarray"), [expr], [ast.keyword("copy", ast.Constant(True))])
                elif self.plan.is_array(a):
                    expr = self.backend.call("copy", [expr])
                else:
                    expr = ast.UnaryOp(ast.UAdd(), expr)
            if isinstance(a, Var) and i > 0:
                seen.add(a.id)
            return expr

        def build(node: object) -> ast.expr:
            if isinstance(node, int):
                return leaf(node)
            if isinstance(node, dict) and Listed("values") in node:  # a dict parameter read as an input tree
                at = node[Listed("values")]
                owner = next(i.path[:-1] for i, k in self.tape.gradient_places() if k == at)
                return _tree_gradient(owner, build(at))
            if isinstance(node, dict):
                keys = [ast.Constant(k.name if isinstance(k, Key) else k) for k in node]  # m.layers[0]: the int 0
                return ast.Dict(keys, [build(v) for v in node.values()])
            return ast.Tuple([build(n) for n in node], ast.Load())

        return build(tree)

    def signature(self) -> str:
        """The parameters of the function, as the source gave them (their defaults evaluated)."""
        params = self.tape.params
        positional = [p for p in params if p.kind is not ParamKind.KEYWORD_ONLY]
        args = ast.arguments(
            posonlyargs=[ast.arg(p.name) for p in params if p.kind is ParamKind.POSITIONAL_ONLY],
            args=[ast.arg(p.name) for p in params if p.kind is ParamKind.POSITIONAL],
            vararg=None,
            kwonlyargs=[ast.arg(p.name) for p in params if p.kind is ParamKind.KEYWORD_ONLY],
            kw_defaults=[
                None if p.default is NO_DEFAULT else constant(p.default)
                for p in params
                if p.kind is ParamKind.KEYWORD_ONLY
            ],
            kwarg=None,
            defaults=[constant(p.default) for p in positional if p.default is not NO_DEFAULT],
        )
        return ast.unparse(args)

    def docstring(self) -> str:
        return docstring(self.tape)


def _path_expr(path: tuple) -> ast.expr:
    """An input's path as the generated function reads it: ``m.layers[0].W`` (an int is an index into
    a list attribute), ``params["W1"]`` (a key of a dict parameter), ``list(params.values())`` (a dict
    parameter read as an input tree)."""
    value: ast.expr = ast.Name(str(path[0]), ast.Load())
    for part in path[1:]:
        if isinstance(part, int | Key):
            value = ast.Subscript(value, ast.Constant(part if isinstance(part, int) else part.name), ast.Load())
        elif isinstance(part, Listed):
            value = ast.Call(named("list"), [ast.Call(ast.Attribute(value, part.what, ast.Load()), [], [])], [])
        else:
            value = ast.Attribute(value, part, ast.Load())
    return value


def _tree_gradient(owner: tuple, grads: ast.expr) -> ast.expr:
    """``dict(zip(params, dparams_values))``: the gradient of a dict parameter read as an input tree
    (``owner`` its path), its keys those of the call, in their order."""
    return ast.Call(named("dict"), [ast.Call(named("zip"), [_path_expr(owner), grads], [])], [])
