"""Runtime helpers of loops whose step computes on numbers (``ir.loop_shapes.numbers_step``).

Like the other runtime modules: each ``_name`` is copied as source into the generated modules that
use it, with ``xp`` renamed to the target's array module; generated code never imports this module.
"""

import numpy as xp


def _shaped(*checks):
    """Each ``(value, rank)`` has that many axes and each ``(value, shape)`` that shape: checked once
    before a loop, it tells its backward step that ``_unbroadcast`` is the identity there (a value
    NumPy cannot make an array of, a ragged list, has neither)."""
    try:
        return all(xp.shape(v) == s if type(s) is tuple else xp.ndim(v) == s for v, s in checks)
    except ValueError:
        return False
