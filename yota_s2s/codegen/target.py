"""Backends: how each primitive is written in a target's Python (an ``ast.expr``).

A backend is a name table; targets differ only in names (``np`` vs ``cp``,
``scipy.special`` vs ``cupyx.scipy.special``).  ``expression(eqn, args)`` builds
the expression of one equation from the expressions of its arguments; the
writer and the interpreter both use it, so what the tests run through the
interpreter is what the generated file says.

A backend with an ``api`` (CuPy's, from ``cupy_api.json``) checks each expression
against it as it is built: a function or keyword the target lacks is a located
error (YS040) at generation time, not a failure on the GPU.

    >>> import ast
    >>> from yota_s2s.ir.core import Eqn, Var
    >>> from yota_s2s.dsl.load import load_rules
    >>> e = Eqn("sum", [Var()], {"axis": 1, "keepdims": False}, [Var()])
    >>> ast.unparse(NUMPY.expression(e, [ast.Name("x")], load_rules()["sum"]))
    'np.sum(x, axis=1)'
"""

from __future__ import annotations

import ast
import copy
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Self

from ..dsl.rule import Rule
from ..errors import InternalError, at_span
from ..ir.core import Dyn, Eqn, Lit, Section, Slice
from ..ir.primitives import STATIC_LIBRARY, STATIC_OPERAND, primitive
from .cupy_api import CupyApi
from .cupy_api import load as load_cupy_api
from .helpers import _runtime_functions, helper_closure, helper_for, helper_source

#: Source names a primitive is never written as: ``by_source_name`` calls the first other one.
NOT_CALLED = ("ndarray.", "operator.", "builtins.", "math.")


def constant(value: object) -> ast.expr:
    """The expression of a constant (numbers, None, strings, tuples, index items)."""
    if isinstance(value, tuple):
        return ast.Tuple([constant(v) for v in value], ast.Load())
    if isinstance(value, Slice):
        return ast.Call(
            ast.Name("slice", ast.Load()), [constant(value.start), constant(value.stop), constant(value.step)], []
        )
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        text = "nan" if math.isnan(value) else "inf"
        node = ast.Call(ast.Name("float", ast.Load()), [ast.Constant(text)], [])
        return ast.UnaryOp(ast.USub(), node) if value < 0 else node
    if isinstance(value, int | float) and not isinstance(value, bool) and value < 0:
        return ast.UnaryOp(ast.USub(), ast.Constant(-value))
    return ast.Constant(value)


class Folded(float):
    """A float folded from constants, written as the expression it was folded from (``Lit.text``,
    in parentheses: ``(3 * 0.05)``), which Python evaluates to the same float.  It is a float
    everywhere else: the passes that read constants see its value."""

    text: str

    def __new__(cls, value: float, text: str = "") -> Self:
        obj = float.__new__(cls, value)
        obj.text = text
        return obj

    def __repr__(self) -> str:
        return f"({self.text})" if self.text else float.__repr__(self)


def literal(lit: Lit) -> ast.expr:
    """The expression of a constant argument: its value (``constant``), or the expression a float
    was folded from where its repr would not read as the source wrote it (``Lit.text``)."""
    if lit.text is not None and type(lit.value) is float:
        return ast.Constant(Folded(lit.value, lit.text))
    return constant(lit.value)


def dotted(name: str) -> ast.expr:
    """``a.b.c`` as an expression."""
    root, *parts = name.split(".")
    node: ast.expr = ast.Name(root, ast.Load())
    for part in parts:
        node = ast.Attribute(node, part, ast.Load())
    return node


def index_expr(index: tuple, dynamic: Sequence[ast.expr] = ()) -> ast.expr:
    """The subscript of ``x[index]`` in source form: ``3``, ``1:3``, ``:, None``, ``i, :``."""

    def item(i: object) -> ast.expr:
        if isinstance(i, Slice):  # a computed bound is the Dyn of an operand
            bounds = (i.start, i.stop, i.step)
            return ast.Slice(
                *(None if p is None else dynamic[p.k] if isinstance(p, Dyn) else constant(p) for p in bounds)
            )
        if isinstance(i, Dyn):
            return dynamic[i.k]
        return constant(i)

    if len(index) == 1:
        return item(index[0])
    return ast.Tuple([item(i) for i in index], ast.Load())


@dataclass(frozen=True)
class Backend:
    """One target: the array module, its alias, and per-primitive overrides.

    ``renames``: library prefixes written under another name (``scipy.`` -> ``cupyx.scipy.``).
    ``api``: a function returning the API the written names are checked against (None: not checked).
    The other fields are what the target can do; the code generator asks them, never the target's name.
    """

    module: str
    alias: str
    overrides: dict[str, Callable] = field(default_factory=dict)
    renames: tuple[tuple[str, str], ...] = ()
    api: Callable[[], CupyApi] | None = None
    #: The array module is the arguments' own, found where the function runs (``xp, x = _namespace(x)``).
    namespace_at_run_time: bool = False
    #: The runtime helpers' variant (``runtime/<variant>/``: ``array_api``), "" for the plain ones.
    helper_variant: str = ""
    #: The module has NumPy's whole API (``np.ndim``, ``np.copy``, ``np.s_``), not only the standard's.
    numpy_api: bool = True
    #: Arrays may be written in place (``dx[3] += g``, a buffer filled by its writes, a Jacobian's rows
    #: written into one array): JAX's arrays may not.
    in_place: bool = True
    #: A value known to be an array is written with its methods (``x.sum()``, ``x.T``).
    methods: bool = True
    #: Its arrays have NumPy's dtypes and scalars: arguments are checked real floating, elements are
    #: read from a list of Python floats, 0-d gradients are made numbers (the standard has no scalars).
    scalars: bool = True
    #: Arrays live in host memory (NumPy): ``x.tolist()``, ``np.fromiter``, ``_FLOATS``, the forms that
    #: read elements in Python (a batch of points, blocks of columns, ``--buffers``) are cheap; on a GPU
    #: ``tolist()`` copies to the host.
    host: bool = True
    #: Complex arguments of a complex derivative are made complex (``_complex_arg``), and the complex
    #: Jacobian's rows are stacked by its helpers.
    complex_arguments: bool = True
    #: The forms with a leading axis of rows have their helpers (``runtime/rows.py``): ``hess_NAME``'s
    #: batched sweep, ``jac_NAME``'s forward columns chosen when it runs.
    batched_rows: bool = True
    #: Primitives written by their library function (``cupyx.scipy.special.erf``: a CUDA ufunc)
    #: although a runtime helper writes them with the array module alone (``runtime/special.py``).
    library_functions: frozenset[str] = frozenset()

    def index_value(self, params: dict, dynamic: Sequence[ast.expr]) -> ast.expr:
        """An index as a value (for ``np.add.at``): ``3``, ``i`` or ``np.s_[1:, i]``."""
        index = params["index"]
        if len(index) == 1 and not isinstance(index[0], Slice) and index[0] is not Ellipsis:
            return index_expr(index, dynamic)
        return ast.Subscript(self.attr("s_"), index_expr(index, dynamic), ast.Load())

    def attr(self, name: str) -> ast.expr:
        """``np.NAME``, with a dotted ``NAME`` as nested attributes (``np.linalg.inv``)."""
        return dotted(f"{self.alias}.{name}")

    def call(self, name: str, args: list[ast.expr], keywords: dict[str, object] | None = None) -> ast.expr:
        kws = [ast.keyword(k, constant(v)) for k, v in (keywords or {}).items()]
        return ast.Call(self.attr(name), list(args), kws)

    def expression(
        self,
        eqn: Eqn,
        args: list[ast.expr],
        rule: Rule | None,
        arrays: Sequence[bool] = (),
        imports: set[str] | None = None,
    ) -> ast.expr:
        """``eqn`` as an expression over ``args``; ``rule`` is its primitive's rule (None: a primitive
        of ``ir.primitives.ROW_PRIMITIVES``, which has none).

        A primitive from another library (``scipy.special.erf``, a user's ``mylib.f``) is
        called by its source name; its module is added to ``imports``.

        ``arrays[i]`` says argument ``i`` is known to be a NumPy value, so ``x.T`` may be
        written for ``np.transpose(x)`` and ``x.sum()`` for ``np.sum(x)`` (a Python float has
        neither).
        """
        expr = self._expression(eqn, args, rule, arrays, imports)
        if self.api is not None:
            self._check(eqn, expr, args)
        return expr

    def _expression(
        self, eqn: Eqn, args: list[ast.expr], rule: Rule | None, arrays: Sequence[bool], imports: set[str] | None
    ) -> ast.expr:
        prim, params = eqn.prim, eqn.params
        record = primitive(prim)
        if record.operator is not None and issubclass(record.operator, ast.operator):
            return ast.BinOp(args[0], record.operator(), args[1])
        if record.operator is not None and issubclass(record.operator, ast.unaryop):
            return ast.UnaryOp(record.operator(), args[0])
        if prim == "static":
            return self.template(eqn, args, imports)
        if prim == "list_make":
            return ast.List(list(args), ast.Load())
        if prim == "list_append":  # a new list ([*lst, v]); the writer appends in place when it can
            return ast.List([ast.Starred(args[0], ast.Load()), args[1]], ast.Load())
        if prim == "list_stack" or prim == "stack" and self.host and not params.get("axis"):
            # np.array([a, b]) as the source wrote it: np.stack costs ten times more on numbers
            return self.call("array", args if prim == "list_stack" else [ast.List(list(args), ast.Load())])
        if prim == "astype":  # x.astype(float): the source calls it on an array
            return ast.Call(ast.Attribute(args[0], "astype", ast.Load()), [constant(params["dtype"])], [])
        if prim == "getindex" or prim == "take" and self.host and _take_at(eqn):
            # np.take(g, 1, axis=0) as g[1] (a view, as x[1] is: 0.1 µs, np.take's wrapper 2 µs)
            index = params["index"] if prim == "getindex" else _take_at(eqn)
            return ast.Subscript(args[0], index_expr(index, args[1:] if prim == "getindex" else []), ast.Load())
        if prim == "transpose":
            if params["axes"] is not None:
                return self.call("transpose", args, {"axes": params["axes"]})
            if arrays and arrays[0]:
                return ast.Attribute(args[0], "T", ast.Load())
            return self.call("transpose", args)
        if record.operator is not None and issubclass(record.operator, ast.cmpop):
            return ast.Compare(args[0], [record.operator()], [args[1]])
        if prim == "keep_axes":  # _keep_axes(g, x, axis): none for a 0-d x (np.max(number, axis=0))
            if params["axis"] is None or params["keepdims"]:
                return args[0]
            return ast.Call(ast.Name("_keep_axes", ast.Load()), [*args, constant(params["axis"])], [])
        if prim == "unreduce":  # _unreduce(g, x): np.full_like(x, g) in the dtype of x + g
            g, x = args
            if params["axis"] is not None and not params["keepdims"]:
                g = self.call("expand_dims", [g], {"axis": params["axis"]})
            return ast.Call(ast.Name("_unreduce", ast.Load()), [g, x], [])
        if prim in ("index_add", "setindex"):
            return ast.Call(ast.Name(f"_{prim}", ast.Load()), [*args[:2], self.index_value(params, args[2:])], [])
        if prim == "broadcast":  # np.broadcast(x, y, ...): its operands one by one, not a list
            return self.call("broadcast", args)
        if prim == "einsum":  # np.einsum("ij,jk->ik", a, b): the subscripts first
            return self.call("einsum", [constant(params["subscripts"]), *args])
        helper = helper_for(prim) if prim not in self.library_functions else None
        if rule is None:  # a row-by-row primitive (ir.batching): its helper, statics by keyword
            return ast.Call(
                ast.Name(helper, ast.Load()), args, [ast.keyword(k, constant(v)) for k, v in params.items()]
            )
        keywords = {k: v for k, v in params.items() if k not in rule.static or rule.static[k] != v}
        if rule.variadic:  # np.concatenate([a, b], ...): the variadic operands as one list
            n = len(rule.operands)
            args = [*args[:n], ast.List(list(args[n:]), ast.Load())]
        if record.attribute and arrays and arrays[0] and len(args) == 1 and not keywords:
            return ast.Attribute(args[0], record.attribute, ast.Load())  # z.size: 0.02 µs, np.size(z) 0.15
        if record.method and arrays and arrays[0]:  # z.sum(axis=1): np.sum's wrapper costs 1 µs
            kws = [ast.keyword(k, constant(v)) for k, v in keywords.items()]
            return ast.Call(ast.Attribute(args[0], record.method, ast.Load()), list(args[1:]), kws)
        if helper is not None:  # statics by keyword: _diag_dv(g, v, k=0)
            kws = [ast.keyword(k, constant(v)) for k, v in params.items()]
            return ast.Call(ast.Name(helper, ast.Load()), args, kws)
        return self.by_source_name(rule, args, keywords, imports)

    def template(self, eqn: Eqn, args: list[ast.expr], imports: set[str] | None) -> ast.AST:
        """A ``static`` expression or an ``effect`` statement (rules/python.py): its ``code`` with
        the operands' expressions and the library names written in (``np.linspace``, ``len``)."""
        tree: ast.AST = ast.parse(eqn.params["code"]).body[0]
        if eqn.prim == "static":
            tree = tree.value
        modules = eqn.params["modules"]
        backend = self

        class Fill(ast.NodeTransformer):
            def visit_Name(self, node: ast.Name) -> ast.expr:
                if node.id.startswith(STATIC_OPERAND):
                    return copy.deepcopy(args[int(node.id[len(STATIC_OPERAND) :])])
                if node.id.startswith(STATIC_LIBRARY):
                    return backend.library_name(modules[int(node.id[len(STATIC_LIBRARY) :])], imports)
                return node

        return ast.fix_missing_locations(Fill().visit(tree))

    def library_name(self, name: str, imports: set[str] | None) -> ast.expr:
        """A library name in passed-through code: ``len``, ``np.linspace``, ``math.floor`` (``math``
        imported), the array module itself."""
        if name.startswith("builtins."):
            return ast.Name(name[len("builtins.") :], ast.Load())
        if name == "numpy" or name.startswith("numpy."):
            return dotted(self.alias + name[len("numpy") :])
        for prefix, renamed in self.renames:  # scipy.special.erf -> cupyx.scipy.special.erf
            if name.startswith(prefix):
                name = renamed + name[len(prefix) :]
                break
        if imports is not None:
            imports.add(name if "." not in name else name.rsplit(".", 1)[0])
        return dotted(name)

    def by_source_name(self, rule: Rule, args: list[ast.expr], keywords: dict, imports: set[str] | None) -> ast.expr:
        """Call the function a rule's first library source name names.

        ``numpy.X`` is written against the target's module; ``scipy.special.erf`` and a user's
        ``mylib.f`` as themselves (their module imported); ``numpy.linalg.slogdet#1`` is
        element 1 of ``np.linalg.slogdet(...)``.
        """
        names = [n for n in rule.names if not n.startswith(NOT_CALLED)]
        if not names:
            builtin = next((n for n in rule.names if n.startswith("builtins.")), None)
            if builtin is None:
                raise KeyError(f"the {self.module} backend cannot write primitive {rule.name!r}")
            return ast.Call(ast.Name(builtin[len("builtins.") :], ast.Load()), list(args), [])  # len(x)
        name, _, element = names[0].partition("#")
        kws = [ast.keyword(k, constant(v)) for k, v in keywords.items()]
        if name.startswith("numpy."):
            call = ast.Call(self.attr(name[len("numpy.") :]), list(args), kws)
        else:
            for prefix, renamed in self.renames:  # scipy.special.erf -> cupyx.scipy.special.erf
                if name.startswith(prefix):
                    name = renamed + name[len(prefix) :]
                    break
            module = name.rsplit(".", 1)[0]
            if imports is not None:
                imports.add(module)
            call = ast.Call(dotted(name), list(args), kws)
        return ast.Subscript(call, ast.Constant(int(element)), ast.Load()) if element else call

    # ------------------------------------------------------------------ checking against the target's API
    def _check(self, eqn: Eqn, expr: ast.expr, args: Sequence[ast.expr]) -> None:
        """Raise a located YS040 when ``expr`` (``args`` aside) or a helper it calls needs what the target lacks."""
        skip = {id(a) for a in args}  # the arguments were checked when they were built
        problem = next(iter(self.problems(expr, skip)), None)
        if problem is None:
            helpers = {n.id for n in _walk(expr, skip) if isinstance(n, ast.Name) and n.id in _runtime_functions()}
            for helper in helper_closure(helpers):
                found = self._helper_problems(helper)
                if found:
                    problem = f"{found[0]} (in the helper {helper})"
                    break
        if problem is None:
            return
        what = "the gradient of this" if eqn.section == Section.BACKWARD else "this"
        raise at_span("YS040", f"the {self.module} target cannot write {what}: {problem}", eqn.span)

    def problems(self, tree: ast.AST, skip: set[int] = frozenset()) -> list[str]:
        """What the target's API lacks of the names ``tree`` uses (``np.X``, and ``cupyx.X`` of renamed libraries)."""
        if self.api is None:
            return []
        return self._problems(_target_uses(tree, self._roots(), skip))

    def _roots(self) -> tuple[tuple[str, str], ...]:
        """The names that start a target name in the output: ``cp`` (for ``cupy``), ``cupyx``."""
        return ((self.alias, self.module), *((r.split(".")[0], r.split(".")[0]) for _, r in self.renames))

    def _problems(self, uses: list[tuple[str, tuple | None]]) -> list[str]:
        api = self.api()
        found: list[str] = []
        for name, call in uses:
            problem = api.lacks(name) if call is None else api.problem(name, *call)
            if problem is not None and problem not in found:
                found.append(problem)
        return found

    def _helper_problems(self, helper: str) -> list[str]:
        key = (helper, self._roots())
        if key not in _HELPER_USES:  # the names a helper uses do not depend on the API: parse it once
            _HELPER_USES[key] = _target_uses(ast.parse(helper_source(helper, self.alias)), self._roots())
        return self._problems(_HELPER_USES[key])

    def check_module(self, text: str) -> None:
        """Every target name a generated module uses exists and takes its arguments (else a bug of ours).

        Only for a target with an ``api``: a NumPy module is not parsed again.
        """
        if self.api is None:
            return
        found = self.problems(ast.parse(text))
        if found:
            raise InternalError(f"the generated {self.module} module uses what the target lacks: {found[0]}")


#: (helper, roots) -> the target names the helper uses (as ``_target_uses`` lists them)
_HELPER_USES: dict[tuple, list[tuple[str, tuple | None]]] = {}


def _target_uses(
    tree: ast.AST, roots: tuple[tuple[str, str], ...], skip: set[int] = frozenset()
) -> list[tuple[str, tuple | None]]:
    """The target names ``tree`` uses: ``(name, (positional count, keywords))`` for a call, ``(name, None)``
    for a name read (``cp.inf``); the positional count is None for ``f(*xs)``."""
    table = dict(roots)
    nodes = list(_walk(tree, skip))
    called = {id(n.func) for n in nodes if isinstance(n, ast.Call)}
    prefixes = {id(n.value) for n in nodes if isinstance(n, ast.Attribute)}  # the cp.linalg of cp.linalg.inv
    uses: list[tuple[str, tuple | None]] = []
    for node in nodes:
        if isinstance(node, ast.Call):
            name = _dotted_name(node.func, table)
            if name is not None:
                starred = any(isinstance(a, ast.Starred) for a in node.args)
                keywords = tuple(k.arg for k in node.keywords if k.arg is not None)
                uses.append((name, (None if starred else len(node.args), keywords)))
        elif isinstance(node, ast.Attribute) and id(node) not in called and id(node) not in prefixes:
            name = _dotted_name(node, table)
            if name is not None:
                uses.append((name, None))
    return uses


def _walk(tree: ast.AST, skip: set[int]):
    """``ast.walk`` that does not enter the nodes whose ids are in ``skip``."""
    todo = [tree]
    while todo:
        node = todo.pop()
        if id(node) in skip:
            continue
        yield node
        todo.extend(ast.iter_child_nodes(node))


def _dotted_name(node: ast.expr, roots: dict[str, str]) -> str | None:
    """``cp.linalg.inv`` as ``cupy.linalg.inv`` when its root is a target module, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or node.id not in roots or not parts:
        return None
    return ".".join([roots[node.id], *reversed(parts)])


NUMPY = Backend("numpy", "np")
CUPY = Backend(
    "cupy",
    "cp",
    renames=(("scipy.", "cupyx.scipy."),),
    api=load_cupy_api,
    host=False,
    library_functions=frozenset({"erf", "erfc"}),
)
#: The targets by name; ``codegen/standard.py`` (imported by the package) adds ``array-api``.
BACKENDS = {"numpy": NUMPY, "cupy": CUPY}
#: The target of a command without ``--target`` (a command line written for a project omits it).
DEFAULT_TARGET = NUMPY.module


def _take_at(eqn: Eqn) -> tuple | None:
    """The index ``np.take(g, 2, axis=1)`` reads as a subscript (``(:, 2)``), when its index is a
    literal integer and its axis a non-negative literal one, else None."""
    at, axis = eqn.args[1], eqn.params["axis"]
    if not isinstance(at, Lit) or type(at.value) is not int or type(axis) is not int or axis < 0:
        return None
    return (*(Slice(None, None, None),) * axis, at.value)
