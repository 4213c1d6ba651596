"""The state a function writer keeps while it prints a plan: names, the statements so far, what it used.

``WriterBase`` holds what the writer (``writer.FunctionWriter``) and the parts it holds share (the
parts ``flow``, ``items``, ``seeds``, ``batched`` ... read it through the writer) and writes the
atoms and expressions of equations.  What is written was decided by the plan (``plan.FunctionPlan``);
what the writer decides as it goes is only names: a value's name is allocated (``naming.Names``)
where its statement is written, so names number in order of appearance: user names kept,
``d<name>`` for a gradient, ``_t1, _t2, ...`` for temporaries.
"""

from __future__ import annotations

import ast
import dataclasses

from ..dsl.rule import RuleTable
from ..ir.core import Atom, Dyn, Eqn, Lit, Section, Slice, Tape, Var
from ..ir.primitives import primitive
from ..ir.regions import all_tapes, bound_inputs
from .helpers import helper_for, helper_names
from .naming import CALLED_BUILTINS, Names, respell
from .plan import FunctionPlan
from .standard import refusal
from .statements import Line, function_name
from .target import Backend, literal


class WriterBase:
    """What the parts of a function writer share (see the module docstring)."""

    def __init__(self, plan: FunctionPlan, table: RuleTable, backend: Backend):
        self.plan = plan
        self.tape: Tape = plan.tape
        self.table = table
        self.backend = backend
        self._outer: dict | None = None  # (surely_array: region inputs -> the outer values they stand for)
        #: Names taken in the function (parameters, the module alias, helpers, values named so far).
        self.namer = Names([p.name for p in self.tape.params])
        helpers = helper_names(backend.helper_variant)
        self.namer.take(backend.alias, *helpers, self.function_name(), *CALLED_BUILTINS)
        self.namer.take(*passed_through_names(self.tape))  # print, math: names static code uses
        #: Module-level names a parameter hides -> their spelling in the module (``use_spelling``).
        self.spelling: dict[str, str] = {}
        #: Value id -> its name, once its statement is written.
        self.names: dict[int, str] = {}
        #: Region inputs that stand for a constant, written in place.
        self.consts: dict[int, Lit] = {}
        #: The helpers and the other modules the written expressions use.
        self.helpers: set[str] = set()
        self.imports: set[str] = set()
        #: Argument x -> the name of its elements' list (``x_items``), once written.
        self.items_of: dict[int, str] = {}
        #: Root of an element group -> the name of its list or array; its rows' names (``dx3``).
        self.item_names: dict[int, str] = {}
        self.row_names: dict[int, dict[int, str]] = {}
        self.row_arrays: set[int] = set()  # the ids written by _rows (writer.row_chains), named even if inline
        #: Whether the value's scalar check is written (or needs none).
        self.checked = not plan.check_scalar
        #: The statements written so far.
        self.body: list[Line] = []
        #: While a backward loop's step is written: the name of the flag that its step computes on
        #: numbers, and its ``unbroadcast`` values that are then the identity (``flow.numbers``).
        self.numbers: tuple[str, frozenset[int]] | None = None
        #: elements of a loop body's vectors read at once, before its statements (``flow.elements``)
        self.unpacked: set[int] = set()

    def function_name(self) -> str:
        return function_name(self.tape)

    def use_spelling(self, spelling: dict[str, str], reserved: set[str]) -> None:
        """Write the module-level names of ``spelling`` as it spells them (``_unbroadcast_1`` where a
        parameter is called ``_unbroadcast``); no local value takes a name of ``reserved`` (the
        module's other names: its spellings, the libraries it imports)."""
        self.spelling = spelling
        self.namer.take(*spelling.values(), *reserved)

    def global_name(self, name: str) -> ast.Name:
        """A module-level name (a helper, a builtin) read other than by a call, as the module spells it."""
        return ast.Name(self.spelling.get(name, name), ast.Load())

    def block(
        self, tape: Tape, depth: int, body: list, preset: dict[int, str] | None = None, push: tuple | None = None
    ) -> None:
        """Append the statements of ``tape``'s equations (``writer.FunctionWriter``)."""
        raise NotImplementedError

    def has_methods(self, a: Atom) -> bool:
        """``a`` is surely a NumPy value, so ``a.T`` and ``a.sum()`` may be written (``plan.methods``)."""
        return isinstance(a, Var) and a.id in self.plan.methods

    def first_write(self, eqn: Eqn) -> bool:
        """The in-place write ``eqn`` assigns its element (``dx[3] = g``) rather than adds to it."""
        return eqn.out.id in self.plan.first_writes

    def name_for(self, var: Var) -> str:
        other = self.plan.alias.get(var.id)
        if other is not None and not var.hint and (other.hint or other.grad_of is not None):
            var = other
        if var.hint:
            return self.namer.fresh(var.hint)
        primal = var.grad_of
        if primal is not None and primal.id in self.names:
            return self.namer.fresh("d" + self.names[primal.id])
        if primal is not None and primal.hint:  # a value the gradient no longer computes
            return self.namer.fresh("d" + primal.hint)
        return self.namer.temp()

    def atom(self, a: Atom) -> ast.expr:
        if isinstance(a, Lit):
            return literal(a)
        if a.id in self.consts:
            return literal(self.consts[a.id])
        if a.id in self.plan.inline and a.id not in self.row_arrays:
            return self.expression(self.plan.defs[a.id])
        return ast.Name(self.names[a.id], ast.Load())

    def expression(self, eqn: Eqn) -> ast.expr:
        helper = "_index_add" if eqn.prim == "index_add" else helper_for(eqn.prim)
        if helper is not None and eqn.prim not in self.backend.library_functions:
            self.helpers.add(helper)
        if not self.backend.in_place and eqn.prim in ("index_add", "setindex"):
            self.basic_index(eqn)
        arrays = [self.has_methods(a) for a in eqn.args]
        if not self.backend.methods:  # (no method forms there: the flags say which values surely are arrays)
            arrays = [self.surely_array(a) for a in eqn.args]
        rule = self.table.rules.get(eqn.prim)  # (none for a row-by-row primitive: its helper)
        args = [self.atom(a) for a in eqn.args]
        expr = self.backend.expression(eqn, args, rule, arrays, self.imports)
        respell(expr, self.spelling, frozenset(map(id, args)))  # the target's names a parameter hides
        if self.numbers is not None and eqn.outs[0].id in self.numbers[1]:  # g if _numbers else _unbroadcast(g, x)
            return ast.IfExp(ast.Name(self.numbers[0], ast.Load()), self.atom(eqn.args[0]), expr)
        return expr

    def surely_array(self, a: Atom) -> bool:
        """``a`` is an array, not a list or a number: an argument the source uses as an array, or the
        result of an array function (not Python arithmetic, an index, a list, a loop or a branch)."""
        if not isinstance(a, Var):
            return False
        if self._outer is None:  # a loop's or branch's input that stands for an outer value: that value
            tapes = all_tapes(self.plan.tape)
            self._outer = {v.id: o for t in tapes for e in t.eqns if e.regions for v, o in bound_inputs(e)}
        if a.id in self._outer:
            return self.surely_array(self._outer[a.id])
        d = self.plan.defs.get(a.id)
        if d is None:
            return a.id in self.tape.facts.array_inputs or a.id in {i.var.id for i in self.tape.inputs}
        record = primitive(d.prim)
        skip = d.regions or d.prim.startswith("list_") or d.prim in ("getindex", "static") or record.python_value
        return not skip and self.plan.is_array(a)

    def basic_index(self, eqn: Eqn) -> None:
        """Refuse (YS040, located) a write at an index the array-api target cannot write without
        a scatter: an index computed at run time that is not a loop's integer (it may be an array
        that repeats a position), or a constant list or array index."""
        if eqn.span is None:  # (a gradient's write made by the optimizer): where its read x[index] is
            reads = [e for t in all_tapes(self.plan.tape) for e in t.eqns if e.prim == "getindex" and e.span]
            same = [e for e in reads if e.params["index"] == eqn.params["index"]] or reads
            eqn = dataclasses.replace(eqn, span=same[0].span) if same else eqn
        for i in eqn.params["index"]:
            if isinstance(i, Dyn):
                a = eqn.args[2 + i.k]
                if not (isinstance(a, Var) and a.id in self.plan.index_vars):
                    what = "an index computed at run time (it may be an array, whose positions may repeat)"
                    raise refusal(eqn, what + ": the array API standard has no scatter-add (np.add.at)")
            elif not (i is None or i is Ellipsis or isinstance(i, int | Slice)):
                raise refusal(eqn, "an index by a list or an array: the array API standard has no scatter-add")

    def effect(self, eqn: Eqn) -> ast.stmt:
        """The statement of an ``effect`` equation (rules/python.py)."""
        args = [self.atom(a) for a in eqn.args]
        stmt = self.backend.template(eqn, args, self.imports)
        respell(stmt, self.spelling, frozenset(map(id, args)))
        return stmt

    def type_of(self, value: ast.expr) -> ast.expr:
        """``type(value)``, or ``value.__class__`` when an argument named ``type`` hides the builtin."""
        if any(p.name == "type" for p in self.tape.params):
            return ast.Attribute(value, "__class__", ast.Load())
        return ast.Call(ast.Name("type", ast.Load()), [value], [])

    def section_of(self, region: Tape) -> Section:
        return region.eqns[0].section if region.eqns else Section.FORWARD


def passed_through_names(tape: Tape) -> set[str]:
    """The global names the static code of ``tape`` reads (``len``, ``ValueError``, ``math``):
    no local value may take one."""
    found: set[str] = set()
    for eqn in (e for t in all_tapes(tape) for e in t.eqns if e.prim in ("static", "effect")):
        for name in eqn.params["modules"]:
            found.add(name[len("builtins.") :] if name.startswith("builtins.") else name.split(".")[0])
    return found


def named(identifier: str, ctx: ast.expr_context | None = None) -> ast.Name:
    return ast.Name(identifier, ctx or ast.Load())


def call(value: ast.expr, method: str, args: list[ast.expr]) -> ast.Call:
    """``value.method(*args)``."""
    return ast.Call(ast.Attribute(value, method, ast.Load()), args, [])


def tuple_of(items: list[ast.expr]) -> ast.Tuple:
    return ast.Tuple(items, ast.Load())
