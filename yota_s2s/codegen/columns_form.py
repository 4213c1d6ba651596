"""The columns form: ``grad_NAME`` on one block of columns, written into arrays instead of new ones.

``_grad_NAME_columns(<parameters>, _out)`` is what ``_by_columns`` calls on each block once it has
checked that the arguments it blocks are ndarrays of one float dtype (D); a function has one when
its plan has a column guard (``plan.column_ranks``, from ``columns.column_plan``).  Its plan is the
function's with the gradient buffers of the inputs made where the backward sweep starts
(``_buffers_first``), plus what ``ColumnsPlan`` decides: which values are surely of D, which are
ufuncs, which arrays die where they are read (``spare``), which gradient is written into which
``_out[k]`` and which value into its row of an element group.

    >>> from yota_s2s.pipeline import generate
    >>> text = generate("import numpy as np\\ndef f(x):\\n    return np.sum(1.0 / (1.0 + np.exp(-x)))\\n", "f.py").text
    >>> print(text[text.index("def _grad_f_columns") :].split("\\n")[0])
    def _grad_f_columns(x, _out):
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from ..dsl.rule import RuleTable
from ..ir.core import Atom, Eqn, Lit, Section, Tape, Var
from ..ir.shapes import ShapeClasses, shape_classes
from .items import ItemWriter
from .plan import FunctionPlan, columns_name, plan_function
from .target import Backend, literal
from .ufunc import rebuild, ufunc_call
from .writer import FunctionWriter


@dataclass(frozen=True)
class ColumnsPlan:
    """What the columns form writes into arrays (see ``ColumnsWriter``); its maps are read-only."""

    classes: ShapeClasses  # shape classes, no assumption on the value's shape
    out_slots: Mapping[int, int]  # a gradient -> k: written into _out[k]
    forms: Mapping[int, tuple[str, list, ast.expr]]  # value -> its ufunc, operands and plain expression
    dtyped: frozenset[int]  # values surely of dtype D
    statement: Mapping[int, int]  # id(eqn) -> the statement it is written in (a nested one: its user's)
    readers: Mapping[int, tuple[Eqn, ...]]  # value -> the equations that read it
    spare: frozenset[int]  # new arrays no other name may refer to: made by ufuncs, read by ufuncs only
    row_slots: Mapping[int, tuple[int, int]]  # value -> (root, row) of the element group row it is made in


def columns_form(tape: Tape, table: RuleTable, backend: Backend, ranks: Mapping[str, int]) -> ColumnsWriter:
    """The writer of ``_grad_NAME_columns`` for ``tape``, whose arguments ``ranks`` are blocked."""
    plan = plan_function(_buffers_first(_without_value(tape, table)), table, backend, columns=False, columns_form=True)
    return ColumnsWriter(plan, _ColumnsPlanner(plan, table, backend, ranks).plan_columns(), table, backend)


def _without_value(tape: Tape, table: RuleTable) -> Tape:
    """Without ``--value``, ``tape`` without the value it keeps for ``grad_NAME``'s scalar check (the
    columns form checks nothing: ``grad_NAME`` did), and without what only the value read; a loop,
    a branch, an effect or a random draw stays."""
    if tape.facts.value or not tape.outputs or not isinstance(tape.outputs[0], Var):
        return tape
    outputs = [Lit(None), *tape.outputs[1:]]
    live = {a.id for a in outputs if isinstance(a, Var)}
    kept = []
    for eqn in reversed(tape.eqns):
        rule = table.rules.get(eqn.prim)
        impure = eqn.regions or eqn.prim == "effect" or (rule is not None and not rule.pure)
        if impure or any(o.id in live for o in eqn.outs):
            kept.append(eqn)
            live.update(a.id for a in eqn.args if isinstance(a, Var))
    new = tape.copy_header()
    new.eqns, new.outputs = kept[::-1], outputs
    return new


class _ColumnsPlanner:
    """Makes a ``ColumnsPlan`` from a function's plan."""

    def __init__(self, plan: FunctionPlan, table: RuleTable, backend: Backend, blocked: Mapping[str, int]):
        self.plan = plan
        self.tape = plan.tape
        self.table = table
        self.backend = backend
        self.blocked = blocked

    def plan_columns(self) -> ColumnsPlan:
        tape = self.tape
        self.out_slots: dict[int, int] = {}  # a gradient -> k: written into _out[k]
        for k, g in enumerate(tape.outputs[1:]):  # the first is the value (or a stand-in)
            if isinstance(g, Var) and g.id in self.plan.defs:
                self.out_slots.setdefault(g.id, k)
        self.classes = shape_classes(tape, self.table, scalar_keys=frozenset())
        self.forms = {e.out.id: f for e in tape.eqns if (f := self.ufunc_form(e)) is not None}
        # values surely of dtype D: the blocked arguments, their rows, ufuncs of D and Python numbers
        self.dtyped = {inp.var.id for inp in tape.inputs if inp.path[0] in self.blocked}
        for eqn in tape.eqns:
            a = eqn.args
            if eqn.prim in ("getindex", "grad_zeros") and len(a) == 1 and isinstance(a[0], Var):
                if a[0].id in self.dtyped:
                    self.dtyped.add(eqn.out.id)
            elif eqn.out.id in self.forms and all(map(self.keeps_dtype, a)) and any(isinstance(b, Var) for b in a):
                self.dtyped.add(eqn.out.id)
        # the statement each equation is written in (a nested one: its user's)
        user = {b.id: e for e in tape.eqns for b in e.args if isinstance(b, Var) and b.id in self.plan.inline}
        statement: dict[int, int] = {}
        for n in reversed(range(len(tape.eqns))):
            eqn = tape.eqns[n]
            statement[id(eqn)] = statement[id(user[eqn.out.id])] if eqn.out.id in user else n
        readers: dict[int, list[Eqn]] = {}
        for eqn in tape.eqns:
            for b in eqn.args:
                if isinstance(b, Var):
                    readers.setdefault(b.id, []).append(eqn)
        outputs = {a.id for a in tape.outputs if isinstance(a, Var)}
        # new arrays that no other name may refer to: made by ufuncs, read by ufuncs only
        spare = {
            v
            for v in self.dtyped & self.forms.keys()
            if v not in outputs and all(r.out.id in self.forms for r in readers.get(v, ()))
        }
        return ColumnsPlan(
            classes=self.classes,
            out_slots=MappingProxyType(self.out_slots),
            forms=MappingProxyType(self.forms),
            dtyped=frozenset(self.dtyped),
            statement=MappingProxyType(statement),
            readers=MappingProxyType({v: tuple(rs) for v, rs in readers.items()}),
            spare=frozenset(spare),
            row_slots=MappingProxyType(self.named_rows(outputs)),
        )

    def named_rows(self, outputs: set[int]) -> dict[int, tuple[int, int]]:
        """A named value of the backward sweep that is a row of an element group (``dx[0] =
        d_t1``) -> (the group's root, the row): computed in that row (``d_t1 = np.multiply(_t1,
        _t5, out=dx[0])``) rather than copied into it after (factored large: 269 -> 244 µs).
        The row is written only there, so the array is the value's alone while it is read
        (``dx[0] += g`` would change it, and so would ``dx[-4] += g``: the group's indices are
        all at least 0); the value is a ufunc of D of the row's class, written into by no
        ``out=`` (not ``spare``), and made after the group's array (``_buffers_first``)."""
        slots: dict[int, tuple[int, int]] = {}
        order = {e.out.id: n for n, e in enumerate(self.tape.eqns) if len(e.outs) == 1}
        for root, (x, _) in self.plan.item_groups.items():
            adds = [e for e in self.tape.eqns if self.plan.inplace.get(e.out.id) == root and e.out.id != root]
            rows = [e.params["index"][0] for e in adds]
            if min(rows) < 0:  # dx[-4] may be dx[0]
                continue
            for e in adds:
                g, row = e.args[1], e.params["index"][0]
                if not isinstance(g, Var) or rows.count(row) != 1 or g.id in slots or g.id in outputs:
                    continue
                d = self.plan.defs.get(g.id)
                if d is None or d.section != Section.BACKWARD or g.id in self.plan.inline or g.id not in self.forms:
                    continue
                shaped = self.classes.infer("getindex", [x], {"index": e.params["index"]})
                later = order.get(g.id, -1) > order.get(root, len(order))
                if g.id in self.dtyped and g.id not in self.out_slots and self.classes.of(g) == shaped and later:
                    slots[g.id] = (root, row)
        return slots

    def keeps_dtype(self, a: Atom) -> bool:
        """``a`` leaves D as it is in a ufunc with a D operand: a value of D, or a Python number
        (NumPy 2 casts a float, int or bool to the array's dtype)."""
        if isinstance(a, Lit):
            return type(a.value) in (int, float, bool)
        return a.id in self.dtyped

    def ufunc_form(self, eqn: Eqn) -> tuple[str, list, ast.expr] | None:
        """(the ufunc, its operands: an argument's position or a constant, the plain expression)
        of an equation written as one ufunc call (``ufunc_call``), or None."""
        if eqn.regions or len(eqn.outs) != 1:
            return None
        holders = [ast.Name(f"_{i}_", ast.Load()) if isinstance(a, Var) else literal(a) for i, a in enumerate(eqn.args)]
        rule = self.table.rules[eqn.prim]
        value = self.backend.expression(
            eqn, holders, rule, [isinstance(a, Var) and a.id in self.plan.methods for a in eqn.args], set()
        )
        found = ufunc_call(value, self.backend.alias)
        if found is None or found[0] in ("matmul", "float_power"):  # float_power: float64 whatever D is
            return None
        positions = {id(h): i for i, h in enumerate(holders) if isinstance(h, ast.Name)}
        spec: list = []
        for node in found[1]:
            if id(node) in positions:
                spec.append(positions[id(node)])
            elif isinstance(node, ast.Constant) or (
                isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant)
            ):
                spec.append(node)
            else:
                return None
        return found[0], spec, value


class ColumnsWriter(FunctionWriter):
    """``_grad_NAME_columns(<parameters>, _out)``: ``grad_NAME`` on one block of columns, as
    ``_by_columns`` calls it once it has checked that the arguments it blocks are ndarrays of one
    float dtype (D).  What that check proves lets the body drop what ``grad_NAME`` must keep for
    any argument, and write results into arrays instead of making new ones::

        _t2 = _t1 + 1.0
        _t3 = np.multiply(_t2, _t2, out=_t2)  # _t2 is not read again
        dx = np.divide(_t1, _t3, out=_out[0])  # the columns of the whole gradient
        _t9 = np.multiply(_t5, x7, out=dx[2])  # dx[2] = _t5 * x7 * 3 - _t6, in its row
        np.multiply(_t9, 3, out=_t9)
        np.subtract(_t9, _t6, out=_t9)

    No scalar check (``grad_NAME`` made it), no ``x.tolist()`` (``x[3]`` is a row), an element
    group is the array ``_grad_rows(x, rows, _out[k])``.  An elementwise operation (a ufunc) whose
    result is surely of dtype D (its operands are of D or Python numbers) is written into: the
    gradient's columns (``_out[k]``) or row (``dx[3]``) it is assigned to; else an operand of its
    shape class that dies there: a nested operation (used once), or a name whose every reader is
    such an operation, none of them later.  So an array is overwritten only after its last read,
    never while another name refers to it, and never with a wider dtype (``out=`` would cast).
    """

    def __init__(self, plan: FunctionPlan, columns: ColumnsPlan, table: RuleTable, backend: Backend):
        super().__init__(plan, table, backend)
        self.columns = columns
        self.namer.take("_out")
        #: values computed in their rows (``row_slots``) as planned, once written there
        self.in_rows: set[int] = set()
        self.items = ColumnsItems(self)

    def function_name(self) -> str:
        return columns_name(self.tape)

    def signature(self) -> str:
        return ", ".join([*(p.name for p in self.tape.params), "_out"])

    def docstring(self) -> str:
        return f'"""grad_{self.tape.name} on one block of columns (see _by_columns), into the gradients _out."""'

    def overwritable(self, a: Var, eqn: Eqn) -> bool:
        """``eqn`` may write its result into ``a``'s array: a spare array of its class and dtype
        that nothing reads after ``eqn``."""
        if (
            a.id not in self.columns.spare
            or eqn.out.id not in self.columns.dtyped
            or self.columns.classes.of(a) != self.columns.classes.of(eqn.out)
        ):
            return False
        here = self.columns.statement[id(eqn)]
        return all(r is eqn or self.columns.statement[id(r)] < here for r in self.columns.readers[a.id])

    def evaluate(self, eqn: Eqn, dest: ast.expr | None, stmts: list[ast.stmt]) -> ast.expr | None:
        """The call that computes ``eqn`` (its nested operands computed by ``stmts`` first), written
        into ``dest``, else into an operand it may overwrite, else into a new array; None when
        ``eqn`` is not a ufunc of dtype D."""
        out = eqn.out
        if out.id not in self.columns.forms or out.id not in self.columns.dtyped:
            return None
        name, spec, template = self.columns.forms[out.id]
        ops: list[ast.expr] = []
        into: ast.expr | None = None
        for p in spec:
            if not isinstance(p, int):
                ops.append(copy.deepcopy(p))
                continue
            a = eqn.args[p]
            if isinstance(a, Var) and a.id in self.plan.inline:  # computed here: into dest, if its class
                lend = dest is not None and into is None and self.columns.classes.of(a) == self.columns.classes.of(out)
                ops.append(self.operand(self.plan.defs[a.id], dest if lend else None, stmts))
                if into is None and isinstance(ops[-1], ast.Name) and self.overwritable(a, eqn):
                    into = ops[-1]
            else:
                ops.append(self.atom(a))
                if into is None and dest is None and isinstance(a, Var) and self.overwritable(a, eqn):
                    into = ops[-1]
        where = into if into is not None else dest
        if where is None:
            return rebuild(copy.deepcopy(template), ops)
        return ast.Call(self.backend.attr(name), ops, [ast.keyword("out", copy.deepcopy(where))])

    def operand(self, eqn: Eqn, dest: ast.expr | None, stmts: list[ast.stmt]) -> ast.expr:
        """A nested operand: its value named by a statement of ``stmts`` when it is a ufunc of D."""
        call = self.evaluate(eqn, dest, stmts)
        if call is None:
            return self.expression(eqn)
        where = _out_of(call)
        if isinstance(where, ast.Name):  # into an operand: the array keeps its name
            stmts.append(ast.Expr(call))
            return ast.Name(where.id, ast.Load())
        name = self.namer.temp()
        stmts.append(ast.Assign([ast.Name(name, ast.Store())], call, lineno=0))
        return ast.Name(name, ast.Load())

    def in_place(self, eqn: Eqn, target: ast.Name) -> list[ast.stmt] | None:
        k = self.columns.out_slots.get(eqn.out.id)
        dest = None if k is None else ast.Subscript(ast.Name("_out", ast.Load()), ast.Constant(k), ast.Load())
        root, row = self.columns.row_slots.get(eqn.out.id, (None, None))
        if root in self.item_names:  # the group's array is made: into the value's row
            dest = ast.Subscript(ast.Name(self.item_names[root], ast.Load()), ast.Constant(row), ast.Load())
        stmts: list[ast.stmt] = []
        call = self.evaluate(eqn, dest, stmts)
        if call is None:
            return None
        if root in self.item_names and _lands_in(dest, call, stmts):
            self.in_rows.add(eqn.out.id)
        return [*stmts, ast.Assign([target], call, lineno=0)]


class ColumnsItems(ItemWriter):
    """The element groups of the columns form: written into the gradient's columns and rows."""

    w: ColumnsWriter

    def grad_rows(self, root: int, x: Var, last: int) -> ast.expr:
        call = super().grad_rows(root, x, last)
        k = self.w.columns.out_slots.get(last)
        if k is not None:  # into the columns of the whole gradient
            call.args.append(ast.Subscript(ast.Name("_out", ast.Load()), ast.Constant(k), ast.Load()))
        return call

    def item_write(self, root: int, eqn: Eqn) -> list[ast.stmt]:
        """``dx = _grad_rows(x, rows, _out[k])``, then ``dx[3] = g`` (computed in the row when it
        is a ufunc of D of the row's class) or ``dx[3] += g``."""
        x, last = self.w.plan.item_groups[root]
        items = self.w.item_names[root]
        if eqn.out.id == root:
            return [ast.Assign([ast.Name(items, ast.Store())], self.grad_rows(root, x, last), lineno=0)]
        index = eqn.params["index"]
        row = ast.Subscript(ast.Name(items, ast.Load()), ast.Constant(index[0]), ast.Store())
        g = eqn.args[1]
        if isinstance(g, Var) and g.id in self.w.in_rows and self.w.columns.row_slots[g.id] == (root, index[0]):
            return []  # computed there
        if not self.w.first_write(eqn):
            return [ast.AugAssign(row, ast.Add(), self.w.atom(g))]
        shaped = self.w.columns.classes.infer("getindex", [x], {"index": index})
        if isinstance(g, Var) and g.id in self.w.plan.inline and self.w.columns.classes.of(g) == shaped:
            stmts: list[ast.stmt] = []
            call = self.w.evaluate(self.w.plan.defs[g.id], ast.Subscript(row.value, row.slice, ast.Load()), stmts)
            if call is not None:
                return [*stmts, ast.Expr(call)]
        return [ast.Assign([row], self.w.atom(g), lineno=0)]


def _buffers_first(tape: Tape) -> Tape:
    """``tape`` with the gradient buffers of its inputs (``grad_zeros(x)``) made where the backward
    sweep starts: a value can then be computed in its row of one (``named_rows``)."""
    inputs = {i.var.id for i in tape.inputs}
    made = [
        e
        for e in tape.eqns
        if e.prim == "grad_zeros" and e.section == Section.BACKWARD and getattr(e.args[0], "id", None) in inputs
    ]
    if not made:
        return tape
    moved = {id(e) for e in made}
    rest = [e for e in tape.eqns if id(e) not in moved]
    start = next((n for n, e in enumerate(rest) if e.section == Section.BACKWARD), len(rest))
    new = tape.copy_header()
    new.eqns = rest[:start] + made + rest[start:]
    new.outputs = list(tape.outputs)
    return new


def _out_of(call: ast.expr) -> ast.expr | None:
    """The ``out=`` array of a ufunc call (``evaluate``), or None."""
    return next((k.value for k in getattr(call, "keywords", ()) if k.arg == "out"), None)


def _lands_in(dest: ast.expr, call: ast.expr, stmts: list[ast.stmt]) -> bool:
    """The result of ``call`` (after ``stmts``) is the array ``dest``: it is written there, or
    into a name a statement bound to a call written there."""
    where = _out_of(call)
    if where is None:
        return False
    if ast.dump(where) == ast.dump(dest):
        return True
    bound = {
        t.id
        for st in stmts
        if isinstance(st, ast.Assign)
        for t in st.targets
        if isinstance(t, ast.Name) and _lands_in(dest, st.value, [])
    }
    return isinstance(where, ast.Name) and where.id in bound
