"""Module-level constants computed from literals: ``REST = [1.0] * 6 + [2.0] * 3``, ``TWO_PI = 2 * np.pi``.

``fence`` records a module-level name as a constant when its value is known without running the
file: a literal (``ast.literal_eval``), or arithmetic of literals, of the file's earlier constants
and of the libraries' numbers (``np.pi``, ``math.e``).  ``np.array([...])`` of such values is an
array constant, kept apart (an array adds elementwise where a list joins).  Nothing else is
evaluated: a call of any other function is left to the function that reads the name.

    >>> import ast
    >>> value(ast.parse("[1.0] * 2 + [2.0]", mode="eval").body, {}, {})
    (1.0, 1.0, 2.0)
    >>> value(ast.parse("2 * np.pi", mode="eval").body, {}, {"np": "numpy"})
    6.283185307179586
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
        if isinstance(result, tuple) and len(result) > 100_000:  # [0.0] * 10**9 is not evaluated
            raise NotConstant
        return result
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
