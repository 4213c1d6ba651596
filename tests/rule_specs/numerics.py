"""Numerical analysis: call templates and shapes (``rules/numerics.py``).

``np.gradient``'s spacing ``h`` is sampled positive, and its coordinates are ``np.cumsum(y)``
(increasing, unequally spaced); ``np.interp``'s ``x`` is sampled across and outside the knots
``[-1, 0, 0.5, 1.5]`` (its values ``fp`` are the second argument).
``tests/test_rules_numerics.py`` checks what templates cannot say: points on the knots, every
length pair and mode of the convolutions, the helpers' own rules (second derivatives), the
refusals.
"""

_KNOTS = "np.array([-1.0, 0.0, 0.5, 1.5])"

SPECS: dict = {
    "gradient": [
        ("{f}(x)", [(5,)]),
        ("{f}(x)", [(2,)]),
        ("{f}(x, edge_order=2)", [(3,)]),
        ("{f}(x, edge_order=2)", [(6,)]),
        ("{f}(x, y)", [(5,), ()]),
        ("{f}(x, y, edge_order=2)", [(4,), ()]),
        ("{f}(x, 0.5)", [(4,)]),
        ("{f}(x, axis=1)", [(3, 4)]),
        ("{f}(x, axis=(0,))", [(3, 2)]),
        ("{f}(x, 0.5, axis=0, edge_order=2)", [(3, 4)]),
        ("{f}(x, y, axis=-2)", [(2, 3, 4), ()]),
        ("{f}(x, np.cumsum(y))", [(5,), (5,)]),
        ("{f}(x, np.cumsum(y), edge_order=2)", [(5,), (5,)]),
        ("{f}(x, np.cumsum(y), edge_order=2)", [(3,), (3,)]),
        ("{f}(x, np.cumsum(y))", [(2,), (2,)]),
        ("{f}(x, np.cumsum(y), axis=1, edge_order=2)", [(2, 4), (4,)]),
        ("{f}(x, np.cumsum(y), axis=0)", [(3, 2), (3,)]),
    ],
    "cross": [
        ("{f}(x, y)", [(3,), (3,)]),
        ("{f}(x, y)", [(4, 3), (3,)]),
        ("{f}(x, y)", [(3,), (2, 3)]),
        ("{f}(x, y)", [(2, 1, 3), (4, 3)]),
        ("{f}(x, y)", [(2, 3), (1, 3)]),
        ("{f}(x, x + y)", [(3,), (3,)]),
    ],
    "convolve": [
        ("{f}(x, y)", [(5,), (3,)]),
        ("{f}(x, y)", [(2,), (4,)]),
        ("{f}(x, y, 'same')", [(5,), (2,)]),
        ("{f}(x, y, mode='same')", [(2,), (5,)]),
        ("{f}(x, y, 'same')", [(4,), (4,)]),
        ("{f}(x, y, 'valid')", [(6,), (3,)]),
        ("{f}(x, y, mode='valid')", [(3,), (6,)]),
        ("{f}(x, y, 1)", [(3,), (4,)]),
        ("{f}(x, y)", [(), (3,)]),
        ("{f}(x, y)", [(1,), (1,)]),
        ("{f}(x, x)", [(4,)]),
    ],
    "correlate": [
        ("{f}(x, y)", [(5,), (3,)]),
        ("{f}(x, y)", [(3,), (5,)]),
        ("{f}(x, y, 'same')", [(5,), (2,)]),
        ("{f}(x, y, mode='same')", [(2,), (5,)]),
        ("{f}(x, y, 'same')", [(3,), (6,)]),
        ("{f}(x, y, 'full')", [(4,), (3,)]),
        ("{f}(x, y, mode='full')", [(2,), (5,)]),
        ("{f}(x, y, 0)", [(4,), (4,)]),
        ("{f}(x, y)", [(1,), (1,)]),
        ("{f}(x, x, 'full')", [(4,)]),
    ],
    "interp": [
        ("{f}(x, " + _KNOTS + ", y)", [(9,), (4,)]),
        ("{f}(x, " + _KNOTS + ", y)", [(), (4,)]),
        ("{f}(x, " + _KNOTS + ", y)", [(2, 5), (4,)]),
        ("{f}(x, [-1.0, 0.0, 0.5, 1.5], y, left=-2.0, right=3.0)", [(9,), (4,)]),
        ("{f}(x, " + _KNOTS + ", y, right=0.5)", [(9,), (4,)]),
        ("{f}(x, xp=" + _KNOTS + ", fp=y)", [(9,), (4,)]),
        ("{f}(x, np.array([0.0, 1.0]), y)", [(6,), (2,)]),
    ],
    "kron": [
        ("{f}(x, y)", [(3,), (2,)]),
        ("{f}(x, y)", [(2, 3), (2, 2)]),
        ("{f}(x, y)", [(2,), (2, 3)]),
        ("{f}(x, y)", [(2, 3), (4,)]),
        ("{f}(x, y)", [(), (3,)]),
        ("{f}(x, y)", [(2, 2), ()]),
        ("{f}(x, y)", [(2, 1, 3), (2, 2)]),
        ("{f}(x, x)", [(2, 2)]),
    ],
    "median": [
        ("{f}(x)", [(5,)]),
        ("{f}(x)", [(6,)]),
        ("{f}(x, axis=0)", [(4, 3)]),
        ("{f}(x, axis=-1, keepdims=True)", [(3, 4)]),
        ("{f}(x, axis=(0, 2))", [(2, 3, 3)]),
        ("{f}(x, keepdims=True)", [(2, 3)]),
    ],
    "quantile": [
        ("{f}(x, y)", [(7,), ()]),
        ("{f}(x, 0.25)", [(6,)]),
        ("{f}(x, [0.1, 0.9], axis=1)", [(3, 5)]),
        ("{f}(x, y, axis=0, keepdims=True)", [(5, 2), (3,)]),
        ("{f}(x, 0.4, method='midpoint')", [(7,)]),
        ("{f}(x, 0.63, method='nearest')", [(9,)]),
        ("{f}(x, 0.63, method='lower')", [(9,)]),
        ("{f}(x, 0.63, method='higher')", [(9,)]),
        ("{f}(x, y, method='hazen')", [(7,), ()]),
        ("{f}(x, y, method='weibull')", [(8,), ()]),
        ("{f}(x, y, method='interpolated_inverted_cdf')", [(6,), ()]),
        ("{f}(x, y, method='inverted_cdf')", [(6,), ()]),
    ],
    "percentile": [
        ("{f}(x, 100.0 * y)", [(8,), ()]),
        ("{f}(x, 90)", [(12,)]),
        ("{f}(x, [25.0, 75.0], axis=0)", [(6, 2)]),
    ],
}

METHODS: dict = {}

DOMAIN: dict = {
    "gradient": {"h": (0.5, 1.5)},
    "interp": {"x": (-2.0, 2.5)},
    "quantile": {"q": (0.05, 0.95)},
    "percentile": {"q": (0.05, 0.95)},
}
