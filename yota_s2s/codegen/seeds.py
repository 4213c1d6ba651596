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
from .arguments import differentiated_inputs
from .base import WriterBase, named, tuple_of
from .split import split_rows
from .statements import Line


class SeedWriter(WriterBase):
    """The seed's check and a Jacobian's rows (a part of ``writer.FunctionWriter``)."""

    def seed_check(self) -> ast.stmt:
        """``if np.shape(dout) != np.shape(f): raise ValueError(...)`` (``vjp_NAME``), or
        ``if np.shape(f) != (m,): raise ValueError(...)`` (``jac_NAME`` with ``m`` rows written out)."""
        facts = self.tape.facts
        if facts.mode.forward:
            return self.tangent_checks()
        value = self.atom(self.tape.outputs[0])
        shape = self.backend.call("shape", [value])
        if facts.mode.value_rows and self.value_array():  # (np.array([...]): an ndarray, 0.1 µs less)
            shape = ast.Attribute(value, "shape", ast.Load())
        what = f"{self.tape.name}({', '.join(p.name for p in self.tape.params if p.name != facts.seed)})"
        if facts.mode.seed_param:
            seed = self.backend.call("shape", [named(facts.seed)])
            test = ast.Compare(seed, [ast.NotEq()], [shape])
            parts = [f"{self.function_name()}: {facts.seed} must have the shape of {what}, ", shape, ", not ", seed]
        else:
            expected: ast.expr = ast.Tuple([ast.Constant(facts.rows)], ast.Load())
            rows = f"the Jacobian's rows are the {facts.rows} elements of {what}, which must be numbers"
            batch = self.batch_shapes()
            if batch:  # (n_rows,) + np.shape(x)[1:]: each element a number, or an array of a batch's shape
                batched = ast.BinOp(expected, ast.Add(), batch[0])
                x = next(i.var for i in self.tape.inputs if i.path[0] == facts.wrt[0])
                items = self.items_of.get(x.id)
                if items is None or len(batch) > 1:
                    expected = batched
                else:  # x_items a list: x is 1-D, no batch (0.3 µs less than np.shape(x)[1:])
                    listed = ast.Compare(named(items), [ast.IsNot()], [self.atom(x)])
                    expected = ast.IfExp(listed, expected, batched)
                rows += f" (or, for a batch of points, arrays of the shape of {facts.wrt[0]}[0])"
            test = ast.Compare(shape, [ast.NotEq()], [expected])
            if len(batch) > 1:
                test = ast.BoolOp(ast.Or(), [test, *(ast.Compare(b, [ast.NotEq()], [batch[0]]) for b in batch[1:])])
                rows += f", of the same batch as {', '.join(facts.wrt[1:])}"
            parts = [f"{self.function_name()}: {rows}: its value has shape ", shape]
        message: ast.expr = ast.Constant(parts[0])
        for part in parts[1:]:  # (no f-string: ast.unparse writes them differently across Pythons)
            text = ast.Constant(part) if isinstance(part, str) else ast.Call(named("str"), [part], [])
            message = ast.BinOp(message, ast.Add(), text)
        error = ast.Call(named("ValueError"), [message], [])
        return ast.If(test, [ast.Raise(error)], [])

    def checks_comment(self) -> str:
        """The comment on the first argument check."""
        if self.tape.facts.holomorphic and self.backend.complex_arguments:
            return "the complex derivative, at complex points"
        return "the rules hold for real floats"

    def complex_args(self) -> list[ast.stmt]:
        """``if type(z) is not complex and (type(z) is not np.ndarray or z.dtype.kind != 'c'): z =
        _complex_arg(z, 'jac_f', 'z')`` for each differentiated parameter of a complex derivative
        (``Facts.holomorphic``): it is taken at complex points, and the buffers of the derivative
        have the parameter's dtype (a real one would drop the imaginary parts)."""
        if not self.tape.facts.holomorphic or not self.backend.complex_arguments:
            return []
        out: list[ast.stmt] = []
        for var, spelled, _ in differentiated_inputs(self.tape):
            if "." in spelled or "[" in spelled:  # (an object's attribute: refused by --jacobian)
                continue
            x = named(self.names[var.id])
            kind = ast.Attribute(ast.Attribute(x, "dtype", ast.Load()), "kind", ast.Load())
            not_array = ast.Compare(self.type_of(x), [ast.IsNot()], [self.backend.attr("ndarray")])
            not_complex = ast.BoolOp(ast.Or(), [not_array, ast.Compare(kind, [ast.NotEq()], [ast.Constant("c")])])
            test = ast.BoolOp(
                ast.And(), [ast.Compare(self.type_of(x), [ast.IsNot()], [self.global_name("complex")]), not_complex]
            )
            label = [ast.Constant(self.function_name()), ast.Constant(spelled)]
            convert = ast.Assign(
                [named(self.names[var.id], ast.Store())], ast.Call(named("_complex_arg"), [x, *label], []), lineno=0
            )
            out.append(ast.If(test, [convert], []))
            self.helpers.add("_complex_arg")
        return out

    def batch_shapes(self) -> list[ast.expr]:
        """``np.shape(x)[1:]`` for each ``wrt`` parameter ``x`` of a Jacobian whose rows are written out
        and elementwise in the rows ``x[k]`` (``Facts.batch``): the batch's shape, the same for each;
        none otherwise."""
        if not self.tape.facts.batch:
            return []
        shapes = []
        for w in self.tape.facts.wrt:
            x = next((i.var for i in self.tape.inputs if i.path[0] == w), None)
            if x is not None:
                tail = ast.Slice(ast.Constant(1), None, None)
                shapes.append(ast.Subscript(self.backend.call("shape", [self.atom(x)]), tail, ast.Load()))
        return shapes

    def tangent_checks(self) -> ast.stmt:
        """``if np.shape(x_dot) != np.shape(x): raise ValueError(...)``, ``elif`` for each other tangent
        (``jvp_NAME``)."""
        facts = self.tape.facts
        checks: list[ast.stmt] = []
        for w, t in reversed(list(zip(facts.wrt, facts.tangents, strict=True))):
            x = next((i.var for i in self.tape.inputs if i.path[0] == w), None)
            tangent = self.backend.call("shape", [named(t)])
            shape = self.backend.call("shape", [self.atom(x) if x is not None else named(w)])
            text = f"{self.function_name()}: the tangent {t} must have the shape of {w}, "
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
        tape = self.tape
        seed_name = tape.facts.seed
        self.checked = True
        seed, rows = split if split is not None else self.before_rows(body, self.split_rows)
        value = self.atom(tape.outputs[0])
        standard = not self.backend.in_place
        size = self.backend.call("size", [value])
        shape = self.backend.call("shape", [value])
        k = self.namer.fresh("_k")
        jacobians: list[ast.expr] = []
        assigns: list[tuple[str, Atom, Var]] = []
        grads = tape.outputs[1 : 1 + len(tape.facts.wrt)]
        for w, g in zip(tape.facts.wrt, grads, strict=True):
            x = next((i.var for i in tape.inputs if i.path[0] == w), None)
            if x is None or (isinstance(g, Lit) and g.value is None):
                jacobians.append(ast.Constant(None))
                continue
            name = self.namer.fresh(f"J_{w}")
            rows_shape = ast.BinOp(tuple_of([size]), ast.Add(), self.backend.call("shape", [self.atom(x)]))
            if standard:  # (the array API: no in-place writes, the rows are stacked after the loop)
                empty = ast.Assign([named(name, ast.Store())], ast.List([], ast.Load()), lineno=0)
            else:
                dtype = [named("complex")] if tape.facts.holomorphic else []  # (complex rows)
                empty = ast.Assign(
                    [named(name, ast.Store())], self.backend.call("empty", [rows_shape, *dtype]), lineno=0
                )
            body.append(Line(Section.BACKWARD, None, empty, depth))
            assigns.append((name, g, x))
            jacobians.append(named(name))
        header = ast.For(named(k, ast.Store()), ast.Call(named("range"), [size], []), [], [], lineno=0)
        body.append(Line(Section.BACKWARD, None, header, depth, header=True, comment="one reverse sweep per row"))
        if standard:  # dout = _unit_seed(f, _k)
            self.helpers.add("_unit_seed")
            seeded = ast.Call(named("_unit_seed"), [value, named(k)], [])
            body.append(
                Line(Section.BACKWARD, None, ast.Assign([named(seed_name, ast.Store())], seeded, lineno=0), depth + 1)
            )
        else:
            zeros = ast.Assign([named(seed_name, ast.Store())], self.backend.call("zeros", [shape]), lineno=0)
            unit = ast.Subscript(ast.Attribute(named(seed_name), "flat", ast.Load()), named(k), ast.Store())
            body.append(Line(Section.BACKWARD, None, zeros, depth + 1))
            body.append(Line(Section.BACKWARD, None, ast.Assign([unit], ast.Constant(1.0), lineno=0), depth + 1))
        self.names[seed.id] = seed_name
        for eqn in rows:  # a backward loop pops its stack: each row pops a copy of it
            stack = eqn.args[LEADING[eqn.prim] - 1] if eqn.prim in ("for_back", "while_back") else None
            if isinstance(stack, Var) and stack.id in self.names:
                copy = self.namer.fresh(self.names[stack.id])
                stmt = ast.Assign(
                    [named(copy, ast.Store())],
                    ast.Call(named("_stack_copy"), [named(self.names[stack.id])], []),
                    lineno=0,
                )
                body.append(Line(Section.BACKWARD, None, stmt, depth + 1))
                self.names[stack.id] = copy
                self.helpers.add("_stack_copy")
        self.block(_part(tape, rows), depth + 1, body)
        for name, g, _ in assigns:
            if standard:  # J_x.append(dx)
                append = ast.Call(ast.Attribute(named(name), "append", ast.Load()), [self.atom(g)], [])
                body.append(Line(Section.BACKWARD, None, ast.Expr(append), depth + 1))
                continue
            row = ast.Subscript(named(name), named(k), ast.Store())
            body.append(Line(Section.BACKWARD, None, ast.Assign([row], self.atom(g), lineno=0), depth + 1))
        for name, _, x in assigns:
            if standard:  # J_x = _jacobian_stack(J_x, f, x)
                self.helpers.add("_jacobian_stack")
                stacked = ast.Call(named("_jacobian_stack"), [named(name), value, self.atom(x)], [])
                body.append(
                    Line(Section.BACKWARD, None, ast.Assign([named(name, ast.Store())], stacked, lineno=0), depth)
                )
                continue
            new_shape = ast.BinOp(shape, ast.Add(), self.backend.call("shape", [self.atom(x)]))
            reshape = ast.Call(ast.Attribute(named(name), "reshape", ast.Load()), [new_shape], [])
            body.append(Line(Section.BACKWARD, None, ast.Assign([named(name, ast.Store())], reshape, lineno=0), depth))
        returned = [value, *jacobians] if tape.facts.value else jacobians
        return tuple_of(returned)

    def split_rows(self, seed: Var) -> tuple[list[Eqn], list[Eqn]]:
        """The equations before ``jac_NAME``'s loop over the rows and those of each row."""
        return split_rows(self.tape.eqns, seed, self.plan.inplace)

    def before_rows(
        self, body: list[Line], split: Callable[[Var], tuple[list[Eqn], list[Eqn]]]
    ) -> tuple[Var, list[Eqn]]:
        """The seed of a loop over rows (``jac_NAME``'s ``dout``, ``hess_NAME``'s unit vector) and the
        equations of each row, ``split`` telling them from those before the loop, which are written
        into ``body`` here."""
        tape = self.tape
        seed = next(i.var for i in tape.inputs if i.path[0] == tape.facts.seed)
        before, rows = split(seed)
        made = {o.id for e in before for o in e.outs}  # (named there, never inline in a row: the plan's)
        value = tape.outputs[0]
        if isinstance(value, Var) and value.id not in made:  # made in each row: checked after the loop
            checked, self.checked = self.checked, True
            self.block(_part(tape, before), 0, body)
            self.checked = checked
        else:
            self.block(_part(tape, before), 0, body)
        return seed, rows


def _part(tape: Tape, eqns: list[Eqn]) -> Tape:
    """A tape of some of ``tape``'s equations, for the writer to write."""
    part = tape.copy_header()
    part.eqns = list(eqns)
    return part
