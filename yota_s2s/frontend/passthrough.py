"""Static code passed through: an expression or statement lowering has no rule for, kept as written.

A part of lowering (a fenced ``Module`` and a function name in, a primal ``Tape`` out;
``state`` lists the parts).  Only values that depend differentiably on a ``--wrt`` parameter
need rules; the rest of a function (shapes, counters, flags, messages, data it does not
differentiate) is Python the generated code can run as the user wrote it.  When lowering an
expression meets something it has no primitive for (``n % 2``, ``w is None``, ``not ok``,
``np.linspace(0, 1, n)``, ``f"{n}"``), ``expressions.ExpressionLowering.expr`` hands the
expression here: it becomes one ``static`` equation whose ``code`` is the expression with
each value of the function replaced by a placeholder operand (``__yota_a0``) and each
library name by another (``__yota_m0``, ``numpy.linspace``), printed back by the code
generator against its own array module.  Statements with an effect only (``assert``,
``raise``, ``print(...)``) become ``effect`` equations the same way.

    >>> from yota_s2s.dsl.load import load_rules
    >>> from yota_s2s.frontend.fence import fence
    >>> from yota_s2s.frontend.lower import lower
    >>> src = "import numpy as np\\ndef f(x, n):\\n    t = np.linspace(0.0, 1.0, n % 7)\\n    return np.sum(x * t)\\n"
    >>> eqn = lower(fence(src, "f.py"), "f", load_rules()).eqns[0]
    >>> eqn.prim, eqn.params["code"], eqn.params["modules"]
    ('static', '__yota_m0(0.0, 1.0, __yota_a0 % 7)', ('numpy.linspace',))

The equation's ``through`` lists the operands its value may depend on differentiably (not
through a comparison, a shape, a count or ``//``).  The differentiator refuses a ``static``
equation whose result is used where one of those operands is differentiated, with the error
lowering met first (``refusal``): a call with no rule on an active value stays an error.
"""

from __future__ import annotations

import ast
import copy
import math
import warnings

from ..errors import UserError
from ..ir.core import Atom, Key, Lit, Var
from ..ir.primitives import STATIC_LIBRARY as LIBRARY
from ..ir.primitives import STATIC_OPERAND as OPERAND
from .state import LoweringState
from .values import _Function, _Indexed, _Module, _Unresolved

#: Codes of the errors that mean "no primitive for this": the expression may pass through.
PASS_CODES = frozenset({"YS020", "YS031", "YS033", "YS034", "YS041"})

#: Library functions whose result no operand reaches differentiably (shapes, counts, tests,
#: integer parts, arrays of the operand's shape only).
_BLOCKING_CALLS = frozenset(
    [f"builtins.{n}" for n in ("len", "int", "round", "bool", "isinstance", "type", "range", "id", "hash", "str")]
    + [f"builtins.{n}" for n in ("repr", "callable", "hasattr")]
    + [f"math.{n}" for n in ("floor", "ceil", "trunc", "isnan", "isinf", "isfinite", "isclose")]
    + [
        f"numpy.{n}"
        for n in (
            "shape", "ndim", "size", "argmax", "argmin", "argsort", "sign", "floor", "ceil", "rint", "round",
            "around", "trunc", "fix", "nonzero", "flatnonzero", "argwhere", "searchsorted", "digitize", "isnan",
            "isinf", "isfinite", "isclose", "allclose", "array_equal", "any", "all", "count_nonzero",
            "zeros_like", "ones_like", "empty_like", "iscomplexobj", "isrealobj", "isscalar", "logical_and",
            "logical_or", "logical_not", "logical_xor", "greater", "greater_equal", "less", "less_equal",
            "equal", "not_equal", "signbit",
        )
    ]
)  # fmt: skip
#: Library functions that return Python numbers or tuples of them (``divmod``): never a view.
_NUMBER_CALLS = frozenset(f"builtins.{n}" for n in ("divmod", "len", "int", "float", "round", "bool", "abs"))
_BLOCKING_METHODS = frozenset(("argmax", "argmin", "argsort", "nonzero", "any", "all"))
_BLOCKING_ATTRS = frozenset(("shape", "ndim", "size", "dtype", "itemsize", "nbytes", "strides", "flags"))
#: Calls that change an operand in place: never passed through (the tape's values are immutable).
_MUTATING_METHODS = frozenset(
    (
        "append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault", "popitem", "sort",
        "reverse", "fill", "put", "itemset", "resize", "setfield", "setflags", "partition", "add", "discard",
        "__setitem__", "__iadd__",
    )
)  # fmt: skip
_MUTATING_CALLS = frozenset(
    ["numpy.copyto", "numpy.put", "numpy.place", "numpy.putmask", "numpy.fill_diagonal", "numpy.random.shuffle"]
    + ["numpy.put_along_axis", "numpy.random.Generator.shuffle"]
)


class _NotTemplatable(Exception):
    """The expression names something the generated module cannot: a user's function, a module."""


class StaticLowering:
    """Static expressions and statements passed through (a part of ``lower.Lowerer``)."""

    def __init__(self, lo: LoweringState):
        self.lo = lo
        #: ``ast.dump`` of the expressions being passed through now (``passthrough.static_expr``:
        #: a template that asks for the same expression again is refused, not a recursion).
        self.passing: set[str] = set()

    def static_expr(self, node: ast.expr, env: dict, error: UserError) -> object:
        """``node`` (which lowering refused with ``error``) as a ``static`` equation, folded when
        its operands are constants; ``error`` again where it cannot be written as it stands."""
        key = ast.dump(node)
        if key in self.passing:  # visit_Attribute asked for this expression again: no template
            raise error
        self.passing.add(key)
        try:
            tree, template = self.template(node, env)
        except (_NotTemplatable, UserError):
            raise error from None
        finally:
            self.passing.discard(key)
        tree = _Shortcuts().visit(tree)  # DEBUG and step % 5 == 0, with DEBUG = False: False
        template.keep_used(tree)
        if not template.operands:
            folded = _fold(tree, template.modules)
            if folded is not None:
                return folded
        where = (error.code, error.message, error.line, error.col, error.source_line or "")
        params = {
            "code": ast.unparse(tree),
            "modules": tuple(template.modules),
            "through": tuple(sorted(_through(tree, template.modules))),
            "refusal": where,
        }
        out = self.lo.add("static", list(template.operands), params, node)
        if isinstance(out, Var) and set(template.modules) <= _NUMBER_CALLS:
            self.lo.number_values.add(out.id)
        return out

    def constant_of(self, node: ast.expr, env: dict) -> object:
        """The value of ``node`` where it is known when generating (``"W" + str(i)`` in an
        unrolled loop), else None; adds nothing to the tape."""
        try:
            tree, template = self.template(node, env)
        except (_NotTemplatable, UserError):
            return None
        template.keep_used(tree)
        folded = None if template.operands else _fold(tree, template.modules)
        return folded.value if folded is not None else None

    def static_statement(self, stmt: ast.stmt, env: dict) -> None:
        """``assert``, ``raise`` or a call for its effect (``print``): an ``effect`` equation."""
        if isinstance(stmt, ast.Expr):
            self.check_effect_call(stmt.value, env)
        try:
            tree, template = self.template(stmt, env)
        except _NotTemplatable:
            raise self.lo.error(
                "YS018",
                "this statement is run for its effect only, and it names a function of the file or a module, "
                "which the generated module cannot call as written; use its result (name = ...)",
                stmt,
            ) from None
        params = {"code": ast.unparse(tree), "modules": tuple(template.modules)}
        self.lo.tape.add_eqn("effect", list(template.operands), params, self.lo.span_at(stmt))

    def check_effect_call(self, call: ast.expr, env: dict) -> None:
        """Refuse a bare call that changes a value in place (``x.sort()``, ``np.copyto(a, b)``)."""
        if not isinstance(call, ast.Call):
            return
        func = call.func
        written = [kw.value for kw in call.keywords if kw.arg == "out"]
        if written:  # np.clip(y, 0.0, 1.0, out=y)
            target = ast.unparse(written[0])
            raise self.lo.error(
                "YS018",
                f"{ast.unparse(func)}(..., out={target}) writes its result into {target} in place; "
                f"the gradient needs values that do not change: write {target} = {ast.unparse(func)}(...)",
                call,
            )
        if isinstance(func, ast.Attribute) and func.attr == "shuffle" and call.args:  # rng.shuffle(y)
            target = ast.unparse(call.args[0])
            raise self.lo.error(
                "YS018",
                f"{ast.unparse(func)}({target}) changes {target} in place; the gradient needs values that do "
                f"not change: index it by a permutation ({target} = {target}[rng.permutation(len({target}))])",
                call,
            )
        if isinstance(func, ast.Attribute) and func.attr in _MUTATING_METHODS:
            target = ast.unparse(func.value)
            try:
                receiver = self.lo.expr(func.value, env)
            except UserError:
                receiver = None
            if not isinstance(receiver, _Module):
                raise self.lo.error(
                    "YS018",
                    f"{target}.{func.attr}(...) changes {target} in place; the gradient needs values that "
                    f"do not change: build a new one ({target} = ...)",
                    call,
                )
        try:
            callee = self.lo.expr(func, env)
        except UserError:
            return
        ufunc_at = isinstance(func, ast.Attribute) and func.attr == "at"  # np.add.at(a, idx, v): a changes
        if isinstance(callee, _Function) and callee.local is None and (callee.name in _MUTATING_CALLS or ufunc_at):
            raise self.lo.error(
                "YS018", f"{ast.unparse(func)}() changes its argument in place; build a new array instead", call
            )

    def template(self, node: ast.AST, env: dict) -> tuple[ast.AST, _Template]:
        """A copy of ``node`` with placeholders for the function's values and library names."""
        builder = _Template(self.lo, env)
        tree = builder.visit(_copy(node))
        return ast.fix_missing_locations(tree), builder


class _Template(ast.NodeTransformer):
    """Replaces each name of ``node`` (a local value, a parameter, a module constant, a library
    function or module) by a placeholder; keeps names the expression binds itself (a
    comprehension's, a lambda's)."""

    def __init__(self, lowering: StaticLowering, env: dict):
        self.lowering = lowering
        self.env = env
        self.operands: list[Atom] = []
        self.modules: list[str] = []
        self.bound: list[set[str]] = []
        #: ids of the nodes that name a parameter itself (``object_reference``): left as written.
        self.references: set[int] = set()

    def is_bound(self, name: str) -> bool:
        return any(name in scope for scope in self.bound)

    def operand(self, atom: Atom) -> ast.expr:
        if isinstance(atom, Lit) and _literal(atom.value):
            if isinstance(atom.value, dict):
                return ast.parse(repr(atom.value), mode="eval").body
            return ast.Constant(atom.value) if not isinstance(atom.value, tuple) else _tuple_ast(atom.value)
        for k, known in enumerate(self.operands):
            if known is atom or (isinstance(known, Lit) and isinstance(atom, Lit) and known.key() == atom.key()):
                return ast.Name(f"{OPERAND}{k}", ast.Load())
        self.operands.append(atom)
        return ast.Name(f"{OPERAND}{len(self.operands) - 1}", ast.Load())

    def keep_used(self, tree: ast.AST) -> None:
        """Drop the operands ``tree`` no longer reads (a folded ``and``); renumber the others."""
        used = sorted(
            {int(n.id[len(OPERAND) :]) for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id.startswith(OPERAND)}
        )
        renumber = {k: i for i, k in enumerate(used)}
        for n in ast.walk(tree):
            if isinstance(n, ast.Name) and n.id.startswith(OPERAND):
                n.id = f"{OPERAND}{renumber[int(n.id[len(OPERAND) :])]}"
        self.operands = [self.operands[k] for k in used]

    def library(self, name: str) -> ast.expr:
        if name not in self.modules:
            self.modules.append(name)
        return ast.Name(f"{LIBRARY}{self.modules.index(name)}", ast.Load())

    def value_ast(self, value: object, node: ast.AST) -> ast.expr:
        if isinstance(value, Var | Lit):
            return self.operand(value)
        if isinstance(value, _Unresolved | _Indexed):
            return self.operand(self.lowering.as_array(value, node))
        if isinstance(value, tuple):  # a list of the function's values, written in the source
            return ast.List([self.value_ast(v, node) for v in value], ast.Load())
        if isinstance(value, dict) and all(_literal(k) for k in value):  # a dict of the function's values
            keys = [self.operand(Lit(k)) for k in value]
            return ast.Dict(keys, [self.value_ast(v, node) for v in value.values()])
        if isinstance(value, _Function) and value.local is None:
            return self.library(value.name)
        if isinstance(value, _Module):
            return self.library(value.name)
        raise _NotTemplatable

    def visit_Name(self, node: ast.Name) -> ast.expr:
        if not isinstance(node.ctx, ast.Load) or self.is_bound(node.id):
            return node
        return self.value_ast(self.lowering.expr(node, self.env), node)

    def visit_Subscript(self, node: ast.Subscript) -> ast.expr:
        if isinstance(node.value, ast.Attribute | ast.Subscript) and isinstance(node.slice, ast.Constant):
            return self.visit_Attribute(node)  # m.layers[1]: an element of an object's list
        if (
            isinstance(node.value, ast.Name)
            and isinstance(node.slice, ast.Constant)
            and isinstance(node.slice.value, str)
        ):
            return self.visit_Attribute(node)  # cfg["mode"]: a dict parameter's entry
        return self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute | ast.Subscript) -> ast.expr:
        root = node
        while (
            isinstance(root, ast.Attribute) or isinstance(root, ast.Subscript) and isinstance(root.slice, ast.Constant)
        ):
            root = root.value
        local = isinstance(root, ast.Name) and isinstance(self.env.get(root.id), Var | Lit)
        if isinstance(root, ast.Name) and not local and not self.is_bound(root.id) and isinstance(node.ctx, ast.Load):
            try:  # np.linalg.norm, np.pi, m.W (an object parameter's attribute)
                value = self.lowering.expr(node, self.env)
            except UserError:
                value = None
            if isinstance(value, _Function | _Module | Lit | _Unresolved):
                return self.value_ast(value, node)
        return self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> ast.expr:
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in _MUTATING_METHODS:
            raise _NotTemplatable
        if any(kw.arg == "out" for kw in node.keywords):
            raise _NotTemplatable
        receiver = self.array_receiver(func) if isinstance(func, ast.Attribute) else None
        if receiver is not None:
            node.func = ast.Attribute(receiver, func.attr, ast.Load())  # x.min(): no class of the file has min
            node.args = [self.visit(a) for a in node.args]
            node.keywords = [self.visit(k) for k in node.keywords]
            return node
        if isinstance(func, ast.Attribute) and isinstance(self.object_reference(func), ast.expr):
            raise _NotTemplatable  # m.act(v): a method of an object parameter, whose fields it may read
        if isinstance(func, ast.Name) and not self.is_bound(func.id):
            try:
                callee = self.lowering.expr(func, self.env)
            except UserError:
                callee = None
            if isinstance(callee, _Function) and callee.local is None and callee.name in _OBJECT_TESTS:
                node.args = [self.object_reference(a) or a for a in node.args]  # isinstance(params, dict)
        return self.generic_visit(node)

    def visit_Compare(self, node: ast.Compare) -> ast.expr:
        if all(isinstance(op, ast.Is | ast.IsNot | ast.In | ast.NotIn) for op in node.ops):
            node.left = self.object_reference(node.left) or node.left  # params is None, "W1" in params
            node.comparators = [self.object_reference(c) or c for c in node.comparators]
        return self.generic_visit(node)

    def array_receiver(self, func: ast.Attribute) -> ast.expr | None:
        """The receiver of ``x.min()`` as an array operand, where ``x`` is a parameter and no class
        of the file defines the method (lowering reads such a call as an array's method); else None."""
        if f"ndarray.{func.attr}" not in self.lowering.table.names:
            return None
        try:
            base = self.lowering.expr(func.value, self.env)
            if not isinstance(base, _Unresolved | _Indexed) or self.lowering.names.find_method(
                func.attr, func, base.cls
            ):
                return None
            return self.operand(self.lowering.as_array(base, func.value))
        except UserError:
            return None

    def object_reference(self, node: ast.expr) -> ast.expr | None:
        """A parameter that is (or may become) an object or a dict (``params``, ``m.layers``), read by a
        test that gives no number it could change (``isinstance``, ``len``, ``is None``, ``in``): the
        parameter itself, as the generated function has it, not an array input of the tape."""
        if not isinstance(node, ast.Name | ast.Attribute | ast.Subscript) or not isinstance(node, ast.expr):
            return None
        root = node
        while isinstance(root, ast.Attribute | ast.Subscript):
            root = root.value
        if not isinstance(root, ast.Name) or self.is_bound(root.id):
            return None
        try:
            value = self.lowering.expr(node, self.env)
        except UserError:
            return None
        if not isinstance(value, _Unresolved) or value.path in self.lowering.array_inputs:
            return None
        reference = _path_ast(value.path)
        self.references.add(id(reference))
        return reference

    def visit(self, node: ast.AST) -> ast.AST:
        if id(node) in self.references:  # the parameter itself, written as it is (object_reference)
            return node
        return super().visit(node)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> ast.expr:
        raise _NotTemplatable

    def visit_Lambda(self, node: ast.Lambda) -> ast.expr:
        a = node.args
        self.bound.append({p.arg for p in a.posonlyargs + a.args + a.kwonlyargs} | _star_names(a))
        try:
            node.args = self.visit(node.args)
            node.body = self.visit(node.body)
        finally:
            self.bound.pop()
        return node

    def visit_comprehension_node(self, node: ast.expr) -> ast.expr:
        names = {n.id for g in node.generators for n in ast.walk(g.target) if isinstance(n, ast.Name)}
        self.bound.append(names)
        try:
            return self.generic_visit(node)
        finally:
            self.bound.pop()

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = visit_comprehension_node


class _Shortcuts(ast.NodeTransformer):
    """``and``/``or``/``not`` and ``a if c else b`` of constants, as Python evaluates them: only
    what runs is kept (``False and f(x)`` is ``False``)."""

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.expr:
        self.generic_visit(node)
        kept: list[ast.expr] = []
        for k, value in enumerate(node.values):
            last = k == len(node.values) - 1
            if not isinstance(value, ast.Constant) or last:
                kept.append(value)
                continue
            if bool(value.value) != isinstance(node.op, ast.And):  # False and ..., True or ...: the result
                kept.append(value)
                break
        if len(kept) == 1:
            return kept[0]
        node.values = kept
        return node

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.expr:
        self.generic_visit(node)
        if isinstance(node.op, ast.Not) and isinstance(node.operand, ast.Constant):
            return ast.Constant(not node.operand.value)
        return node

    def visit_IfExp(self, node: ast.IfExp) -> ast.expr:
        self.generic_visit(node)
        if isinstance(node.test, ast.Constant):
            return node.body if node.test.value else node.orelse
        return node


def _copy(node: ast.AST) -> ast.AST:
    """A fresh copy of ``node`` that keeps the source positions (an error inside it is located)."""
    return copy.deepcopy(node)


#: Calls of an object that give no number it could change: a test or a count.
_OBJECT_TESTS = frozenset(f"builtins.{n}" for n in ("isinstance", "len", "type", "hasattr", "callable", "id"))


def _path_ast(path: tuple) -> ast.expr:
    """``params["W1"]``, ``m.layers[0]``: an input's path as the generated function reads it."""
    value: ast.expr = ast.Name(str(path[0]), ast.Load())
    for part in path[1:]:
        if isinstance(part, int | Key):
            value = ast.Subscript(value, ast.Constant(part if isinstance(part, int) else part.name), ast.Load())
        else:
            value = ast.Attribute(value, part, ast.Load())
    return value


def _star_names(a: ast.arguments) -> set[str]:
    return {p.arg for p in (a.vararg, a.kwarg) if p is not None}


def _literal(value: object) -> bool:
    """Written as a literal in the code (not ``inf``, ``nan`` or a complex, which have none)."""
    if isinstance(value, tuple):
        return all(_literal(v) for v in value)
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(_literal(k) and _literal(v) for k, v in value.items())
    return value is None or isinstance(value, bool | int | str)


def _tuple_ast(value: tuple) -> ast.expr:
    return ast.Tuple([_tuple_ast(v) if isinstance(v, tuple) else ast.Constant(v) for v in value], ast.Load())


#: Node kinds a static expression of constants is folded through when generating.
_FOLDABLE = (
    ast.BoolOp, ast.UnaryOp, ast.BinOp, ast.Compare, ast.IfExp, ast.Constant, ast.Tuple, ast.List,
    ast.boolop, ast.unaryop, ast.operator, ast.cmpop, ast.expr_context, ast.JoinedStr, ast.FormattedValue,
    ast.Call, ast.Name, ast.keyword,
)  # fmt: skip
#: Builtins a static expression of constants may call and still be folded (``"W" + str(i)``).
_FOLDABLE_CALLS = {f"builtins.{f.__name__}": f for f in (str, int, float, bool, len, abs, min, max, round, divmod)}


def _fold(tree: ast.AST, modules: list[str]) -> Lit | None:
    """The value of an expression of constants (``not DEBUG``, ``N % 2``, ``f"W{i}"`` with ``i``
    known), else None."""
    if not all(isinstance(n, _FOLDABLE) for n in ast.walk(tree)) or not set(modules) <= _FOLDABLE_CALLS.keys():
        return None
    names = {f"{LIBRARY}{k}": _FOLDABLE_CALLS[m] for k, m in enumerate(modules)}
    try:
        with warnings.catch_warnings():  # (``0 is None`` of a constant bound to a name: no SyntaxWarning)
            warnings.simplefilter("ignore", SyntaxWarning)
            code = compile(ast.Expression(tree), "<static>", "eval")
        value = eval(code, {"__builtins__": {}, **names})
    except Exception:  # noqa: BLE001 - 1 // 0 raises where the function runs, as it does in Python
        return None
    return Lit(value) if _literal(value) or isinstance(value, float | complex) else None


#: Operators whose result varies smoothly with an operand (not //, the bit operations).
_SMOOTH_OPS = ast.Add | ast.Sub | ast.Mult | ast.Div | ast.Mod | ast.Pow | ast.MatMult


def _through(node: ast.AST, modules: list[str]) -> set[int]:
    """The operands the value of ``node`` may depend on differentiably."""
    if isinstance(node, ast.Name):
        return {int(node.id[len(OPERAND) :])} if node.id.startswith(OPERAND) else set()
    if isinstance(node, ast.Compare | ast.Constant):
        return set()
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not | ast.Invert):
        return set()
    if isinstance(node, ast.BinOp) and not isinstance(node.op, _SMOOTH_OPS):
        return set()  # //, bit operations: integers, or constant between steps
    if isinstance(node, ast.IfExp):
        return _through(node.body, modules) | _through(node.orelse, modules)
    if isinstance(node, ast.Attribute) and node.attr in _BLOCKING_ATTRS:
        return set()
    if isinstance(node, ast.Subscript):
        if _library_name(node.value, modules) in ("numpy.r_", "numpy.c_"):  # np.r_[x, 0:3] joins x
            return _through(node.slice, modules)
        return _through(node.value, modules)
    if isinstance(node, ast.Call):
        func = node.func
        if _library_name(func, modules) in _BLOCKING_CALLS:
            return set()
        if isinstance(func, ast.Attribute) and func.attr in _BLOCKING_METHODS:
            return set()
        is_astype = isinstance(func, ast.Attribute) and func.attr == "astype" and node.args
        if is_astype and _library_name(node.args[0], modules) in ("builtins.int", "builtins.bool"):
            return set()
    found: set[int] = set()
    for child in ast.iter_child_nodes(node):
        found |= _through(child, modules)
    return found


def _library_name(node: ast.AST, modules: list[str]) -> str | None:
    """The library name a placeholder stands for (``numpy.floor``), else None."""
    if isinstance(node, ast.Name) and node.id.startswith(LIBRARY):
        return modules[int(node.id[len(LIBRARY) :])]
    return None
