"""Facts about primitives that the stages share.

``fold_constant`` evaluates an arithmetic primitive or a comparison on Python numbers when
generating (constant folding in lowering, differentiation and optimization).
"""

from __future__ import annotations

import math
import operator

_FOLD = {
    "add": operator.add,
    "sub": operator.sub,
    "mul": operator.mul,
    "truediv": operator.truediv,
    "power": operator.pow,
    "neg": operator.neg,
    "less": operator.lt,
    "less_equal": operator.le,
    "greater": operator.gt,
    "greater_equal": operator.ge,
    "equal": operator.eq,
    "not_equal": operator.ne,
}


def fold_constant(prim: str, values: list[object]) -> tuple[bool, object]:
    """Fold an arithmetic primitive on Python numbers; (False, None) when it must not be folded."""
    fn = _FOLD.get(prim)
    if fn is None or not all(type(v) in (int, float) for v in values):
        return False, None
    try:
        result = fn(*values)
    except (ArithmeticError, ValueError):
        return False, None
    if type(result) not in (int, float, bool) or (isinstance(result, float) and math.isnan(result)):
        return False, None
    return True, result
