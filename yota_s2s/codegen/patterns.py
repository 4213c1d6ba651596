"""The sparsity pattern of a function's value as generated code: a primal tape in, the body of
``jac_NAME_pattern`` (or ``hess_NAME_pattern``) out.

The body is the function's own program, each value beside its *pattern* (``runtime.sparse``): a
boolean sparse matrix whose row ``i`` holds the columns (the elements of the ``--wrt``
parameters) that element ``i`` may depend on.  Each primitive has its rule, chosen here from the
tables below; a primitive in none of them makes every element of its result depend on every
element of its operands (``_sp_dense``): wider than it could be, never narrower.  Loops and
branches stay loops and branches: the patterns follow the iterations and the branch taken, so
that the pattern is exact for the trip counts and conditions of these arguments; where those
depend on the ``--wrt`` parameters' values, the pattern is the point's own (``by_point``: found
again at every call).

    >>> from yota_s2s.dsl.load import load_rules
    >>> from yota_s2s.ir.core import Tape
    >>> from yota_s2s.codegen.target import NUMPY
    >>> t = Tape("f"); x = t.add_input("x"); t.outputs = [t.add_eqn("exp", [x])]
    >>> print(ast.unparse(PatternWriter(t, ["x"], load_rules(), NUMPY).body()))
    _n = np.size(x)
    x_pattern = _sp_input(x, 0, _n)
    _v1 = np.exp(x)
    _p2 = _sp_elementwise(_v1, (x,), (x_pattern,))
    return (_sp_result(_v1, _p2, _n), np.shape(_v1))
"""

from __future__ import annotations

import ast

from ..dsl.rule import RuleTable
from ..errors import at_span
from ..ir.core import Eqn, Lit, Tape, Var
from ..ir.regions import LEADING
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
    "setindex": (0, 1),  # (a copy of a with v written at the index: v's elements moved there)
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
#: The primitives whose result is a shape (of the parameters': no value of theirs).
_SHAPES = frozenset(["shape", "size", "ndim", "len"])
#: Why ``--sparse`` refuses a function (a code of its own: the merger may renumber it).
CODE = "YS060"


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
        sizes = [_call(f"{self.backend.alias}.size", [_name(w)]) for w in self.wrt]
        total: ast.expr = sizes[0]
        for s in sizes[1:]:
            total = ast.BinOp(total, ast.Add(), s)
        stmts.append(_assign("_n", total))
        if self.hessian:
            stmts.append(_assign("_h", ast.Constant(None)))
        offset: ast.expr = ast.Constant(0)
        for inp in tape.inputs:
            if len(inp.path) != 1:
                what = ".".join(map(str, inp.path))
                raise at_span(CODE, f"--sparse reads array parameters only, not {what}", _first_span(tape, inp.var))
            self.values[inp.var.id] = inp.path[0]
            if inp.path[0] in self.wrt:
                p = f"{inp.path[0]}_pattern"
                self.patterns[inp.var.id] = p
                self.active.add(inp.var.id)
                stmts.append(_assign(p, _call("_sp_input", [_name(inp.path[0]), offset, _name("_n")])))
                offset = ast.BinOp(offset, ast.Add(), _call(f"{self.backend.alias}.size", [_name(inp.path[0])]))
        for eqn in tape.eqns:
            stmts.extend(self.equation(eqn))
        out = tape.outputs[0] if len(tape.outputs) == 1 else None
        if not isinstance(out, Var):
            raise at_span(CODE, "--sparse differentiates a function of one array value", _first_span(tape))
        result = _call("_sp_result", [self.atom(out), self.pattern(out), _name("_n")])
        if self.hessian:
            result = _call("_sp_hessian", [_name("_h"), _name("_n")])
        stmts.append(
            ast.Return(ast.Tuple([result, _call(f"{self.backend.alias}.shape", [self.atom(out)])], ast.Load()))
        )
        return stmts

    def equation(self, eqn: Eqn) -> list[ast.stmt]:
        if eqn.regions:
            return self.control(eqn)
        if len(eqn.outs) != 1:
            raise at_span(CODE, f"--sparse cannot yet find the sparsity pattern through {eqn.prim}", eqn.span)
        args = [self.atom(a) for a in eqn.args]
        value = self.fresh("v")
        if eqn.prim == "effect":  # (an assert, a print: not needed for the pattern)
            self.values[eqn.out.id] = value
            return [_assign(value, ast.Constant(None))]
        try:
            expr = self.backend.expression(eqn, args, self.table.rules[eqn.prim], (), self.imports)
        except KeyError:  # (written as statements by the writer: not an expression)
            raise at_span(CODE, f"--sparse cannot yet find the sparsity pattern through {eqn.prim}", eqn.span) from None
        stmts = [_assign(value, expr)]
        self.values[eqn.out.id] = value
        vars_ = [a for a in eqn.args if isinstance(a, Var)]
        if any(a.id in self.active for a in vars_) and eqn.prim not in _SHAPES:
            self.active.add(eqn.out.id)
        if not any(a.id in self.patterns for a in vars_) or eqn.prim in ZERO:
            return stmts
        pattern = self.fresh("p")
        self.patterns[eqn.out.id] = pattern
        stmts.extend(self.rule(eqn, _name(value), pattern))
        if self.hessian:
            stmts.extend(self.curvature(eqn, _name(value), pattern))
        return stmts

    def control(self, eqn: Eqn) -> list[ast.stmt]:
        """A loop or a branch, kept: its region's equations with their patterns, the carried
        values' patterns updated at each iteration (``for``, ``while``), the branch taken (``if``).
        A trip count or a condition computed from the parameters makes the pattern the point's."""
        lead = LEADING.get(eqn.prim)
        if lead is None or eqn.params.get("exit", -1) != -1:
            what = eqn.prim if lead is None else "a loop that ends early (break, or a return in it)"
            raise at_span(CODE, f"--sparse cannot yet find the sparsity pattern through {what}", eqn.span)
        carried = len(eqn.outs)
        inits = eqn.args[lead : lead + carried] if eqn.prim != "if" else []
        free = eqn.args[lead + len(inits) :]
        active = self.carried_activity(eqn, inits, free)
        names = [(self.fresh("v"), self.fresh("p")) for _ in eqn.outs]
        stmts: list[ast.stmt] = []
        for (v, p), a in zip(names, inits, strict=False):
            stmts += [_assign(v, self.atom(a)), _assign(p, self.pattern(a))]
        if any(isinstance(a, Var) and a.id in self.active for a in eqn.args[:lead]):
            self.by_point = True  # (a trip count or a branch's condition from the parameters)
        if eqn.prim == "for":
            body = eqn.regions[0]
            index = self.fresh("k")
            inner = self.region(body, [index] + [v for v, _ in names], names, free, active)
            span = _call("range", [self.atom(a) for a in eqn.args[:3]])
            stmts.append(ast.For(ast.Name(index, ast.Store()), span, inner, [], lineno=0))
        elif eqn.prim == "while":
            test, body = eqn.regions
            check = self.region(test, [v for v, _ in names], None, free, active)
            if isinstance(test.outputs[0], Var) and test.outputs[0].id in self.active:
                self.by_point = True  # (a trip count from the parameters)
            stop = ast.If(ast.UnaryOp(ast.Not(), self.atom(test.outputs[0])), [ast.Break()], [])
            loop = check + [stop] + self.region(body, [v for v, _ in names], names, free, active)
            stmts.append(ast.While(ast.Constant(True), loop, []))
        else:  # if: each branch sets the results
            then, orelse = eqn.regions
            branches = [self.region(r, [], names, free, active, fresh=True) for r in (then, orelse)]
            stmts.append(ast.If(self.atom(eqn.args[0]), branches[0], branches[1]))
        for o, (v, p) in zip(eqn.outs, names, strict=True):
            self.values[o.id], self.patterns[o.id] = v, p
            if active[names.index((v, p))]:
                self.active.add(o.id)
        return stmts

    def carried_activity(self, eqn: Eqn, inits: list, free: list) -> list[bool]:
        """Which results of a loop or a branch are computed from the parameters: a carried value
        whose initial value is, or that an iteration makes one (a fixed point over the body)."""
        is_active = [isinstance(a, Var) and a.id in self.active for a in inits]
        free_active = [isinstance(a, Var) and a.id in self.active for a in free]
        if eqn.prim == "if":
            outs = [_active_outputs(r, [], free_active) for r in eqn.regions]
            return [a or b for a, b in zip(*outs, strict=True)]
        body = eqn.regions[-1]
        lead = [False] if eqn.prim == "for" else []  # (the loop index)
        while True:
            found = [
                a or b for a, b in zip(is_active, _active_outputs(body, lead + is_active, free_active), strict=True)
            ]
            if found == is_active:
                return is_active
            is_active = found

    def region(self, tape: Tape, leading: list[str], results, free: list, active: list[bool], fresh: bool = False):
        """The statements of a region: its leading inputs read the names ``leading`` (patterns: the
        carried ones' of ``results``), its free inputs the outer ``free`` atoms; then the results
        (a value and a pattern name each) set from its outputs."""
        stmts: list[ast.stmt] = []
        inputs = [i.var for i in tape.inputs]
        lead_vars, free_vars = inputs[: len(leading)], inputs[len(leading) :]
        carried = results if results is not None and not fresh else []
        offset = len(leading) - len(carried)  # (a for loop's index first)
        for k, (var, name) in enumerate(zip(lead_vars, leading, strict=True)):
            self.values[var.id] = name
            if k >= offset:
                self.patterns[var.id] = carried[k - offset][1]
                if active[k - offset]:
                    self.active.add(var.id)
        for var, a in zip(free_vars, free, strict=True):
            if isinstance(a, Lit):
                stmts.append(_assign(self.fresh("v"), ast.Constant(a.value)))
                self.values[var.id] = stmts[-1].targets[0].id
                continue
            self.values[var.id] = self.values[a.id]
            if a.id in self.patterns:
                self.patterns[var.id] = self.patterns[a.id]
            if a.id in self.active:
                self.active.add(var.id)
        for eqn in tape.eqns:
            stmts.extend(self.equation(eqn))
        if results is not None:
            targets = [ast.Name(n, ast.Store()) for pair in results for n in pair]
            sources = [x for o in tape.outputs for x in (self.atom(o), self.pattern(o))]
            stmts.append(ast.Assign([ast.Tuple(targets, ast.Store())], ast.Tuple(sources, ast.Load()), lineno=0))
        return stmts or [ast.Pass()]

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
        if prim in ("list_make", "list_append"):  # a list's pattern: its items' (None: a number's)
            if prim == "list_make":
                return [_assign(pattern, ast.List(pats, ast.Load()))]
            return [_assign(pattern, _call("_sp_append", [values[0], pats[0], pats[1]]))]
        if prim == "list_stack":
            return [_assign(pattern, _call("_sp_flat", [values[0], pats[0]]))]
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


def _active_outputs(region: Tape, lead: list[bool], free: list[bool]) -> list[bool]:
    """Which outputs of ``region`` are computed from its active inputs (``lead``, then ``free``;
    a nested loop or branch: all its results where one of its operands is)."""
    inputs = [i.var.id for i in region.inputs]
    active = {v for v, a in zip(inputs, lead + free, strict=False) if a}
    for eqn in region.eqns:
        if any(isinstance(a, Var) and a.id in active for a in eqn.args) and eqn.prim not in _SHAPES:
            active.update(o.id for o in eqn.outs)
    return [isinstance(o, Var) and o.id in active for o in region.outputs]


def _first_span(tape: Tape, reading: Var | None = None):
    """Where to locate a refusal about ``tape``: its first equation (that reads ``reading``)."""
    for eqn in tape.eqns:
        if eqn.span is not None and (reading is None or any(a is reading for a in eqn.args)):
            return eqn.span
    return next((e.span for e in tape.eqns if e.span is not None), None)
