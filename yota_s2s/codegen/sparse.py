"""``--sparse --jacobian``: a module of ``jvp_NAME`` functions in, the same module with a sparse
``jac_NAME`` per function out.

The sparse Jacobian is a composition of what the module has already: the JVP, seeded with the
columns of a color matrix ``S`` instead of the identity's (one forward sweep per color, ``J @ S``),
then decompressed into a ``scipy.sparse.csr_array``.  Three functions per differentiated
function ``f``::

    def jac_f_pattern(x, I):           # the pattern: the primal program, each value beside its
        ...                            # pattern (runtime.sparse's _sp_* rules, one per equation)
        return _sp_result(f, _p7, _n)

    def jac_f(x, I):                   # the pattern and its coloring once per shapes and data,
        key = _sp_key((x,), (I,))      # then one JVP per color and the decompression
        ...
        return value, J_x

The pattern is computed when ``jac_f`` first meets the shapes and the other arguments' values
(index arrays, data matrices): what it finds there is structural for them.  A value an index is
computed from that depends on a ``--wrt`` parameter (``x[np.argmax(x)]``) makes the pattern
depend on the point: it is then computed again at every call.
"""

from __future__ import annotations

import ast

from ..dsl.rule import RuleTable
from ..errors import UserError, at_span
from ..ir.core import Eqn, Lit, Tape, Var
from ..ir.modes import Mode, mode_named
from .helpers import helper_closure, helper_source
from .module import HELPERS_BANNER
from .target import Backend

#: Primitives whose every element depends on the elements of its operands broadcast to it.
ELEMENTWISE = frozenset(
    [
        "abs",
        "add",
        "arccos",
        "arccosh",
        "arcsin",
        "arcsinh",
        "arctan",
        "arctan2",
        "arctanh",
        "asarray",
        "astype",
        "cbrt",
        "clip",
        "conj",
        "copy",
        "cos",
        "cosh",
        "deg2rad",
        "digamma",
        "erf",
        "erfc",
        "exp",
        "exp2",
        "expit",
        "expm1",
        "float_power",
        "fmax",
        "fmin",
        "fmod",
        "gammaln",
        "hypot",
        "imag",
        "log",
        "log10",
        "log1p",
        "log2",
        "logaddexp",
        "logaddexp2",
        "logit",
        "maximum",
        "minimum",
        "mod",
        "mul",
        "nan_to_num",
        "neg",
        "polygamma",
        "power",
        "rad2deg",
        "real",
        "reciprocal",
        "sin",
        "sinc",
        "sinh",
        "sqrt",
        "square",
        "sub",
        "tan",
        "tanh",
        "to_float",
        "truediv",
        "xlogy",
    ]
)
#: Primitives whose derivative is zero, or whose result is no array of the parameters' numbers.
ZERO = frozenset(
    [
        "arange",
        "argmax",
        "argmin",
        "argsort",
        "ceil",
        "equal",
        "eye",
        "flatnonzero",
        "floor",
        "greater",
        "greater_equal",
        "grad_zeros",
        "len",
        "less",
        "less_equal",
        "like",
        "ndim",
        "normal",
        "not_equal",
        "ones",
        "random",
        "round",
        "shape",
        "sign",
        "size",
        "standard_normal",
        "uniform",
        "zeros",
        "zeros_like",
    ]
)
#: Primitives that move elements (and may repeat them or write zeros): the operands (by position,
#: ``None`` all of them) whose elements they move, the others being indices or shapes.
MOVES: dict[str, tuple[int, ...] | None] = {
    **dict.fromkeys(
        [
            "getindex",
            "roll",
            "reshape",
            "ravel",
            "flatten",
            "transpose",
            "mT",
            "swapaxes",
            "moveaxis",
            "rollaxis",
            "expand_dims",
            "squeeze",
            "broadcast_to",
            "flip",
            "fliplr",
            "flipud",
            "atleast_1d",
            "atleast_2d",
            "atleast_3d",
            "tile",
            "repeat",
            "take",
            "take_along_axis",
            "diagonal",
            "diag",
            "tril",
            "triu",
            "pad",
        ],
        (0,),
    ),
    **dict.fromkeys(["concatenate", "stack", "hstack", "vstack", "column_stack"], None),
}
#: Reductions over ``axis`` (``along``: each element depends on its whole line along ``axis``).
REDUCTIONS = frozenset(["sum", "mean", "prod", "max", "min", "std", "var", "logsumexp"])
ALONG = frozenset(["cumsum", "cumprod", "sort", "softmax", "log_softmax"])
#: Primitives whose second derivative is zero (almost everywhere): linear in their operands, or
#: piecewise linear (``abs``, ``np.maximum``, ``np.max``).  ``mul`` of two values that depend on
#: the parameters is bilinear (its cross terms only); every other primitive that reads one is
#: nonlinear: its elements' dependences pair with each other in the Hessian.
LINEAR = frozenset(
    [
        *MOVES,
        *["add", "sub", "neg", "sum", "mean", "cumsum", "max", "min", "sort", "where", "abs", "clip"],
        *["maximum", "minimum", "fmax", "fmin", "real", "conj", "copy", "astype", "asarray", "to_float"],
        *["nan_to_num", "deg2rad", "rad2deg", "mod", "fmod", "trace", "diagonal"],
    ]
)
#: Why ``--sparse`` refuses a function (a code of its own: the merger may renumber it).
CODE = "YS060"


def sparse_mode(mode: Mode, target: str, path: str, value: bool = True) -> Mode:
    """The mode the module is generated in before ``add_sparse``: the JVP for ``--jacobian``, the
    HVP for ``--hessian`` (``--sparse`` takes one of them and the NumPy target only, ``YS060``
    otherwise)."""
    if mode.name not in ("jacobian", "hessian"):
        flag = mode.flag or "grad_NAME"
        raise UserError(
            CODE, f"--sparse writes sparse Jacobians and Hessians: give --jacobian or --hessian (not {flag})", path
        )
    if target != "numpy":
        raise UserError(CODE, f"--sparse writes NumPy and scipy.sparse code only (not --target {target})", path)
    if not value:
        raise UserError(CODE, "--sparse returns the value with the derivatives: not with --no-value", path)
    return mode_named("jvp" if mode.name == "jacobian" else "hvp")


def _name(n: str) -> ast.Name:
    return ast.Name(n, ast.Load())


def _call(f: str, args: list[ast.expr], keywords: dict[str, object] | None = None) -> ast.Call:
    kws = [ast.keyword(k, ast.Constant(v)) for k, v in (keywords or {}).items()]
    return ast.Call(_name(f), args, kws)


def _assign(target: str, value: ast.expr) -> ast.stmt:
    return ast.Assign([ast.Name(target, ast.Store())], value, lineno=0)


class PatternWriter:
    """The body of ``jac_NAME_pattern`` for one primal tape (see the module docstring)."""

    def __init__(self, tape: Tape, wrt: list[str], table: RuleTable, backend: Backend, hessian: bool = False):
        self.tape, self.wrt, self.table, self.backend = tape, wrt, table, backend
        self.hessian = hessian  # also the Hessian's pattern, _h (hess_NAME)
        self.values: dict[int, str] = {}
        self.patterns: dict[int, str] = {}
        self.active: set[int] = set()  # every value computed from a --wrt parameter, however
        self.by_point = False  # an index depends on the point: the pattern is not cached
        self.imports: set[str] = set()
        self.count = 0

    def fresh(self, stem: str) -> str:
        self.count += 1
        return f"_{stem}{self.count}"

    def atom(self, a: object) -> ast.expr:
        return ast.Constant(a.value) if isinstance(a, Lit) else _name(self.values[a.id])

    def pattern(self, a: object) -> ast.expr:
        name = self.patterns.get(a.id) if isinstance(a, Var) else None
        return _name(name) if name else ast.Constant(None)

    def body(self) -> list[ast.stmt]:
        tape = self.tape
        stmts: list[ast.stmt] = []
        sizes = [_call("np.size", [_name(w)]) for w in self.wrt]
        total: ast.expr = sizes[0]
        for s in sizes[1:]:
            total = ast.BinOp(total, ast.Add(), s)
        stmts.append(_assign("_n", total))
        if self.hessian:
            stmts.append(_assign("_h", ast.Constant(None)))
        offset: ast.expr = ast.Constant(0)
        for inp in tape.inputs:
            if len(inp.path) != 1:
                raise at_span(CODE, f"--sparse reads array parameters only, not {'.'.join(map(str, inp.path))}", None)
            self.values[inp.var.id] = inp.path[0]
            if inp.path[0] in self.wrt:
                p = f"{inp.path[0]}_pattern"
                self.patterns[inp.var.id] = p
                self.active.add(inp.var.id)
                stmts.append(_assign(p, _call("_sp_input", [_name(inp.path[0]), offset, _name("_n")])))
                offset = ast.BinOp(offset, ast.Add(), _call("np.size", [_name(inp.path[0])]))
        for eqn in tape.eqns:
            stmts.extend(self.equation(eqn))
        out = tape.outputs[0] if len(tape.outputs) == 1 else None
        if not isinstance(out, Var):
            raise at_span(CODE, "--sparse differentiates a function of one array value", None)
        result = _call("_sp_result", [self.atom(out), self.pattern(out), _name("_n")])
        if self.hessian:
            result = _call("_sp_hessian", [_name("_h"), _name("_n")])
        stmts.append(ast.Return(ast.Tuple([result, _call("np.shape", [self.atom(out)])], ast.Load())))
        return stmts

    def equation(self, eqn: Eqn) -> list[ast.stmt]:
        if eqn.regions or len(eqn.outs) != 1:
            what = "a loop or a branch" if eqn.regions else f"{eqn.prim} (several results)"
            raise at_span(CODE, f"--sparse cannot yet find the sparsity pattern through {what}", eqn.span)
        args = [self.atom(a) for a in eqn.args]
        value = self.fresh("v")
        expr = self.backend.expression(eqn, args, self.table.rules[eqn.prim], (), self.imports)
        stmts = [_assign(value, expr)]
        self.values[eqn.out.id] = value
        vars_ = [a for a in eqn.args if isinstance(a, Var)]
        if any(a.id in self.active for a in vars_) and eqn.prim not in ("shape", "size", "ndim", "len"):
            self.active.add(eqn.out.id)
        if not any(a.id in self.patterns for a in vars_) or eqn.prim in ZERO:
            return stmts
        pattern = self.fresh("p")
        self.patterns[eqn.out.id] = pattern
        stmts.extend(self.rule(eqn, _name(value), pattern))
        if self.hessian:
            stmts.extend(self.curvature(eqn, _name(value), pattern))
        return stmts

    def curvature(self, eqn: Eqn, out: ast.expr, pattern: str) -> list[ast.stmt]:
        """The pairs of columns ``eqn`` adds to the Hessian's pattern ``_h`` (see ``LINEAR``)."""
        args = eqn.args
        linear_in = [isinstance(a, Var) and a.id in self.patterns for a in args]
        if eqn.prim in LINEAR:
            return []
        one = eqn.prim in ("mul", "truediv", "matmul", "dot") and sum(linear_in) == 1
        if one and (eqn.prim != "truediv" or linear_in[0]):  # (x / 2.0, A @ x: linear; 2.0 / x is not)
            return []
        if eqn.prim == "mul" and sum(linear_in) == 2:
            values = ast.Tuple([self.atom(a) for a in args], ast.Load())
            pats = ast.Tuple([self.pattern(a) for a in args], ast.Load())
            return [_assign("_h", _call("_sp_cross", [_name("_h"), out, values, pats]))]
        return [_assign("_h", _call("_sp_curvature", [_name("_h"), _name(pattern)]))]

    def rule(self, eqn: Eqn, out: ast.expr, pattern: str) -> list[ast.stmt]:
        """The statements that set ``pattern``, the pattern of ``eqn``'s result ``out``."""
        prim, args = eqn.prim, eqn.args
        values = [self.atom(a) for a in args]
        pats = [self.pattern(a) for a in args]
        if prim in ELEMENTWISE or prim == "where":
            skip = 1 if prim == "where" else 0  # (the condition: its derivative is zero)
            tup = [ast.Tuple(values[skip:], ast.Load()), ast.Tuple(pats[skip:], ast.Load())]
            return [_assign(pattern, _call("_sp_elementwise", [out, *tup]))]
        if prim in REDUCTIONS or prim in ALONG:
            keywords = {k: eqn.params[k] for k in ("axis", "keepdims") if k in eqn.params}
            if prim in ALONG:
                keywords["along"] = True
                keywords.setdefault("axis", -1 if prim in ("sort", "softmax", "log_softmax") else None)
            return [_assign(pattern, _call("_sp_reduce", [out, values[0], pats[0]], keywords))]
        if prim in ("matmul", "dot") and len(args) == 2:
            return [_assign(pattern, _call("_sp_matmul", [out, *values, *pats]))]
        if prim in MOVES:
            return self.moved(eqn, pattern)
        return [_assign(pattern, _call("_sp_dense", [out, ast.List(pats, ast.Load())]))]

    def moved(self, eqn: Eqn, pattern: str) -> list[ast.stmt]:
        """A primitive that moves elements: the same expression on their numbers (``_sp_ids``)."""
        positions = MOVES[eqn.prim]
        moved = list(range(len(eqn.args))) if positions is None else [p for p in positions if p < len(eqn.args)]
        for k, a in enumerate(eqn.args):  # an index computed from the parameters: known at this point only
            if k not in moved and isinstance(a, Var) and a.id in self.active:
                self.by_point = True
        ids, stacked = self.fresh("i"), self.fresh("q")
        values = ast.Tuple([self.atom(eqn.args[k]) for k in moved], ast.Load())
        pats = ast.Tuple([self.pattern(eqn.args[k]) for k in moved], ast.Load())
        target = ast.Tuple([ast.Name(ids, ast.Store()), ast.Name(stacked, ast.Store())], ast.Store())
        stmts: list[ast.stmt] = [ast.Assign([target], _call("_sp_ids", [values, pats]), lineno=0)]
        args = [
            ast.Subscript(_name(ids), ast.Constant(moved.index(k)), ast.Load()) if k in moved else self.atom(a)
            for k, a in enumerate(eqn.args)
        ]
        expr = self.backend.expression(eqn, args, self.table.rules[eqn.prim], (), self.imports)
        stmts.append(_assign(pattern, _call("_sp_rows", [_name(stacked), expr])))
        return stmts


def _unpacked(text: str, names: list[str]) -> str:
    """Targets to unpack a tuple into: ``(x_dot,)`` for one name, ``x_dot, y_dot`` for several."""
    return f"({text},)" if len(names) == 1 else text


def _tuple(names: list[str]) -> str:
    return "(" + ", ".join(names) + ("," if len(names) == 1 else "") + ")"


def sparse_functions(primal: Tape, jvp: Tape, table: RuleTable, backend: Backend) -> tuple[list[str], set[str]]:
    """The source of ``jac_NAME_pattern``, ``jac_NAME`` and their cache for one function, and the
    helpers they call."""
    name = primal.name
    wrt = [w for w in jvp.facts.wrt if any(i.path[0] == w for i in primal.inputs)]
    if not wrt:
        raise at_span(CODE, f"--sparse: {name} has no array parameter to differentiate", None)
    params = [p.name for p in primal.params]
    data = [p for p in params if p not in wrt]
    writer = PatternWriter(primal, wrt, table, backend)
    body = writer.body()
    signature = ", ".join(params)
    fn = ast.FunctionDef(
        f"_jac_{name}_pattern",
        ast.arguments([], [ast.arg(p) for p in params], None, [], [], None, []),
        body,
        [],
        lineno=0,
    )
    doc = f'"""The sparsity pattern of jac_{name}\'s Jacobians and the value\'s shape (see jac_{name}_pattern)."""'
    private = ast.unparse(ast.fix_missing_locations(fn)).replace(":\n", ":\n    " + doc + "\n", 1)
    public = (
        f"def jac_{name}_pattern({signature}):\n"
        f'    """The sparsity pattern of jac_{name}\'s Jacobians, a boolean scipy.sparse.csr_array of shape\n'
        f"    (value.size, {' + '.join(f'{w}.size' for w in wrt)}): every entry that can be nonzero for these shapes and "
        f'data."""\n'
        f"    return _jac_{name}_pattern({signature})[0]"
    )
    blocks = ", ".join(f"J_{w}" for w in wrt)
    cache = f"_JAC_{name.upper()}_CACHE"
    dots = ", ".join(f"{w}_dot" for w in wrt)
    prepare = (
        f"    prepared = _sp_prepare(*_jac_{name}_pattern({signature}))  # (an index depends on the point)\n"
        if writer.by_point
        else f"    key = _sp_key({_tuple(wrt)}, {_tuple(data)})\n"
        f"    prepared = {cache}.get(key)\n"
        f"    if prepared is None:  # the pattern and its colors, once per shapes and data\n"
        f"        prepared = {cache}[key] = _sp_prepare(*_jac_{name}_pattern({signature}))\n"
    )
    jac = (
        f"def jac_{name}({signature}):\n"
        f'    """Return ({name}({signature}), {blocks}): the value and its Jacobians, scipy.sparse.csr_array of\n'
        f"    shape (value.size, {wrt[0]}.size){', ...' if len(wrt) > 1 else ''}: one jvp_{name} per color of the columns (J @ S), or one\n"
        f"    vjp_{name}"
        f' per color of the rows (S.T @ J) where those are fewer, then decompressed."""\n'
        f"{prepare}"
        f"    compressed = []\n"
        f'    if prepared["by_rows"]:  # one reverse sweep per color of the rows\n'
        f'        for dout in prepared["seeds"]:\n'
        f"            value, *grads = vjp_{name}({signature}, dout)\n"
        f"            compressed.append(grads)\n"
        f"    else:  # one forward sweep per color of the columns\n"
        f"        for {_unpacked(dots, wrt)} in _sp_tangents(prepared, {_tuple(wrt)}):\n"
        f"            value, dvalue = jvp_{name}({signature}, {dots})\n"
        f"            compressed.append(dvalue)\n"
        f"    {_unpacked(blocks, wrt)} = _sp_decompress(prepared, compressed, {_tuple(wrt)})\n"
        f"    return value, {blocks}"
    )
    helpers = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id.startswith("_sp_")}
    helpers |= {"_sp_prepare", "_sp_tangents", "_sp_decompress"} | ({"_sp_key"} if not writer.by_point else set())
    texts = [public, jac, private] + ([] if writer.by_point else [f"{cache} = {{}}  # jac_{name}'s prepared patterns"])
    return texts, helpers


def hessian_functions(primal: Tape, hvp: Tape, table: RuleTable, backend: Backend) -> tuple[list[str], set[str]]:
    """The source of ``hess_NAME_pattern``, ``hess_NAME`` and their cache for one function of one
    ``--wrt`` parameter, and the helpers they call."""
    name = primal.name
    wrt = [w for w in hvp.facts.wrt if any(i.path[0] == w for i in primal.inputs)]
    if len(wrt) != 1:
        raise at_span(CODE, f"--hessian --sparse: {name} needs one array parameter to differentiate (--wrt)", None)
    (x,) = wrt
    params = [p.name for p in primal.params]
    data = [p for p in params if p != x]
    writer = PatternWriter(primal, wrt, table, backend, hessian=True)
    fn = ast.FunctionDef(
        f"_hess_{name}_pattern",
        ast.arguments([], [ast.arg(p) for p in params], None, [], [], None, []),
        writer.body(),
        [],
        lineno=0,
    )
    doc = f'"""The sparsity pattern of hess_{name}\'s Hessian and the value\'s shape (see hess_{name}_pattern)."""'
    private = ast.unparse(ast.fix_missing_locations(fn)).replace(":\n", ":\n    " + doc + "\n", 1)
    signature = ", ".join(params)
    public = (
        f"def hess_{name}_pattern({signature}):\n"
        f'    """The sparsity pattern of hess_{name}\'s Hessian, a symmetric boolean scipy.sparse.csr_array of\n'
        f"    shape ({x}.size, {x}.size): every pair of elements of {x} that the value may be nonlinear in "
        f'together."""\n'
        f"    return _hess_{name}_pattern({signature})[0]"
    )
    cache = f"_HESS_{name.upper()}_CACHE"
    prepare = (
        f"    prepared = _sp_prepare(_hess_{name}_pattern({signature})[0], None, symmetric=True)\n"
        if writer.by_point
        else f"    key = _sp_key(({x},), {_tuple(data)})\n"
        f"    prepared = {cache}.get(key)\n"
        f"    if prepared is None:  # the pattern and its colors, once per shapes and data\n"
        f"        prepared = {cache}[key] = _sp_prepare(_hess_{name}_pattern({signature})[0], None, symmetric=True)\n"
    )
    hess = (
        f"def hess_{name}({signature}):\n"
        f'    """Return ({name}({signature}), d{x}, H): the value, its gradient and its Hessian, a symmetric\n'
        f"    scipy.sparse.csr_array of shape ({x}.size, {x}.size): one hvp_{name} per color of the columns\n"
        f'    (H @ S), decompressed."""\n'
        f"{prepare}"
        f"    compressed = []\n"
        f"    for ({x}_v,) in _sp_tangents(prepared, ({x},)):  # one second sweep per color\n"
        f"        value, grad, Hv = hvp_{name}({signature}, {x}_v)\n"
        f"        compressed.append(Hv)\n"
        f"    (H,) = _sp_decompress(prepared, compressed, ({x},))\n"
        f"    return value, grad, H"
    )
    helpers = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id.startswith("_sp_")}
    helpers |= {"_sp_prepare", "_sp_tangents", "_sp_decompress"} | ({"_sp_key"} if not writer.by_point else set())
    texts = [public, hess, private] + (
        [] if writer.by_point else [f"{cache} = {{}}  # hess_{name}'s prepared patterns"]
    )
    return texts, helpers


def _merged(text: str, other: str) -> str:
    """The module ``text`` with the functions of the module ``other`` (of the same source, in another
    mode) added after its own, and the imports, constants and helpers they need that it lacks."""
    head, _, tail = text.partition("\n\n\n" + HELPERS_BANNER)
    other_head, _, other_tail = other.partition("\n\n\n" + HELPERS_BANNER)
    first = other_head.index("\n\n\ndef ")
    lines = set(head[: head.index("\n\n\ndef ")].splitlines())
    added = [
        line for line in other_head[:first].splitlines() if line and not line.startswith("#") and line not in lines
    ]
    imports = [line for line in added if line.startswith(("import ", "from "))]
    constants = [line for line in added if line not in imports]
    if imports:
        at = head.index("\n", head.index("\nimport ") + 1)
        head = head[:at] + "".join(f"\n{line}" for line in imports) + head[at:]
    if constants:
        at = head.index("\n\n\ndef ")
        head = head[:at] + "\n" + "\n".join(constants) + head[at:]
    head += other_head[first:]
    own = {block.split("(")[0] for block in tail.split("\n\n\n") if block.startswith("def ")}
    extra = [b for b in other_tail.split("\n\n\n") if b.startswith("def ") and b.split("(")[0] not in own]
    return head + "\n\n\n" + HELPERS_BANNER + tail.rstrip("\n") + "".join(f"\n\n\n{b.rstrip()}" for b in extra) + "\n"


def add_sparse(
    text: str, reverse: str | None, primals: list[Tape], tapes: list[Tape], table: RuleTable, backend: Backend
) -> str:
    """The module ``text`` (of ``jvp_NAME`` functions) with the ``vjp_NAME`` functions of the module
    ``reverse`` and the sparse ``jac_NAME`` of each added; without ``reverse``, the module of
    ``hvp_NAME`` functions with the sparse ``hess_NAME`` of each."""
    if reverse is not None:
        text = _merged(text, reverse)
    functions: list[str] = []
    constants: list[str] = []
    helpers: set[str] = set()
    for primal, tape in zip(primals, tapes, strict=True):
        write = sparse_functions if reverse is not None else hessian_functions
        texts, used = write(primal, tape, table, backend)
        functions += texts[:3]
        constants += texts[3:]
        helpers |= used
    head, banner, tail = text.partition("\n\n\n" + HELPERS_BANNER)
    present = {line.split("(")[0][4:] for line in tail.splitlines() if line.startswith("def ")}
    extra = [helper_source(h, backend.alias) for h in helper_closure(helpers) if h not in present]
    head = head.replace(
        f"import numpy as {backend.alias}\n",
        f"import numpy as {backend.alias}\nfrom scipy import sparse  # --sparse: the derivatives are csr_arrays\n",
        1,
    )
    first_def = head.index("\ndef ")
    head = head[:first_def] + "".join(f"\n{c}\n" for c in constants) + "\n" * bool(constants) + head[first_def:]
    head += "\n\n\n" + "\n\n\n".join(functions).rstrip("\n")
    tail_text = banner + tail if banner else "\n\n\n" + HELPERS_BANNER
    return head + tail_text + "".join(f"\n\n\n{h}" for h in extra) + "\n"
