"""Expressions that are one ufunc call: which can be written into an array (``out=``).

``ufunc_call`` reads a written expression (an operator or ``np.NAME(...)``) as the NumPy ufunc
that computes it and its operands; ``rebuild`` writes the expression again on other operands;
``is_atom`` tells an operand that can be read twice at no cost.  The names of the ufuncs come
from the primitives' records (``ir.primitives``: ``Primitive.ufunc``).  The columns form and the
buffered form both write ufuncs into arrays with these.
"""

from __future__ import annotations

import ast

from ..ir.primitives import BINOPS, PRIMITIVES

#: Python operators written as the ufunc they call (``a ** 2`` is ``np.square``, as NumPy does it).
_OPERATORS = {p.operator: p.ufunc for p in PRIMITIVES.values() if p.ufunc and p.operator in BINOPS}
#: ``np.NAME(a, ...)`` calls that take ``out=`` and return a new array of the broadcast shape.
_UFUNCS = frozenset(p.ufunc for p in PRIMITIVES.values() if p.ufunc)


def ufunc_call(node: ast.expr, alias: str) -> tuple[str, list[ast.expr]] | None:
    """The ufunc ``node`` calls (an operator, or ``np.NAME(...)`` with ``alias`` the module's name)
    and its operands, when it can be written ``np.NAME(*operands, out=...)``; or None.

    >>> ufunc_call(ast.parse("a * (b + 1)", mode="eval").body, "np")[0]
    'multiply'
    >>> ufunc_call(ast.parse("a ** 3", mode="eval").body, "np") is None
    True
    """
    if isinstance(node, ast.BinOp):
        operands = [node.left, node.right]
        if isinstance(node.op, ast.Pow):
            right = node.right
            if isinstance(right, ast.Constant) and type(right.value) in (int, float) and right.value == 2:
                return "square", [node.left]
            return None
        name = _OPERATORS.get(type(node.op))
        return (name, operands) if name else None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and not isinstance(node.operand, ast.Constant):
        return "negative", [node.operand]
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == alias
        and node.func.attr in _UFUNCS
        and not node.keywords
        and not any(isinstance(a, ast.Starred) for a in node.args)
    ):
        return node.func.attr, list(node.args)
    return None


def rebuild(node: ast.expr, operands: list[ast.expr]) -> ast.expr:
    """The plain expression of ``node`` (an operation ``ufunc_call`` found) on the ``operands``."""
    if isinstance(node, ast.BinOp):
        return ast.BinOp(operands[0], node.op, operands[1] if len(operands) > 1 else node.right)
    if isinstance(node, ast.UnaryOp):
        return ast.UnaryOp(node.op, operands[0])
    return ast.Call(node.func, operands, [])


def is_atom(node: ast.expr) -> bool:
    """A name, a constant, an attribute or a constant index of one (``x.T``, ``x[:, None]``)."""
    if isinstance(node, ast.Name | ast.Constant):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant):
        return True
    if isinstance(node, ast.Attribute):
        return is_atom(node.value)
    if isinstance(node, ast.Subscript):
        index = (ast.Constant, ast.Slice, ast.Tuple, ast.Name, ast.UnaryOp, ast.Load, ast.USub)
        return is_atom(node.value) and all(isinstance(n, index) for n in ast.walk(node.slice))
    return False
