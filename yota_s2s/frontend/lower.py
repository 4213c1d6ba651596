"""Stage 2, lower: a fenced ``Module`` and a function name in, a primal ``Tape`` out.

Resolves names (``np``/``numpy``/``math``/``cp`` aliases, ``from numpy import
exp``, module constants), inlines same-file helper functions and methods,
and turns operators, method calls, ``.T`` and indexing into primitives from
the rule table:

    >>> from yota_s2s.dsl.load import load_rules
    >>> from yota_s2s.frontend.fence import fence
    >>> from yota_s2s.ir.printer import format_tape
    >>> src = "import numpy as np\\ndef f(x, w):\\n    h = np.tanh(x @ w)\\n    return np.sum(h * h)\\n"
    >>> print(format_tape(lower(fence(src, "f.py"), "f", load_rules())))
    tape f(x, w)
      inp %1 x
      inp %2 w
      %3 = matmul(%1, %2)                        # f.py:3  h = np.tanh(x @ w)
      %4 = tanh(%3)                              # f.py:3
      %5 = mul(%4, %4)                           # f.py:4  return np.sum(h * h)
      %6 = sum(%5, axis=None, keepdims=False)    # f.py:4
      out %6
    <BLANKLINE>

A parameter used as an array is a tape input; a parameter whose attributes
are read (``m.W``) is an object: each attribute read becomes an input with the
path ``("m", "W")``.

``Lowerer`` (on ``state.LoweringState``, the state more than one part uses) holds the
parts of lowering, each made with it and calling the others through it (``state`` lists
them).  This module holds the entry point (``lower``: the tape's inputs, output and
signature), the inlining of a function, statements and assignments, and the dispatch of
an expression to the part that lowers its kind (``expr``: ``expr_BinOp`` of ``exprs``,
``expr_Call`` of ``calls``, ...), with ``as_array`` (a parameter becomes a tape input on
first use as an array) and ``binop``.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from ..dsl.rule import RuleTable
from ..errors import UserError
from ..ir.core import NO_DEFAULT, Atom, Input, Lit, Param, ParamKind, Tape, Var
from ..ir.primitives import BINOPS
from ..ir.printer import format_path
from . import callables
from .aliasing import Aliasing
from .calls import CallLowering
from .control import ControlLowering
from .dicts import DictLowering
from .exits import _always_returns
from .expressions import ExpressionLowering, NeedsUnrolling, _unsupported
from .fence import Module
from .generated import column_blocks, is_guard
from .lists import ListLowering
from .names import NameResolution
from .passthrough import PASS_CODES, StaticLowering
from .state import LoweringState
from .values import (
    _NOT_CONSTANT,
    MODULE_CONSTANTS,
    _constant_value,
    _Function,
    _Indexed,
    _Instance,
    _Module,
    _Own,
    _params_with_defaults,
    _Unresolved,
    canonical_name,
)

#: How many calls of one function may be open at once while inlining: a recursion stops where a
#: condition known when generating (a depth, a length) takes its base case; one that does not stop
#: is refused here (YS035).
RECURSION_DEPTH = 24


class Lowerer(LoweringState):
    """Builds the primal tape of one function: the tape, the names in scope, statements and the
    dispatch of expressions are its own; its parts, each made with the lowerer (``self.lo``) and
    calling the others through it, are ``exprs`` (operators, subscripts), ``names`` (names,
    attributes, the user's own modules and classes), ``calls`` (calls, tuples, lambdas),
    ``control`` (blocks, loops, branches), ``static`` (static code passed through), ``lists``
    (lists built at run time), ``dicts`` (dicts carried through loops and branches) and
    ``aliases`` (may an update in place be seen by another name?)."""

    def __init__(self, module: Module, table: RuleTable):
        super().__init__(module, table)
        self.exprs = ExpressionLowering(self)
        self.names = NameResolution(self)
        self.calls = CallLowering(self)
        self.control = ControlLowering(self)
        self.static = StaticLowering(self)
        self.lists = ListLowering(self)
        self.dicts = DictLowering(self)
        self.aliases = Aliasing(self)
        #: The kind of an expression (``"BinOp"``) -> the part's method that lowers it (``expr_BinOp``).
        self.lowerers: dict[str, Callable[[ast.expr, dict], object]] = {
            name.removeprefix("expr_"): getattr(part, name)
            for part in (self.exprs, self.names, self.calls, self.control, self.static, self.lists, self.dicts)
            for name in dir(type(part))
            if name.startswith("expr_")
        }

    def lower(self, name: str) -> Tape:
        fn = self.module.functions[name]
        tape = Tape(name)
        self.tape = self.root = tape
        env = {
            p.arg: _Unresolved(
                (p.arg,), self.names.annotated_class(p.annotation), self.names.annotated_class(p.annotation, True)
            )
            for p in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs
        }
        result = self.inline(fn, env, fn)
        if isinstance(result, tuple):
            raise self.error("YS021", f"{name}() must return one scalar value, not a tuple", fn.body[-1])
        if isinstance(result, _Unresolved):
            result = self.as_array(result, fn.body[-1])
        if not isinstance(result, Var | Lit) or (isinstance(result, Lit) and result.value is None):
            raise self.error("YS021", f"{name}() must return a number or an array", fn.body[-1])
        if isinstance(result, Var) and (result.hint is None or result.hint_depth > 0):
            result.hint, result.hint_depth = name, 0
        tape.outputs = [result]
        tape.params = self.signature(fn)
        order = {p.name: i for i, p in enumerate(tape.params)}
        tape.inputs.sort(key=lambda inp: order.get(inp.path[0], len(order)))
        tape.facts.object_params = sorted({p[0] for p in self.object_paths})
        tape.facts.may_return_none = isinstance(result, Var) and _may_return_none(fn)
        tape.facts.maybe_unbound = sorted(self.maybe_unbound) if isinstance(result, Var) else []
        tape.facts.read_files = dict(self.read_files)
        tape.facts.array_inputs = frozenset(i.var.id for i in tape.inputs if i.var.id in self.array_receivers)
        tape.facts.warnings = list(self.warnings)
        return tape

    def signature(self, fn: ast.FunctionDef) -> list[Param]:
        """The parameters of ``fn``, each default evaluated (a constant, a module constant such
        as ``SCALE`` or ``np.pi``), so that the generated function can repeat it (else YS032)."""
        a = fn.args
        kinds = [ParamKind.POSITIONAL_ONLY] * len(a.posonlyargs) + [ParamKind.POSITIONAL] * len(a.args)
        kinds += [ParamKind.KEYWORD_ONLY] * len(a.kwonlyargs)
        return [
            Param(p.arg, kind, NO_DEFAULT if d is None else self.default_value(d))
            for (p, d), kind in zip(_params_with_defaults(fn), kinds)
        ]

    def default_value(self, node: ast.expr) -> object:
        if isinstance(node, ast.Name) and node.id in self.module.constants:
            return self.module.constants[node.id]
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            qualified = canonical_name(self.module.imports.get(node.value.id, "") + "." + node.attr)
            if qualified in MODULE_CONSTANTS:  # np.pi, math.inf
                return MODULE_CONSTANTS[qualified]
        try:
            return ast.literal_eval(node)
        except ValueError:
            why = "a default value must be a constant so the generated function can repeat it"
            if isinstance(node, ast.Call | ast.Name | ast.Attribute):  # w=np.array([...]), w=W of an array
                why += (
                    " (an array: write the parameter's default as None and set it in the body: if w is None: w = ...)"
                )
            raise self.error("YS032", why, node) from None

    # ------------------------------------------------------------------ inlining and statements
    def inline(self, fn: ast.FunctionDef, env: dict[str, object], site: ast.AST) -> object:
        if self.active.count(id(fn)) >= RECURSION_DEPTH:  # by identity: a method may share its name
            chain = " -> ".join([*self.stack[: self.stack.index(fn.name) + 2], "..."])
            raise self.error(
                "YS035",
                f"recursion deeper than {RECURSION_DEPTH} calls when generating ({chain}): its depth must be known "
                "when generating (a constant, a length); else write it as a loop",
                site,
            )
        self.active.append(id(fn))
        self.stack.append(fn.name)
        self.fn_nodes.append(fn)
        caller = (self.stmt_line, self.stmt_text, self.module)
        self.module = self.fn_modules.get(id(fn), self.module)  # names resolve in the helper's own file
        try:
            with self.in_scope(env):
                value = self.control.block(_with_return(fn, self.module), env)
        finally:
            self.active.pop()
            self.stack.pop()
            self.fn_nodes.pop()
            self.stmt_line, self.stmt_text, self.module = caller
        if value is None:  # pragma: no cover - _with_return ends every body with a return
            raise self.error("YS021", f"{fn.name}() must end with 'return <value>'", fn)
        return value

    def statement(self, stmt: ast.stmt, env: dict[str, object]) -> None:
        if isinstance(stmt, ast.Assign):
            value = self.expr(stmt.value, env)
            for target in stmt.targets:
                self.assign(target, value, env)
        elif isinstance(stmt, ast.AnnAssign):
            if stmt.value is not None:
                self.assign(stmt.target, self.expr(stmt.value, env), env)
        elif isinstance(stmt, ast.AugAssign) and type(stmt.op) not in BINOPS:  # k %= 2: as k = k % 2
            load = (
                ast.copy_location(ast.Name(stmt.target.id, ast.Load()), stmt.target)
                if isinstance(stmt.target, ast.Name)
                else stmt.target
            )
            self.assign(stmt.target, self.expr(ast.copy_location(ast.BinOp(load, stmt.op, stmt.value), stmt), env), env)
        elif isinstance(stmt, ast.AugAssign):
            current = self.expr(stmt.target, env)
            self.aliases.check_not_shared(stmt, current, env)
            value = self.binop(BINOPS[type(stmt.op)], current, self.expr(stmt.value, env), stmt)
            self.assign(stmt.target, value, env)
        elif isinstance(stmt, ast.For):
            self.control.stmt_For(stmt, env)
        elif isinstance(stmt, ast.While):
            self.control.stmt_While(stmt, env)
        elif isinstance(stmt, ast.If):
            self.control.stmt_If(stmt, env)
        elif is_guard(self.module, stmt):  # a generated function's argument checks (``generated``): they only raise
            pass
        elif _appends(stmt, env):
            self.append(stmt.value, env)
        elif isinstance(stmt, ast.Expr) and self.own_function_call(stmt.value, env):
            self.expr(stmt.value, env)  # validate(x): the helper's statements run, its value is unused
        elif isinstance(stmt, ast.Assert | ast.Raise) or (
            isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)
        ):
            self.static.static_statement(stmt, env)
        elif isinstance(stmt, ast.FunctionDef):  # a nested function: a helper that sees this scope
            self.fn_modules[id(stmt)] = self.module
            defaults = callables.defaults_here(self, stmt, env)
            env[stmt.name] = _Function(stmt.name, stmt, closure=env, module=self.module, defaults=defaults)
        elif isinstance(stmt, ast.Expr | ast.Pass):
            pass  # docstrings, a name alone: no effect
        else:  # pragma: no cover - fence refuses these first
            raise self.error("YS010", f"unsupported statement {type(stmt).__name__}", stmt)

    def own_function_call(self, node: ast.expr, env: dict[str, object]) -> bool:
        """``node`` calls a function of the source (a helper, a nested function, a lambda)."""
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name | ast.Attribute):
            return False
        try:
            callee = self.expr(node.func, env)
        except UserError:
            return False
        return isinstance(callee, _Function) and callee.local is not None

    def append(self, call: ast.Call, env: dict[str, object]) -> None:
        """``lst.append(v)``: ``lst`` names a new list (refused where another name sees the old one)."""
        name = call.func.value.id
        if len(call.args) != 1 or call.keywords or isinstance(call.args[0], ast.Starred):
            raise self.error("YS032", "append() takes one value", call)
        value = self.expr(call.args[0], env)
        current = env[name]
        if self.lists.is_list(current) or isinstance(current, tuple):
            why = self.aliases.sharing(current, name, env)
            if why is not None:
                raise self.error(
                    "YS017",
                    f"{name}.append(...) would change {name} in place and {why}; copy it first ({name} = list({name}))",
                    call,
                )
        env[name] = self.lists.append_value(name, current, value, call)

    def named(self, value: object) -> bool:
        """Some name of a scope being lowered holds ``value`` (a list appended to would change it); a
        comprehension's own list (``lists.runtime_comprehensions``' ``_items``) is no name of the user's."""
        return any(v is value and not k.startswith("_items") for env in self.envs for k, v in env.items())

    def as_array(self, value: object, node: ast.AST) -> Atom:
        """The tape value of ``value``: parameters become inputs on first use as arrays."""
        if isinstance(value, dict) or (isinstance(value, Lit) and isinstance(value.value, dict)):
            raise self.error("YS034", "a dict is not an array (read it at a constant key)", node)
        if isinstance(value, Var | Lit):
            return value
        if isinstance(value, _Unresolved):
            path = value.path
            if path in self.object_paths:
                raise self.error(
                    "YS036", f"{format_path(path)} is used both as an object (attributes read) and as an array", node
                )
            if path not in self.array_inputs:
                var = Var(hint="_".join(map(str, path)))
                self.root.inputs.append(Input(var, path))
                self.array_inputs[path] = var
            return self.array_inputs[path]
        if isinstance(value, _Indexed):
            if value.path in self.object_paths:
                raise self.error("YS036", f"{format_path(value.path)} is used both as an object and as an array", node)
            return self.exprs.getindex(self.as_array(value.base, node), [], (value.index,), value.node)
        if isinstance(value, tuple):
            constant = _constant_value(value)
            if constant is not _NOT_CONSTANT:
                return Lit(constant)
            # a (nested) list of computed values is an array, as np.array makes it
            return self.as_array(self.calls.call_primitive("numpy.array", [value], {}, node), node)
        if isinstance(value, _Function):
            raise self.error("YS020", f"the function {value.name} is used as a value; call it", node)
        if isinstance(value, _Own):
            raise self.error("YS020", f"the module {value.name} is used as a value", node)
        if isinstance(value, _Module):
            raise self.error("YS020", f"the module {value.name} is used as a value", node)
        if isinstance(value, _Instance):
            raise self.error(
                "YS020",
                f"an object of {value.cls} where a value is needed (in arithmetic, or made in a branch of an "
                f"`if` or a loop and used after it): make it once, after choosing its arguments "
                f"(s = a if c else b, then m = {value.cls}(s))",
                node,
            )
        raise self.error("YS020", "unsupported value", node)  # pragma: no cover

    def binop(self, prim: str, left: object, right: object, node: ast.AST) -> Atom | tuple:
        if prim == "add" and self.lists.is_list(left) and isinstance(right, tuple) and not self.named(left):
            for value in right:  # [f(v) for v in x] + [a]: the new list the comprehension made, appended to
                left = self.lists.append_value("the list", left, value, node)
            return left
        if self.lists.is_list(left) or self.lists.is_list(right):
            raise self.error(
                "YS034", "a list in arithmetic: Python would join or repeat it; write np.array(lst) first", node
            )
        joined = self.exprs.sequence_binop(prim, left, right, node)  # [a] * 3, [a] + [b]: as Python's
        if joined is not None:
            return joined
        return self.add(prim, [self.as_array(left, node), self.as_array(right, node)], {}, node)

    def expr(self, node: ast.expr, env: dict[str, object]) -> object:
        """The value of ``node``; an expression with no primitive passes through as static code
        (``passthrough``), or is refused where it cannot."""
        method = self.lowerers.get(type(node).__name__)
        tape, mark = self.tape, len(self.tape.eqns)
        try:
            if method is None:
                raise self.error("YS020", _unsupported(node), node)
            return method(node, env)
        except UserError as exc:
            if (
                exc.code not in PASS_CODES
                or isinstance(exc, NeedsUnrolling)
                or isinstance(node, ast.Name | ast.Starred | ast.Slice)
            ):
                raise
            if self.tape is tape:
                self.discard(tape, mark)  # what the refused attempt added (pure equations only so far)
            return self.static.static_expr(node, env, exc)

    def assign(self, target: ast.expr, value: object, env: dict[str, object]) -> None:
        if isinstance(target, ast.Name):
            if isinstance(value, Var) and (value.hint is None or value.hint_depth > len(self.stack)):
                value.hint, value.hint_depth = target.id, len(self.stack)
            if len(self.stack) == 1:
                self.rebound.add(target.id)  # u = u.copy(): a later u[i] = v writes into a local array
            if isinstance(value, _Function) and value.local is not None and getattr(value.local, "is_lambda", False):
                value.local.name = target.id  # sq = lambda t: ...: comments say "(in sq)"
            env[target.id] = value
            return
        if isinstance(target, ast.Subscript):
            self.assign_item(target, value, env)
            return
        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
            obj = env.get(target.value.id)
            if isinstance(obj, _Instance):  # self.area = area in __init__ (the fence allows it there only)
                obj.attrs[target.attr] = value
                return
        if isinstance(target, ast.Tuple | ast.List):
            if isinstance(value, Lit) and isinstance(value.value, tuple):
                value = tuple(Lit(v) for v in value.value)
            if isinstance(value, _Unresolved | _Indexed | Var):  # n, d = X.shape; a, b = params
                value = self.unpack(self.as_array(value, target), len(target.elts), target)
            if not isinstance(value, tuple):
                raise self.error(
                    "YS034", "unpacking needs a tuple of known length (unpack x[0], x[1] by index)", target
                )
            if len(value) != len(target.elts):
                raise self.error("YS034", f"cannot unpack {len(value)} values into {len(target.elts)} names", target)
            for t, v in zip(target.elts, value):
                self.assign(t, v, env)
            return
        raise self.error("YS017", "unsupported assignment target", target)  # pragma: no cover

    def unpack(self, value: Var, n: int, target: ast.expr) -> tuple:
        """``n`` elements of a value whose length is known at run time (a shape, an array's rows):
        its length checked as Python's unpacking checks it, then each read by index."""
        check = ast.parse(
            f"if len(__yota_a0) != {n}:\n"
            f"    raise ValueError('expected {n} values to unpack, not ' + str(len(__yota_a0)))"
            # (no f-string: generated code is unparsed the same by every Python)
        ).body[0]
        self.tape.add_eqn("effect", [value], {"code": ast.unparse(check), "modules": ()}, self.span_at(target))
        return tuple(self.exprs.getindex(value, [], (k,), target) for k in range(n))

    def assign_item(self, target: ast.Subscript, value: object, env: dict[str, object]) -> None:
        """``a[index] = v`` as a value: ``a = setindex(a, v, index=...)``, a new array.

        The code generator writes it in place when the old ``a`` is used nowhere else.  A write into a
        parameter's array is allowed (the gradient is of the values on entry; a warning says the
        source changes its argument); a write that another name would see is refused.
        """
        name = target.value.id  # the fence allows only a name here
        if name not in env:
            raise self.error(
                "YS015", f"{name} is not a local name: writing into a module-level value is a global write", target
            )
        base = env[name]
        if isinstance(base, Lit) and isinstance(base.value, dict):  # t = dict(TABLE), folded: its entries
            base = env[name] = {k: Lit(v) for k, v in base.value.items()}
        if isinstance(base, dict):  # d["c"] = v: a new dict (refused where another name sees the old one)
            key = self.expr(target.slice, env)
            if not isinstance(key, Lit):
                raise self.error("YS034", "a dict is written at a constant key", target)
            if self.other_names(base, name, env):
                why = f"'{self.other_names(base, name, env)[0]}' refers to the same dict"
                raise self.error(
                    "YS017", f"'{ast.unparse(target)} = ...' would change {name} in place and {why}", target
                )
            env[name] = {**base, key.value: value}
            return
        dynamic: list[Atom] = []
        index = self.exprs.index(target.slice, env, dynamic)
        if isinstance(base, tuple):  # a list of values: a = [x, y]; a[0] = z
            if len(index) != 1 or not isinstance(index[0], int) or not -len(base) <= index[0] < len(base):
                raise self.error("YS034", "a list of values is written at one constant index in range", target)
            items = list(base)
            items[index[0]] = value
            env[name] = tuple(items)
            return
        why = self.aliases.sharing(base, name, env)
        if why is not None:
            raise self.error(
                "YS017",
                f"'{ast.unparse(target)} = ...' would change {name} in place and {why}; "
                f"copy first ({name} = {name}.copy()) or return the new array",
                target,
            )
        params = [p.arg for p in self.fn_nodes[0].args.args + self.fn_nodes[0].args.kwonlyargs]
        entry_param = len(self.stack) == 1 and name in params and name not in self.rebound
        if entry_param and name not in self.written_params:
            self.written_params.add(name)
            self.warnings.append(
                self.error(
                    "YS051",
                    f"{self.stack[0]}() writes into its argument {name}; the gradient is of the values on entry "
                    "and the generated code never changes the caller's array",
                    target,
                )
            )
        array = self.as_array(base, target.value)
        if isinstance(array, Lit):
            array = self.add("asarray", [array], {}, target.value)
        out = self.add("setindex", [array, self.as_array(value, target), *dynamic], {"index": index}, target)
        if isinstance(out, Var):
            out.hint, out.hint_depth = name, len(self.stack)
        env[name] = out


def lower(module: Module, name: str, table: RuleTable) -> Tape:
    """Lower function ``name`` of a fenced module to its primal tape.

    Where it meets ``p.items()`` (``values``, ``keys``) of a dict parameter, whose keys only the
    call knows, a first lowering reads it as empty and notes the constant keys the function reads
    of ``p`` (``p["ec50"]``); a second lowering reads it as those keys, and the generated code
    checks at run time that the dict has them, no more and no fewer (``dicts.parameter_method``).
    Where it reads none, the second lowering reads ``p`` as an input tree: the list of its values
    in the dict's order, of a length known at run time (``dicts.input_tree``)."""
    first = Lowerer(module, table)
    try:
        tape = first.lower(name)
    except UserError:
        if not first.dicts.wanted_keys:
            raise
        tape = None
    if not first.dicts.wanted_keys:
        return tape
    second = Lowerer(module, table)
    second.dicts.known_keys = first.dicts.keys_read()
    tape = second.lower(name)
    second.dicts.check_keys(tape, first.dicts.wanted_keys)
    return tape


def _appends(stmt: ast.stmt, env: dict[str, object]) -> bool:
    """``lst.append(v)`` on a local name."""
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
        return False
    func = stmt.value.func
    return (
        isinstance(func, ast.Attribute)
        and func.attr == "append"
        and isinstance(func.value, ast.Name)
        and func.value.id in env
    )


def _with_return(fn: ast.FunctionDef, module: Module) -> list[ast.stmt]:
    """The body of ``fn``, ending with ``return None`` where it may fall off its end (as a
    Python function returns None there); a bare ``return`` gives None too (``block``).  A generated
    function's branch to its form by blocks of columns is left out: the code after it computes the
    same (``generated.column_blocks``)."""
    body = [s for s in fn.body if not column_blocks(module, s)]
    last = body[-1] if body else fn
    if body and isinstance(last, ast.Return | ast.Raise):
        return body
    end = ast.Return(ast.Constant(None))
    return [*body, ast.copy_location(end, last)]


def _statements(fn: ast.FunctionDef) -> list[ast.AST]:
    """The statements of ``fn`` at every depth (a ``return`` is one), not walking into expressions:
    ``walk(fn)``'s statements, in another order (issue 38: a polynomial's terms are most nodes)."""
    out: list[ast.AST] = []
    todo: list[ast.AST] = list(fn.body)
    while todo:
        node = todo.pop()
        out.append(node)
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            inner = getattr(node, field, None)
            if type(inner) is list:
                todo += inner
    return out


def _may_return_none(fn: ast.FunctionDef) -> bool:
    """A path through ``fn`` may return None: a bare ``return`` or ``return None``, or its end."""
    returns = [n for n in _statements(fn) if isinstance(n, ast.Return)]  # (a nested def's too: a check more)
    if any(r.value is None or (isinstance(r.value, ast.Constant) and r.value.value is None) for r in returns):
        return True
    return not _always_returns(fn.body)
