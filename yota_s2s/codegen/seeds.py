"""Writing what ``vjp_NAME`` and ``jac_NAME`` add to a gradient: the check of the seed, and the
loop over a Jacobian's rows (``Facts.mode``, ``Facts.seed``, ``Facts.rows``); the complex arguments
of a complex derivative (``Facts.holomorphic``: ``complex_args``).

- ``vjp_NAME(..., dout)`` checks, where its backward sweep starts, that ``dout`` has the value's
  shape (a ``ValueError`` naming both shapes); the sweep is seeded with ``dout``.
- ``jac_NAME`` of a value written as a few numbers (``np.array([e0, e1, ...])``) has one reverse
  sweep per row, written out: it checks that the value is those numbers (``rows`` of them).
- ``jac_NAME`` of any other value runs the sweep once per element of the value, seeded with each
  unit vector in turn; the backward equations that do not read the seed are written once, before
  the loop::

      J_x = np.empty((np.size(f),) + np.shape(x))
      for _k in range(np.size(f)):
          dout = np.zeros(np.shape(f))
          dout.flat[_k] = 1.0
          ...                                   # the reverse sweep, seeded with dout
          J_x[_k] = dx
      J_x = J_x.reshape(np.shape(f) + np.shape(x))
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from ..ir.core import Atom, Eqn, Lit, Section, Tape, Var
from ..ir.regions import LEADING
from . import batched as batching
from .arguments import differentiated_inputs
from .base import WriterBase, named, tuple_of
from .batched import Target
from .split import split_rows
from .statements import Line


class SeedWriter:
    """The checks of the arguments and the seeds, and ``jac_NAME``'s loop over its rows, for the
    writer that holds it (``writer.FunctionWriter.seeds``)."""

    def __init__(self, writer: WriterBase):
        self.w = writer

    def type_checks(self) -> list[ast.stmt]:
        """``_real_args("grad_f", ("x", "w"), ("data",), x, w, data)``: one line checks the arguments
        of the function.  Those with a gradient (``plan.float_inputs``) must be real floating (the
        rules are proven for real floating values), those read as values (``plan.real_inputs``)
        must not be complex; the helper raises TypeError.  A Python float and a float64 or float32
        array pass on type tests alone (about 0.1 µs an argument)."""
        floats, others = self.w.plan.float_inputs, self.w.plan.real_inputs
        if not floats and not others:
            return []
        spelled = [ast.Tuple([ast.Constant(p) for _, p in group], ast.Load()) for group in (floats, others)]
        values = [named(self.w.names[var.id]) for var, _ in floats + others]
        self.w.helpers.add("_real_args")
        call = ast.Call(named("_real_args"), [ast.Constant(self.w.function_name()), *spelled, *values], [])
        return [ast.Expr(call)]

    def namespace_line(self) -> ast.stmt:
        """``xp, x, w = _namespace(x, w)`` over the function's inputs (the array-api target)."""
        facts = self.w.tape.facts
        seeds = {facts.seed, *facts.seeds} if facts.mode.by_rows else set()  # (locals of loops)
        names = [self.w.names[inp.var.id] for inp in self.w.tape.inputs if inp.path[0] not in seeds]
        self.w.helpers.add("_namespace")
        targets = [ast.Name(self.w.backend.alias, ast.Store()), *(ast.Name(n, ast.Store()) for n in names)]
        call = ast.Call(self.w.global_name("_namespace"), [ast.Name(n, ast.Load()) for n in names], [])
        return ast.Assign([ast.Tuple(targets, ast.Store())], call, lineno=0)

    def seed_check(self) -> ast.stmt:
        """``if np.shape(dout) != np.shape(f): raise ValueError(...)`` (``vjp_NAME``), or
        ``if np.shape(f) != (m,): raise ValueError(...)`` (``jac_NAME`` with ``m`` rows written out)."""
        facts = self.w.tape.facts
        if facts.mode.forward:
            return self.tangent_checks()
        value = self.w.atom(self.w.tape.outputs[0])
        shape = self.w.backend.call("shape", [value])
        if facts.mode.value_rows and self.w.items.value_array():  # (np.array([...]): an ndarray, 0.1 µs less)
            shape = ast.Attribute(value, "shape", ast.Load())
        what = f"{self.w.tape.name}({', '.join(p.name for p in self.w.tape.params if p.name != facts.seed)})"
        if facts.mode.seed_param:
            seed = self.w.backend.call("shape", [named(facts.seed)])
            test = ast.Compare(seed, [ast.NotEq()], [shape])
            parts = [f"{self.w.function_name()}: {facts.seed} must have the shape of {what}, ", shape, ", not ", seed]
        else:
            expected: ast.expr = ast.Tuple([ast.Constant(facts.rows)], ast.Load())
            rows = f"the Jacobian's rows are the {facts.rows} elements of {what}, which must be numbers"
            batch = self.batch_shapes()
            if batch:  # (n_rows,) + np.shape(x)[1:]: each element a number, or an array of a batch's shape
                batched = ast.BinOp(expected, ast.Add(), batch[0])
                x = next(i.var for i in self.w.tape.inputs if i.path[0] == facts.wrt[0])
                items = self.w.items_of.get(x.id)
                if items is None or len(batch) > 1:
                    expected = batched
                else:  # x_items a list: x is 1-D, no batch (0.3 µs less than np.shape(x)[1:])
                    listed = ast.Compare(named(items), [ast.IsNot()], [self.w.atom(x)])
                    expected = ast.IfExp(listed, expected, batched)
                rows += f" (or, for a batch of points, arrays of the shape of {facts.wrt[0]}[0])"
            test = ast.Compare(shape, [ast.NotEq()], [expected])
            if len(batch) > 1:
                test = ast.BoolOp(ast.Or(), [test, *(ast.Compare(b, [ast.NotEq()], [batch[0]]) for b in batch[1:])])
                rows += f", of the same batch as {', '.join(facts.wrt[1:])}"
            parts = [f"{self.w.function_name()}: {rows}: its value has shape ", shape]
        message: ast.expr = ast.Constant(parts[0])
        for part in parts[1:]:  # (no f-string: ast.unparse writes them differently across Pythons)
            text = ast.Constant(part) if isinstance(part, str) else ast.Call(named("str"), [part], [])
            message = ast.BinOp(message, ast.Add(), text)
        error = ast.Call(named("ValueError"), [message], [])
        return ast.If(test, [ast.Raise(error)], [])

    def checks_comment(self) -> str:
        """The comment on the first argument check."""
        if self.w.tape.facts.holomorphic and self.w.backend.complex_arguments:
            return "the complex derivative, at complex points"
        return "the rules hold for real floats"

    def complex_args(self) -> list[ast.stmt]:
        """``if type(z) is not complex and (type(z) is not np.ndarray or z.dtype.kind != 'c'): z =
        _complex_arg(z, 'jac_f', 'z')`` for each differentiated parameter of a complex derivative
        (``Facts.holomorphic``): it is taken at complex points, and the buffers of the derivative
        have the parameter's dtype (a real one would drop the imaginary parts)."""
        if not self.w.tape.facts.holomorphic or not self.w.backend.complex_arguments:
            return []
        out: list[ast.stmt] = []
        for var, spelled, _ in differentiated_inputs(self.w.tape):
            if "." in spelled or "[" in spelled:  # (an object's attribute: refused by --jacobian)
                continue
            x = named(self.w.names[var.id])
            kind = ast.Attribute(ast.Attribute(x, "dtype", ast.Load()), "kind", ast.Load())
            not_array = ast.Compare(self.w.type_of(x), [ast.IsNot()], [self.w.backend.attr("ndarray")])
            not_complex = ast.BoolOp(ast.Or(), [not_array, ast.Compare(kind, [ast.NotEq()], [ast.Constant("c")])])
            test = ast.BoolOp(
                ast.And(), [ast.Compare(self.w.type_of(x), [ast.IsNot()], [self.w.global_name("complex")]), not_complex]
            )
            label = [ast.Constant(self.w.function_name()), ast.Constant(spelled)]
            convert = ast.Assign(
                [named(self.w.names[var.id], ast.Store())], ast.Call(named("_complex_arg"), [x, *label], []), lineno=0
            )
            out.append(ast.If(test, [convert], []))
            self.w.helpers.add("_complex_arg")
        return out

    def batch_shapes(self) -> list[ast.expr]:
        """``np.shape(x)[1:]`` for each ``wrt`` parameter ``x`` of a Jacobian whose rows are written out
        and elementwise in the rows ``x[k]`` (``Facts.batch``): the batch's shape, the same for each;
        none otherwise."""
        if not self.w.tape.facts.batch:
            return []
        shapes = []
        for w in self.w.tape.facts.wrt:
            x = next((i.var for i in self.w.tape.inputs if i.path[0] == w), None)
            if x is not None:
                tail = ast.Slice(ast.Constant(1), None, None)
                shapes.append(ast.Subscript(self.w.backend.call("shape", [self.w.atom(x)]), tail, ast.Load()))
        return shapes

    def tangent_checks(self) -> ast.stmt:
        """``if np.shape(x_dot) != np.shape(x): raise ValueError(...)``, ``elif`` for each other tangent
        (``jvp_NAME``)."""
        facts = self.w.tape.facts
        checks: list[ast.stmt] = []
        for w, t in reversed(list(zip(facts.wrt, facts.tangents, strict=True))):
            x = next((i.var for i in self.w.tape.inputs if i.path[0] == w), None)
            tangent = self.w.backend.call("shape", [named(t)])
            shape = self.w.backend.call("shape", [self.w.atom(x) if x is not None else named(w)])
            text = f"{self.w.function_name()}: the tangent {t} must have the shape of {w}, "
            message = ast.BinOp(ast.Constant(text), ast.Add(), ast.Call(named("str"), [shape], []))
            message = ast.BinOp(message, ast.Add(), ast.Constant(", not "))
            message = ast.BinOp(message, ast.Add(), ast.Call(named("str"), [tangent], []))
            error = ast.Raise(ast.Call(named("ValueError"), [message], []))
            checks = [ast.If(ast.Compare(tangent, [ast.NotEq()], [shape]), [error], checks)]
        return checks[0]

    def jacobian_rows(self, body: list[Line], depth: int = 0, split: tuple[Var, list[Eqn]] | None = None) -> ast.expr:
        """Append the statements of ``jac_NAME`` by a loop over the value's elements (see the module
        docstring); return the expression it returns.  ``split``: the seed and the equations of a
        row, where the equations before the loop are written already (``forward_cols``: the branch
        of the rows); ``depth``: of the loop."""
        tape = self.w.tape
        seed_name = tape.facts.seed
        self.w.checked = True
        seed, rows = split if split is not None else self.before_rows(body, self.split_rows)
        batched = self.batched_rows(seed, body, depth)
        if batched is not None:
            return batched
        value = self.w.atom(tape.outputs[0])
        standard = not self.w.backend.in_place
        size = self.w.backend.call("size", [value])
        shape = self.w.backend.call("shape", [value])
        k = self.w.namer.fresh("_k")
        jacobians: list[ast.expr] = []
        assigns: list[tuple[str, Atom, Var]] = []
        for param in jacobian_parameters(tape):
            if param is None:
                jacobians.append(ast.Constant(None))
                continue
            w, g, x = param
            name = self.w.namer.fresh(f"J_{w}")
            rows_shape = ast.BinOp(tuple_of([size]), ast.Add(), self.w.backend.call("shape", [self.w.atom(x)]))
            if standard:  # (the array API: no in-place writes, the rows are stacked after the loop)
                empty = ast.Assign([named(name, ast.Store())], ast.List([], ast.Load()), lineno=0)
            else:
                dtype = [named("complex")] if tape.facts.holomorphic else []  # (complex rows)
                empty = ast.Assign(
                    [named(name, ast.Store())], self.w.backend.call("empty", [rows_shape, *dtype]), lineno=0
                )
            body.append(Line(Section.BACKWARD, None, empty, depth))
            assigns.append((name, g, x))
            jacobians.append(named(name))
        header = ast.For(named(k, ast.Store()), ast.Call(named("range"), [size], []), [], [], lineno=0)
        body.append(Line(Section.BACKWARD, None, header, depth, header=True, comment="one reverse sweep per row"))
        if standard:  # dout = _unit_seed(f, _k)
            self.w.helpers.add("_unit_seed")
            seeded = ast.Call(named("_unit_seed"), [value, named(k)], [])
            body.append(
                Line(Section.BACKWARD, None, ast.Assign([named(seed_name, ast.Store())], seeded, lineno=0), depth + 1)
            )
        else:
            zeros = ast.Assign([named(seed_name, ast.Store())], self.w.backend.call("zeros", [shape]), lineno=0)
            unit = ast.Subscript(ast.Attribute(named(seed_name), "flat", ast.Load()), named(k), ast.Store())
            body.append(Line(Section.BACKWARD, None, zeros, depth + 1))
            body.append(Line(Section.BACKWARD, None, ast.Assign([unit], ast.Constant(1.0), lineno=0), depth + 1))
        self.w.names[seed.id] = seed_name
        for eqn in rows:  # a backward loop pops its stack: each row pops a copy of it
            stack = eqn.args[LEADING[eqn.prim] - 1] if eqn.prim in ("for_back", "while_back") else None
            if isinstance(stack, Var) and stack.id in self.w.names:
                copy = self.w.namer.fresh(self.w.names[stack.id])
                stmt = ast.Assign(
                    [named(copy, ast.Store())],
                    ast.Call(named("_stack_copy"), [named(self.w.names[stack.id])], []),
                    lineno=0,
                )
                body.append(Line(Section.BACKWARD, None, stmt, depth + 1))
                self.w.names[stack.id] = copy
                self.w.helpers.add("_stack_copy")
        self.w.block(_part(tape, rows), depth + 1, body)
        for name, g, _ in assigns:
            if standard:  # J_x.append(dx)
                append = ast.Call(ast.Attribute(named(name), "append", ast.Load()), [self.w.atom(g)], [])
                body.append(Line(Section.BACKWARD, None, ast.Expr(append), depth + 1))
                continue
            row = ast.Subscript(named(name), named(k), ast.Store())
            body.append(Line(Section.BACKWARD, None, ast.Assign([row], self.w.atom(g), lineno=0), depth + 1))
        for name, _, x in assigns:
            if standard:  # J_x = _jacobian_stack(J_x, f, x)
                self.w.helpers.add("_jacobian_stack")
                stacked = ast.Call(named("_jacobian_stack"), [named(name), value, self.w.atom(x)], [])
                body.append(
                    Line(Section.BACKWARD, None, ast.Assign([named(name, ast.Store())], stacked, lineno=0), depth)
                )
                continue
            new_shape = ast.BinOp(shape, ast.Add(), self.w.backend.call("shape", [self.w.atom(x)]))
            reshape = ast.Call(ast.Attribute(named(name), "reshape", ast.Load()), [new_shape], [])
            body.append(Line(Section.BACKWARD, None, ast.Assign([named(name, ast.Store())], reshape, lineno=0), depth))
        returned = [value, *jacobians] if tape.facts.value else jacobians
        return tuple_of(returned)

    def batched_rows(self, seed: Var, body: list[Line], depth: int) -> ast.expr | None:
        """Append ``jac_NAME``'s rows as one reverse sweep on blocks of rows at once (``batched``:
        the sweep seeded with rows of the identity of the value's shape, every value batched), where
        the pipeline batched it (``Facts.batched``); return what the function returns (None:
        the loop of one reverse sweep per row is written instead, as for complex rows and for the
        array API); ``depth``: of the loop."""
        tape = self.w.tape
        batched = self.w.batching.composed([seed], batching.BATCH_ROWS)
        if batched is None:
            return None
        value = tape.outputs[0]
        params = jacobian_parameters(tape)
        targets: list[Target] = [(g, x, f"J_{w}") for w, g, x in filter(None, params)]
        jacobians = self.jacobian_names(params)
        names = [j.id for j in jacobians if isinstance(j, ast.Name)]
        self.w.batching.batched_rows(batched, seed, body, targets, names, source=value, depth=depth)
        atom = self.w.atom(value)
        return tuple_of([atom, *jacobians] if tape.facts.value else jacobians)

    def jacobian_names(self, params: list[tuple[str, Atom, Var] | None]) -> list[ast.expr]:
        """``J_x`` (a new name) for each parameter of ``jacobian_parameters`` that has a Jacobian, None
        for the others: what ``jac_NAME`` returns after its value."""
        return [ast.Constant(None) if p is None else named(self.w.namer.fresh(f"J_{p[0]}")) for p in params]

    def split_rows(self, seed: Var) -> tuple[list[Eqn], list[Eqn]]:
        """The equations before ``jac_NAME``'s loop over the rows and those of each row: as the
        pipeline split them where it batched the sweep (``Facts.batched``), else by the plan's
        in-place groups (``split.split_rows``)."""
        sweep = self.w.batching.composed([seed], batching.BATCH_ROWS)
        return (
            sweep.split(self.w.tape.eqns)
            if sweep is not None
            else split_rows(self.w.tape.eqns, seed, self.w.plan.inplace)
        )

    def before_rows(
        self, body: list[Line], split: Callable[[Var], tuple[list[Eqn], list[Eqn]]]
    ) -> tuple[Var, list[Eqn]]:
        """The seed of a loop over rows (``jac_NAME``'s ``dout``, ``hess_NAME``'s unit vector) and the
        equations of each row, ``split`` telling them from those before the loop, which are written
        into ``body`` here."""
        tape = self.w.tape
        seed = next(i.var for i in tape.inputs if i.path[0] == tape.facts.seed)
        before, rows = split(seed)
        made = {o.id for e in before for o in e.outs}  # (named there, never inline in a row: the plan's)
        value = tape.outputs[0]
        if isinstance(value, Var) and value.id not in made:  # made in each row: checked after the loop
            checked, self.w.checked = self.w.checked, True
            self.w.block(_part(tape, before), 0, body)
            self.w.checked = checked
        else:
            self.w.block(_part(tape, before), 0, body)
        return seed, rows


def _part(tape: Tape, eqns: list[Eqn]) -> Tape:
    """A tape of some of ``tape``'s equations, for the writer to write."""
    part = tape.copy_header()
    part.eqns = list(eqns)
    return part


def jacobian_parameters(tape: Tape) -> list[tuple[str, Atom, Var] | None]:
    """For each ``--wrt`` parameter of ``jac_NAME``: its name, its gradient's output and its input;
    None where it has no Jacobian (no differentiable path reaches it, or the function reads no input
    of it): ``jac_NAME`` returns None there."""
    grads = tape.outputs[1 : 1 + len(tape.facts.wrt)]
    params: list[tuple[str, Atom, Var] | None] = []
    for w, g in zip(tape.facts.wrt, grads, strict=True):
        x = next((i.var for i in tape.inputs if i.path[0] == w), None)
        params.append(None if x is None or (isinstance(g, Lit) and g.value is None) else (w, g, x))
    return params
