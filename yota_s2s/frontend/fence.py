"""Stage 1, fence: source text in, a checked ``Module`` out.

Parses the file, collects what lowering needs from module level (functions,
classes, import aliases, the values of module-level names: ``module_level``), picks the functions to
differentiate (``--func``, or the entry points: public top-level functions no
other function in the file calls), and rejects every unsupported construct in
every function they reach, all at once, each with its location::

    >>> m = fence("import numpy as np\\ndef f(x):\\n    return np.sum(x * x)\\n", "f.py")
    >>> m.selected, m.imports["np"]
    (['f'], 'numpy')
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from ..errors import UserError, UserErrors, located
from .complexes import complex_errors
from .desugar import desugar
from .generated import generated_helpers, guard_lines
from .keyed_loops import keyed_loops
from .module_level import ModuleLevel, lambda_function
from .rewrites import generators_as_lists

__all__ = ["Module", "check_functions", "fence", "lambda_function", "parse_module", "walk"]

#: Calls that are I/O, refused wherever they appear (YS038).
_IO_CALLS = {"open", "input", "breakpoint"}
#: Calls that run code built at run time, refused wherever they appear (YS039).
_DYNAMIC_CALLS = {"eval", "exec", "compile", "__import__"}


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
    #: Module-level ``np.array([...])`` of constants: name -> its items (``constants.array_value``).
    arrays: dict[str, tuple] = field(default_factory=dict)
    #: Other module-level names bound by an expression (``GRID = np.linspace(0, 1, 9)``): name ->
    #: the expression, lowered where a function reads the name (``names.module_static``).
    statics: dict[str, ast.expr] = field(default_factory=dict)
    #: The statement that binds a static (its first line), for the comments of generated code.
    static_texts: dict[str, str] = field(default_factory=dict)
    #: Module-level names whose value the tool does not follow: name -> (statement, why), refused
    #: (YS048) where a function reads the name (``module_level``).
    refused: dict[str, tuple[ast.AST, str]] = field(default_factory=dict)
    #: Module-level statements read as functions (``module_blocks``): their names -> the function.
    blocks: dict[str, ast.FunctionDef] = field(default_factory=dict)
    #: The statics to lower before a draw of a seeded generator, in the module's order.
    before: dict[str, tuple[str, ...]] = field(default_factory=dict)
    selected: list[str] = field(default_factory=list)
    walked: dict[int, tuple[set[str], bool]] = field(default_factory=dict, repr=False)  # see _walk
    #: id of a function -> (the function, its nodes in ``ast.walk``'s order): see ``nodes_of``
    walks: dict[int, tuple[ast.AST, list[ast.AST]]] = field(default_factory=dict, repr=False)
    #: In a module yota-s2s generated, its runtime helpers, each lowered as a primitive (``generated``).
    helpers: dict[str, str | None] | None = field(default=None, repr=False)
    #: The generator functions, written as functions that return the list of what they yield
    #: (``rewrites.generators_as_lists``): id of the function -> its first ``yield``.
    generators: dict[int, ast.AST] = field(default_factory=dict, repr=False)

    def nodes_of(self, fn: ast.AST) -> list[ast.AST]:
        """``list(ast.walk(fn))``, walked once per function of the module (the fence's checks
        each read every node of each function: a 10,000-term polynomial has 200,000 of them)."""
        found = self.walks.get(id(fn))
        if found is None or found[0] is not fn:
            found = self.walks[id(fn)] = (fn, walk(fn))
        return found[1]

    def line(self, n: int) -> str:
        lines = self.source.splitlines()
        return lines[n - 1] if 0 < n <= len(lines) else ""


def parse_module(source: str, path: str) -> Module:
    """Parse ``source`` and collect its module-level names (no function is checked yet)."""
    try:
        tree = ast.parse(source, filename=path)
    except SyntaxError as exc:
        line = exc.lineno or 0
        lines = source.splitlines()
        text = lines[line - 1] if 0 < line <= len(lines) else None
        raise UserError("YS001", f"invalid syntax: {exc.msg}", path, line, exc.offset or 1, text) from None
    desugar(tree, source)  # match, walrus, try (only where the source can hold them)
    keyed_loops(tree, source)  # for k in params: params[k] -> for k, _params_k in params.items()
    generators = generators_as_lists(tree) if "yield" in source else {}  # (a walk of every node: only where one may be)
    module = Module(path, source, tree, generators=generators)
    _collect(module)
    return module


def fence(source: str, path: str, funcs: list[str] | None = None) -> Module:
    """Parse ``source`` and check the functions to differentiate; raise ``UserErrors``."""
    module = parse_module(source, path)
    tree = module.tree
    asyncs = {n.name: n for n in tree.body if isinstance(n, ast.AsyncFunctionDef)}
    if funcs:
        missing = [f for f in funcs if f not in module.functions]
        if missing and missing[0] in asyncs:
            raise located("YS037", "async functions are not supported", asyncs[missing[0]], path, source)
        if missing:
            known = ", ".join(sorted(module.functions)) or "none"
            raise UserError("YS003", f"no function {missing[0]!r} in {path} (functions: {known})", path)
        module.selected = list(dict.fromkeys(funcs))
    else:
        module.selected = _entry_points(module)
        if not module.selected and asyncs:
            first = next(iter(asyncs.values()))
            raise located("YS037", "async functions are not supported", first, path, source)
        if not module.selected:
            raise UserError("YS003", f"no public top-level function to differentiate in {path}", path)
    errors: list[UserError] = [
        located("YS016", "a generator's value is an iterator, not a number: return sum(...) of it", first, path, source)
        for first in (module.generators.get(id(module.functions[f])) for f in module.selected)
        if first is not None
    ]
    for fn in _reachable(module):
        _Checker(module, errors).check_function(
            fn, entry=fn.name in module.selected and module.functions.get(fn.name) is fn
        )
        guards = guard_lines(module, fn)  # (a generated function's argument checks are not lowered)
        errors += [e for e in complex_errors(module, fn) if e.line not in guards]
    if errors:
        raise UserErrors(sorted(errors, key=lambda e: (e.line, e.col)))
    return module


#: The methods that set the attributes of the object being made (``self.area = area``).
CONSTRUCTORS = ("__init__", "__post_init__")


def _collect(module: Module) -> None:
    ModuleLevel(module).run(module.tree.body)


def check_functions(module: Module, fns: list[ast.FunctionDef]) -> None:
    """Fence more functions of ``module`` (helpers imported from another file); raise ``UserErrors``."""
    errors: list[UserError] = []
    for fn in fns:
        _Checker(module, errors).check_function(fn)
        guards = guard_lines(module, fn)
        errors += [e for e in complex_errors(module, fn) if e.line not in guards]
    if errors:
        raise UserErrors(sorted(errors, key=lambda e: (e.line, e.col)))


def _walk(module: Module, fn: ast.FunctionDef) -> tuple[set[str], bool]:
    """``(_called_names(fn), fn is a generator)``, from one walk of ``fn`` per module."""
    facts = module.walked.get(id(fn))
    if facts is None:
        facts = module.walked[id(fn)] = _called_names(module.nodes_of(fn), module.imports)
    return facts


def _called_names(nodes: list[ast.AST], imports: dict[str, str]) -> tuple[set[str], bool]:
    """Names the function of ``nodes`` may call in the same file: ``helper(x)`` and methods
    ``m.forward(x)``; and whether it is a generator (has a ``yield``).

    ``np.mean(x)`` is a library call (``np`` is an import), not a call of the file's own ``mean``.
    """
    names = set()
    generator = False
    for node in nodes:
        kind = type(node)  # (a node class has no subclasses: compared, not isinstance'd, per node)
        if kind is ast.Yield or kind is ast.YieldFrom:
            generator = True
        elif kind is ast.Call:
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


def walk(tree: ast.AST) -> list[ast.AST]:
    """``list(ast.walk(tree))``, the same nodes in the same (breadth-first) order, in half its time
    (no generator per node).

    >>> [type(n).__name__ for n in walk(ast.parse("f(x) + 1", mode="eval"))]
    ['Expression', 'BinOp', 'Call', 'Add', 'Constant', 'Name', 'Name', 'Load', 'Load']
    """
    out = [tree]
    append, extend = out.append, out.extend
    for node in out:  # (the list grows while it is read: each node's children go to its end)
        for name in node._fields:
            value = getattr(node, name, None)
            if type(value) is list:
                extend([v for v in value if isinstance(v, ast.AST)])
            elif isinstance(value, ast.AST):
                append(value)
    return out


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
    return [
        name
        for name, fn in module.functions.items()
        if not name.startswith("_") and name not in called and not getattr(fn, "is_lambda", False)
    ]


def _reachable(module: Module) -> list[ast.FunctionDef]:
    methods = _methods(module)
    helpers = generated_helpers(module)  # (lowered as primitives: their bodies are not read)
    seen: dict[int, ast.FunctionDef] = {}
    todo = [module.functions[n] for n in module.selected]
    while todo:
        fn = todo.pop()
        if id(fn) in seen or (fn.name in helpers and module.functions.get(fn.name) is fn):
            continue
        seen[id(fn)] = fn
        for name in _walk(module, fn)[0]:
            if name in module.functions:
                todo.append(module.functions[name])
            todo.extend(methods.get(name, []))
            if name in module.classes and name not in module.functions:  # Exchanger(...): its __init__
                todo.extend(m for c in CONSTRUCTORS for m in methods.get(c, []))
    return sorted(seen.values(), key=lambda f: f.lineno)


class _Checker(ast.NodeVisitor):
    """Collects one located error per unsupported construct in a function."""

    def __init__(self, module: Module, errors: list[UserError]):
        self.module = module
        self.errors = errors
        self.constructing: str | None = None  # self, in __init__: its attributes may be set

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
            elif isinstance(value, ast.AST) and not isinstance(value, _LEAVES):
                self.visit(value)

    def check_function(self, fn: ast.FunctionDef, entry: bool = False) -> None:
        a = fn.args
        if fn.name in CONSTRUCTORS and a.args:  # self.area = area: the object being made
            self.constructing = a.args[0].arg
        if a.kwarg:
            self.error("YS010", "**kwargs parameters are not supported; name the parameters", fn)
        if a.vararg and entry:
            self.error(
                "YS010", f"{fn.name}() is differentiated, so its parameters need names (*{a.vararg.arg} has none)", fn
            )
        if getattr(fn, "is_lambda", False):
            self.visit(fn.body[0].value)
            return
        for deco in fn.decorator_list:
            if not (isinstance(deco, ast.Name) and deco.id in ("staticmethod", "classmethod")):
                self.error("YS010", "decorated functions are not supported", deco)
        body = list(fn.body)
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            body = body[1:]  # docstring
        for stmt in body:
            if isinstance(stmt, ast.Return) and stmt is not body[-1]:
                self.error("YS012", "an early return needs control flow, not supported yet", stmt)
            self.visit(stmt)

    # -- statements
    def visit_Assign(self, node: ast.Assign) -> None:
        for t in node.targets:
            if len(node.targets) == 1 and _one_starred_name(t):  # first, *rest = xs (frontend/rewrites.py)
                t = ast.Tuple([e for e in t.elts if not isinstance(e, ast.Starred)], ast.Store())
            self._target(t)
        if isinstance(node.value, ast.Lambda) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            self.visit(node.value.args)  # sq = lambda t: t * t is a helper; inlined where it is called
            self.visit(node.value.body)
            return
        self.visit(node.value)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self._target(node.target)
        self.visit(node.value)

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
        if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == self.constructing:
            return  # self.area = area in __init__ (frontend/instances.py)
        base = t
        while isinstance(base, ast.Subscript):
            base = base.value
        if isinstance(base, ast.Attribute):
            obj = base
            while isinstance(obj, ast.Attribute | ast.Subscript):
                obj = obj.value
            owner = obj.id if isinstance(obj, ast.Name) else "the object"
            self.error(
                "YS042",
                f"this changes the object {owner} (it writes {ast.unparse(t)}): the result would not be a "
                f"function of the arguments; return the new value instead",
                t,
            )
            return
        if isinstance(t, ast.Subscript):
            if not isinstance(t.value, ast.Name):
                self.error("YS017", "write into an array with one subscript: a[i, j] = v, not a[i][j] = v", t)
                return
            self.visit(t.slice)
            return
        if isinstance(t, ast.Starred):
            self.error("YS041", "starred unpacking (a, *rest = ...) is not supported; unpack by index", t)
            return
        self.error("YS010", "unsupported assignment target", t)

    def visit_Expr(self, node: ast.Expr) -> None:
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return  # a string statement (docstring-like) has no effect
        if isinstance(node.value, ast.Yield | ast.YieldFrom | ast.Await):
            self.visit(node.value)
            return
        self.visit(node.value)  # a call for its effect (print, assert-like helpers): lowering decides

    def visit_Return(self, node: ast.Return) -> None:
        if node.value is not None:  # a bare return gives None, as it does in Python
            self.visit(node.value)

    def visit_Pass(self, node: ast.Pass) -> None:
        pass

    def visit_Constant(self, node: ast.Constant) -> None:  # (NodeVisitor's checks deprecated classes)
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
        for stmt in node.body + node.orelse:
            self.visit(stmt)

    def visit_Break(self, node: ast.Break) -> None:
        pass

    visit_Continue = visit_Break
    visit_AsyncFor = _refuse("YS037", "async code is not supported")
    visit_Try = _refuse("YS013", "try/except is not supported: the gradient cannot follow exceptions")
    visit_TryStar = visit_Try
    visit_With = _refuse("YS013", "'with' blocks are not supported")
    visit_AsyncWith = _refuse("YS037", "async code is not supported")
    visit_Delete = _refuse("YS010", "'del' is not supported")
    visit_Import = _refuse("YS010", "imports inside a function are not supported; import at module level")
    visit_ImportFrom = visit_Import
    visit_Match = _refuse("YS010", "'match' is not supported")
    visit_Global = _refuse("YS015", "'global' is not supported: pass the value as a parameter, return the new one")
    visit_Nonlocal = _refuse("YS015", "'nonlocal' is not supported: pass the value as a parameter, return the new one")

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:  # a nested function: inlined where it is called
        self.check_function(node)

    visit_AsyncFunctionDef = _refuse("YS037", "async code is not supported")
    visit_ClassDef = _refuse(
        "YS014", "a class defined inside a function that reads its names (or in a block) is not supported"
    )

    def visit_Lambda(self, node: ast.Lambda) -> None:  # inlined where it is called
        self.visit(node.body)

    visit_Yield = _refuse("YS016", "generators (yield) are not supported: return a tuple or an array of the values")
    visit_YieldFrom = visit_Yield
    visit_Await = _refuse("YS037", "async code is not supported")

    def visit_ListComp(self, node: ast.ListComp | ast.GeneratorExp) -> None:
        if any(gen.is_async for gen in node.generators):
            self.error("YS037", "async code is not supported", node)
        for gen in node.generators:
            self._target(gen.target)
        self.generic_visit(node)

    visit_GeneratorExp = visit_ListComp
    visit_NamedExpr = _refuse("YS020", "assignment expressions (:=) are not supported")

    # -- expressions
    def visit_Call(self, node: ast.Call) -> None:
        name = node.func.id if isinstance(node.func, ast.Name) else None
        if name in _IO_CALLS:
            self.error("YS038", f"{name}() reads input: read it in the caller and pass the value as an argument", node)
        elif name in _DYNAMIC_CALLS:
            self.error("YS039", f"{name}() runs code built at run time, which cannot be differentiated", node)
        for kw in node.keywords:
            if kw.arg is None:
                self.error("YS020", "**kwargs in calls is not supported yet", kw.value)
        self.generic_visit(node)


#: Nodes without fields that the checker has nothing to say about (a name's ``Load``, a sum's ``Add``:
#: most of a big function's nodes), not visited.
_LEAVES = (ast.expr_context, ast.operator, ast.unaryop, ast.boolop)
assert not any(hasattr(_Checker, "visit_" + t.__name__) for b in _LEAVES for t in b.__subclasses__())

_DISPATCH: dict[type, object] = {}  # node class -> _Checker.visit_<class> or None (generic_visit)
_UNSEEN = object()


def _one_starred_name(t: ast.expr) -> bool:
    """``t`` is a tuple or list target with one starred name (``first, *rest = xs``)."""
    stars = [e for e in t.elts if isinstance(e, ast.Starred)] if isinstance(t, ast.Tuple | ast.List) else []
    return len(stars) == 1 and isinstance(stars[0].value, ast.Name)
