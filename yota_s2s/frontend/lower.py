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
from pathlib import Path

from ..dsl.rule import BindError, RuleTable, bind
from ..errors import UserError, located, position
from ..ir.core import NO_DEFAULT, Atom, Dyn, Input, Lit, Param, ParamKind, Slice, Span, Tape, Var
from ..ir.primitives import BINOPS, CMPOPS, fold_constant, primitive
from .control import ControlLowering
from .fence import Module, check_functions, lambda_function, parse_module
from .values import (
    _NOT_CONSTANT,
    _SUBMODULES,
    ARRAY_ATTRS,
    MODULE_CONSTANTS,
    _constant_value,
    _dotted,
    _Function,
    _Indexed,
    _Module,
    _no_rule_message,
    _Own,
    _params_with_defaults,
    _Unresolved,
    canonical_name,
)

#: Hint depth of names derived from indexing (x3 for x[3]): any assignment overrides them.
_DERIVED_HINT = 10_000


class Lowerer(ControlLowering):
    """Builds the primal tape of one function."""

    def __init__(self, module: Module, table: RuleTable):
        self.module = module
        self.table = table
        self.tape: Tape | None = None
        self.root: Tape | None = None
        self.fn_nodes: list[ast.FunctionDef] = []
        self.loop_level = 0  # how many loop bodies are being lowered (control.ControlLowering)
        self.exit_count = 0  # numbers the break/continue flags of loops
        self.array_inputs: dict[tuple[str, ...], Var] = {}
        self.object_paths: set[tuple[str, ...]] = set()
        self.stack: list[str] = []
        self.span: Span | None = None
        self.stmt_line = 0
        self.stmt_text = ""
        self.array_receivers: set[int] = set()
        self.envs: list[dict[str, object]] = []
        self.prims: dict[int, str] = {}  # the primitive that defined each value
        self.fn_modules: dict[int, Module] = {}  # id(function) -> the module it comes from
        self.siblings: dict[str, Module | None] = {}  # the user's own modules, parsed by file path
        self.fn_classes: dict[int, str] = {}  # id(method) -> its class name
        self.warnings: list[UserError] = []
        self.written_params: set[str] = set()
        self.rebound: set[str] = set()  # names of the differentiated function assigned to
        self.root_module = module
        self.active: list[int] = []  # id() of the functions being inlined (self.stack has their names)
        self.checked: set[int] = set()

    # ------------------------------------------------------------------ errors
    def error(self, code: str, message: str, node: ast.AST) -> UserError:
        return located(code, message, node, self.module.path, self.module.source)

    # ------------------------------------------------------------------ entry
    def lower(self, name: str) -> Tape:
        fn = self.module.functions[name]
        tape = Tape(name)
        self.tape = self.root = tape
        env = {
            p.arg: _Unresolved((p.arg,), self.annotated_class(p.annotation), self.annotated_class(p.annotation, True))
            for p in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs
        }
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
        tape.params = self.signature(fn)
        order = {p.name: i for i, p in enumerate(tape.params)}
        tape.inputs.sort(key=lambda inp: order.get(inp.path[0], len(order)))
        tape.facts.object_params = sorted({p[0] for p in self.object_paths})
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
            raise self.error(
                "YS032", "a default value must be a constant so the generated function can repeat it", node
            ) from None

    # ------------------------------------------------------------------ inlining
    def inline(self, fn: ast.FunctionDef, env: dict[str, object], site: ast.AST) -> object:
        if id(fn) in self.active:  # by identity: a method may share its name with a function
            chain = " -> ".join([*self.stack, fn.name])
            raise self.error("YS035", f"recursion is not supported ({chain})", site)
        self.active.append(id(fn))
        self.stack.append(fn.name)
        self.envs.append(env)
        self.fn_nodes.append(fn)
        caller = (self.stmt_line, self.stmt_text, self.module)
        self.module = self.fn_modules.get(id(fn), self.module)  # names resolve in the helper's own file
        try:
            value = self.block(fn.body, env)
        finally:
            self.active.pop()
            self.stack.pop()
            self.envs.pop()
            self.fn_nodes.pop()
            self.stmt_line, self.stmt_text, self.module = caller
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
        if isinstance(current, Lit) or not isinstance(stmt.target, ast.Name):
            return  # numbers are immutable: += makes a new one; x[i] += v is a write (see assign_item)
        name = stmt.target.id
        shared = [n for e in self.envs for n, v in e.items() if v is current and not (e is env and n == name)]
        view = primitive(self.defining_prim(current) or "").view or isinstance(current, _Indexed)
        if shared or view:
            why = f"'{shared[0]}' refers to the same array" if shared else "it may be a view into another array"
            symbol = primitive(BINOPS[type(stmt.op)]).symbol
            raise self.error(
                "YS017",
                f"'{name} {symbol}= ...' would update {name} in place and {why}; write '{name} = {name} {symbol} ...'",
                stmt,
            )

    def defining_prim(self, value: object) -> str | None:
        return self.prims.get(value.id) if isinstance(value, Var) else None

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

    def assign_item(self, target: ast.Subscript, value: object, env: dict[str, object]) -> None:
        """``a[index] = v`` as a value: ``a = setindex(a, v, index=...)``, a new array.

        The emitter writes it in place when the old ``a`` is used nowhere else.  A write into a
        parameter's array is allowed (the gradient is of the values on entry; a warning says the
        source changes its argument); a write that another name would see is refused.
        """
        name = target.value.id  # the fence allows only a name here
        if name not in env:
            raise self.error(
                "YS015", f"{name} is not a local name: writing into a module-level value is a global write", target
            )
        base = env[name]
        dynamic: list[Atom] = []
        index = self.index(target.slice, env, dynamic)
        if isinstance(base, tuple):  # a list of values: a = [x, y]; a[0] = z
            if len(index) != 1 or not isinstance(index[0], int) or not -len(base) <= index[0] < len(base):
                raise self.error("YS034", "a list of values is written at one constant index in range", target)
            items = list(base)
            items[index[0]] = value
            env[name] = tuple(items)
            return
        shared = [n for e in self.envs for n, v in e.items() if v is base and not (e is env and n == name)]
        view = primitive(self.defining_prim(base) or "").view or isinstance(base, _Indexed)
        if shared or view:
            why = f"'{shared[0]}' refers to the same array" if shared else "it may be a view into another array"
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

    # ------------------------------------------------------------------ values
    def add(self, prim: str, args: list[Atom], params: dict[str, object], node: ast.AST) -> Atom:
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
                    "YS036", f"{_dotted(path)} is used both as an object (attributes read) and as an array", node
                )
            if path not in self.array_inputs:
                var = Var(hint="_".join(map(str, path)))
                self.root.inputs.append(Input(var, path))
                self.array_inputs[path] = var
            return self.array_inputs[path]
        if isinstance(value, _Indexed):
            if value.path in self.object_paths:
                raise self.error("YS036", f"{_dotted(value.path)} is used both as an object and as an array", node)
            return self.getindex(self.as_array(value.base, node), [], (value.index,), value.node)
        if isinstance(value, tuple):
            constant = _constant_value(value)
            if constant is not _NOT_CONSTANT:
                return Lit(constant)
            # a (nested) list of computed values is an array, as np.array makes it
            return self.as_array(self.call_primitive("numpy.array", [value], {}, node), node)
        if isinstance(value, _Function):
            raise self.error("YS020", f"the function {value.name} is used as a value; call it", node)
        if isinstance(value, _Own):
            raise self.error("YS020", f"the module {value.name} is used as a value", node)
        if isinstance(value, _Module):
            raise self.error("YS020", f"the module {value.name} is used as a value", node)
        raise self.error("YS020", "unsupported value", node)  # pragma: no cover

    def binop(self, prim: str, left: object, right: object, node: ast.AST) -> Atom:
        return self.add(prim, [self.as_array(left, node), self.as_array(right, node)], {}, node)

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
            return self.local_function(name, m.functions[name], m)
        if name in m.imports:
            return self.qualified(m.imports[name], node)
        if hasattr(builtins, name):
            return _Function(f"builtins.{name}")
        raise self.error("YS030", f"unknown name {name!r}", node)

    def local_function(self, name: str, fn: ast.FunctionDef, module: Module) -> _Function:
        self.fn_modules[id(fn)] = module
        if module is not self.root_module and id(fn) not in self.checked:
            self.checked.add(id(fn))
            check_functions(module, [fn])  # a helper from another file is fenced like this file's
        return _Function(name, fn, module=module)

    # ------------------------------------------------------------------ the user's own modules
    def own_module_name(self, name: str, node: ast.AST) -> object | None:
        """``physics.energy`` or ``.physics.energy`` when ``physics.py`` sits next to the current file."""
        level = len(name) - len(name.lstrip("."))
        parts = name.lstrip(".").split(".")
        here = Path(self.module.path)
        if not here.is_file() or (not level and canonical_name(parts[0]) in ("numpy", "math", "scipy")):
            return None
        folder = here.parent
        for _ in range(max(level - 1, 0)):
            folder = folder.parent
        for k in range(len(parts), 0, -1):
            module = self.load_own(folder, parts[:k], node)
            if module is not None:
                value: object = _Own(module, ".".join(parts[:k]))
                for attr in parts[k:]:
                    value = self.own_attribute(value, attr, node)
                return value
        return None

    def load_own(self, folder: Path, parts: list[str], node: ast.AST) -> Module | None:
        candidates = [folder.joinpath(*parts).with_suffix(".py"), folder.joinpath(*parts, "__init__.py")]
        file = next((c for c in candidates if c.is_file()), None)
        if file is None:
            return None
        key = str(file.resolve())
        if key not in self.siblings:
            shown = str(file) if not Path(self.root_module.path).is_absolute() else key
            try:
                source = file.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                raise self.error("YS002", f"cannot read {shown}, imported here", node) from None
            self.siblings[key] = parse_module(source, shown)
        return self.siblings[key]

    def own_attribute(self, own: _Own, attr: str, node: ast.AST) -> object:
        module = own.module
        if f"{own.name}.{attr}" in self.table.names:  # a rule given for it wins over its source
            return _Function(f"{own.name}.{attr}")
        if attr in module.functions:
            return self.local_function(attr, module.functions[attr], module)
        if attr in module.constants:
            return Lit(module.constants[attr])
        if attr in module.imports:
            caller, self.module = self.module, module  # its import, resolved in its own folder
            try:
                return self.qualified(module.imports[attr], node)
            finally:
                self.module = caller
        sub = self.load_own(Path(module.path).parent, [attr], node) if module.path.endswith("__init__.py") else None
        if sub is not None:
            return _Own(sub, f"{own.name}.{attr}")
        raise self.error("YS030", f"{own.name} ({module.path}) has no function or constant {attr!r}", node)

    def qualified(self, name: str, node: ast.AST) -> object:
        """A library name: a module, a constant or a function (or one of the user's own modules)."""
        own = None if name in self.table.names else self.own_module_name(name, node)  # a rule wins
        if own is not None:
            return own
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
        if isinstance(base, _Own):
            return self.own_attribute(base, attr, node)
        if isinstance(base, _Indexed) and attr not in ARRAY_ATTRS:
            base = self.as_object(base, node)
        if isinstance(base, _Unresolved) and attr not in ARRAY_ATTRS:
            path = base.path
            if path in self.array_inputs:
                raise self.error("YS036", f"{_dotted(path)} is used as an array, so it has no attribute {attr!r}", node)
            self.object_paths.add(path)
            return _Unresolved(
                (*path, attr), self.attribute_class(base.cls, attr), self.attribute_class(base.cls, attr, True)
            )
        if isinstance(base, _Function | tuple):
            raise self.error("YS020", f"unsupported attribute {attr!r}", node)
        if isinstance(base, _Indexed):
            base = self.as_array(base, node)
        value = self.as_array(base, node)
        if isinstance(value, Var):
            self.array_receivers.add(value.id)
        return self.call_primitive(f"ndarray.{attr}", [value], {}, node)

    def expr_Compare(self, node: ast.Compare, env: dict) -> object:
        left = self.expr(node.left, env)
        right = self.expr(node.comparators[0], env)
        prim = CMPOPS[type(node.ops[0])]
        if isinstance(left, Lit) and isinstance(right, Lit):
            ok, value = fold_constant(prim, [left.value, right.value])  # i != 3 on a comprehension's index
            if ok:
                return Lit(value)
        return self.binop(prim, left, right, node)

    def expr_BinOp(self, node: ast.BinOp, env: dict) -> object:
        left = self.expr(node.left, env)
        right = self.expr(node.right, env)
        return self.binop(BINOPS[type(node.op)], left, right, node)

    def expr_UnaryOp(self, node: ast.UnaryOp, env: dict) -> object:
        value = self.as_array(self.expr(node.operand, env), node)
        if isinstance(node.op, ast.UAdd):
            return value
        return self.add("neg", [value], {}, node)

    def expr_Tuple(self, node: ast.Tuple, env: dict) -> object:
        return tuple(self.elements(node.elts, env))

    expr_List = expr_Tuple

    def expr_Lambda(self, node: ast.Lambda, env: dict) -> object:
        # sq = lambda t: t * t (the fence allows only this form): a helper that sees this scope
        fn = lambda_function("lambda", node)
        self.fn_modules[id(fn)] = self.module
        return _Function("lambda", fn, closure=env, module=self.module)

    def expr_ListComp(self, node: ast.ListComp | ast.GeneratorExp, env: dict) -> object:
        """``[w * x[i] for i in range(3)]``: unrolled, a tuple of values (a list in the source)."""
        gen = node.generators[0]
        out = []
        for item in self.static_sequence(gen.iter, env):
            inner = dict(env)
            self.assign(gen.target, item, inner)
            keep = True
            for cond in gen.ifs:
                test = self.expr(cond, inner)
                if not (isinstance(test, Lit) and isinstance(test.value, bool | int)):
                    raise self.error(
                        "YS041", "a comprehension's condition must be known when generating (on the loop index)", cond
                    )
                keep = keep and bool(test.value)
            if keep:
                out.append(self.expr(node.elt, inner))
        return tuple(out)

    expr_GeneratorExp = expr_ListComp

    def static_sequence(self, node: ast.expr, env: dict) -> tuple:
        """The items of a sequence whose length is known when generating: ``range`` of constants,
        a tuple or list (of names, of values), ``zip``/``enumerate``/``reversed`` of those."""
        if isinstance(node, ast.Call) and not node.keywords:
            callee = self.expr(node.func, env)
            name = callee.name if isinstance(callee, _Function) and callee.local is None else None
            if name == "builtins.range":
                bounds = [self.expr(a, env) for a in node.args]
                if all(isinstance(b, Lit) and type(b.value) is int for b in bounds) and 1 <= len(bounds) <= 3:
                    return tuple(Lit(i) for i in range(*(b.value for b in bounds)))
                raise self.error(
                    "YS041",
                    "a comprehension needs range() of constants (its length is fixed when generating); "
                    "write a for loop for a length known at run time",
                    node,
                )
            if name in ("builtins.zip", "builtins.enumerate", "builtins.reversed"):
                seqs = [self.static_sequence(a, env) for a in node.args]
                if name == "builtins.zip":
                    return tuple(zip(*seqs))
                if name == "builtins.reversed" and len(seqs) == 1:
                    return tuple(reversed(seqs[0]))
                if name == "builtins.enumerate" and len(seqs) == 1:
                    return tuple((Lit(i), v) for i, v in enumerate(seqs[0]))
        value = self.expr(node, env)
        if isinstance(value, Lit) and isinstance(value.value, tuple):
            return tuple(Lit(v) for v in value.value)
        if isinstance(value, tuple):
            return value
        raise self.error(
            "YS041",
            f"{ast.unparse(node)} has a length known only at run time; a comprehension iterates over range() "
            "of constants or a tuple/list written in the source (write a for loop otherwise)",
            node,
        )

    def expr_Subscript(self, node: ast.Subscript, env: dict) -> object:
        base = self.expr(node.value, env)
        dynamic: list[Atom] = []
        index = self.index(node.slice, env, dynamic)
        if (
            isinstance(base, _Unresolved | _Indexed)
            and base.path not in self.array_inputs
            and (len(base.path) > 1 or self.element_class(base))
            and len(index) == 1
            and type(index[0]) is int
        ):
            # m.layers[0]: an element of a list of objects, or a row of an array; the next use tells
            # (a parameter x[0] is an array read at once, unless annotated as a list of objects)
            return _Indexed(base, index[0], node, self.element_class(base))
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
        return self.getindex(value, dynamic, index, node)

    def getindex(self, value: Atom, dynamic: list[Atom], index: tuple, node: ast.AST) -> Atom:
        out = self.add("getindex", [value, *dynamic], {"index": index}, node)
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
        if isinstance(value, _Unresolved | _Indexed):
            value = self.as_array(value, node)
        if isinstance(value, Var):
            dynamic.append(value)
            return Dyn(len(dynamic) - 1)
        raise self.error("YS034", "an index is an integer, a slice, None, ..., an index array or a mask", node)

    def array_constant(self, value: object, node: ast.AST) -> Atom:
        """A constant list (or nested lists) as an array: ``np.asarray((0, 2, 2))``."""
        atom = self.as_array(value, node)
        if isinstance(atom, Lit) and isinstance(atom.value, tuple):
            return self.add("asarray", [atom], {}, node)
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
            elif isinstance(base, _Own):
                callee = self.own_attribute(base, func.attr, func)
            elif isinstance(base, _Unresolved | _Indexed) and base.path not in self.array_inputs:
                method = self.find_method(func.attr, func, base.cls)
                if method is None:
                    callee = _Function(f"ndarray.{func.attr}")
                    receiver = base
                else:
                    receiver = self.as_object(base, func)
                    self.object_paths.add(receiver.path)
                    cls = receiver.cls or self.fn_classes.get(id(method))
                    receiver = _Unresolved(receiver.path, cls, receiver.elem)
                    callee = _Function(func.attr, method)
            else:
                callee, receiver = _Function(f"ndarray.{func.attr}"), base
        else:
            callee = self.expr(func, env)
        if not isinstance(callee, _Function):
            raise self.error("YS020", "this value is not callable", func)
        if callee.name in ("builtins.tuple", "builtins.list") and len(node.args) == 1 and not node.keywords:
            return self.static_sequence(node.args[0], env)  # tuple(w * v for v in xs)
        args = self.elements(node.args, env)
        kwargs = {kw.arg: self.expr(kw.value, env) for kw in node.keywords}
        if callee.local is not None:
            if receiver is not None:
                args = [receiver, *args]
            return self.call_local(callee.local, args, kwargs, node, callee.closure)
        if receiver is not None:
            receiver = self.as_array(receiver, func)
            if isinstance(receiver, Var):
                self.array_receivers.add(receiver.id)
            args = [receiver, *args]
            if primitive(self.table.names.get(callee.name, "")).packed_method and len(args) > 2:
                args = [args[0], tuple(args[1:])]
        return self.call_primitive(callee.name, args, kwargs, node)

    def find_method(self, name: str, node: ast.AST, cls: str | None = None) -> ast.FunctionDef | None:
        """The method ``name`` of class ``cls`` (known from an annotation), else the only one in the file."""
        classes = self.module.classes
        while cls in classes:
            for m in classes[cls].body:
                if isinstance(m, ast.FunctionDef) and m.name == name:
                    self.fn_classes[id(m)] = cls
                    self.fn_modules[id(m)] = self.module
                    return m
            bases = [b.id for b in classes[cls].bases if isinstance(b, ast.Name)]
            cls = bases[0] if bases else None
        found = [
            (c.name, m) for c in classes.values() for m in c.body if isinstance(m, ast.FunctionDef) and m.name == name
        ]
        if len(found) > 1:
            owners = ", ".join(c for c, _ in found)
            raise self.error(
                "YS031",
                f"several classes in this file define {name}() ({owners}); cannot tell which: annotate the "
                f"parameter (m: {found[0][0]}) or the class attribute (layer: {found[0][0]})",
                node,
            )
        if not found:
            return None
        self.fn_classes[id(found[0][1])] = found[0][0]
        self.fn_modules[id(found[0][1])] = self.module
        return found[0][1]

    def annotated_class(self, annotation: ast.expr | None, element: bool = False) -> str | None:
        """The class an annotation names (``Model``, ``"Model"``); with ``element``, of ``list[Layer]``."""
        if annotation is None:
            return None
        if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
            try:
                annotation = ast.parse(annotation.value, mode="eval").body
            except SyntaxError:
                return None
        if element:
            if not isinstance(annotation, ast.Subscript):
                return None
            inner = annotation.slice
            annotation = inner.elts[0] if isinstance(inner, ast.Tuple) and inner.elts else inner
        if isinstance(annotation, ast.Name) and annotation.id in self.module.classes:
            return annotation.id
        return None

    def attribute_class(self, cls: str | None, attr: str, element: bool = False) -> str | None:
        """The class of ``obj.attr`` for ``obj`` of class ``cls``: from a class-level annotation
        (``layer: Linear``, ``layers: list[Linear]``) or ``self.attr = Linear(...)`` in ``__init__``."""
        classes = self.module.classes
        if cls not in classes:
            return None
        for stmt in classes[cls].body:
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == attr:
                return self.annotated_class(stmt.annotation, element)
            if isinstance(stmt, ast.FunctionDef) and stmt.name == "__init__":
                for node in ast.walk(stmt):
                    if not (isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None):
                        continue
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    if not any(isinstance(t, ast.Attribute) and t.attr == attr for t in targets):
                        continue
                    if isinstance(node, ast.AnnAssign):
                        return self.annotated_class(node.annotation, element)
                    value = node.value
                    if element and isinstance(value, ast.List | ast.Tuple) and value.elts:
                        value = value.elts[0]
                    elif element and isinstance(value, ast.ListComp):
                        value = value.elt
                    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
                        return value.func.id if value.func.id in classes else None
        return None

    def element_class(self, base: _Unresolved | _Indexed) -> str | None:
        """The class of ``base[i]``: the element annotation of the attribute ``base`` came from."""
        return base.elem if isinstance(base, _Unresolved) else None

    def as_object(self, value: _Unresolved | _Indexed, node: ast.AST) -> _Unresolved:
        """``m.layers[0]`` used as an object: ``m.layers`` is a list of objects."""
        if isinstance(value, _Unresolved):
            return value
        base = self.as_object(value.base, node) if isinstance(value.base, _Indexed) else value.base
        if base.path in self.array_inputs:
            raise self.error("YS036", f"{_dotted(base.path)} is used as an array, so it holds no objects", node)
        self.object_paths.add(base.path)
        self.object_paths.add(value.path)
        return _Unresolved(value.path, value.cls)

    def elements(self, nodes: list[ast.expr], env: dict) -> list:
        """The values of call arguments or tuple items; ``*xs`` of a tuple of known length is spread."""
        out: list = []
        for n in nodes:
            if not isinstance(n, ast.Starred):
                out.append(self.expr(n, env))
                continue
            value = self.expr(n.value, env)
            if isinstance(value, Lit) and isinstance(value.value, tuple):
                value = tuple(Lit(v) for v in value.value)
            if not isinstance(value, tuple):
                raise self.error(
                    "YS041",
                    f"*{ast.unparse(n.value)} needs a tuple or list of known length (an array's length is "
                    "known only at run time; index it)",
                    n,
                )
            out.extend(value)
        return out

    def call_local(
        self, fn: ast.FunctionDef, args: list, kwargs: dict, node: ast.Call, closure: dict | None = None
    ) -> object:
        a = fn.args
        positional = [p.arg for p in a.posonlyargs + a.args]
        params = _params_with_defaults(fn)
        names = [p.arg for p, _ in params]
        if len(args) > len(positional) and a.vararg is None:
            raise self.error("YS032", f"{fn.name}() takes {len(positional)} arguments ({len(args)} given)", node)
        env: dict[str, object] = dict(zip(positional, args))
        if a.vararg is not None:
            env[a.vararg.arg] = tuple(args[len(positional) :])  # def h(*xs): a tuple of known length
        for key, value in kwargs.items():
            if key not in names:
                raise self.error("YS032", f"{fn.name}() has no parameter {key!r}", node)
            if key in env:
                raise self.error("YS032", f"{fn.name}() got two values for {key!r}", node)
            env[key] = value
        caller = self.module
        self.module = self.fn_modules.get(id(fn), self.module)  # defaults are the callee's file's names
        try:
            for p, default in params:
                if p.arg not in env:
                    if default is None:
                        raise self.error("YS032", f"{fn.name}() is missing the argument {p.arg!r}", node)
                    env[p.arg] = self.expr(default, {})
        finally:
            self.module = caller
        if closure:  # a lambda sees the names of the scope it was defined in
            env = {**closure, **env}
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
        return self.add(prim, atoms, static, node)

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
        if name == "builtins.len" and len(args) == 1 and isinstance(args[0], tuple):
            return Lit(len(args[0]))  # len(xs) of *xs or a list written in the source
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


def lower(module: Module, name: str, table: RuleTable) -> Tape:
    """Lower function ``name`` of a fenced module to its primal tape."""
    return Lowerer(module, table).lower(name)
