"""Folding a primitive on constants when generating: ``2 * 3.5`` is ``7.0`` (``Primitive.fold``).

>>> fold_constant("mul", [2, 3.5])
(True, 7.0)
"""

from __future__ import annotations

import ast
import math
import re

from .core import Lit
from .primitives import primitive


def fold_constant(prim: str, values: list[object]) -> tuple[bool, object]:
    """Fold an arithmetic primitive on Python numbers; (False, None) when it must not be folded.

    A bool counts as a number, as Python computes it (``2 + False`` is ``2``): a folded comparison
    of constants (a rule's ``p - 1 + equal(p, 0)`` for a constant ``p``) folds on.
    """
    fn = primitive(prim).fold
    if fn is None or not all(type(v) in (int, float, bool) for v in values):
        return False, None
    try:
        result = fn(*values)
    except (ArithmeticError, ValueError):
        return False, None
    if type(result) not in (int, float, bool) or (isinstance(result, float) and math.isnan(result)):
        return False, None
    return True, result


def fold_lits(prim: str, args: list) -> Lit | None:
    """``prim`` folded on the constants ``args`` (``fold_constant``), as a ``Lit``; None when it
    must not be folded.  A float result whose shortest repr has more significant digits than
    the constants it comes from (at least 15) keeps the expression it comes from as its
    ``text``: ``2 * 0.15`` is ``0.3``, but ``3 * 0.05`` (``0.15000000000000002``), ``1 / 3`` and
    ``0.1 + 0.2`` are written as the source wrote them; Python evaluates the text to the same
    float (the same operations on the same floats, in the same order).

    >>> fold_lits("mul", [Lit(3), Lit(0.05)]).text, fold_lits("mul", [Lit(2), Lit(0.15)])
    ('3 * 0.05', Lit(value=0.3))
    >>> a = fold_lits("add", [Lit(0.1), Lit(0.2)]); fold_lits("mul", [Lit(2), a]).text
    '2 * (0.1 + 0.2)'
    """
    ok, value = fold_constant(prim, [a.value for a in args])
    if not ok:
        return None
    if type(value) is not float or not math.isfinite(value):
        return Lit(value)
    same = _identity(prim, args)
    if same is not None:  # x * 1.0, x + False: x itself, with its text
        return same
    written = max((_written_digits(a) for a in args), default=0)
    op = primitive(prim).operator
    if _digits(value) <= max(15, written) or op is None:
        return Lit(value)
    operands = [_expression(a) for a in args]
    if len(operands) == 2 and issubclass(op, ast.operator):
        node: ast.expr = ast.BinOp(operands[0], op(), operands[1])
    elif len(operands) == 1 and issubclass(op, ast.unaryop):
        node = ast.UnaryOp(op(), operands[0])
    else:
        return Lit(value)
    return Lit(value, ast.unparse(node))


def _identity(prim: str, args: list) -> Lit | None:
    """The float operand of ``x * 1``, ``1 * x``, ``x / 1``, ``x + 0``, ``0 + x`` or ``x - 0`` (the
    other an int, bool or float one or zero), which the operation gives back unchanged (a zero
    ``x`` aside: ``-0.0 + 0`` is ``0.0``)."""
    if len(args) != 2:
        return None
    neutral = {"mul": 1, "truediv": 1, "add": 0, "sub": 0}.get(prim)
    if neutral is None:
        return None
    for k, (x, other) in enumerate((args, args[::-1])):
        if prim in ("truediv", "sub") and k == 1:
            break  # (1 / x, 0 - x are not x)
        plain = type(other.value) in (int, bool, float) and other.value == neutral and other.text is None
        if plain and type(x.value) is float and (neutral == 1 or x.value != 0):
            return x
    return None


def _expression(a: Lit) -> ast.expr:
    """A constant's expression: its text where it has one, else its value."""
    if a.text is not None:
        return ast.parse(a.text, mode="eval").body
    if type(a.value) in (int, float) and a.value < 0:
        return ast.UnaryOp(ast.USub(), ast.Constant(-a.value))
    return ast.Constant(a.value)


def _written_digits(a: Lit) -> int:
    """The most significant digits of a number the constant is written with."""
    if a.text is not None:
        return max((_digits(float(n)) for n in re.findall(r"\d+\.?\d*(?:e[-+]?\d+)?", a.text)), default=0)
    return _digits(a.value) if type(a.value) in (int, float) else 0


def _digits(value: float) -> int:
    """The significant digits of ``value``'s repr (``0.15000000000000002``: 17; ``3``: 1; ``1e-05``: 1)."""
    mantissa = repr(abs(value)).lower().split("e")[0].replace(".", "")
    return len(mantissa.strip("0")) or 1
