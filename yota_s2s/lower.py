"""Stage 2, lower: a fenced ``Module`` and a function name in, a primal ``Tape`` out.

Resolves names (``np``/``numpy``/``math``/``cp`` aliases, ``from numpy import
exp``, module constants), inlines same-file helper functions and methods,
and turns operators, method calls, ``.T`` and indexing into primitives from
the rule table::

    def f(x):                       tape f(x)
        h = np.tanh(x @ W0)   ->      ...
        return np.sum(h * h)          %3 = tanh(%2)     # h
                                      %4 = mul(%3, %3)
                                      %5 = sum(%4)

A parameter used as an array is a tape input; a parameter whose attributes
are read (``m.W``) is an object: each attribute read becomes an input with the
path ``("m", "W")``.
"""

from __future__ import annotations

import ast
import builtins
import functools
import math
import operator
import re
from dataclasses import dataclass

from .control import ControlLowering
from .errors import UserError, located, position
from .fence import Module
from .ir import Atom, Dyn, Input, Lit, Slice, Span, Tape, Var
from .ruledsl import BINOPS, BindError, RuleTable, bind

#: Attributes that make a value an array rather than an object.
ARRAY_ATTRS = {"T", "shape", "size", "ndim", "dtype", "real", "imag", "flat"}
#: Module aliases that mean NumPy's API.
NUMPY_ALIASES = {"numpy": "numpy", "cupy": "numpy", "jax.numpy": "numpy"}
#: Module constants that are plain numbers (or None for newaxis).
MODULE_CONSTANTS = {
    "numpy.pi": math.pi,
    "numpy.e": math.e,
    "numpy.inf": math.inf,
    "numpy.newaxis": None,
    "math.pi": math.pi,
    "math.e": math.e,
    "math.inf": math.inf,
    "math.tau": math.tau,
}
#: Library submodules reached through an attribute (np.linalg.norm).
_SUBMODULES = {"numpy.linalg", "numpy.random", "numpy.fft"}
#: Methods that take a shape as separate arguments: x.reshape(3, 4).
_PACKED_METHODS = {"ndarray.reshape", "ndarray.transpose"}
_COMPARE_NAMES = {
    ast.Lt: "operator.lt",
    ast.LtE: "operator.le",
    ast.Gt: "operator.gt",
    ast.GtE: "operator.ge",
    ast.Eq: "operator.eq",
    ast.NotEq: "operator.ne",
}
#: Primitives whose NumPy result may be a view of their argument.
_VIEW_PRIMS = {
    "getindex",
    "reshape",
    "ravel",
    "transpose",
    "swapaxes",
    "moveaxis",
    "expand_dims",
    "squeeze",
    "atleast_1d",
    "atleast_2d",
    "flip",
    "fliplr",
    "flipud",
    "diag",
    "diagonal",
    "broadcast_to",
}
_AUG_SYMBOL = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**", ast.MatMult: "@"}
#: Hint depth of names derived from indexing (x3 for x[3]): any assignment overrides them.
_DERIVED_HINT = 10_000

_FOLD = {
    "add": operator.add,
    "sub": operator.sub,
    "mul": operator.mul,
    "truediv": operator.truediv,
    "power": operator.pow,
    "neg": operator.neg,
    "less": operator.lt,
    "less_equal": operator.le,
    "greater": operator.gt,
    "greater_equal": operator.ge,
    "equal": operator.eq,
    "not_equal": operator.ne,
}


def fold_constant(prim: str, values: list[object]) -> tuple[bool, object]:
    """Fold an arithmetic primitive on Python numbers; (False, None) when it must not be folded."""
    fn = _FOLD.get(prim)
    if fn is None or not all(type(v) in (int, float) for v in values):
        return False, None
    try:
        result = fn(*values)
    except (ArithmeticError, ValueError):
        return False, None
    if type(result) not in (int, float, bool) or (isinstance(result, float) and math.isnan(result)):
        return False, None
    return True, result


@dataclass(frozen=True)
class _Unresolved:
    """A parameter (or attribute of an object parameter) not yet used as array or object."""

    path: tuple[str, ...]


@dataclass(frozen=True)
class _Module:
    """A module alias such as ``np`` (qualified name ``numpy``)."""

    name: str


@dataclass(frozen=True)
class _Function:
    """A callable: a same-file function, or a qualified library name like ``numpy.exp``."""

    name: str
    local: ast.FunctionDef | None = None
    receiver: object = None  # the bound value for a method call


class Lowerer(ControlLowering):
    """Builds the primal tape of one function."""

    def __init__(self, module: Module, table: RuleTable):
        self.module = module
        self.table = table
        self.tape: Tape | None = None
        self.root: Tape | None = None
        self.fn_nodes: list[ast.FunctionDef] = []
        self.array_inputs: dict[tuple[str, ...], Var] = {}
        self.object_paths: set[tuple[str, ...]] = set()
        self.stack: list[str] = []
        self.span: Span | None = None
        self.stmt_line = 0
        self.stmt_text = ""
        self.array_receivers: set[int] = set()
        self.envs: list[dict[str, object]] = []
        self.prims: dict[int, str] = {}  # the primitive that defined each value

    # ------------------------------------------------------------------ errors
    def error(self, code: str, message: str, node: ast.AST) -> UserError:
        return located(code, message, node, self.module.path, self.module.source)

    # ------------------------------------------------------------------ entry
    def lower(self, name: str) -> Tape:
        fn = self.module.functions[name]
        tape = Tape(name)
        self.tape = self.root = tape
        tape.params = [(p.arg, d) for p, d in _params_with_defaults(fn)]
        env = {p.arg: _Unresolved((p.arg,)) for p in fn.args.args + fn.args.kwonlyargs}
        result = self.inline(fn, env, fn)
        if isinstance(result, tuple):
            raise self.error("YS021", f"{name}() must return one scalar value, not a tuple", fn.body[-1])
        if isinstance(result, _Unresolved):
            result = self.as_array(result, fn.body[-1])
        if not isinstance(result, Var | Lit):
            raise self.error("YS021", f"{name}() must return a number or an array", fn.body[-1])
        if isinstance(result, Var) and (result.hint is None or result.hint_depth > 0):
            result.hint, result.hint_depth = name, 0
        tape.outputs = [result]
        order = {p: i for i, (p, _) in enumerate(tape.params)}
        tape.inputs.sort(key=lambda inp: order.get(inp.path[0], len(order)))
        tape.meta["object_params"] = sorted({p[0] for p in self.object_paths})
        tape.meta["array_inputs"] = sorted(i.var.id for i in tape.inputs if i.var.id in self.array_receivers)
        return tape

    # ------------------------------------------------------------------ inlining
    def inline(self, fn: ast.FunctionDef, env: dict[str, object], site: ast.AST) -> object:
        if fn.name in self.stack:
            chain = " -> ".join([*self.stack, fn.name])
            raise self.error("YS035", f"recursion is not supported ({chain})", site)
        self.stack.append(fn.name)
        self.envs.append(env)
        self.fn_nodes.append(fn)
        caller = (self.stmt_line, self.stmt_text)
        try:
            value = self.block(fn.body, env)
        finally:
            self.stack.pop()
            self.envs.pop()
            self.fn_nodes.pop()
            self.stmt_line, self.stmt_text = caller
        if value is None:
            raise self.error("YS021", f"{fn.name}() must end with 'return <value>'", fn)  # fence prevents
        return value

    def statement(self, stmt: ast.stmt, env: dict[str, object]) -> None:
        if isinstance(stmt, ast.Assign):
            value = self.expr(stmt.value, env)
            for target in stmt.targets:
                self.assign(target, value, env)
        elif isinstance(stmt, ast.AnnAssign):
            if stmt.value is not None:
                self.assign(stmt.target, self.expr(stmt.value, env), env)
        elif isinstance(stmt, ast.AugAssign):
            current = self.expr(stmt.target, env)
            self.check_not_shared(stmt, current, env)
            value = self.binop(BINOPS[type(stmt.op)], current, self.expr(stmt.value, env), stmt)
            self.assign(stmt.target, value, env)
        elif isinstance(stmt, ast.For):
            self.stmt_For(stmt, env)
        elif isinstance(stmt, ast.While):
            self.stmt_While(stmt, env)
        elif isinstance(stmt, ast.If):
            self.stmt_If(stmt, env)
        elif isinstance(stmt, ast.Expr | ast.Pass):
            pass  # docstrings; fence refused everything else
        else:  # pragma: no cover - fence refuses these first
            raise self.error("YS010", f"unsupported statement {type(stmt).__name__}", stmt)

    def check_not_shared(self, stmt: ast.AugAssign, current: object, env: dict[str, object]) -> None:
        """Refuse ``y += ...`` where NumPy would update, in place, an array another name sees.

        ``y = x; y += 1`` changes ``x`` too, and so does ``r = x[0]; r += 1`` (a view).
        The tool models ``+=`` as a new value, which is only right when nothing shares it.
        """
        if isinstance(current, Lit):
            return  # numbers are immutable: += makes a new one
        name = stmt.target.id
        shared = [n for e in self.envs for n, v in e.items() if v is current and not (e is env and n == name)]
        view = self.defining_prim(current) in _VIEW_PRIMS
        if shared or view:
            why = f"'{shared[0]}' refers to the same array" if shared else "it may be a view into another array"
            raise self.error(
                "YS017",
                f"'{name} {_AUG_SYMBOL[type(stmt.op)]}= ...' would update {name} in place and {why}; "
                f"write '{name} = {name} {_AUG_SYMBOL[type(stmt.op)]} ...'",
                stmt,
            )

    def defining_prim(self, value: object) -> str | None:
        return self.prims.get(value.id) if isinstance(value, Var) else None

    def assign(self, target: ast.expr, value: object, env: dict[str, object]) -> None:
        if isinstance(target, ast.Name):
            if isinstance(value, Var) and (value.hint is None or value.hint_depth > len(self.stack)):
                value.hint, value.hint_depth = target.id, len(self.stack)
            env[target.id] = value
            return
        if isinstance(target, ast.Tuple | ast.List):
            if isinstance(value, Lit) and isinstance(value.value, tuple):
                value = tuple(Lit(v) for v in value.value)
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

    # ------------------------------------------------------------------ values
    def emit(self, prim: str, args: list[Atom], params: dict[str, object], node: ast.AST) -> Atom:
        """Append ``prim(args, params)`` (folding arithmetic on constants) and return its value."""
        if all(isinstance(a, Lit) for a in args):
            ok, value = fold_constant(prim, [a.value for a in args])
            if ok:
                return Lit(value)
        span = self.span_at(node)
        out = self.tape.add_eqn(prim, args, params, span)
        self.prims[out.id] = prim
        return out

    def span_at(self, node: ast.AST) -> Span:
        at_line, col, at_text = position(node, self.module.source)
        return Span(
            self.module.path,
            self.stmt_line or at_line,
            col,
            self.stmt_text or at_text.strip(),
            self.stack[-1] if self.stack else "",
            at_line,
            at_text,
        )

    def as_array(self, value: object, node: ast.AST) -> Atom:
        """The tape value of ``value``: parameters become inputs on first use as arrays."""
        if isinstance(value, Var | Lit):
            return value
        if isinstance(value, _Unresolved):
            path = value.path
            if path in self.object_paths:
                raise self.error(
                    "YS036", f"{'.'.join(path)} is used both as an object (attributes read) and as an array", node
                )
            if path not in self.array_inputs:
                var = Var(hint="_".join(path))
                self.root.inputs.append(Input(var, path))
                self.array_inputs[path] = var
            return self.array_inputs[path]
        if isinstance(value, tuple):
            constant = _constant_value(value)
            if constant is not _NOT_CONSTANT:
                return Lit(constant)
            # a (nested) list of computed values is an array, as np.array makes it
            return self.as_array(self.call_primitive("numpy.array", [value], {}, node), node)
        if isinstance(value, _Function):
            raise self.error("YS020", f"the function {value.name} is used as a value; call it", node)
        if isinstance(value, _Module):
            raise self.error("YS020", f"the module {value.name} is used as a value", node)
        raise self.error("YS020", "unsupported value", node)  # pragma: no cover

    def binop(self, prim: str, left: object, right: object, node: ast.AST) -> Atom:
        return self.emit(prim, [self.as_array(left, node), self.as_array(right, node)], {}, node)

    def expr(self, node: ast.expr, env: dict[str, object]) -> object:
        method = getattr(self, "expr_" + type(node).__name__, None)
        if method is None:
            raise self.error("YS020", f"unsupported expression ({type(node).__name__})", node)
        return method(node, env)

    def expr_Constant(self, node: ast.Constant, env: dict) -> object:
        if node.value is Ellipsis:
            return Lit(Ellipsis)
        return Lit(node.value)

    def expr_Name(self, node: ast.Name, env: dict) -> object:
        name = node.id
        if name in env:
            return env[name]
        m = self.module
        if name in m.constants:
            return Lit(m.constants[name])
        if name in m.functions:
            return _Function(name, m.functions[name])
        if name in m.imports:
            return self.qualified(m.imports[name], node)
        if hasattr(builtins, name):
            return _Function(f"builtins.{name}")
        raise self.error("YS030", f"unknown name {name!r}", node)

    def qualified(self, name: str, node: ast.AST) -> object:
        """A library name: a module, a constant or a function."""
        name = canonical_name(name)
        if name in MODULE_CONSTANTS:
            return Lit(MODULE_CONSTANTS[name])
        if "." not in name or name in _SUBMODULES or any(n.startswith(name + ".") for n in self.table.names):
            return _Module(name)
        return _Function(name)

    def expr_Attribute(self, node: ast.Attribute, env: dict) -> object:
        base = self.expr(node.value, env)
        attr = node.attr
        if isinstance(base, _Module):
            return self.qualified(f"{base.name}.{attr}", node)
        if isinstance(base, _Unresolved) and attr not in ARRAY_ATTRS:
            path = base.path
            if path in self.array_inputs:
                raise self.error(
                    "YS036", f"{'.'.join(path)} is used as an array, so it has no attribute {attr!r}", node
                )
            self.object_paths.add(path)
            return _Unresolved((*path, attr))
        if isinstance(base, _Function | tuple):
            raise self.error("YS020", f"unsupported attribute {attr!r}", node)
        value = self.as_array(base, node)
        if isinstance(value, Var):
            self.array_receivers.add(value.id)
        return self.call_primitive(f"ndarray.{attr}", [value], {}, node)

    def expr_Compare(self, node: ast.Compare, env: dict) -> object:
        left = self.expr(node.left, env)
        right = self.expr(node.comparators[0], env)
        return self.call_primitive(_COMPARE_NAMES[type(node.ops[0])], [left, right], {}, node)

    def expr_BinOp(self, node: ast.BinOp, env: dict) -> object:
        left = self.expr(node.left, env)
        right = self.expr(node.right, env)
        return self.binop(BINOPS[type(node.op)], left, right, node)

    def expr_UnaryOp(self, node: ast.UnaryOp, env: dict) -> object:
        value = self.as_array(self.expr(node.operand, env), node)
        if isinstance(node.op, ast.UAdd):
            return value
        return self.emit("neg", [value], {}, node)

    def expr_Tuple(self, node: ast.Tuple, env: dict) -> object:
        return tuple(self.expr(e, env) for e in node.elts)

    expr_List = expr_Tuple

    def expr_Subscript(self, node: ast.Subscript, env: dict) -> object:
        base = self.expr(node.value, env)
        dynamic: list[Atom] = []
        index = self.index(node.slice, env, dynamic)
        if isinstance(base, tuple):
            if len(index) == 1 and isinstance(index[0], int):
                try:
                    return base[index[0]]
                except IndexError:
                    raise self.error("YS034", "tuple index out of range", node) from None
            raise self.error("YS034", "a tuple is indexed by one constant integer", node)
        value = self.as_array(base, node)
        if isinstance(value, Lit) and isinstance(value.value, tuple) and len(index) == 1:
            item = index[0]
            if isinstance(item, int | Slice):
                key = item.to_slice() if isinstance(item, Slice) else item
                return Lit(value.value[key])
        out = self.emit("getindex", [value, *dynamic], {"index": index}, node)
        if isinstance(out, Var) and value.hint and len(index) == 1 and isinstance(index[0], int) and index[0] >= 0:
            out.hint, out.hint_depth = f"{value.hint}{index[0]}", _DERIVED_HINT
        return out

    def index(self, node: ast.expr, env: dict, dynamic: list[Atom]) -> tuple:
        """The index template of ``x[node]``; computed parts are appended to ``dynamic`` as ``Dyn``."""
        items = node.elts if isinstance(node, ast.Tuple) else [node]
        return tuple(self.index_item(i, env, dynamic) for i in items)

    def index_item(self, node: ast.expr, env: dict, dynamic: list[Atom]) -> object:
        if isinstance(node, ast.Slice):
            parts = [None if p is None else self.static_int(p, env) for p in (node.lower, node.upper, node.step)]
            return Slice(*parts)
        value = self.expr(node, env)
        if isinstance(value, Lit) and (value.value is None or value.value is Ellipsis or type(value.value) is int):
            return value.value
        if isinstance(value, tuple) or (isinstance(value, Lit) and isinstance(value.value, tuple)):
            # a literal list of indices, x[[0, 2, 2]]: an index array
            value = self.array_constant(value, node)
        if isinstance(value, _Unresolved):
            value = self.as_array(value, node)
        if isinstance(value, Var):
            dynamic.append(value)
            return Dyn(len(dynamic) - 1)
        raise self.error("YS034", "an index is an integer, a slice, None, ..., an index array or a mask", node)

    def array_constant(self, value: object, node: ast.AST) -> Atom:
        """A constant list (or nested lists) as an array: ``np.asarray((0, 2, 2))``."""
        atom = self.as_array(value, node)
        if isinstance(atom, Lit) and isinstance(atom.value, tuple):
            return self.emit("asarray", [atom], {}, node)
        if isinstance(atom, Var):  # x[[i, i, j]]: an index array of computed integers
            return atom
        raise self.error("YS034", "an index list holds integers", node)

    def static_int(self, node: ast.expr, env: dict) -> int:
        value = self.expr(node, env)
        if isinstance(value, Lit) and type(value.value) is int:
            return value.value
        raise self.error("YS034", "slice bounds must be constant integers", node)

    # ------------------------------------------------------------------ calls
    def expr_Call(self, node: ast.Call, env: dict) -> object:
        func = node.func
        receiver = None
        if isinstance(func, ast.Attribute):
            base = self.expr(func.value, env)
            if isinstance(base, _Module):
                callee = self.qualified(f"{base.name}.{func.attr}", func)
            elif isinstance(base, _Unresolved) and base.path not in self.array_inputs:
                method = self.find_method(func.attr, func)
                if method is None:
                    callee = _Function(f"ndarray.{func.attr}")
                    receiver = base
                else:
                    self.object_paths.add(base.path)
                    callee, receiver = _Function(func.attr, method), base
            else:
                callee, receiver = _Function(f"ndarray.{func.attr}"), base
        else:
            callee = self.expr(func, env)
        if not isinstance(callee, _Function):
            raise self.error("YS020", "this value is not callable", func)
        args = [self.expr(a, env) for a in node.args]
        kwargs = {kw.arg: self.expr(kw.value, env) for kw in node.keywords}
        if callee.local is not None:
            if receiver is not None:
                args = [receiver, *args]
            return self.call_local(callee.local, args, kwargs, node)
        if receiver is not None:
            receiver = self.as_array(receiver, func)
            if isinstance(receiver, Var):
                self.array_receivers.add(receiver.id)
            args = [receiver, *args]
            if callee.name in _PACKED_METHODS and len(args) > 2:
                args = [args[0], tuple(args[1:])]
        return self.call_primitive(callee.name, args, kwargs, node)

    def find_method(self, name: str, node: ast.AST) -> ast.FunctionDef | None:
        found = [
            m
            for cls in self.module.classes.values()
            for m in cls.body
            if isinstance(m, ast.FunctionDef) and m.name == name
        ]
        if len(found) > 1:
            raise self.error("YS031", f"several classes in this file define {name}(); cannot tell which", node)
        return found[0] if found else None

    def call_local(self, fn: ast.FunctionDef, args: list, kwargs: dict, node: ast.Call) -> object:
        params = _params_with_defaults(fn)
        names = [p.arg for p, _ in params]
        if len(args) > len(names):
            raise self.error("YS032", f"{fn.name}() takes {len(names)} arguments ({len(args)} given)", node)
        env: dict[str, object] = dict(zip(names, args))
        for key, value in kwargs.items():
            if key not in names:
                raise self.error("YS032", f"{fn.name}() has no parameter {key!r}", node)
            if key in env:
                raise self.error("YS032", f"{fn.name}() got two values for {key!r}", node)
            env[key] = value
        for p, default in params:
            if p.arg not in env:
                if default is None:
                    raise self.error("YS032", f"{fn.name}() is missing the argument {p.arg!r}", node)
                env[p.arg] = self.expr(default, {})
        return self.inline(fn, env, node)

    def call_primitive(self, name: str, args: list, kwargs: dict, node: ast.AST) -> object:
        adapted = self.adapt(name, args, kwargs, node)
        if adapted is not None:
            return adapted
        if name not in self.table.names and f"{name}#0" in self.table.names:
            # a function returning a tuple, each element its own primitive: slogdet -> (sign, logdet)
            n = 0
            while f"{name}#{n}" in self.table.names:
                n += 1
            return tuple(self.call_primitive(f"{name}#{k}", args, kwargs, node) for k in range(n))
        prim = self.table.names.get(name)
        if prim is None:
            raise self.error("YS031", _no_rule_message(name), node)
        rule = self.table[prim]
        try:
            operands, params = bind(rule, args, kwargs)
        except BindError as exc:
            raise self.error("YS032", str(exc), node) from None
        static = {}
        for key, value in params.items():
            constant = _constant_value(value)
            if constant is _NOT_CONSTANT:
                raise self.error("YS033", f"{key}= of {prim}() must be a constant", node)
            static[key] = constant
        if rule.variadic:  # np.concatenate([a, b]): the list's elements are operands
            sequence = operands.pop()
            if isinstance(sequence, Lit) and isinstance(sequence.value, tuple):
                sequence = tuple(Lit(v) for v in sequence.value)
            if not isinstance(sequence, tuple):
                raise self.error("YS032", f"{prim}() takes a list or tuple of arrays written in the call", node)
            operands.extend(sequence)
        atoms = [self.as_array(o, node) for o in operands]
        return self.emit(prim, atoms, static, node)

    def adapt(self, name: str, args: list, kwargs: dict, node: ast.AST) -> object | None:
        """Calls whose meaning depends on their arguments' kind, in terms of primitives.

        ``sum([a, b, c])`` adds; ``sum(x)`` is ``np.sum(x, axis=0)``; ``max(a, b)`` is
        ``np.maximum``, ``max(x)`` is ``np.max(x, axis=0)``; ``np.array([a, b])`` of computed
        values stacks them (of constants, it is a constant array).  ``np.einsum("ij,jk", a, b)``
        takes its subscripts as the static ``subscripts`` and its operands as one sequence.
        """
        if name == "numpy.einsum" and not (args and isinstance(args[0], tuple)):
            if not (args and isinstance(args[0], Lit) and isinstance(args[0].value, str)):
                raise self.error(
                    "YS032", "np.einsum() takes constant subscripts first: np.einsum('ij,jk->ik', a, b)", node
                )
            return self.call_primitive(name, [tuple(args[1:])], {**kwargs, "subscripts": args[0]}, node)
        if kwargs:
            return None
        if name == "builtins.sum" and len(args) == 1:
            if isinstance(args[0], tuple):
                total: object = Lit(0)
                for a in args[0]:
                    total = self.binop("add", total, a, node)
                return total
            return self.call_primitive("numpy.sum", [args[0]], {"axis": Lit(0)}, node)
        if name in ("builtins.max", "builtins.min"):
            pairwise = "numpy.maximum" if name == "builtins.max" else "numpy.minimum"
            items = list(args[0]) if len(args) == 1 and isinstance(args[0], tuple) else args
            if len(args) == 1 and not isinstance(args[0], tuple):
                return self.call_primitive(f"numpy.{name[9:]}", [args[0]], {"axis": Lit(0)}, node)
            result = items[0]
            for item in items[1:]:
                result = self.call_primitive(pairwise, [result, item], {}, node)
            return result
        if name in ("numpy.array", "numpy.asarray") and len(args) == 1:
            value = args[0]
            if isinstance(value, tuple) and not all(isinstance(v, Lit) for v in value):
                parts = [self.call_primitive(name, [v], {}, node) if isinstance(v, tuple) else v for v in value]
                return self.call_primitive("numpy.stack", [tuple(parts)], {}, node)
            if isinstance(value, Var | _Unresolved):
                return self.as_array(value, node)
        return None


_NOT_CONSTANT = object()


def _constant_value(value: object) -> object:
    """The Python value of a lowered constant (a Lit, or nested tuples of Lits), else _NOT_CONSTANT."""
    if isinstance(value, Lit):
        return value.value
    if isinstance(value, tuple):
        items = [_constant_value(v) for v in value]
        return _NOT_CONSTANT if any(i is _NOT_CONSTANT for i in items) else tuple(items)
    if isinstance(value, list):  # a module constant written with lists
        return _constant_value(tuple(value))
    return value if not isinstance(value, Var | _Unresolved | _Function | _Module) else _NOT_CONSTANT


def canonical_name(name: str) -> str:
    """``cupy.exp`` and ``jax.numpy.exp`` are NumPy's API: ``numpy.exp``."""
    for alias, canonical in NUMPY_ALIASES.items():
        if name == alias or name.startswith(alias + "."):
            return canonical + name[len(alias) :]
    return name


def statement_text(source: str, stmt: ast.stmt, limit: int = 100) -> str:
    """A statement's source on one line (whitespace collapsed), cut at ``limit`` characters."""
    text = " ".join(_source_segment(source, stmt).split())
    text = re.sub(r"([(\[{]) ", r"\1", re.sub(r" ([)\]}])", r"\1", text))
    return text if len(text) <= limit else text[: limit - 3].rstrip() + "..."


def _source_segment(source: str, node: ast.AST) -> str:
    """``ast.get_source_segment(source, node)``, with the source split into lines only once."""
    lines = _parser_lines(source)
    first, last = node.lineno - 1, node.end_lineno - 1
    if first == last:
        return lines[first].encode()[node.col_offset : node.end_col_offset].decode()
    head = lines[first].encode()[node.col_offset :].decode()
    return head + "".join(lines[first + 1 : last]) + lines[last].encode()[: node.end_col_offset].decode()


@functools.lru_cache(maxsize=4)
def _parser_lines(source: str) -> list[str]:
    """``source`` split into lines (ends kept) where the parser splits them: at \\n, \\r\\n, \\r."""
    return re.findall(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$", source)


def _params_with_defaults(fn: ast.FunctionDef) -> list[tuple[ast.arg, ast.expr | None]]:
    a = fn.args
    positional = a.posonlyargs + a.args
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
    return list(zip(positional, defaults)) + list(zip(a.kwonlyargs, a.kw_defaults))


def _no_rule_message(name: str) -> str:
    short = name.rsplit(".", 1)[-1]
    if name.startswith("ndarray."):
        what = f"the array method or attribute .{short}"
    else:
        what = f"{name}()"
    return (
        f"no derivative rule for {what} and its source is not in this file; "
        f"add a rule such as: @diffrule(names=[{name!r}]) def {short}(x): dx = ... "
        "in a file given with --rules (see docs/custom-rules.md)"
    )


def lower(module: Module, name: str, table: RuleTable) -> Tape:
    """Lower function ``name`` of a fenced module to its primal tape."""
    return Lowerer(module, table).lower(name)
