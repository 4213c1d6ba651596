"""Module-level constants computed from literals: ``REST = [1.0] * 6 + [2.0] * 3``, ``TWO_PI = 2 * np.pi``.

``fence`` records a module-level name as a constant when its value is known without running the
file: a literal (``ast.literal_eval``), or arithmetic of literals, of the file's earlier constants
and of the libraries' numbers (``np.pi``, ``math.e``), their comparisons, items (``POWERS[0]``),
comprehensions (``[(i, j) for i in range(n) for j in range(i + 1, n)]``) and the pure builtins
of numbers and sequences (``range``, ``len``, ``sum``, ``min``, ``zip``, ...).  ``np.array([...])``
of such values is an array constant, kept apart (an array adds elementwise where a list joins).
Nothing else is evaluated: a call of any other function is left to the function that reads the
name.

    >>> import ast
    >>> value(ast.parse("[1.0] * 2 + [2.0]", mode="eval").body, {}, {})
    (1.0, 1.0, 2.0)
    >>> value(ast.parse("2 * np.pi", mode="eval").body, {}, {"np": "numpy"})
    6.283185307179586
    >>> value(ast.parse("[(i, j) for i in range(3) for j in range(i + 1, 3)]", mode="eval").body, {}, {})
    ((0, 1), (0, 2), (1, 2))
"""

from __future__ import annotations

import ast
import math
import operator

#: Numbers of the libraries, by (canonical module, attribute).
_LIBRARY_NUMBERS = {"pi": math.pi, "e": math.e, "inf": math.inf, "tau": math.tau}
_NUMERIC_MODULES = ("numpy", "math", "cupy", "jax.numpy")
_OPERATORS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}


#: Pure builtins folded on constants (lists are tuples here, as static parameters need).
_BUILTINS = {
    "abs": abs,
    "bool": bool,
    "dict": dict,
    "enumerate": lambda *a: tuple(enumerate(*a)),
    "float": float,
    "int": int,
    "len": len,
    "list": tuple,
    "max": max,
    "min": min,
    "range": lambda *a: _sized(range(*a)),
    "reversed": lambda a: tuple(reversed(a)),
    "round": round,
    "sorted": lambda a: tuple(sorted(a)),
    "sum": sum,
    "tuple": tuple,
    "zip": lambda *a: tuple(zip(*a, strict=False)),
}
_COMPARE = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
    ast.Is: operator.is_,
    ast.IsNot: operator.is_not,
}
#: At most this many items are folded (``[0.0] * 10**9`` is left to the function that reads it).
LIMIT = 100_000


def _sized(items):
    if len(items) > LIMIT:
        raise NotConstant
    return tuple(items)


class NotConstant(Exception):
    """The expression's value is not known without running the file."""


def value(node: ast.expr, constants: dict[str, object], imports: dict[str, str]) -> object:
    """The value of ``node`` (lists are tuples, as static parameters need), else ``NotConstant``."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Tuple | ast.List):
        return tuple(value(e, constants, imports) for e in node.elts)
    if isinstance(node, ast.Dict) and None not in node.keys:
        return {value(k, constants, imports): value(v, constants, imports) for k, v in zip(node.keys, node.values)}
    if isinstance(node, ast.Name) and node.id in constants:
        return constants[node.id]
    library = isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and imports.get(node.value.id)
    if library in _NUMERIC_MODULES and node.attr in _LIBRARY_NUMBERS:
        return _LIBRARY_NUMBERS[node.attr]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        operand = value(node.operand, constants, imports)
        if isinstance(operand, int | float) and not isinstance(operand, bool):
            return -operand if isinstance(node.op, ast.USub) else operand
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        left, right = value(node.left, constants, imports), value(node.right, constants, imports)
        if isinstance(left, dict) or isinstance(right, dict):
            raise NotConstant
        try:
            result = _OPERATORS[type(node.op)](left, right)
        except (ArithmeticError, TypeError, ValueError):
            raise NotConstant from None
        if isinstance(result, tuple) and len(result) > LIMIT:  # [0.0] * 10**9 is not evaluated
            raise NotConstant
        return result
    return _more(node, constants, imports)


def _more(node: ast.expr, constants: dict[str, object], imports: dict[str, str]) -> object:
    """Items, comparisons, conditions, comprehensions and pure builtins of constants."""
    if isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Slice):
        base, key = value(node.value, constants, imports), value(node.slice, constants, imports)
        return _guarded(operator.getitem, base, key)
    if isinstance(node, ast.Compare):
        left = value(node.left, constants, imports)
        for op, right_node in zip(node.ops, node.comparators, strict=True):
            right = value(right_node, constants, imports)
            if not _guarded(_COMPARE[type(op)], left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return not value(node.operand, constants, imports)
    if isinstance(node, ast.IfExp):
        test = value(node.test, constants, imports)
        return value(node.body if test else node.orelse, constants, imports)
    if isinstance(node, ast.ListComp | ast.GeneratorExp):
        return _sized(list(_comprehension(node.elt, node.generators, dict(constants), imports)))
    if isinstance(node, ast.JoinedStr):  # f"s{i}": a key built in a loop
        return "".join(_formatted(v, constants, imports) for v in node.values)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _BUILTINS:
        if node.func.id in constants or node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            raise NotConstant
        args = [value(a, constants, imports) for a in node.args]
        return _guarded(_BUILTINS[node.func.id], *args)
    raise NotConstant


def _formatted(node: ast.expr, constants: dict[str, object], imports: dict[str, str]) -> str:
    """A part of an f-string: its text, or a number or string formatted as Python formats it."""
    if isinstance(node, ast.Constant):
        return str(node.value)
    if not isinstance(node, ast.FormattedValue):
        raise NotConstant
    item = value(node.value, constants, imports)
    if not isinstance(item, int | float | str):
        raise NotConstant
    convert = {-1: lambda v: v, 115: str, 114: repr, 97: ascii}[node.conversion]
    spec = value(node.format_spec, constants, imports) if node.format_spec is not None else ""
    return _guarded(format, convert(item), spec)


def _guarded(fn, *args):
    try:
        return fn(*args)
    except (ArithmeticError, TypeError, ValueError, LookupError):
        raise NotConstant from None


def _comprehension(elt: ast.expr, generators: list[ast.comprehension], scope: dict, imports: dict[str, str]):
    if not generators:
        yield value(elt, scope, imports)
        return
    first, rest = generators[0], generators[1:]
    if first.is_async:
        raise NotConstant
    for item in value(first.iter, scope, imports):
        inner = dict(scope)
        bind(first.target, item, inner)
        if all(value(c, inner, imports) for c in first.ifs):
            yield from _comprehension(elt, rest, inner, imports)


def bind(target: ast.expr, item: object, scope: dict) -> None:
    """``target = item`` in ``scope``: a name, or names unpacked from a tuple; else ``NotConstant``."""
    if isinstance(target, ast.Name):
        scope[target.id] = item
    elif isinstance(target, ast.Tuple | ast.List) and isinstance(item, tuple) and len(item) == len(target.elts):
        for t, v in zip(target.elts, item, strict=True):
            bind(t, v, scope)
    else:
        raise NotConstant


def array_value(node: ast.expr, constants: dict[str, object], imports: dict[str, str]) -> tuple | None:
    """The items of ``np.array([...])`` (or ``np.asarray``) of constants, else None."""
    if not (isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords):
        return None
    func = node.func
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)):
        return None
    if imports.get(func.value.id) not in _NUMERIC_MODULES or func.attr not in ("array", "asarray"):
        return None
    try:
        items = value(node.args[0], constants, imports)
    except NotConstant:
        return None
    return items if isinstance(items, tuple) and not _has_dict(items) else None


def _has_dict(items: tuple) -> bool:
    return any(isinstance(i, dict) or (isinstance(i, tuple) and _has_dict(i)) for i in items)
