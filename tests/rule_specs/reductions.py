"""Reductions, scans and sorts (rules/reductions.py): call templates and shapes.

The finite differences of ``tests/test_rules.py`` sample the operands at random points, away
from ties; zeros in ``np.cumprod``, ties in ``np.sort`` and ``np.partition`` are checked by
``tests/test_rules_reductions.py``.
"""

import numpy as np

if not hasattr(np, "trapz"):  # NumPy 2.4 removed np.trapz: the cases' own functions call it
    np.trapz = np.trapezoid  # (the generated code calls _trapezoid, which picks the one there is)

SPECS: dict = {
    "nansum": [("{f}(x)", [(4,)]), ("{f}(x, axis=0)", [(3, 2)]), ("{f}(x, axis=1, keepdims=True)", [(2, 3)])],
    "nanmean": [("{f}(x)", [(4,)]), ("{f}(x, axis=-1)", [(3, 2)]), ("{f}(x, axis=0, keepdims=True)", [(2, 3)])],
    "nanmax": [("{f}(x)", [(5,)]), ("{f}(x, axis=0)", [(3, 2)])],
    "ptp": [("{f}(x)", [(5,)]), ("{f}(x, axis=0)", [(3, 2)]), ("{f}(x, axis=1, keepdims=True)", [(2, 3)])],
    "nanmin": [("{f}(x)", [(5,)]), ("{f}(x, axis=1, keepdims=True)", [(3, 2)])],
    "cumprod": [
        ("{f}(x)", [(4,)]),
        ("{f}(x)", [(2, 3)]),  # flattened
        ("{f}(x)", [()]),
        ("{f}(x, axis=0)", [(3, 4)]),
        ("{f}(x, 1)", [(2, 5)]),
        ("{f}(x, axis=-1)", [(2, 3, 4)]),
        ("{f}(x, axis=1)", [(2, 3, 4)]),
        ("{f}(x, 0)", [(7,)]),  # past a power of 2: three doubling steps
    ],
    "sort": [
        ("{f}(x)", [(5,)]),
        ("{f}(x)", [(2, 3)]),  # the last axis
        ("{f}(x, axis=0)", [(3, 2)]),
        ("{f}(x, axis=None)", [(2, 3)]),  # flattened
        ("{f}(x, 1)", [(2, 3, 4)]),
        ("{f}(x, axis=-1, kind='stable')", [(4,)]),
        ("{f}(x)[-1]", [(6,)]),
        ("{f}(x, axis=0)[0] * {f}(x, axis=0)[-1]", [(4, 3)]),
    ],
    "partition": [
        ("{f}(x, 2)", [(5,)]),
        ("{f}(x, 0)", [(5,)]),
        ("{f}(x, -1)", [(5,)]),
        ("{f}(x, (1, 3))", [(6,)]),
        ("{f}(x, [0, 2])", [(2, 4)]),
        ("{f}(x, 1, axis=0)", [(3, 4)]),
        ("{f}(x, kth=2, axis=None)", [(2, 3)]),  # flattened
        ("{f}(x, 1, axis=1)", [(2, 3, 2)]),
    ],
    "trapezoid": [
        ("{f}(x)", [(5,)]),
        ("{f}(x, dx=0.3)", [(4,)]),
        ("{f}(x, None, 0.5, 0)", [(3, 4)]),
        ("{f}(x, axis=0)", [(3, 2)]),
        ("{f}(x, [0.0, 0.5, 1.5, 1.75])", [(4,)]),  # sample points, constant
        ("{f}(x, (0.0, 1.0, 3.0), axis=0)", [(3, 2)]),
        ("{f}(x, [[0.0, 1.0], [0.5, 2.0]], axis=1)", [(2, 2)]),  # points of x's shape
        ("{f}(x)", [(2, 3, 4)]),
        ("{f}(x, axis=1)", [(2, 3, 4)]),
        # differentiated sample points (the operand xs): one set, or one per row
        ("{f}(x, np.cumsum(y ** 2))", [(4,), (4,)]),
        ("{f}(x, x=np.cumsum(y ** 2), axis=0)", [(4, 3), (4,)]),
        ("{f}(x, np.cumsum(y ** 2, axis=1), axis=-1)", [(2, 3), (2, 3)]),
        ("{f}(x, np.cumsum(y ** 2, axis=1))", [(2, 2, 3), (2, 3)]),
        ("{f}(y=x, x=np.cumsum(y ** 2))", [(3,), (3,)]),
    ],
}

METHODS: dict = {
    "ndarray.cumprod": [("x.cumprod()", [(2, 3)]), ("x.cumprod(axis=1)", [(2, 3)]), ("x.cumprod(0)", [(3, 2)])],
}

DOMAIN: dict = {}
