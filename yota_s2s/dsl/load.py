"""Loading rule files: the shipped ``rules/*.py`` and the user's ``--rules`` files in, a validated ``RuleTable`` out.

Rule files are parsed with ``ast`` and never imported (the DSL is described in ``rule``).
Every mistake is a ``UserError`` located in the rule file; all of a file's mistakes are
reported at once (``UserErrors``).
"""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Callable, Sequence
from importlib import resources
from pathlib import Path

from ..errors import UserError, UserErrors, located
from ..ir.primitives import BINOPS
from ..sources import read_python
from .rule import RESERVED, SHAPE_KINDS, STATIC_HELPERS, BindError, Rule, RuleTable, bind


def library_paths() -> list[Path]:
    """The shipped rule files (the ``yota_s2s.rules`` package), sorted by name."""
    pkg = resources.files("yota_s2s.rules")
    return sorted(
        (Path(str(p)) for p in pkg.iterdir() if p.name.endswith(".py") and p.name != "__init__.py"),
        key=lambda p: p.name,
    )


_cache: dict[tuple, RuleTable] = {}


def load_rules(extra: Sequence[str | Path] = ()) -> RuleTable:
    """Parse and validate the library rules plus ``extra`` rule files.

    >>> table = load_rules()
    >>> table.names["numpy.exp"], table["exp"].operands
    ('exp', ('x',))
    """
    library = library_paths()
    paths = [*library, *(Path(p) for p in extra)]
    # shipped rules are named by their place in the package, wherever it is installed
    shown = [f"yota_s2s/rules/{p.name}" for p in library] + [str(p) for p in extra]
    texts = []
    for p in paths:  # read as Python reads a source; a FIFO or a device is refused, not waited on
        texts.append(read_python(str(p), "the rule file").text)
    key = tuple(zip(shown, texts))
    if key in _cache:
        return _cache[key]
    errors: list[UserError] = []
    rules: dict[str, Rule] = {}
    for path, text in zip(shown, texts):
        for rule in _parse_file(path, text, errors):
            if rule.name in rules:
                first = rules[rule.name]
                errors.append(
                    UserError(
                        "YS105",
                        f"a second rule for {rule.name!r} (the first is at {first.path}:{first.line}); keep one",
                        rule.path,
                        rule.line,
                        1,
                        rule.source.splitlines()[rule.line - 1],
                    )
                )
                continue
            rules[rule.name] = rule
    for rule in rules.values():
        _check_calls(rule, rules, errors)
    if errors:
        raise UserErrors(errors)
    names: dict[str, str] = {}
    for rule in rules.values():
        for n in rule.names:
            if n in names:
                first = rules[names[n]]
                errors.append(
                    UserError(
                        "YS105",
                        f"{n!r} already reaches {first.name!r} ({first.path}:{first.line}); "
                        "a source name maps to one primitive: remove it from one of the two names= lists",
                        rule.path,
                        rule.line,
                        1,
                        rule.source.splitlines()[rule.line - 1],
                    )
                )
                continue
            names[n] = rule.name
    if errors:
        raise UserErrors(errors)
    digest = hashlib.sha256("\0".join(texts).encode()).hexdigest()
    table = RuleTable(rules, names, digest)
    _cache[key] = table
    return table


def _parse_file(path: str, text: str, errors: list[UserError]) -> list[Rule]:
    try:
        tree = ast.parse(text, filename=path)
    except SyntaxError as exc:
        lines = text.splitlines()
        line = exc.lineno or 0
        errors.append(
            UserError(
                "YS001",
                f"invalid syntax: {exc.msg}",
                path,
                line,
                exc.offset or 1,
                lines[line - 1] if 0 < line <= len(lines) else None,
            )
        )
        return []
    out = []
    for node in tree.body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue  # docstring
        if not isinstance(node, ast.FunctionDef):
            errors.append(
                located(
                    "YS101",
                    "a rule file holds only @diffrule functions (and docstrings)",
                    node,
                    path,
                    text,
                )
            )
            continue
        try:
            out.append(_parse_rule(node, path, text))
        except UserError as err:
            errors.append(err)
    return out


def _parse_rule(fn: ast.FunctionDef, path: str, text: str) -> Rule:
    def err(code: str, msg: str, node: ast.AST) -> UserError:
        return located(code, msg, node, path, text)

    header = _parse_header(fn, err)
    a = fn.args
    if a.kwarg or a.posonlyargs:
        raise err("YS106", "rule signatures are def prim(x, y, axis=None) or def prim(*xs, axis=0)", fn)
    params = [p.arg for p in a.args]
    n_static = len(a.defaults)
    operands = tuple(params[: len(params) - n_static])
    variadic = a.vararg.arg if a.vararg else None
    if variadic and n_static:
        raise err("YS106", "with *operands, static parameters come after it: def prim(*xs, axis=0)", fn)
    static: dict[str, object] = {}
    pairs = list(zip(params[len(params) - n_static :], a.defaults)) + [
        (k.arg, d) for k, d in zip(a.kwonlyargs, a.kw_defaults)
    ]
    for p, d in pairs:
        if d is None:
            raise err("YS106", f"the static parameter {p!r} needs a default value", fn)
        try:
            static[p] = ast.literal_eval(d)
        except ValueError:
            raise err("YS106", f"the default of {p!r} must be a constant", d) from None
    every = [*params, *(k.arg for k in a.kwonlyargs), *([variadic] if variadic else [])]
    for p in every:
        if p in RESERVED or (variadic and p == "i"):
            raise err("YS106", f"{p!r} is reserved (out, dout, and i in variadic rules); rename the parameter", fn)
    rule = Rule(fn.name, operands, static, path=path, line=fn.lineno, source=text, variadic=variadic, **header)
    rule.doc = (ast.get_docstring(fn) or "").strip().split("\n")[0]
    operands = rule.all_operands
    nondiff: set[str] = set()
    bound: set[str] = set(every) | set(RESERVED) | ({"i"} if variadic else set())
    blanket_reason: str | None = None
    for stmt in fn.body:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue
        if isinstance(stmt, ast.Expr) and _is_call_to(stmt.value, "nondiff"):
            for arg in stmt.value.args:
                if not (isinstance(arg, ast.Name) and arg.id in operands):
                    raise err("YS101", "nondiff() takes operand names, e.g. nondiff(cond)", arg)
                nondiff.add(arg.id)
            continue
        if isinstance(stmt, ast.Expr) and _is_call_to(stmt.value, "not_implemented"):
            blanket_reason = _reason(stmt.value, err)
            continue
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            target = stmt.targets[0].id
            if target in bound and target not in RESERVED and target not in rule.temps:
                raise err("YS101", f"{target!r} is a parameter; assign to a new name", stmt)
            if target in RESERVED:
                raise err("YS101", f"{target!r} is reserved; assign to d<operand> or a temporary", stmt)
            if target == "out_dot":  # the forward formula, over the operands' tangents
                _check_formula(stmt.value, bound | {p + "_dot" for p in operands}, static, err)
                rule.tangent = stmt.value
                continue
            grad_of = target[1:] if target.startswith("d") and target[1:] in operands else None
            if grad_of and _is_call_to(stmt.value, "not_implemented"):
                rule.not_implemented[grad_of] = _reason(stmt.value, err)
                continue
            _check_formula(stmt.value, bound, static, err)
            if grad_of:
                rule.grads[grad_of] = stmt.value
            else:
                rule.temps[target] = stmt.value
                bound.add(target)
            continue
        raise err(
            "YS101",
            "a rule body holds only 'd<operand> = formula', temporaries, nondiff(...) and not_implemented(...)",
            stmt,
        )
    for p in rule.all_operands:
        given = [p in rule.grads, p in nondiff, p in rule.not_implemented]
        if sum(given) > 1:
            raise err("YS101", f"operand {p!r} has more than one of d{p} =, nondiff, not_implemented", fn)
        if not any(given):
            if blanket_reason is None:
                raise err(
                    "YS102",
                    f"operand {p!r} of {fn.name} has no gradient: write 'd{p} = <formula>', "
                    f"'nondiff({p})' or 'd{p} = not_implemented(\"why\")'",
                    fn,
                )
            rule.not_implemented[p] = blanket_reason
    rule.nondiff = frozenset(nondiff)
    return rule


def _parse_header(fn: ast.FunctionDef, err: Callable) -> dict[str, object]:
    if len(fn.decorator_list) != 1:
        raise err("YS106", "a rule is a function with exactly one @diffrule decorator", fn)
    deco = fn.decorator_list[0]
    if isinstance(deco, ast.Name) and deco.id == "diffrule":
        return {}
    if not (isinstance(deco, ast.Call) and isinstance(deco.func, ast.Name) and deco.func.id == "diffrule"):
        raise err("YS106", "the decorator must be @diffrule or @diffrule(...)", deco)
    if deco.args:
        raise err("YS106", "@diffrule takes keywords only: names=[...], shape=..., pure=...", deco)
    header: dict[str, object] = {}
    for kw in deco.keywords:
        try:
            value = ast.literal_eval(kw.value)
        except ValueError:
            raise err("YS106", f"@diffrule {kw.arg}= must be a constant", kw.value) from None
        if kw.arg == "names":
            if not (isinstance(value, list | tuple) and all(isinstance(v, str) for v in value)):
                raise err("YS106", 'names= is a list of strings such as ["numpy.exp"]', kw.value)
            header["names"] = tuple(value)
        elif kw.arg == "shape":
            params = [a.arg for a in fn.args.args]
            if value not in SHAPE_KINDS and value not in params:
                raise err(
                    "YS106",
                    f"shape= is one of {', '.join(SHAPE_KINDS)} or a parameter name",
                    kw.value,
                )
            header["shape"] = value
        elif kw.arg == "pure":
            if not isinstance(value, bool):
                raise err("YS106", "pure= is True or False", kw.value)
            header["pure"] = value
        else:
            raise err("YS106", f"unknown @diffrule keyword {kw.arg!r} (names, shape, pure)", kw)
    return header


def _is_call_to(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name


def _reason(call: ast.Call, err: Callable) -> str:
    if len(call.args) == 1 and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str):
        return call.args[0].value
    raise err("YS101", 'not_implemented takes one string: not_implemented("why")', call)


def _check_formula(node: ast.expr, bound: set[str], static: dict, err: Callable) -> None:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and not isinstance(getattr(sub, "ctx", None), ast.Store):
            if sub.id not in bound and not _is_callee(node, sub):
                raise err("YS103", f"unbound name {sub.id!r} in a formula", sub)
        elif isinstance(sub, ast.BinOp) and type(sub.op) not in BINOPS:
            raise err("YS101", "formulas use + - * / ** @ only; call a primitive for the rest", sub)
        elif isinstance(sub, ast.UnaryOp) and not isinstance(sub.op, ast.USub | ast.UAdd):
            raise err("YS101", "formulas use unary - only", sub)
        elif isinstance(sub, ast.Call) and not isinstance(sub.func, ast.Name):
            raise err("YS101", "formulas call primitives by name, e.g. exp(x)", sub)
        elif not isinstance(
            sub,
            ast.Name
            | ast.Constant
            | ast.BinOp
            | ast.UnaryOp
            | ast.Call
            | ast.keyword
            | ast.Tuple
            | ast.Load
            | ast.operator
            | ast.unaryop,
        ):
            raise err("YS101", f"{type(sub).__name__} is not allowed in a formula", sub)


def _is_callee(root: ast.expr, name: ast.Name) -> bool:
    return any(isinstance(n, ast.Call) and n.func is name for n in ast.walk(root))


def _check_calls(rule: Rule, rules: dict[str, Rule], errors: list[UserError]) -> None:
    """Every call in a formula names a primitive (or static helper) and binds to its signature."""
    tangent = [rule.tangent] if rule.tangent is not None else []
    for formula in [*rule.temps.values(), *rule.grads.values(), *tangent]:
        for sub in ast.walk(formula):
            if not isinstance(sub, ast.Call):
                continue
            callee = sub.func.id
            if callee in STATIC_HELPERS:
                continue
            target = rules.get(callee)
            if target is None:
                errors.append(
                    located(
                        "YS104",
                        f"{callee!r} is not a primitive; formulas call primitives "
                        "(the table in docs/rules.md) or define a rule for it",
                        sub,
                        rule.path,
                        rule.source,
                    )
                )
                continue
            try:
                bind(target, sub.args, {k.arg: k.value for k in sub.keywords})
            except BindError as exc:
                errors.append(located("YS104", str(exc), sub, rule.path, rule.source))
