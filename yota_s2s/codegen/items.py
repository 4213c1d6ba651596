"""Writing gradients built by elements: the arguments read as elements, and their gradients' rows.

Scalar code (a polynomial in ``x[0] .. x[8]``) reads its argument's elements at once, from a list
when Python floats give NumPy's results (``unpack``)::

    x_items = x.tolist() if type(x) is np.ndarray and x.shape == (9,) and (x.dtype in _FLOATS) else x
    _, x1, x2, ... = x_items if x_items is not x else (None, x[1], x[2], ...)

and builds the gradient of such an argument from its rows' values (an element group of the plan):
a local name per row (``dx3 = g``) joined into a list, or a list of floats, or the array
``_grad_rows(x, rows)`` when ``x`` is not a 1-D float array (``item_write``).  Each costs less than
``np.zeros_like`` and NumPy item writes, which cost more than a small polynomial's whole gradient.
"""

from __future__ import annotations

import ast

from ..ir.core import Eqn, Var
from .base import WriterBase, named
from .target import constant


class ItemWriter:
    """The statements of element reads and element groups, for the writer that holds it
    (``writer.FunctionWriter.items``: its names, plan and helpers are the writer's)."""

    def __init__(self, writer: WriterBase):
        self.w = writer
        self._jacobian_lists: dict[int, Var] | None = None  # (jacobian_lists)

    def unpacked_read(self, eqn: Eqn) -> ast.expr:
        """``x_items[k]`` (``unpack``)."""
        name = self.w.items_of[eqn.args[0].id]
        return ast.Subscript(ast.Name(name, ast.Load()), ast.Constant(eqn.params["index"][0]), ast.Load())

    def unpack(self, x: Var) -> list[ast.stmt]:
        """The reads ``x[k]`` of ``x`` at once, ``x1, x2 = (x[1], x[2])``; where Python floats
        give NumPy's results (``plan.listed``), from the elements of a 1-D float array::

            x_items = x.tolist() if type(x) is np.ndarray and x.shape == (3,) and x.dtype in _FLOATS else x
            _, x1, x2 = x_items if x_items is not x else (None, x[1], x[2])

        ``n`` (3) is one more than the largest index read or written (``item_lengths``), so that a
        list unpacks whole, and a long array is not made a list to read a few of its elements;
        with negative indices only, ``x.ndim == 1``."""
        reads = self.w.plan.element_reads.get(x.id, [])
        targets: list[str | None] = [None] * self.w.plan.item_lengths.get(x.id, 0)
        for eqn in reads:
            k = eqn.params["index"][0]
            if targets[k] is None:
                targets[k] = self.w.name_for(eqn.out)
            self.w.names[eqn.out.id] = targets[k]
        # not a list: the reads themselves (x[k] of a list, a tuple, rows of a 2-D array, or
        # whatever else indexes by integers)
        elements = [
            ast.Subscript(self.w.atom(x), ast.Constant(k), ast.Load()) if t else ast.Constant(None)
            for k, t in enumerate(targets)
        ]
        names = ast.Tuple([ast.Name(t or "_", ast.Store()) for t in targets], ast.Store())
        if x.id not in self.w.plan.listed:
            kept = [k for k, t in enumerate(targets) if t]
            names.elts = [names.elts[k] for k in kept]
            return [ast.Assign([names], ast.Tuple([elements[k] for k in kept], ast.Load()), lineno=0)]
        name = self.w.items_of[x.id] = self.w.namer.fresh(self.w.names[x.id] + "_items")
        # a NumPy array only: a subclass's tolist() may not give its elements (a masked array's
        # gives None for masked ones); the type test costs less than np.ndim's call.  A float
        # array only: Python ints do not overflow as NumPy's do, and the list of the gradient
        # (item_write) is made an array of x's dtype
        kind = self.w.type_of(self.w.atom(x))
        n = self.w.plan.item_lengths.get(x.id)
        if n is None:
            one_d = ast.Compare(ast.Attribute(self.w.atom(x), "ndim", ast.Load()), [ast.Eq()], [ast.Constant(1)])
        else:
            one_d = ast.Compare(ast.Attribute(self.w.atom(x), "shape", ast.Load()), [ast.Eq()], [constant((n,))])
        dtype = ast.Attribute(self.w.atom(x), "dtype", ast.Load())
        floats = ast.Compare(dtype, [ast.In()], [self.w.global_name("_FLOATS")])
        self.w.helpers.add("_FLOATS")
        test = ast.BoolOp(ast.And(), [ast.Compare(kind, [ast.Is()], [self.w.backend.attr("ndarray")]), one_d, floats])
        value = ast.IfExp(test, ast.Call(ast.Attribute(self.w.atom(x), "tolist", ast.Load()), [], []), self.w.atom(x))
        stmts: list[ast.stmt] = [ast.Assign([ast.Name(name, ast.Store())], value, lineno=0)]
        if reads:
            items = ast.Name(name, ast.Load())
            value = ast.IfExp(
                ast.Compare(items, [ast.IsNot()], [self.w.atom(x)]), items, ast.Tuple(elements, ast.Load())
            )
            stmts.append(ast.Assign([names], value, lineno=0))
        return stmts

    def start_items(self, root: int, eqn: Eqn, name: str) -> bool:
        """Name an element group at its ``grad_zeros``: the gradient's own name for named rows
        (``dx``, its rows ``dx3``), else its list (``dx_items``)."""
        if root not in self.w.plan.item_groups or eqn.out.id != root:
            return False
        named = root in self.w.plan.named_rows or self.w.plan.columns_form  # the columns form: the array itself
        self.w.item_names[root] = name if named else self.w.namer.fresh(name + "_items")
        return True

    def item_write(self, root: int, eqn: Eqn) -> list[ast.stmt]:
        """A statement of an element group: one name per row when its indices are all constants
        of at least 0 (``row_write``), else the list ``dx_items`` for a 1-D float ``x``, the array
        ``_grad_rows(x, rows)`` otherwise, when ``x`` has rows or is not a float array::

            dx_items = [0.0] * len(x_items) if x_items is not x else _grad_rows(x, (3, 8))
            dx_items[3] = g  # dx_items[3] = dx_items[3] + g after a first write
            dx = np.fromiter(dx_items, x.dtype, 3) if x_items is not x else dx_items  # after the last one
        """
        if root in self.w.plan.named_rows:
            return self.row_write(root, eqn)
        x, last = self.w.plan.item_groups[root]
        items = self.w.item_names[root]
        x_items = ast.Name(self.w.items_of[x.id], ast.Load())
        listed = ast.Compare(x_items, [ast.IsNot()], [self.w.atom(x)])  # x_items is not x: a list
        if eqn.out.id == root:
            zeros = ast.BinOp(
                ast.List([ast.Constant(0.0)], ast.Load()),
                ast.Mult(),
                ast.Call(ast.Name("len", ast.Load()), [x_items], []),
            )
            value = ast.IfExp(listed, zeros, self.grad_rows(root, x, last))
            return [ast.Assign([ast.Name(items, ast.Store())], value, lineno=0)]
        k = ast.Constant(eqn.params["index"][0])
        g = self.w.atom(eqn.args[1])
        if not self.w.first_write(eqn):  # never +=: an item may be a (0-d) array other names refer to
            g = ast.BinOp(ast.Subscript(ast.Name(items, ast.Load()), k, ast.Load()), ast.Add(), g)
        stmt = ast.Assign([ast.Subscript(ast.Name(items, ast.Store()), k, ast.Store())], g, lineno=0)
        if eqn.out.id != last:
            return [stmt]
        array = self.from_list(x, items, ast.Name(items, ast.Load()))
        return [stmt, ast.Assign([ast.Name(self.w.names[eqn.out.id], ast.Store())], array, lineno=0)]

    def from_list(self, x: Var, name: str, otherwise: ast.expr) -> ast.expr:
        """``np.fromiter(name, x.dtype, n) if x_items is not x else otherwise``: the gradient of
        ``x`` from the list ``name`` of its elements' gradients when ``x_items`` is a list (of the
        ``n`` elements of ``x.shape == (n,)``; ``np.asarray`` when ``n`` is not known)."""
        listed = ast.Compare(ast.Name(self.w.items_of[x.id], ast.Load()), [ast.IsNot()], [self.w.atom(x)])
        dtype = ast.Attribute(self.w.atom(x), "dtype", ast.Load())
        n = self.w.plan.item_lengths.get(x.id)
        if n is None:
            array = self.w.backend.call("asarray", [ast.Name(name, ast.Load()), dtype])
        else:  # (np.fromiter with its count: 0.35 against 0.38 µs on 9 floats, 2.7 against 3.4 on 200)
            array = self.w.backend.call("fromiter", [ast.Name(name, ast.Load()), dtype, ast.Constant(n)])
        return ast.IfExp(listed, array, otherwise)

    def row_write(self, root: int, eqn: Eqn) -> list[ast.stmt]:
        """A statement of an element group whose rows are all named (``plan.named_rows``): ``dx3 = g``
        (``dx3 = dx3 + g`` after the first), and after the last one the rows in a list, made the
        gradient array by ``_grad_stack`` (rows, numbers or arrays; zeros past them), or by
        ``np.fromiter`` for a list ``x_items`` (``x.shape == (n,)``, ``from_list``)::

            dx = [0.0, dx1, dx2]
            dx = np.fromiter(dx, x.dtype, 3) if x_items is not x else _grad_stack(x, dx)
        """
        x, last = self.w.plan.item_groups[root]
        rows = self.w.row_names.setdefault(root, {})
        if eqn.out.id == root:
            return []
        k = eqn.params["index"][0]
        g = self.w.atom(eqn.args[1])
        if k in rows:  # never +=: the row may be an array other names refer to
            g = ast.BinOp(ast.Name(rows[k], ast.Load()), ast.Add(), g)
        else:
            rows[k] = self.w.namer.fresh(f"{self.w.item_names[root]}{k}")
        stmts: list[ast.stmt] = [ast.Assign([ast.Name(rows[k], ast.Store())], g, lineno=0)]
        if eqn.out.id != last:
            return stmts
        name = self.w.names[eqn.out.id]
        n = self.w.plan.item_lengths[x.id]
        elements = [ast.Name(rows[i], ast.Load()) if i in rows else ast.Constant(0.0) for i in range(n)]
        stmts.append(ast.Assign([ast.Name(name, ast.Store())], ast.List(elements, ast.Load()), lineno=0))
        if eqn.out.id in self.jacobian_lists():  # the Jacobian reads the list (jacobian_stack)
            return stmts
        self.w.helpers.add("_grad_stack")
        array: ast.expr = ast.Call(
            ast.Name("_grad_stack", ast.Load()), [self.w.atom(x), ast.Name(name, ast.Load())], []
        )
        if x.id in self.w.plan.listed:
            array = self.from_list(x, name, array)
        stmts.append(ast.Assign([ast.Name(name, ast.Store())], array, lineno=0))
        return stmts

    def grad_rows(self, root: int, x: Var, last: int) -> ast.expr:
        """``_grad_rows(x, rows)``: the array of an element group, zeros in the rows it does not assign."""
        self.w.helpers.add("_grad_rows")
        return ast.Call(ast.Name("_grad_rows", ast.Load()), [self.w.atom(x), constant(self.w.plan.item_rows[root])], [])

    def jacobian_lists(self) -> dict[int, Var]:
        """The rows of a Jacobian written out (``jac_NAME``, ``Facts.rows``) that are left lists of
        their elements (``dx = [dx0, dx1, dx2]``) for ``jacobian_stack``: each element group with
        named rows that only the Jacobian's ``np.stack`` reads, all of the same ``x``; its last
        member -> ``x``."""
        if self._jacobian_lists is not None:
            return self._jacobian_lists
        self._jacobian_lists = {}
        tape = self.w.tape
        if not tape.facts.mode.value_rows or not tape.facts.rows or not self.w.backend.in_place:
            return self._jacobian_lists
        last = {lst: (root, x) for root, (x, lst) in self.w.plan.item_groups.items() if root in self.w.plan.named_rows}
        uses: dict[int, int] = {}
        for a in [a for e in tape.eqns for a in e.args] + list(tape.outputs):
            if isinstance(a, Var):
                uses[a.id] = uses.get(a.id, 0) + 1
        for eqn in tape.eqns:
            if eqn.prim != "stack" or not any(eqn.out is o for o in tape.outputs[1:]):
                continue
            groups = [last.get(a.id) if isinstance(a, Var) else None for a in eqn.args]
            xs = {id(g[1]) for g in groups if g is not None}
            if None in groups or len(xs) != 1:
                continue
            if all(uses.get(a.id) == sum(1 for b in eqn.args if b is a) for a in eqn.args):
                self._jacobian_lists.update({a.id: g[1] for a, g in zip(eqn.args, groups, strict=True)})
        return self._jacobian_lists

    def value_array(self) -> bool:
        """Whether ``jac_NAME``'s value, written out by rows, is written ``np.array([...])`` (NumPy)."""
        tape = self.w.tape
        value = tape.outputs[0] if tape.outputs else None
        made = next((e for e in tape.eqns if value in e.outs), None) if isinstance(value, Var) else None
        return (
            made is not None
            and made.prim == "stack"
            and tape.facts.mode.value_rows
            and tape.facts.rows > 0
            and self.w.backend.host
        )

    def jacobian_stack(self, eqn: Eqn) -> ast.expr | None:
        """The value and the Jacobians of ``jac_NAME`` whose rows are written out, or None for any
        other equation: the value ``np.array([e0, e1, ...])`` (NumPy's ``np.stack`` makes an array of
        each number first: 2.9 against 0.3 µs for 7 floats), and a Jacobian whose rows are lists
        (``jacobian_lists``) one array from them all::

            J_x = np.fromiter([*dx, *dx_1], x.dtype, 6).reshape(2, 3) if x_items is not x else _jacobian_rows(x, [dx, dx_1])

        (one array of floats, where ``np.stack`` of ``np.fromiter`` of each row costs 7.6 against
        0.9 µs for 7 rows of 7; ``_jacobian_rows`` writes a batch's rows into one array)."""
        tape = self.w.tape
        if eqn.prim != "stack" or not tape.facts.rows or not tape.facts.mode.value_rows or not self.w.backend.in_place:
            return None
        if tape.outputs and eqn.out is tape.outputs[0] and self.value_array():
            return self.w.backend.call("array", [ast.List([self.w.atom(a) for a in eqn.args], ast.Load())])
        lists = self.jacobian_lists()
        if not eqn.args or not all(isinstance(a, Var) and a.id in lists for a in eqn.args):
            return None
        x = lists[eqn.args[0].id]
        rows = [self.w.atom(a) for a in eqn.args]
        self.w.helpers.add("_jacobian_rows")
        array: ast.expr = ast.Call(named("_jacobian_rows"), [self.w.atom(x), ast.List(rows, ast.Load())], [])
        if x.id in self.w.plan.listed:
            n = self.w.plan.item_lengths[x.id]
            flat = ast.List([ast.Starred(r, ast.Load()) for r in rows], ast.Load())
            dtype = ast.Attribute(self.w.atom(x), "dtype", ast.Load())
            made = self.w.backend.call("fromiter", [flat, dtype, ast.Constant(len(rows) * n)])
            shaped = ast.Call(
                ast.Attribute(made, "reshape", ast.Load()), [ast.Constant(len(rows)), ast.Constant(n)], []
            )
            listed = ast.Compare(ast.Name(self.w.items_of[x.id], ast.Load()), [ast.IsNot()], [self.w.atom(x)])
            array = ast.IfExp(listed, shaped, array)
        return array
