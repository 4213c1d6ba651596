"""Random valid programs in the subset yota-s2s differentiates, deterministic by seed.

A ``Program`` is a module's source text (``import numpy as np``, maybe dataclasses and helpers,
and the entry function ``f``) with the specification of ``f``'s parameters, enough to build
inputs for it (``oracle.make_args``).  The generator keeps for every value it names its shape,
a bound on its magnitude and, when it is surely positive, a lower bound, so that every program
it writes is defined on every input in [-2, 2]: ``log``, ``sqrt`` and divisions only see
values bounded away from zero, ``exp`` only bounded ones, loops update their carried values
by contractions.  Operations that are not smooth everywhere (``abs``, ``maximum``, ``where``,
value-dependent branches and loop exits, ...) mark the program non-smooth: the oracle then keeps
its edge points (zeros, ties) away from it.

    >>> p = generate_program(3)
    >>> p.source.startswith("import numpy as np") and "def f(" in p.source
    True
    >>> generate_program(3) == p
    True
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from .gen_python import PythonStatements

#: Parameter specs: ("array", name, shape) with dims as ints or names of ``Program.dims``;
#: ("float", name); ("int", name, value); ("object", name, class, ((field, spec), ...)) where a
#: field's spec is a shape or ("list", class, count, ((field, shape), ...)).
Spec = tuple


@dataclass(frozen=True)
class Program:
    """A generated (or shrunk) program: its source, ``f``'s parameters, the sizes they use."""

    source: str
    params: tuple[Spec, ...]
    dims: tuple[tuple[str, int], ...] = ()
    smooth: bool = True  # no kink, no value-dependent branch: edge points may be anywhere
    vector: bool = False  # f returns an array on purpose (a clear refusal is expected)

    def dim(self, token) -> int:
        return dict(self.dims)[token] if isinstance(token, str) else token


@dataclass
class Val:
    """A value in scope: its code, concrete shape, |value| <= bound, value >= lo (lo > 0) if known."""

    code: str
    shape: tuple[int, ...]
    bound: float
    lo: float | None = None
    fresh: bool = True  # a new array (safe to write into); False for parameters, attributes, views
    token_shape: tuple = ()  # the shape in dim tokens, for parameters


#: Names the generated code also uses: a program that picks them checks the code generator's names.
COLLIDING = ["_t1", "_t2", "dx", "d_t1", "x_1", "s_1", "_stack", "_saved", "_skip1", "_stop1", "_unbroadcast",
             "_unreduce", "_grad_zeros", "i_1", "f_1", "_items", "dy", "_joined", "np_1"]  # fmt: skip

#: Unary functions, smooth everywhere on their domain: (code template, applicability, bound, lo).
SMOOTH_UNARY = [
    ("np.sin({})", lambda v: True, lambda v: min(1.0, v.bound), lambda v: None),
    ("np.cos({})", lambda v: True, lambda v: 1.0, lambda v: None),
    ("np.tanh({})", lambda v: True, lambda v: min(1.0, v.bound), lambda v: None),
    ("np.arctan({})", lambda v: True, lambda v: min(1.6, v.bound), lambda v: None),
    ("np.arcsinh({})", lambda v: True, lambda v: math.log(2 * v.bound + 1) + 0.01, lambda v: None),
    ("np.exp({})", lambda v: v.bound <= 3, lambda v: math.exp(v.bound), lambda v: math.exp(-v.bound)),
    ("np.expm1({})", lambda v: v.bound <= 3, lambda v: math.exp(v.bound), lambda v: None),
    ("np.cosh({})", lambda v: v.bound <= 3, lambda v: math.cosh(v.bound), lambda v: 1.0),
    ("np.sinh({})", lambda v: v.bound <= 3, lambda v: math.sinh(v.bound), lambda v: None),
    (
        "np.log({})",
        lambda v: v.lo is not None and v.lo >= 0.1,
        lambda v: max(abs(math.log(v.lo)), math.log(v.bound)) + 0.01,
        lambda v: None,
    ),
    (
        "np.sqrt({})",
        lambda v: v.lo is not None and v.lo >= 0.05,
        lambda v: math.sqrt(v.bound),
        lambda v: math.sqrt(v.lo),
    ),
    ("np.log1p({} * {})", lambda v: v.bound <= 10, lambda v: math.log1p(v.bound**2), lambda v: None),
    ("({}) ** 2", lambda v: v.bound <= 10, lambda v: v.bound**2, lambda v: v.lo**2 if v.lo else None),
    ("({}) ** 3", lambda v: v.bound <= 4, lambda v: v.bound**3, lambda v: v.lo**3 if v.lo else None),
    ("({}) ** 0", lambda v: True, lambda v: 1.0, lambda v: 1.0),
    ("({}) ** 1", lambda v: True, lambda v: v.bound, lambda v: v.lo),
    ("np.power({}, 4)", lambda v: v.bound <= 3, lambda v: v.bound**4, lambda v: v.lo**4 if v.lo else None),
    ("np.square({})", lambda v: v.bound <= 10, lambda v: v.bound**2, lambda v: v.lo**2 if v.lo else None),
    ("({}) ** 1.5", lambda v: v.lo is not None and v.lo >= 0.1, lambda v: v.bound**1.5, lambda v: v.lo**1.5),
    ("({}) ** 0.5", lambda v: v.lo is not None and v.lo >= 0.1, lambda v: v.bound**0.5, lambda v: v.lo**0.5),
    ("1.0 / ({})", lambda v: v.lo is not None and v.lo >= 0.3, lambda v: 1 / v.lo, lambda v: 1 / v.bound),
    ("-({})", lambda v: True, lambda v: v.bound, lambda v: None),
    ("(1.0 + {} * {})", lambda v: v.bound <= 10, lambda v: 1 + v.bound**2, lambda v: 1.0),
    ("np.cbrt(1.5 + np.tanh({}))", lambda v: True, lambda v: 1.4, lambda v: 0.79),
    ("special.expit({})", lambda v: True, lambda v: 1.0, lambda v: 1 / (1 + math.exp(min(v.bound, 50)))),
    ("special.erf({})", lambda v: True, lambda v: 1.0, lambda v: None),
    (
        "np.log2({})",
        lambda v: v.lo is not None and v.lo >= 0.1,
        lambda v: max(abs(math.log2(v.lo)), math.log2(v.bound)) + 0.01,
        lambda v: None,
    ),
    ("np.exp2({})", lambda v: v.bound <= 4, lambda v: 2**v.bound, lambda v: 2**-v.bound),
    ("np.arctan2({}, 2.5)", lambda v: True, lambda v: 1.6, lambda v: None),
]

#: Unary functions with a kink or a step somewhere: the program is then not smooth.
KINKED_UNARY = [
    ("np.abs({})", lambda v: v.bound, lambda v: None),
    ("np.maximum({}, 0.0)", lambda v: v.bound, lambda v: None),
    ("np.minimum({}, 0.5)", lambda v: v.bound, lambda v: None),
    ("np.clip({}, -0.5, 0.5)", lambda v: 0.5, lambda v: None),
    ("np.where({0} > 0.25, {0}, 0.5 * {0})", lambda v: v.bound, lambda v: None),
    ("np.fmax({}, -0.5)", lambda v: v.bound, lambda v: None),
]


def broadcast(a: tuple, b: tuple) -> tuple | None:
    """The broadcast shape of ``a`` and ``b``, or None."""
    out = []
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        if x != y and 1 not in (x, y):
            return None
        out.append(y if x == 1 else x)
    return tuple(reversed(out))


class Gen(PythonStatements):
    """One program's generator; ``program()`` writes it."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.seed = seed
        r = self.rng
        self.n, self.m = r.choice([1, 2, 3, 3, 4]), r.choice([1, 2, 2, 3])
        self.smooth = True
        self.counter = 0
        self.collide = r.random() < 0.12
        self.used: set[str] = set()
        self.helpers: list[tuple[str, list[tuple], tuple, float]] = []  # name, param shapes, result shape, bound
        self.lines: list[str] = []
        self.uses_special = False
        self.classes: list[str] = []
        self.int_names: list[str] = []  # counts made by static code (shapes, n // 2)
        self.constants: dict[str, str] = {}  # module-level constants: name -> its expression
        self.module_lines: list[str] = []  # module-level statements after them (loops, appends, ifs)

    # ------------------------------------------------------------------ names and shapes
    def fresh_name(self, prefix: str = "t") -> str:
        self.counter += 1
        if self.collide and self.rng.random() < 0.35:
            name = self.rng.choice(COLLIDING)
            if name not in self.used:  # each name once: a loop counter must not be a carried value too
                self.used.add(name)
                return name
        return f"{prefix}{self.counter}"

    def token_shape(self) -> tuple:
        return self.rng.choice([(), ("n",), ("n",), ("m", "n"), ("m", 1), (1, "n"), ("n",), ("m",), ("n", "n")])

    def concrete(self, tokens: tuple) -> tuple[int, ...]:
        return tuple(self.n if t == "n" else self.m if t == "m" else t for t in tokens)

    # ------------------------------------------------------------------ expressions
    def pick(self, scope: list[Val], shape: tuple | None = None) -> Val:
        """A value in scope (recent ones more often: shared subexpressions), or a constant."""
        cands = [v for v in scope if shape is None or v.shape == shape]
        if not cands or self.rng.random() < 0.08:
            c = self.rng.choice(["0.5", "1.5", "2.0", "-0.75", "3", "0.25"])
            return Val(c, (), abs(float(c)), float(c) if float(c) > 0 else None)
        weights = [1 + i for i in range(len(cands))]
        return self.rng.choices(cands, weights)[0]

    def expr(self, scope: list[Val], depth: int) -> Val:
        r = self.rng
        if depth <= 0 or r.random() < 0.2:
            return self.pick(scope)
        kind = r.choices(
            ["unary", "binary", "reduce", "linalg", "index", "call", "kinked"], [5, 6, 3, 1.5, 2, 1.5, 0.8]
        )[0]
        if kind == "unary":
            return self.unary(self.expr(scope, depth - 1))
        if kind == "binary":
            return self.binary(self.expr(scope, depth - 1), self.expr(scope, depth - 1))
        if kind == "reduce":
            return self.reduce(self.expr(scope, depth - 1))
        if kind == "linalg":
            return self.linalg(scope) or self.pick(scope)
        if kind == "index":
            return self.index(self.expr(scope, depth - 1))
        if kind == "call":
            return self.call(scope) or self.unary(self.pick(scope))
        return self.kinked(self.expr(scope, depth - 1))

    def tame(self, v: Val) -> Val:
        return v if v.bound <= 30 else Val(f"np.tanh({v.code})", v.shape, 1.0)

    def unary(self, v: Val) -> Val:
        if getattr(self, "int_params", None) and not self.in_helper and v.bound <= 1.5 and self.rng.random() < 0.05:
            return Val(f"({v.code}) ** {self.int_params[0]}", v.shape, max(1.0, v.bound) ** 4)  # n_steps <= 4
        options = [u for u in SMOOTH_UNARY if u[1](v)]
        code, _, bound, lo = self.rng.choice(options)
        if code.startswith("special."):
            self.uses_special = True
        out = Val(code.format(v.code, v.code), v.shape, bound(v), lo(v))
        if out.code.startswith("1.0 / ") or "**" in out.code or out.code.startswith("-"):
            out.shape = v.shape
        return self.tame(out)

    def kinked(self, v: Val) -> Val:
        code, bound, lo = self.rng.choice(KINKED_UNARY)
        self.smooth = False
        return Val(code.format(v.code), v.shape, bound(v), lo(v))

    def binary(self, a: Val, b: Val) -> Val:
        shape = broadcast(a.shape, b.shape)
        if shape is None:
            b = self.reduce_to_scalar(b)
            shape = a.shape
        r = self.rng
        op = r.choice(["+", "-", "*", "*", "/", "hypot", "arctan2", "logaddexp", "max"])
        if op == "/" and not (b.lo is not None and b.lo >= 0.3):
            op = "*"
        if op == "+":
            lo = a.lo + b.lo if a.lo and b.lo else None
            return self.tame(Val(f"({a.code} + {b.code})", shape, a.bound + b.bound, lo))
        if op == "-":
            return self.tame(Val(f"({a.code} - {b.code})", shape, a.bound + b.bound))
        if op == "*":
            lo = a.lo * b.lo if a.lo and b.lo else None
            return self.tame(Val(f"{a.code} * {b.code}", shape, a.bound * b.bound, lo))
        if op == "/":
            return self.tame(Val(f"{a.code} / {b.code}", shape, a.bound / b.lo, a.lo / b.bound if a.lo else None))
        if op == "hypot":  # smooth where the second operand is away from zero
            if b.lo is None:
                b = Val(f"(1.0 + {b.code} * {b.code})", b.shape, 1 + b.bound**2, 1.0)
            return self.tame(Val(f"np.hypot({a.code}, {b.code})", shape, a.bound + b.bound, b.lo))
        if op == "arctan2":
            if b.lo is None:
                b = Val(f"np.exp(np.tanh({b.code}))", b.shape, math.e, 1 / math.e)
            return Val(f"np.arctan2({a.code}, {b.code})", shape, 1.6)
        if op == "logaddexp":
            a, b = self.tame(a), self.tame(b)
            return self.tame(Val(f"np.logaddexp({a.code}, {b.code})", shape, max(a.bound, b.bound) + 1))
        self.smooth = False
        fn = r.choice(["np.maximum", "np.minimum"])
        return Val(f"{fn}({a.code}, {b.code})", shape, max(a.bound, b.bound))

    def reduce_to_scalar(self, v: Val) -> Val:
        if v.shape == ():
            return v
        return Val(f"np.sum({v.code})", (), v.bound * math.prod(v.shape) if v.shape else v.bound)

    def reduce(self, v: Val) -> Val:
        r = self.rng
        if not v.shape:
            return v
        size = math.prod(v.shape)
        axis = r.choice([None, None, *range(len(v.shape)), -1])
        keep = axis is not None and r.random() < 0.35
        if axis is None:
            shape = ()
        else:
            ax = axis % len(v.shape)
            shape = (
                tuple(1 if i == ax else d for i, d in enumerate(v.shape))
                if keep
                else tuple(d for i, d in enumerate(v.shape) if i != ax)
            )
        n_red = size if axis is None else v.shape[axis]
        args = "" if axis is None else f", axis={axis}" + (", keepdims=True" if keep else "")
        fn = r.choices(["sum", "mean", "method_sum", "prod", "max", "var", "std", "cumsum", "norm", "logsumexp"],
                       [5, 3, 2, 1, 1, 1, 0.5, 1, 0.7, 0.7])[0]  # fmt: skip
        if fn == "sum":
            return Val(f"np.sum({v.code}{args})", shape, v.bound * n_red, v.lo * n_red if v.lo else None)
        if fn == "method_sum":
            return Val(f"({v.code}).sum({args[2:]})", shape, v.bound * n_red, v.lo * n_red if v.lo else None)
        if fn == "mean":
            return Val(f"np.mean({v.code}{args})", shape, v.bound, v.lo)
        if fn == "prod":
            t = self.tame(v) if v.bound > 1.5 else v
            return Val(f"np.prod({t.code}{args})", shape, t.bound**n_red, t.lo**n_red if t.lo else None)
        if fn == "max":
            self.smooth = False
            return Val(f"np.{r.choice(['max', 'min'])}({v.code}{args})", shape, v.bound, v.lo)
        if fn in ("var", "std"):
            if fn == "std":
                self.smooth = False  # sqrt of a variance: not smooth where the elements are equal
            return Val(f"np.{fn}({v.code}{args})", shape, v.bound**2 if fn == "var" else v.bound)
        if fn == "cumsum":
            ax = r.choice(range(len(v.shape)))
            return Val(f"np.cumsum({v.code}, axis={ax})", v.shape, v.bound * v.shape[ax])
        if fn == "norm":
            self.smooth = False
            return Val(f"np.linalg.norm({v.code})", (), v.bound * math.sqrt(size))
        self.uses_special = True
        return Val(f"special.logsumexp({self.tame(v).code}{args})", shape, v.bound + math.log(n_red + 1))

    def linalg(self, scope: list[Val]) -> Val | None:
        r = self.rng
        mats = [v for v in scope if len(v.shape) == 2]
        vecs = [v for v in scope if len(v.shape) == 1]
        choice = r.choice(["matvec", "vecvec", "matmat", "T", "outer", "dot", "trace", "einsum"])
        if choice in ("matvec", "dot", "einsum") and mats:
            a = r.choice(mats)
            bs = [v for v in vecs if v.shape[0] == a.shape[1]]
            if bs:
                b = r.choice(bs)
                code = {"matvec": f"{a.code} @ {b.code}", "dot": f"np.dot({a.code}, {b.code})",
                        "einsum": f"np.einsum('ij,j->i', {a.code}, {b.code})"}[choice]  # fmt: skip
                return self.tame(Val(code, (a.shape[0],), a.bound * b.bound * a.shape[1]))
        if choice == "vecvec" and vecs:
            a = r.choice(vecs)
            b = r.choice([v for v in vecs if v.shape == a.shape])
            return self.tame(Val(f"{a.code} @ {b.code}", (), a.bound * b.bound * a.shape[0]))
        if choice == "matmat" and mats:
            a = r.choice(mats)
            bs = [v for v in mats if v.shape[0] == a.shape[1]]
            if bs:
                b = r.choice(bs)
                return self.tame(Val(f"{a.code} @ {b.code}", (a.shape[0], b.shape[1]), a.bound * b.bound * a.shape[1]))
        if choice == "T" and mats:
            a = r.choice(mats)
            return Val(f"{a.code}.T", a.shape[::-1], a.bound, a.lo, fresh=False)
        if choice == "outer" and vecs:
            a, b = r.choice(vecs), r.choice(vecs)
            return Val(f"np.outer({a.code}, {b.code})", (a.shape[0], b.shape[0]), a.bound * b.bound)
        if choice == "trace":
            sq = [v for v in mats if v.shape[0] == v.shape[1]]
            if sq:
                a = r.choice(sq)
                return Val(f"np.trace({a.code})", (), a.bound * a.shape[0])
        return None

    def index(self, v: Val) -> Val:
        r = self.rng
        if not v.shape or 0 in v.shape:
            return v
        code = v.code if v.code.isidentifier() or v.code.endswith(")") else f"({v.code})"
        d0 = v.shape[0]
        kind = r.choice(["int", "neg", "slice", "rev", "step", "col", "reshape", "expand"])
        if kind == "int":
            return Val(f"{code}[{r.randrange(d0)}]", v.shape[1:], v.bound, v.lo, fresh=False)
        if kind == "neg":
            return Val(f"{code}[-1]", v.shape[1:], v.bound, v.lo, fresh=False)
        if kind == "slice" and d0 >= 2:
            return Val(f"{code}[1:]", (d0 - 1, *v.shape[1:]), v.bound, v.lo, fresh=False)
        if kind == "rev":
            return Val(f"{code}[::-1]", v.shape, v.bound, v.lo, fresh=False)
        if kind == "step":
            return Val(f"{code}[::2]", ((d0 + 1) // 2, *v.shape[1:]), v.bound, v.lo, fresh=False)
        if kind == "col" and len(v.shape) == 2:
            j = r.randrange(v.shape[1])
            return Val(f"{code}[:, {j}]", (d0,), v.bound, v.lo, fresh=False)
        if kind == "reshape":
            return Val(f"{code}.reshape(-1)", (math.prod(v.shape),), v.bound, v.lo, fresh=False)
        if kind == "expand":
            return Val(f"np.expand_dims({v.code}, 0)", (1, *v.shape), v.bound, v.lo, fresh=False)
        return Val(f"{code}[0]", v.shape[1:], v.bound, v.lo, fresh=False)

    def call(self, scope: list[Val]) -> Val | None:
        if not self.helpers:
            return None
        name, shapes, result, bound = self.rng.choice(self.helpers)
        args = []
        for s in shapes:
            cands = [v for v in scope if v.shape == s]
            if not cands:
                return None
            v = self.rng.choice(cands)
            args.append(v.code if v.bound <= 3 else f"np.tanh({v.code})")
        return Val(f"{name}({', '.join(args)})", result, bound)

    # ------------------------------------------------------------------ statements
    def assign(self, scope: list[Val], body: list[str], indent: str, depth: int = 3) -> Val:
        v = self.expr(scope, depth)
        name = self.fresh_name()
        body.append(f"{indent}{name} = {v.code}")
        out = Val(name, v.shape, v.bound, v.lo, fresh=v.fresh and v.code not in [s.code for s in scope])
        scope[:] = [s for s in scope if s.code != name] + [out]
        return out

    def shaped(self, scope: list[Val], shape: tuple, depth: int = 2) -> Val:
        """An expression of exactly ``shape`` or one that broadcasts into it without growing it."""
        v = self.expr(scope, depth)
        if broadcast(v.shape, shape) != shape:
            v = self.reduce_to_scalar(v)
        return v

    def condition(self, scope: list[Val]) -> str:
        self.smooth = False
        v = self.pick(scope)
        c = self.rng.choice(["0.0", "0.5", "-0.25", "1.0"])
        op = self.rng.choice([">", "<", ">="])
        code = v.code if v.shape == () else f"np.{self.rng.choice(['sum', 'max', 'mean'])}({v.code})"
        return f"{code} {op} {c}"

    def block(self, scope: list[Val], body: list[str], indent: str, budget: int, loop: str | None = None) -> None:
        r = self.rng
        for _ in range(budget):
            kind = r.choices(["assign", "if", "ifexp", "for", "while", "array", "aug", "exit", "python"],
                             [6, 1.2, 0.6, 1.4 if len(indent) < 12 else 0, 0.6 if len(indent) < 12 else 0, 1, 1,
                              1.5 if loop else 0, 1.5 if len(indent) < 12 else 0])[0]  # fmt: skip
            if kind == "assign":
                self.assign(scope, body, indent)
            elif kind == "if":
                self.branch(scope, body, indent, loop)
            elif kind == "ifexp":
                a, b = self.pick(scope), self.pick(scope)
                shape = broadcast(a.shape, b.shape)
                if shape is None or a.shape != b.shape:
                    b = Val(f"2.0 * {a.code}", a.shape, 2 * a.bound)
                name = self.fresh_name("v")
                body.append(f"{indent}{name} = {a.code} if {self.condition(scope)} else {b.code}")
                scope.append(Val(name, a.shape, max(a.bound, b.bound), fresh=False))
            elif kind == "for":
                self.for_loop(scope, body, indent)
            elif kind == "while":
                self.while_loop(scope, body, indent)
            elif kind == "array":
                self.local_array(scope, body, indent, loop)
            elif kind == "aug":
                targets = [v for v in scope if v.code.isidentifier() and v.fresh and v.bound <= 10]
                if targets:
                    t = r.choice(targets)
                    e = self.tame(self.shaped(scope, t.shape))
                    op = r.choice(["+=", "-=", "*="])
                    if op == "*=":
                        e = Val(f"np.tanh({e.code})", e.shape, 1.0)
                    body.append(f"{indent}{t.code} {op} {e.code}")
                    t.bound, t.lo = t.bound + e.bound, None
                else:
                    self.assign(scope, body, indent)
            elif kind == "python":
                self.python_statement(scope, body, indent, loop)
            elif kind == "exit" and loop:
                body.append(f"{indent}if {self.condition(scope)}:")
                body.append(f"{indent}    {r.choice(['break', 'continue'])}")

    def branch(self, scope: list[Val], body: list[str], indent: str, loop: str | None, cond: str = "") -> None:
        cond = cond or self.condition(scope)
        targets = [v for v in scope if v.code.isidentifier() and v.shape != () or v.code.isidentifier()]
        new = self.fresh_name("b")
        base = self.pick(scope)
        branches = []
        for _ in range(2):
            inner = [Val(v.code, v.shape, v.bound, v.lo, v.fresh) for v in scope]
            lines: list[str] = []
            self.block(inner, lines, indent + "    ", self.rng.randint(0, 2), loop)
            e = self.tame(self.shaped(inner, base.shape))
            lines.append(f"{indent}    {new} = {e.code}")
            branches.append((lines, e))
        body.append(f"{indent}if {cond}:")
        body.extend(branches[0][0])
        body.append(f"{indent}else:")
        body.extend(branches[1][0])
        shape = broadcast(branches[0][1].shape, branches[1][1].shape)  # () when both are numbers
        shape = base.shape if shape is None else shape
        del targets
        scope.append(Val(new, shape, max(b[1].bound for b in branches), fresh=False))

    def carried(self, scope: list[Val], body: list[str], indent: str) -> Val:
        """A loop-carried value: an existing name or a new one, initialised before the loop."""
        cands = [v for v in scope if v.code.isidentifier() and v.fresh]
        if cands and self.rng.random() < 0.5:
            s = self.rng.choice(cands)
        else:
            init = self.rng.choice(["0.0", "1.0", None])
            name = self.fresh_name("s")
            if init is None:
                v = self.tame(self.expr(scope, 1))
                body.append(f"{indent}{name} = {v.code}")
                s = Val(name, v.shape, v.bound)
            else:
                body.append(f"{indent}{name} = {init}")
                s = Val(name, (), 1.0)
            scope.append(s)
        s.bound, s.lo = max(s.bound, 2.0) + 1.0, None
        return s

    def update(self, s: Val, scope: list[Val], indent: str) -> str:
        e = self.tame(self.shaped(scope, s.shape))
        form = self.rng.choice(["0.5 * {s} + np.tanh({e})", "{s} + 0.25 * np.sin({e})", "{s} * np.tanh({e})",
                                "np.tanh({s} * {e}) + 0.5 * {s}", "{s} + 0.25 * np.cos({s} * {e})"])  # fmt: skip
        return f"{indent}{s.code} = " + form.format(s=s.code, e=e.code)

    def loop_body(self, scope: list[Val], body: list[str], indent: str, loop: str, carried: list[Val]) -> None:
        inner = list(scope)
        for s in carried:
            self.block(inner, body, indent, self.rng.randint(0, 2), loop)
            body.append(self.update(s, inner, indent))
        self.last_body_names = [v for v in inner if v not in scope and v.code.isidentifier() and v not in carried]

    def for_loop(self, scope: list[Val], body: list[str], indent: str) -> None:
        r = self.rng
        carried = [self.carried(scope, body, indent) for _ in range(r.choice([1, 1, 2]))]
        arrays = [v for v in scope if v.shape and v.code.isidentifier() and v.shape[0] >= 1]
        i = self.fresh_name("i") if r.random() < 0.3 else f"i{self.counter}"
        self.counter += 1
        ints = [s for s in self.int_params]
        kind = r.choice(["len", "const", "param", "rows"] if arrays else ["const", "param"])
        inner = list(scope)
        if kind == "len":
            a = r.choice(arrays)
            body.append(f"{indent}for {i} in range(len({a.code})):")
            inner.append(Val(f"{a.code}[{i}]", a.shape[1:], a.bound, a.lo, fresh=False))
        elif kind == "rows":
            a = r.choice(arrays)
            body.append(f"{indent}for {i} in {a.code}:")
            inner.append(Val(i, a.shape[1:], a.bound, a.lo, fresh=False))
        elif kind == "param" and ints:
            body.append(f"{indent}for {i} in range({r.choice(ints)}):")
        else:
            body.append(f"{indent}for {i} in range({r.randint(0, 4)}):")
        runs = kind in ("len", "rows") or body[-1].endswith(("(1):", "(2):", "(3):", "(4):"))
        start = len(body)
        self.loop_body(inner, body, indent + "    ", i, carried)
        if len(body) == start:
            body.append(f"{indent}    pass")
        jumps = any(line.strip() in ("break", "continue") for line in body[start:])
        if runs and not jumps and r.random() < 0.5:  # a name made in the body, read after the loop
            scope.extend(self.last_body_names[-1:])

    def while_loop(self, scope: list[Val], body: list[str], indent: str) -> None:
        r = self.rng
        carried = [self.carried(scope, body, indent)]
        k = self.fresh_name("k")
        body.append(f"{indent}{k} = 0")
        cond = f"{k} < {r.randint(1, 4)}"
        if r.random() < 0.4:
            cond += f" and {self.condition(scope)}"
        body.append(f"{indent}while {cond}:")
        body.append(f"{indent}    {k} = {k} + 1")
        self.loop_body(list(scope), body, indent + "    ", k, carried)

    def local_array(self, scope: list[Val], body: list[str], indent: str, loop: str | None) -> None:
        r = self.rng
        size = r.randint(1, 4)
        name = self.fresh_name("a")
        body.append(f"{indent}{name} = np.zeros({size})")
        a = Val(name, (size,), 0.0, fresh=True)
        for _ in range(r.randint(1, 3)):
            j = r.randrange(size)
            e = self.tame(self.reduce_to_scalar(self.expr(scope, 2)))
            op = r.choice(["=", "=", "+="])
            body.append(f"{indent}{name}[{j}] {op} {e.code}")
            a.bound += e.bound
            if r.random() < 0.4:
                scope.append(Val(f"{name}[{r.randrange(size)}]", (), a.bound, fresh=False))
        if r.random() < 0.5:  # written and read in a loop
            i = f"j{self.counter}"
            self.counter += 1
            body.append(f"{indent}for {i} in range({size}):")
            e = self.tame(self.reduce_to_scalar(self.expr(scope, 1)))
            prev = f"{name}[{i} - 1]" if r.random() < 0.5 else f"{name}[{i}]"
            body.append(f"{indent}    {name}[{i}] = 0.5 * {prev} + np.sin({e.code})")
            a.bound = a.bound + 2
            if r.random() < 0.5:  # the element just written, read in the same iteration
                acc = self.fresh_name("c")
                body.insert(len(body) - 2, f"{indent}{acc} = 0.0")
                body.append(f"{indent}    {acc} = {acc} + np.tanh({name}[{i}] * {e.code})")
                scope.append(Val(acc, (), float(size)))
        scope.append(a)

    # ------------------------------------------------------------------ helpers, classes, the entry
    def helper(self, index: int) -> str:
        r = self.rng
        name = (
            f"helper{index}" if not (self.collide and r.random() < 0.3) else r.choice(["_unbroadcast", "grad_f", "_h"])
        )
        if any(h[0] == name for h in self.helpers):
            name = f"helper{index}"
        shapes = [self.concrete(self.token_shape()) for _ in range(r.randint(1, 3))]
        params = [f"p{k}" for k in range(len(shapes))]
        scope = [Val(p, s, 3.0, fresh=False) for p, s in zip(params, shapes)]
        lines = [f"def {name}({', '.join(params)}):"]
        for _ in range(r.randint(0, 3)):
            self.assign(scope, lines, "    ", 2)
        ret = self.tame(self.expr(scope, 2))
        lines.append(f"    return {ret.code}")
        self.helpers.append((name, shapes, ret.shape, ret.bound))
        return "\n".join(lines)

    def program(self) -> Program:
        r = self.rng
        params: list[Spec] = []
        scope: list[Val] = []
        self.int_params: list[str] = []
        pre: list[str] = []
        lead: list[str] = []  # f's first lines (a list parameter unpacked)
        for k in range(r.randint(1, 3)):
            kind = r.choices(["array", "float", "object", "list"], [6, 2, 1, 0.8])[0]
            name = ["x", "y", "z"][k]
            if kind == "list":
                self.list_parameter(name, params, scope, lead)
            elif kind == "array":
                tokens = self.token_shape() or ("n",)
                params.append(("array", name, tokens))
                scope.append(Val(name, self.concrete(tokens), 2.0, fresh=False, token_shape=tokens))
            elif kind == "float":
                params.append(("float", name))
                scope.append(Val(name, (), 2.0, fresh=False))
            else:
                pre.extend(self.dataclass(name, params, scope))
        if r.random() < 0.35:
            params.append(("int", "n_steps", r.randint(0, 4)))
            self.int_params.append("n_steps")
        self.in_helper = True
        helpers = [self.helper(i) for i in range(r.choices([0, 1, 2, 3], [3, 3, 2, 1])[0])]
        self.in_helper = False
        body: list[str] = lead
        self.block(scope, body, "    ", r.randint(1, 6))
        vector = r.random() < 0.02
        finals = [v for v in scope[-4:]]
        terms = [f"np.sum({v.code})" if v.shape else v.code for v in finals[-r.randint(1, 3) :]]
        ret = " + ".join(terms) if not vector else next((v.code for v in reversed(scope) if v.shape), None)
        if ret is None:
            vector, ret = False, " + ".join(terms)
        body.append(f"    return {ret}")
        names = ", ".join(p[1] for p in params)
        head = ["import numpy as np"]
        if self.uses_special:
            head.append("from scipy import special")
        if self.classes:
            head.append("from dataclasses import dataclass")
        if self.constants:
            head.append("\n" + "\n".join(f"{k} = {v}" for k, v in self.constants.items()))
        if self.module_lines:
            head.append("\n" + "\n".join(self.module_lines))
        parts = ["\n".join(head), *pre, *helpers, f"def f({names}):\n" + "\n".join(body)]
        source = "\n\n\n".join(parts) + "\n"
        return Program(source, tuple(params), (("n", self.n), ("m", self.m)), self.smooth, vector)

    def dataclass(self, name: str, params: list, scope: list[Val]) -> list[str]:
        r = self.rng
        cls = f"Model{len(self.classes)}"
        self.classes.append(cls)
        fields = []
        out = []
        if r.random() < 0.35:  # a list of objects
            inner = f"Layer{len(self.classes)}"
            self.classes.append(inner)
            shape = ("n",)
            out.append(f"@dataclass\nclass {inner}:\n    w: np.ndarray\n    c: float")
            count = r.randint(1, 2)
            fields.append(("layers", ("list", inner, count, (("w", shape), ("c", ())))))
            out.append(f"@dataclass\nclass {cls}:\n    layers: list[{inner}]")
            for k in range(count):
                scope.append(Val(f"{name}.layers[{k}].w", self.concrete(shape), 2.0, fresh=False))
                scope.append(Val(f"{name}.layers[{k}].c", (), 2.0, fresh=False))
        else:
            attrs = []
            for fname in r.sample(["W", "b", "scale"], r.randint(1, 3)):
                tokens = {"W": ("m", "n"), "b": ("n",), "scale": ()}[fname]
                fields.append((fname, tokens))
                attrs.append(f"    {fname}: {'np.ndarray' if tokens else 'float'}")
                scope.append(Val(f"{name}.{fname}", self.concrete(tokens), 2.0, fresh=False))
            method = ""
            if r.random() < 0.5:
                first = fields[0][0]
                method = f"\n\n    def act(self, v):\n        return np.tanh(self.{first}) * np.sum(v)"
                scope.append(Val(f"{name}.act({scope[-1].code})", self.concrete(fields[0][1]), 1.0 * 2 * 16))
            out.append(f"@dataclass\nclass {cls}:\n" + "\n".join(attrs) + method)
        params.append(("object", name, cls, tuple(fields)))
        return out


def generate_program(seed: int) -> Program:
    """The program of this seed (the same one every time)."""
    return Gen(seed).program()
