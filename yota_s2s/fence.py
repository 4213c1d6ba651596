"""Stage 1, fence: source text in, a checked ``Module`` out.

Parses the file, collects what lowering needs from module level (functions,
classes, import aliases, numeric constants), picks the functions to
differentiate (``--func``, or the entry points: public top-level functions no
other function in the file calls), and rejects every unsupported construct in
every function they reach, all at once, each with its location::

    >>> m = fence("import numpy as np\\ndef f(x):\\n    return np.sum(x * x)\\n", "f.py")
    >>> m.selected, m.imports["np"]
    (['f'], 'numpy')
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field

from .errors import UserError, UserErrors, located

#: Calls that are I/O or dynamic code, refused wherever they appear.
_IMPURE_CALLS = {"print", "open", "input", "eval", "exec", "compile", "breakpoint", "__import__"}


@dataclass
class Module:
    """A parsed, fenced source file."""

    path: str
    source: str
    tree: ast.Module
    functions: dict[str, ast.FunctionDef] = field(default_factory=dict)
    classes: dict[str, ast.ClassDef] = field(default_factory=dict)
    imports: dict[str, str] = field(default_factory=dict)
    constants: dict[str, object] = field(default_factory=dict)
    selected: list[str] = field(default_factory=list)
    walked: dict[int, tuple[set[str], bool]] = field(default_factory=dict, repr=False)  # see _walk

    def line(self, n: int) -> str:
        lines = self.source.splitlines()
        return lines[n - 1] if 0 < n <= len(lines) else ""


def fence(source: str, path: str, funcs: list[str] | None = None) -> Module:
    """Parse ``source`` and check the functions to differentiate; raise ``UserErrors``."""
    try:
        tree = ast.parse(source, filename=path)
    except SyntaxError as exc:
        line = exc.lineno or 0
        lines = source.splitlines()
        text = lines[line - 1] if 0 < line <= len(lines) else None
        raise UserError("YS001", f"invalid syntax: {exc.msg}", path, line, exc.offset or 1, text) from None
    module = Module(path, source, tree)
    _collect(module)
    asyncs = {n.name: n for n in tree.body if isinstance(n, ast.AsyncFunctionDef)}
    if funcs:
        missing = [f for f in funcs if f not in module.functions]
        if missing and missing[0] in asyncs:
            raise located("YS016", "async functions are not supported", asyncs[missing[0]], path, source)
        if missing:
            known = ", ".join(sorted(module.functions)) or "none"
            raise UserError("YS003", f"no function {missing[0]!r} in {path} (functions: {known})", path)
        module.selected = list(dict.fromkeys(funcs))
    else:
        module.selected = _entry_points(module)
        if not module.selected and asyncs:
            first = next(iter(asyncs.values()))
            raise located("YS016", "async functions are not supported", first, path, source)
        if not module.selected:
            raise UserError("YS003", f"no public top-level function to differentiate in {path}", path)
    errors: list[UserError] = []
    for fn in _reachable(module):
        _Checker(module, errors).check_function(fn)
    if errors:
        raise UserErrors(sorted(errors, key=lambda e: (e.line, e.col)))
    return module


def _collect(module: Module) -> None:
    for node in module.tree.body:
        if isinstance(node, ast.FunctionDef):
            module.functions[node.name] = node
        elif isinstance(node, ast.ClassDef):
            module.classes[node.name] = node
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    module.imports[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    module.imports[top] = top
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for alias in node.names:
                module.imports[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            try:
                value = ast.literal_eval(node.value)
            except ValueError:
                continue
            value = _tuples(value)  # static parameters are hashable: lists become tuples
            if isinstance(value, int | float | complex | bool | tuple | str) or value is None:
                for t in targets:
                    if isinstance(t, ast.Name):
                        module.constants[t.id] = value


def _tuples(value: object) -> object:
    if isinstance(value, list | tuple):
        return tuple(_tuples(v) for v in value)
    return value


def _walk(module: Module, fn: ast.FunctionDef) -> tuple[set[str], bool]:
    """``(_called_names(fn), fn is a generator)``, from one walk of ``fn`` per module."""
    facts = module.walked.get(id(fn))
    if facts is None:
        facts = module.walked[id(fn)] = _called_names(fn, module.imports)
    return facts


def _called_names(fn: ast.FunctionDef, imports: dict[str, str]) -> tuple[set[str], bool]:
    """Names this function may call in the same file: ``helper(x)`` and methods ``m.forward(x)``;
    and whether it is a generator (has a ``yield``).

    ``np.mean(x)`` is a library call (``np`` is an import), not a call of the file's own ``mean``.
    """
    names = set()
    generator = False
    for node in _nodes(fn):
        if isinstance(node, ast.Yield | ast.YieldFrom):
            generator = True
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name):
                names.add(func.id)
            elif isinstance(func, ast.Attribute):
                base = func.value
                while isinstance(base, ast.Attribute):
                    base = base.value
                if not (isinstance(base, ast.Name) and base.id in imports):
                    names.add(func.attr)
    return names, generator


def _nodes(tree: ast.AST) -> Iterator[ast.AST]:
    """Every node of ``tree``, in no particular order (``ast.walk`` without its generators)."""
    todo = [tree]
    while todo:
        node = todo.pop()
        yield node
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, list):
                todo.extend(v for v in value if isinstance(v, ast.AST))
            elif isinstance(value, ast.AST):
                todo.append(value)


def _methods(module: Module) -> dict[str, list[ast.FunctionDef]]:
    out: dict[str, list[ast.FunctionDef]] = {}
    for cls in module.classes.values():
        for node in cls.body:
            if isinstance(node, ast.FunctionDef):
                out.setdefault(node.name, []).append(node)
    return out


def _entry_points(module: Module) -> list[str]:
    called: set[str] = set()
    for fn in [*module.functions.values(), *(m for ms in _methods(module).values() for m in ms)]:
        called |= _walk(module, fn)[0] - {fn.name}
    return [name for name in module.functions if not name.startswith("_") and name not in called]


def _reachable(module: Module) -> list[ast.FunctionDef]:
    methods = _methods(module)
    seen: dict[int, ast.FunctionDef] = {}
    todo = [module.functions[n] for n in module.selected]
    while todo:
        fn = todo.pop()
        if id(fn) in seen:
            continue
        seen[id(fn)] = fn
        for name in _walk(module, fn)[0]:
            if name in module.functions:
                todo.append(module.functions[name])
            todo.extend(methods.get(name, []))
    return sorted(seen.values(), key=lambda f: f.lineno)


class _Checker(ast.NodeVisitor):
    """Collects one located error per unsupported construct in a function."""

    def __init__(self, module: Module, errors: list[UserError]):
        self.module = module
        self.errors = errors

    def error(self, code: str, message: str, node: ast.AST) -> None:
        self.errors.append(located(code, message, node, self.module.path, self.module.source))

    def visit(self, node: ast.AST) -> None:  # NodeVisitor's, with the method looked up once per class
        method = _DISPATCH.get(type(node), _UNSEEN)
        if method is _UNSEEN:
            method = _DISPATCH[type(node)] = getattr(_Checker, "visit_" + type(node).__name__, None)
        if method is None:
            self.generic_visit(node)
        else:
            method(self, node)

    def generic_visit(self, node: ast.AST) -> None:  # NodeVisitor's, without iter_fields
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, ast.AST):
                        self.visit(item)
            elif isinstance(value, ast.AST):
                self.visit(value)

    def check_function(self, fn: ast.FunctionDef) -> None:
        a = fn.args
        if a.vararg or a.kwarg:
            self.error("YS010", "*args and **kwargs parameters are not supported yet", fn)
        for deco in fn.decorator_list:
            if not (isinstance(deco, ast.Name) and deco.id in ("staticmethod",)):
                self.error("YS010", "decorated functions are not supported", deco)
        body = list(fn.body)
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            body = body[1:]  # docstring
        generator = _walk(self.module, fn)[1]
        if not generator and not _ends_with_return(body):
            last = body[-1] if body else fn
            self.error("YS021", f"{fn.name}() must end with 'return <value>'", last)
        for stmt in body:
            if isinstance(stmt, ast.Return) and stmt is not body[-1]:
                self.error("YS012", "an early return needs control flow, not supported yet", stmt)
            self.visit(stmt)

    # -- statements
    def visit_Assign(self, node: ast.Assign) -> None:
        for t in node.targets:
            self._target(t)
        self.visit(node.value)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self._target(node.target)
        self.visit(node.value)
        if type(node.op) not in _BINOPS_OK:
            self.error("YS020", f"the operator {_opname(node.op)}= is not supported", node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self._target(node.target)
        if node.value is not None:
            self.visit(node.value)

    def _target(self, t: ast.expr) -> None:
        if isinstance(t, ast.Name):
            return
        if isinstance(t, ast.Tuple | ast.List):
            for e in t.elts:
                self._target(e)
            return
        if isinstance(t, ast.Subscript | ast.Attribute):
            self.error("YS017", "writing into an array or an attribute is not supported yet", t)
            return
        self.error("YS010", "unsupported assignment target", t)

    def visit_Expr(self, node: ast.Expr) -> None:
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return  # a string statement (docstring-like) has no effect
        if isinstance(node.value, ast.Yield | ast.YieldFrom | ast.Await):
            self.visit(node.value)
            return
        call = node.value
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in _IMPURE_CALLS:
            self.error("YS018", f"{call.func.id}() has side effects; remove it from the differentiated code", node)
        else:
            self.error("YS018", "this statement's value is unused: a bare call only matters for side effects", node)

    def visit_Return(self, node: ast.Return) -> None:
        if node.value is None:
            self.error("YS021", "'return' needs a value: the function's result", node)
        else:
            self.visit(node.value)

    def visit_Pass(self, node: ast.Pass) -> None:
        pass

    def _refuse(code: str, message: str):
        def visit(self: _Checker, node: ast.AST) -> None:
            self.error(code, message, node)

        return visit

    def visit_For(self, node: ast.For) -> None:
        self._loop(node)
        if not all(isinstance(n, ast.Name | ast.Tuple) for n in ast.walk(node.target) if isinstance(n, ast.expr)):
            self.error("YS011", "a loop variable is a name or a tuple of names", node.target)
        self.visit(node.iter)

    def visit_While(self, node: ast.While) -> None:
        self._loop(node)
        self.visit(node.test)

    def _loop(self, node: ast.For | ast.While) -> None:
        if node.orelse:
            self.error("YS011", f"'{'for' if isinstance(node, ast.For) else 'while'} ... else' is not supported", node)
        for stmt in node.body:
            self.visit(stmt)

    def visit_Break(self, node: ast.Break) -> None:
        pass

    visit_Continue = visit_Break
    visit_AsyncFor = _refuse("YS016", "async code is not supported")
    visit_Try = _refuse("YS013", "try/except is not supported: the gradient cannot follow exceptions")
    visit_TryStar = visit_Try
    visit_With = _refuse("YS013", "'with' blocks are not supported")
    visit_AsyncWith = _refuse("YS016", "async code is not supported")
    visit_Raise = _refuse("YS013", "'raise' is not supported in differentiated code")
    visit_Assert = _refuse("YS010", "'assert' is not supported in differentiated code; check inputs before the call")
    visit_Delete = _refuse("YS010", "'del' is not supported")
    visit_Import = _refuse("YS010", "imports inside a function are not supported; import at module level")
    visit_ImportFrom = visit_Import
    visit_Match = _refuse("YS010", "'match' is not supported")
    visit_Global = _refuse("YS015", "'global' is not supported: pass the value as a parameter")
    visit_Nonlocal = _refuse("YS015", "'nonlocal' is not supported")
    visit_FunctionDef = _refuse("YS014", "nested functions are not supported; define helpers at module level")
    visit_AsyncFunctionDef = _refuse("YS016", "async code is not supported")
    visit_ClassDef = _refuse("YS014", "classes inside functions are not supported")
    visit_Lambda = _refuse("YS014", "lambda is not supported yet; define a helper function")
    visit_Yield = _refuse("YS016", "generators (yield) are not supported")
    visit_YieldFrom = visit_Yield
    visit_Await = _refuse("YS016", "async code is not supported")

    def visit_Compare(self, node: ast.Compare) -> None:
        if len(node.ops) != 1:
            self.error("YS020", "chained comparisons (a < b < c) are not supported; combine two", node)
        elif not isinstance(node.ops[0], _COMPARE_OK):
            self.error("YS020", f"the comparison {type(node.ops[0]).__name__} is not supported", node)
        self.generic_visit(node)

    visit_BoolOp = _refuse("YS020", "'and'/'or' are not supported yet")
    visit_ListComp = _refuse("YS020", "comprehensions are not supported yet")
    visit_SetComp = visit_ListComp
    visit_DictComp = visit_ListComp
    visit_GeneratorExp = visit_ListComp
    visit_Dict = _refuse("YS020", "dict values are not supported")
    visit_Set = _refuse("YS020", "set values are not supported")
    visit_JoinedStr = _refuse("YS020", "f-strings are not supported in differentiated code")
    visit_NamedExpr = _refuse("YS020", "assignment expressions (:=) are not supported")
    visit_Starred = _refuse("YS020", "starred arguments (*args) are not supported yet")

    # -- expressions
    def visit_BinOp(self, node: ast.BinOp) -> None:
        if type(node.op) not in _BINOPS_OK:
            self.error("YS020", f"the operator {_opname(node.op)} is not supported", node)
        self.generic_visit(node)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> None:
        if not isinstance(node.op, ast.USub | ast.UAdd):
            self.error("YS020", f"the operator {_opname(node.op)} is not supported", node)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        if isinstance(node.func, ast.Name) and node.func.id in _IMPURE_CALLS:
            self.error("YS018", f"{node.func.id}() is I/O or dynamic code, not supported", node)
        for kw in node.keywords:
            if kw.arg is None:
                self.error("YS020", "**kwargs in calls is not supported yet", kw.value)
        self.generic_visit(node)


_DISPATCH: dict[type, object] = {}  # node class -> _Checker.visit_<class> or None (generic_visit)
_UNSEEN = object()
_COMPARE_OK = (ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq)
_BINOPS_OK = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow, ast.MatMult)
_OPNAMES = {
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.LShift: "<<",
    ast.RShift: ">>",
    ast.BitOr: "|",
    ast.BitXor: "^",
    ast.BitAnd: "&",
    ast.Not: "not",
    ast.Invert: "~",
}


def _ends_with_return(body: list[ast.stmt]) -> bool:
    """Every path through ``body`` ends with ``return <value>``."""
    if not body:
        return False
    last = body[-1]
    if isinstance(last, ast.Return):
        return last.value is not None
    if isinstance(last, ast.If):
        return _ends_with_return(last.body) and _ends_with_return(last.orelse)
    return False


def _opname(op: ast.AST) -> str:
    return _OPNAMES.get(type(op), type(op).__name__)
