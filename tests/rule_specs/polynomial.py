"""Polynomials: call templates and shapes (``tests/test_rules_polynomial.py`` checks x == 0,
degrees 0 to 6, float32, batched x, SymPy's derivative of np.polyval and the refusals).

The operands are named by the generic check ``x`` and ``y`` in order: ``np.polyval(p, x)`` is
``{f}(x, y)`` with the coefficients first; ``numpy.polynomial``'s evaluators take ``x`` first.
Points are sampled in ``(-1, 1)``: the series stay moderate (Hermite's grow fast) and the finite
differences accurate.
"""

_SERIES = [
    ("{f}(x, y)", [(3,), (4,)]),
    ("{f}(x, y)", [(), (3,)]),
    ("{f}(x, y)", [(2, 3), (1,)]),
    ("{f}(x, y)", [(2, 3), (6,)]),
    ("{f}(x, y)", [(2,), (3, 4)]),
    ("{f}(x, y, tensor=True)", [(2, 3), (3, 2)]),
    ("{f}(x, y, tensor=False)", [(4,), (3, 4)]),
    ("{f}(x, y, False)", [(2, 1), (3, 2, 4)]),
]
_SERIES_DOMAIN = {"x": (-1.0, 1.0), "c": (-1.0, 1.0)}

SPECS: dict = {
    "vander": [
        ("{f}(x)", [(3,)]),
        ("{f}(x, 4)", [(3,)]),
        ("{f}(x, N=2, increasing=True)", [(4,)]),
        ("{f}(x, 5, True)", [(2,)]),
        ("{f}(x, 1)", [(3,)]),
        ("{f}(x, 0)", [(3,)]),
        ("{f}(x)", [(0,)]),
    ],
    "polyval": [
        ("{f}(x, y)", [(4,), (3,)]),
        ("{f}(x, y)", [(4,), ()]),
        ("{f}(x, y)", [(1,), (3,)]),
        ("{f}(x, y)", [(2,), (2, 3)]),
        ("{f}(x, y)", [(7,), (2, 3)]),
        # p[k] an array that broadcasts against x
        ("{f}(x, y)", [(3, 2), (4, 2)]),
        ("{f}(x, y)", [(3, 2, 1), (4,)]),
    ],
    "polynomial_polyval": _SERIES,
    "chebval": _SERIES,
    "legval": _SERIES,
    "hermval": _SERIES,
    "hermeval": _SERIES,
    "lagval": _SERIES,
    # x[0], x[1] (, x[2]) are the points' coordinates: the generic check names two operands
    "polynomial_polyval2d": [
        ("{f}(x[0], x[1], y)", [(2, 3), (3, 2)]),
        ("{f}(x[0], x[1], y)", [(2,), (4, 3)]),
        ("{f}(x[0], x[1], y)", [(2, 2, 3), (2, 3, 2)]),
    ],
    "polynomial_polyval3d": [
        ("{f}(x[0], x[1], x[2], y)", [(3, 4), (3, 2, 2)]),
        ("{f}(x[0], x[1], x[2], y)", [(3,), (2, 3, 4)]),
        ("{f}(x[0], x[1], x[2], y)", [(3, 2), (2, 2, 3, 2)]),
    ],
}

DOMAIN: dict = {
    "polyval": {"x": (-1.0, 1.0)},
    **{prim: _SERIES_DOMAIN for prim in ("polynomial_polyval", "chebval", "legval", "hermval", "hermeval", "lagval")},
}
