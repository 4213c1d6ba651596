"""The @diffrule library: SymPy as the oracle, finite differences per source name, loader errors.

- every ``shape="elementwise"`` rule's formulas are rebuilt as SymPy expressions
  and compared with ``sympy.diff`` of the primitive;
- every differentiable rule is reached through each of its source names by a
  small generated function, checked against central finite differences for
  scalar, vector, matrix and broadcasting operands;
- each broken file in ``tests/rules_broken/`` gives its located ``UserError``;
- the source-name table maps names to primitives.
"""

from __future__ import annotations

import ast
import dataclasses
import itertools
from pathlib import Path

import numpy as np
import pytest
import sympy

from yota_s2s.dsl.load import load_rules
from yota_s2s.dsl.rule import Rule
from yota_s2s.errors import UserErrors
from yota_s2s.pipeline import generate

from . import rule_specs
from .gradcheck import assert_close, numeric_grad

TABLE = load_rules()
BROKEN = Path(__file__).resolve().parent / "rules_broken"

# ============================================================================= SymPy oracle

#: The primal of each elementwise primitive as SymPy (formulas call primitives by these names too).
SYMPY_PRIMAL = rule_specs.SYMPY
POSITIVE_POINTS = [0.4, 0.9, 1.3, 2.2]
SIGNED_POINTS = [-1.7, -0.6, 0.4, 1.3, 2.2]  # away from 0 (abs, sign, division)

_SYMPY_OPS = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.Pow: lambda a, b: a**b,
}

ELEMENTWISE = sorted(name for name, rule in TABLE.rules.items() if rule.shape == "elementwise")


class NoSympy(Exception):
    """A formula uses something the oracle cannot translate."""


def to_sympy(node: ast.expr, env: dict[str, object], rule: Rule, temps: dict[str, object]) -> object:
    """The SymPy expression of a rule formula (``unbroadcast(g, x)`` is ``g`` for scalars)."""

    def walk(n: ast.expr) -> object:
        if isinstance(n, ast.Constant) and type(n.value) in (int, float):
            return sympy.nsimplify(n.value)
        if isinstance(n, ast.Name):
            if n.id in rule.temps:
                if n.id not in temps:
                    temps[n.id] = walk(rule.temps[n.id])
                return temps[n.id]
            if n.id in env:
                return env[n.id]
            raise NoSympy(f"name {n.id!r}")
        if isinstance(n, ast.BinOp) and type(n.op) in _SYMPY_OPS:
            return _SYMPY_OPS[type(n.op)](walk(n.left), walk(n.right))
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub | ast.UAdd):
            v = walk(n.operand)
            return -v if isinstance(n.op, ast.USub) else v
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and not n.keywords:
            if n.func.id == "unbroadcast" and len(n.args) == 2:
                return walk(n.args[0])
            if n.func.id in SYMPY_PRIMAL:
                return SYMPY_PRIMAL[n.func.id](*(walk(a) for a in n.args))
            raise NoSympy(f"call to {n.func.id}()")
        raise NoSympy(ast.dump(n))

    return walk(node)


def _grid(prim: str, op: str, position: int) -> list[float]:
    """Sample points of an operand; the second operand's are shifted, so that x != y (comparisons)."""
    d = rule_specs.domain(prim, op)
    if d is None:
        return [p + 0.11 * position for p in SIGNED_POINTS]
    low, high = d
    return [low + (high - low) * (t + 0.05 * position) for t in (0.1, 0.35, 0.6, 0.85)]


def _points(rule: Rule) -> list[dict[str, float]]:
    grids = [_grid(rule.name, op, k) for k, op in enumerate(rule.operands)]
    combos = list(itertools.product(*grids))
    return [dict(zip(rule.operands, c)) for c in combos[:: max(1, len(combos) // 12)]]


def _agree(a: object, b: object, symbols: dict, rule: Rule) -> tuple[bool, str]:
    """Equal at every sample point, or (where a point disagrees) equal per ``sympy.simplify``.  (The points
    come first: simplify proves no piecewise difference zero, and took 5 to 17 s trying on each of
    clip, fmin, fmax and fmod's.)"""
    for point in _points(rule):
        subs = {symbols[k]: v for k, v in point.items()}
        subs[symbols["dout"]] = 0.7
        va, vb = complex(sympy.N(a.subs(subs))), complex(sympy.N(b.subs(subs)))
        if not np.isclose(va, vb, rtol=1e-9, atol=1e-12):
            return sympy.simplify(a - b) == 0, f"at {point}: {va} != {vb}"
    return True, ""


def oracle_mismatches(rule: Rule) -> list[str]:
    """What is wrong with ``rule``'s formulas, per SymPy; empty when they are right."""
    if rule.name not in SYMPY_PRIMAL:
        return [f"no SymPy mapping for elementwise primitive {rule.name!r}: add it to SYMPY_PRIMAL"]
    symbols = {op: sympy.Symbol(op, real=True) for op in rule.operands}
    symbols["dout"] = sympy.Symbol("dout", real=True)
    primal = SYMPY_PRIMAL[rule.name](*(symbols[op] for op in rule.operands))
    env = {**symbols, "out": primal}
    temps: dict[str, object] = {}
    problems = []
    for op in rule.operands:
        true_grad = sympy.diff(primal, symbols[op])
        if op in rule.grads:
            try:
                formula = to_sympy(rule.grads[op], env, rule, temps)
            except NoSympy as exc:
                problems.append(f"d{op}: the oracle cannot read {exc}")
                continue
            ok, why = _agree(formula, symbols["dout"] * true_grad, symbols, rule)
            if not ok:
                problems.append(f"d{op} = {ast.unparse(rule.grads[op])} disagrees with sympy.diff: {why}")
        elif op in rule.nondiff:
            # nondiff is right only where the true derivative is zero (sign: 2*DiracDelta(x))
            for point in _points(rule):
                value = sympy.N(true_grad.subs({symbols[k]: v for k, v in point.items()}))
                if value != 0:
                    problems.append(f"nondiff({op}) but d/d{op} = {true_grad} is {value} at {point}")
                    break
        elif op not in rule.not_implemented:  # (a Bessel function's order: refused where differentiated)
            problems.append(f"operand {op!r} of an elementwise rule is not implemented")
    return problems


def test_every_elementwise_primitive_has_a_sympy_mapping():
    assert ELEMENTWISE, "no elementwise rules found"
    assert sorted(set(ELEMENTWISE) - set(SYMPY_PRIMAL)) == []


@pytest.mark.parametrize("prim", ELEMENTWISE)  # (each in ~1 s of CPU at most, the piecewise ones too)
def test_elementwise_rule_matches_sympy(prim):
    assert oracle_mismatches(TABLE[prim]) == []


def _with_grad(prim: str, op: str, formula: str) -> Rule:
    rule = TABLE[prim]
    return dataclasses.replace(rule, grads={**rule.grads, op: ast.parse(formula, mode="eval").body})


@pytest.mark.parametrize(
    ("prim", "op", "formula"),
    [
        ("exp", "x", "dout * x"),
        ("abs", "x", "dout"),  # right for x > 0 only: the negative points catch it
        ("sub", "y", "unbroadcast(dout, y)"),
        ("truediv", "y", "unbroadcast(-dout * out * y, y)"),
        ("power", "x", "unbroadcast(dout * p * x ** p, x)"),
        ("tanh", "x", "dout * (1.0 + out * out)"),
        ("sqrt", "x", "dout / out"),
    ],
)
def test_the_oracle_catches_a_broken_formula(prim, op, formula):
    assert any(m.startswith(f"d{op} =") for m in oracle_mismatches(_with_grad(prim, op, formula)))


def test_the_oracle_catches_a_wrong_nondiff():
    rule = TABLE["exp"]
    broken = dataclasses.replace(rule, grads={}, nondiff=frozenset({"x"}))
    assert any("nondiff(x)" in m for m in oracle_mismatches(broken))


def test_the_oracle_catches_a_missing_mapping():
    broken = dataclasses.replace(TABLE["exp"], name="mylib_exp")
    assert oracle_mismatches(broken) == [
        "no SymPy mapping for elementwise primitive 'mylib_exp': add it to SYMPY_PRIMAL"
    ]


# ============================================================================= finite differences per source name

UNARY_SHAPES = [[()], [(3,)], [(2, 3)]]
BROADCAST_PAIRS = [[(2, 3), (3,)], [(2, 3), (1, 3)], [(2, 3), (2, 1)], [(2, 3), ()]]
BINARY_SHAPES = [[(), ()], [(3,), (3,)], [(2, 3), (2, 3)], *BROADCAST_PAIRS]
REVERSED_PAIRS = [[b, a] for a, b in BROADCAST_PAIRS]

#: Operator syntax for ``operator.*`` source names.
OPERATOR_SYNTAX = {
    "operator.add": "x + y",
    "operator.sub": "x - y",
    "operator.mul": "x * y",
    "operator.truediv": "x / y",
    "operator.pow": "x ** y",
    "operator.neg": "-x",
    "operator.matmul": "x @ y",
}

#: Non-elementwise primitives: call templates (``{f}`` is the callee) and operand shapes.
SPECS: dict[str, list[tuple[str, list]]] = {
    "sum": [
        *(("{f}(x)", s) for s in UNARY_SHAPES),
        ("{f}(x, axis=0)", [(2, 3)]),
        ("{f}(x, axis=1)", [(2, 3)]),
        ("{f}(x, axis=-1, keepdims=True)", [(2, 3)]),
        ("{f}(x, axis=(0, 1))", [(2, 3)]),
        ("{f}(x, 1)", [(2, 3)]),
    ],
    "matmul": [
        ("{f}(x, y)", [(2, 3), (3, 4)]),
        ("{f}(x, y)", [(3,), (3, 4)]),
        ("{f}(x, y)", [(2, 3), (3,)]),
        ("{f}(x, y)", [(3,), (3,)]),
        ("{f}(x, y)", [(2, 2, 3), (3, 4)]),
    ],
    "dot": [
        ("{f}(x, y)", [(2, 3), (3, 4)]),
        ("{f}(x, y)", [(3,), (3, 4)]),
        ("{f}(x, y)", [(2, 3), (3,)]),
        ("{f}(x, y)", [(3,), (3,)]),
        ("{f}(x, y)", [(), (3,)]),
        ("{f}(x, y)", [(2, 3), ()]),
        # N-D: matmul's products up to a 2-D y, past it the outer product over leading axes
        # (dot(a, b)[i, j, k, m] = sum(a[i, j, :] * b[k, :, m]), not matmul's broadcast batch)
        ("{f}(x, y)", [(2, 2, 3), (3,)]),
        ("{f}(x, y)", [(2, 2, 3), (3, 4)]),
        ("{f}(x, y)", [(3,), (2, 3, 4)]),
        ("{f}(x, y)", [(2, 3), (5, 3, 4)]),
        ("{f}(x, y)", [(2, 2, 3), (2, 3, 4)]),
        ("{f}(x, y)", [(4, 2, 3), (2, 1, 3, 2)]),
        ("{f}(x, y)", [(), (2, 3, 4)]),
    ],
    "transpose": [
        ("{f}(x)", [(2, 3)]),
        ("{f}(x)", [(3,)]),
        ("{f}(x)", [()]),
        ("{f}(x, (1, 0))", [(2, 3)]),
        ("{f}(x, axes=(2, 0, 1))", [(2, 3, 4)]),  # not its own inverse: checks invperm
    ],
    "diag": [
        ("{f}(x)", [(3,)]),
        ("{f}(x)", [(3, 3)]),
        ("{f}(x, 1)", [(3,)]),
        ("{f}(x, k=-1)", [(3, 4)]),
    ],
    "broadcast_to": [("{f}(x, (2, 3))", s) for s in ([(3,)], [(1, 3)], [(2, 1)], [()])],
    "reshape": [("{f}(x, (3, 2))", [(2, 3)]), ("{f}(x, -1)", [(2, 3)]), ("{f}(x, (6, 1))", [(2, 3)])],
}
SPECS["mean"] = SPECS["max"] = SPECS["min"] = SPECS["sum"]
SPECS.update(rule_specs.SPECS)

#: ``ndarray.*`` source names: method calls and attributes, written out.
METHODS: dict[str, list[tuple[str, list]]] = {
    "ndarray.sum": [("x.sum()", [(3,)]), ("x.sum(axis=0)", [(2, 3)]), ("x.sum(axis=1, keepdims=True)", [(2, 3)])],
    "ndarray.mean": [("x.mean()", [(2, 3)]), ("x.mean(axis=1)", [(2, 3)]), ("x.mean(0, keepdims=True)", [(2, 3)])],
    "ndarray.max": [("x.max()", [(3,)]), ("x.max(axis=0)", [(2, 3)]), ("x.max(1, keepdims=True)", [(2, 3)])],
    "ndarray.min": [("x.min()", [(3,)]), ("x.min(axis=1)", [(2, 3)]), ("x.min(0, keepdims=True)", [(2, 3)])],
    "ndarray.dot": [("x.dot(y)", [(2, 3), (3,)]), ("x.dot(y)", [(2, 3), (3, 4)]), ("x.dot(y)", [(2, 2, 3), (2, 3, 4)])],
    "ndarray.transpose": [
        ("x.transpose()", [(2, 3)]),
        ("x.transpose(2, 0, 1)", [(2, 3, 4)]),
        ("x.transpose((1, 2, 0))", [(2, 3, 4)]),
    ],
    "ndarray.T": [("x.T", [(2, 3)]), ("x.T", [(3,)]), ("x.T", [()])],
    "ndarray.reshape": [("x.reshape(-1)", [(2, 3)]), ("x.reshape(3, 2)", [(2, 3)]), ("x.reshape((6, 1))", [(2, 3)])],
}

METHODS.update(rule_specs.METHODS)

#: getindex has no source name: indexing syntax reaches it.
INDEXING = [
    ("x[1]", [(3,)]),
    ("x[1:]", [(3,)]),
    ("x[::-1]", [(3,)]),
    ("x[-1]", [(2, 3)]),
    ("x[:, None]", [(3,)]),
    ("x[None]", [(3,)]),
    ("x[..., 0]", [(2, 3)]),
    ("x[0, 1]", [(2, 3)]),
    ("x[:, 1:]", [(2, 3)]),
    ("x[1] + x[1]", [(3,)]),
    ("x[0] * x[1:]", [(3,)]),
]


@dataclasses.dataclass(frozen=True)
class Case:
    prim: str
    name: str  # the source name, or "syntax"
    expr: str
    shapes: tuple

    @property
    def id(self) -> str:
        shapes = ",".join("x".join(map(str, s)) or "()" for s in self.shapes)
        return f"{self.prim}:{self.expr}:{shapes}"


def run_source(text: str, namespace: dict, filename: str = "generated.py") -> dict:
    """Execute source text (a test function or a generated module) into ``namespace``."""
    exec(compile(text, filename, "exec"), namespace)  # noqa: S102 - the code under test
    return namespace


def callee(name: str) -> str:
    module, attr = name.split(".", 1)
    known = {"numpy": f"np.{attr}", "math": f"math.{attr}", "builtins": attr, "operator": f"operator.{attr}"}
    return known.get(module, name)  # another library's function (scipy.special.erf) by its own name


def differentiable_named_rules() -> list[Rule]:
    return [r for _, r in sorted(TABLE.rules.items()) if r.names and r.grads]


def build_cases() -> tuple[list[Case], list[str]]:
    cases: list[Case] = []
    missing: list[str] = []
    for rule in differentiable_named_rules():
        for name in rule.names:
            if name.startswith("ndarray."):
                if name not in METHODS:
                    missing.append(name)
                for expr, shapes in METHODS.get(name, []):
                    cases.append(Case(rule.name, name, expr, tuple(shapes)))
                continue
            if rule.name in SPECS:  # also elementwise rules that {f}(x) or {f}(x, y) cannot call (clip)
                specs = SPECS[rule.name]
            elif rule.shape == "elementwise":
                unary = len(rule.operands) == 1
                template = "{f}(x)" if unary else "{f}(x, y)"
                specs = [(template, s) for s in (UNARY_SHAPES if unary else BINARY_SHAPES)]
            else:
                missing.append(name)
                continue
            if name.startswith("math."):
                specs = [(t, s) for t, s in specs if all(shape == () for shape in s)]
            for template, shapes in specs:
                cases.append(Case(rule.name, name, template.format(f=callee(name)), tuple(shapes)))
            if name in OPERATOR_SYNTAX:
                plain = "{f}(x)" if len(rule.operands) == 1 else "{f}(x, y)"
                extra = REVERSED_PAIRS if rule.shape == "elementwise" and len(rule.operands) == 2 else []
                for template, shapes in [*specs, *((plain, s) for s in extra)]:
                    if template == plain:
                        cases.append(Case(rule.name, "syntax", OPERATOR_SYNTAX[name], tuple(shapes)))
    cases += [Case("getindex", "syntax", expr, tuple(shapes)) for expr, shapes in INDEXING]
    return cases, missing


CASES, MISSING = build_cases()

#: Cases that reveal a bug of the tool (kept, expected to fail until it is fixed).
KNOWN_BUGS: dict[str, str] = {}


def _params(cases: list[Case]) -> list:
    return [
        pytest.param(c, id=c.id, marks=[pytest.mark.xfail(strict=True, reason=KNOWN_BUGS[c.id])])
        if c.id in KNOWN_BUGS
        else pytest.param(c, id=c.id)
        for c in cases
    ]


def test_every_differentiable_source_name_has_a_numeric_case():
    assert MISSING == []
    assert set(KNOWN_BUGS) <= {c.id for c in CASES}
    covered = {c.name for c in CASES}
    for rule in differentiable_named_rules():
        assert set(rule.names) <= covered, rule.name
        if len(rule.operands) == 2 and rule.shape == "elementwise":
            shapes = {c.shapes for c in CASES if c.prim == rule.name}
            assert {tuple(p) for p in BROADCAST_PAIRS} <= shapes, rule.name


def _value(shape: tuple, interval: tuple[float, float] | None, method: bool, rng) -> object:
    if interval is None:
        v = rng.uniform(0.5, 2.0, shape) * rng.choice([-1.0, 1.0], shape)
    else:
        v = rng.uniform(*interval, shape)
    if shape == ():
        return np.asarray(v) if method else float(v)
    return v


@pytest.mark.parametrize("case", _params(CASES))
def test_rule_matches_finite_differences(case):
    names = ["x", "y"][: len(case.shapes)]
    source = (
        f"import math\nimport operator\n\nimport numpy as np\nimport scipy.special\n\n\ndef f({', '.join(names)}, w):\n"
    )
    source += f"    return np.sum(w * np.sin({case.expr}))\n"
    namespace = run_source(source, {}, "case.py")
    f = namespace["f"]
    rng = np.random.default_rng(0)
    method = case.name.startswith("ndarray.")
    operands = TABLE[case.prim].operand_names(len(case.shapes))
    args = [_value(s, rule_specs.domain(case.prim, op), method, rng) for op, s in zip(operands, case.shapes)]
    out_shape = np.shape(f(*args, 1.0))
    args.append(rng.standard_normal(out_shape) if out_shape else float(rng.standard_normal()))

    g = generate(source, "case.py", ["f"])
    assert case.prim in [e.prim for e in g.tapes["lower"][0].eqns]
    run_source(g.text, namespace)
    value, *grads = namespace["grad_f"](*args)
    assert np.allclose(value, f(*args), rtol=1e-12, atol=1e-12)
    assert len(grads) == len(args)
    for i, (param, grad) in enumerate(zip([*names, "w"], grads)):
        numeric = numeric_grad(f, args, i)
        if grad is None and np.all(numeric == 0.0):
            continue  # no differentiable path, as for the order n of polygamma(np.floor(x), y)
        assert_close(grad, numeric, f"{case.id}: d{param}")
        if isinstance(args[i], np.ndarray):
            assert grad.dtype == args[i].dtype


@pytest.mark.parametrize(
    "expr",
    [
        "np.sum(np.sign(x))",
        "np.sum(np.zeros_like(x))",
        "np.size(x) * 2.0",
        "x.size * 2.0",
        "len(x) * 2.0",
        "x.shape[0] * 2.0",
        "np.shape(x)[1] * 2.0",
        "np.ndim(x) * 2.0",
        "x.ndim * 2.0",
    ],
)
def test_nondiff_primitives_give_no_gradient(expr):
    source = f"import numpy as np\n\n\ndef f(x):\n    return {expr}\n"
    namespace = run_source(source, {}, "case.py")
    run_source(generate(source, "case.py").text, namespace)
    x = np.array([[0.5, -1.0, 2.0], [1.5, -0.3, 0.8]])
    value, dx = namespace["grad_f"](x)
    assert value == namespace["f"](x)
    assert dx is None


def test_sign_is_a_constant_factor():
    source = "import numpy as np\n\n\ndef f(x):\n    return np.sum(np.sign(x) * x)\n"
    namespace = run_source(generate(source, "case.py").text, {})
    x = np.array([0.5, -1.0, 2.0])
    value, dx = namespace["grad_f"](x)
    assert value == 3.5
    assert dx.tolist() == [1.0, -1.0, 1.0]


# ============================================================================= loader errors

#: file -> (code, line, column, text the message must contain)
BROKEN_FILES = {
    "no_gradient.py": (
        "YS102",
        6,
        1,
        "operand 'y' of hypot has no gradient: write 'dy = <formula>', 'nondiff(y)' or 'dy = not_implemented(\"why\")'",
    ),
    "unbound_name.py": ("YS103", 7, 17, "unbound name 'z' in a formula"),
    "unknown_primitive.py": ("YS104", 7, 17, "'mycosh' is not a primitive"),
    "duplicate_rule.py": ("YS105", 6, 1, "a second rule for 'exp'"),
    "for_loop.py": (
        "YS101",
        7,
        5,
        "a rule body holds only 'd<operand> = formula', temporaries, nondiff(...) and not_implemented(...)",
    ),
    "return_statement.py": (
        "YS101",
        8,
        5,
        "a rule body holds only 'd<operand> = formula', temporaries, nondiff(...) and not_implemented(...)",
    ),
    "bad_keyword.py": ("YS106", 5, 11, "unknown @diffrule keyword 'name' (names, shape, pure)"),
    "bad_shape.py": ("YS106", 5, 39, "shape= is one of elementwise, scalar, reduce, opaque or a parameter name"),
}


def load_errors(path: Path) -> list:
    with pytest.raises(UserErrors) as info:
        load_rules([path])
    return info.value.errors


@pytest.mark.parametrize("filename", sorted(BROKEN_FILES))
def test_broken_rule_file_is_a_located_error(filename):
    code, line, col, text = BROKEN_FILES[filename]
    path = BROKEN / filename
    (error,) = load_errors(path)
    assert (error.code, error.path, error.line, error.col) == (code, str(path), line, col)
    assert text in error.message
    source_line = path.read_text(encoding="utf-8").splitlines()[line - 1]
    assert error.source_line == source_line
    assert error.format().splitlines() == [
        f"{path}:{line}:{col}: error: {error.message} ({code})",
        f"    {source_line}",
        "    " + " " * (col - 1) + "^",
    ]


def test_duplicate_rule_names_the_first_rule():
    (error,) = load_errors(BROKEN / "duplicate_rule.py")
    first = TABLE["exp"]
    assert f"(the first is at {first.path}:{first.line}); keep one" in error.message


def test_loader_reports_every_error_in_a_file():
    errors = load_errors(BROKEN / "two_errors.py")
    assert [(e.code, e.line) for e in errors] == [("YS102", 6), ("YS103", 12)]


def test_every_broken_fixture_is_checked():
    fixtures = {p.name for p in BROKEN.glob("*.py")} - {"conftest.py"}
    assert fixtures == set(BROKEN_FILES) | {"two_errors.py", "duplicate_name.py"}


def test_a_failed_load_does_not_poison_the_next_one():
    load_errors(BROKEN / "duplicate_rule.py")
    assert load_rules() is TABLE
    assert "exp" in load_rules()


def test_a_source_name_claimed_twice_is_an_error():
    errors = load_errors(BROKEN / "duplicate_name.py")
    assert [e.code for e in errors] == ["YS105"]


def test_ys104_advice_names_a_table_that_exists():
    (error,) = load_errors(BROKEN / "unknown_primitive.py")
    assert "docs/rules.md" in error.message
    assert (Path(__file__).resolve().parent.parent / "docs" / "rules.md").exists()


# ============================================================================= the source-name table


@pytest.mark.parametrize(
    ("source_name", "prim"),
    [
        ("numpy.exp", "exp"),
        ("math.exp", "exp"),
        ("ndarray.sum", "sum"),
        ("numpy.sum", "sum"),
        ("ndarray.T", "transpose"),
        ("numpy.transpose", "transpose"),
        ("operator.matmul", "matmul"),
        ("builtins.abs", "abs"),
        ("operator.pow", "power"),
    ],
)
def test_source_name_table(source_name, prim):
    assert TABLE.names[source_name] == prim


def test_every_source_name_is_declared_by_its_rule_and_only_once():
    declared = [n for rule in TABLE.rules.values() for n in rule.names]
    assert len(declared) == len(set(declared))
    for name, prim in TABLE.names.items():
        assert name in TABLE[prim].names


@pytest.mark.parametrize("fn", ["max", "min"])
def test_max_and_min_split_the_gradient_evenly_between_ties(fn):
    source = f"import numpy as np\n\n\ndef f(x):\n    return np.{fn}(x) + np.sum(np.{fn}(x, axis=1))\n"
    namespace = run_source(generate(source, "t.py").text, {})
    x = np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]]) * (1 if fn == "max" else -1)
    _, dx = namespace["grad_f"](x)
    # the global extremum (+-3) is tied twice, and so is each row's: 0.5 + 0.5 in row 0
    assert np.allclose(dx, [[0.0, 1.0, 1.0], [0.5, 0.5, 0.0]])
