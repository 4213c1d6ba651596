"""Elementwise primitives and scipy.special functions: SymPy forms, sampling domains, calls."""

import sympy


def _floor(v, reach=8):
    """floor(v) for |v| < reach as a sum of steps: its derivative is 0 away from the integers.

    (``sympy.floor`` has no derivative SymPy can evaluate.)
    """
    return sum(sympy.Heaviside(v - k, 1) for k in range(-reach + 1, reach + 1)) - reach


def _trunc(v):
    """trunc(v) (toward 0) for |v| < 8 away from the integers: floor(v), plus 1 where v < 0."""
    return _floor(v) + sympy.Heaviside(-v, 0)


SYMPY = {
    "add": lambda x, y: x + y,
    "sub": lambda x, y: x - y,
    "mul": lambda x, y: x * y,
    "truediv": lambda x, y: x / y,
    "neg": lambda x: -x,
    "power": lambda x, p: x**p,
    "exp": sympy.exp,
    "log": sympy.log,
    "sin": sympy.sin,
    "cos": sympy.cos,
    "tanh": sympy.tanh,
    "sqrt": sympy.sqrt,
    "abs": sympy.Abs,
    "sign": sympy.sign,
    # comparisons are steps: zero derivative away from x == y (equal is 1 at x == y, so that
    # equal(x, out) reads right in the formulas of maximum, clip, ...)
    "less": lambda x, y: sympy.Heaviside(y - x),
    "less_equal": lambda x, y: sympy.Heaviside(y - x),
    "greater": lambda x, y: sympy.Heaviside(x - y),
    "greater_equal": lambda x, y: sympy.Heaviside(x - y),
    "equal": lambda x, y: sympy.Heaviside(x - y, 1) * sympy.Heaviside(y - x, 1),
    "not_equal": lambda x, y: 1 - sympy.Heaviside(x - y, 1) * sympy.Heaviside(y - x, 1),
    # exponentials and logarithms
    "exp2": lambda x: 2**x,
    "expm1": lambda x: sympy.exp(x) - 1,
    "log2": lambda x: sympy.log(x) / sympy.log(2),
    "log10": lambda x: sympy.log(x) / sympy.log(10),
    "log1p": lambda x: sympy.log(1 + x),
    "logaddexp": lambda x, y: sympy.log(sympy.exp(x) + sympy.exp(y)),
    "logaddexp2": lambda x, y: sympy.log(2**x + 2**y) / sympy.log(2),
    # powers and roots
    "cbrt": lambda x: sympy.real_root(x, 3),  # the real cube root, as np.cbrt (sympy.cbrt is complex for x < 0)
    "square": lambda x: x**2,
    "reciprocal": lambda x: 1 / x,
    "float_power": lambda x, p: x**p,
    "hypot": lambda x, y: sympy.sqrt(x**2 + y**2),
    # trigonometric and hyperbolic
    "tan": sympy.tan,
    "arcsin": sympy.asin,
    "arccos": sympy.acos,
    "arctan": sympy.atan,
    "arctan2": sympy.atan2,
    "sinh": sympy.sinh,
    "cosh": sympy.cosh,
    "arcsinh": sympy.asinh,
    "arccosh": sympy.acosh,
    "arctanh": sympy.atanh,
    # extrema and selection
    "maximum": sympy.Max,
    "minimum": sympy.Min,
    "fmax": sympy.Max,
    "heaviside": lambda x, h: (
        sympy.Heaviside(x, 0) * (1 - sympy.Heaviside(-x, 0)) + h * sympy.Heaviside(x, 1) * sympy.Heaviside(-x, 1)
    ),
    "fmin": sympy.Min,
    "copysign": lambda x, y: sympy.Abs(x) * sympy.sign(y),
    "clip": lambda x, a_min, a_max: sympy.Min(sympy.Max(x, a_min), a_max),
    "where": lambda cond, x, y: sympy.Piecewise((x, cond > 0), (y, True)),  # cond > 0 reads as true
    # steps
    "floor": _floor,
    "ceil": lambda x: -_floor(-x),
    "round": lambda x: _floor(x + sympy.Rational(1, 2)),
    # complex parts (of real values)
    "real": sympy.re,
    "imag": sympy.im,
    "conj": sympy.conjugate,
    "angle": lambda x: sympy.pi * sympy.Heaviside(-x),  # of a real x: 0 or pi (tests/test_complex.py: complex x)
    "grad_zeros": lambda x: sympy.Integer(0),
    # sinc, angles, remainders, NaNs
    "sinc": lambda x: sympy.sin(sympy.pi * x) / (sympy.pi * x),
    "deg2rad": lambda x: x * sympy.pi / 180,
    "rad2deg": lambda x: x * 180 / sympy.pi,
    "mod": lambda x, y: x - y * _floor(x / y),
    "fmod": lambda x, y: x - y * _trunc(x / y),
    "nan_to_num": lambda x: x,  # of finite values
    # scipy.special
    "expit": lambda x: 1 / (1 + sympy.exp(-x)),
    "logit": lambda x: sympy.log(x / (1 - x)),
    "erf": sympy.erf,
    "erfc": sympy.erfc,
    "gammaln": sympy.loggamma,
    "digamma": sympy.digamma,
    "gamma": sympy.gamma,
    "rgamma": lambda x: 1 / sympy.gamma(x),
    "gammasgn": lambda x: sympy.Integer(1),  # (sampled where gamma > 0: a constant there)
    "polygamma": lambda n, x: sympy.polygamma(_floor(n), x),  # n is an integer order
    "xlogy": lambda x, y: x * sympy.log(y),
    "j0": lambda x: sympy.besselj(0, x),
    "j1": lambda x: sympy.besselj(1, x),
    "y0": lambda x: sympy.bessely(0, x),
    "y1": lambda x: sympy.bessely(1, x),
    "i0": lambda x: sympy.besseli(0, x),
    "i1": lambda x: sympy.besseli(1, x),
    "i0e": lambda x: sympy.besseli(0, x) * sympy.exp(-sympy.Abs(x)),
    "i1e": lambda x: sympy.besseli(1, x) * sympy.exp(-sympy.Abs(x)),
    "jv": sympy.besselj,
    "yv": sympy.bessely,
    "yn": lambda n, x: sympy.bessely(_trunc(n), x),  # the order truncated to an integer
    "iv": sympy.besseli,
    "ive": lambda v, x: sympy.besseli(v, x) * sympy.exp(-sympy.Abs(x)),
    "erfinv": sympy.erfinv,
    "erfcinv": lambda x: sympy.erfinv(1 - x),  # (sympy's erfcinv gives no number at these points)
    "gammainc": lambda a, x: sympy.lowergamma(a, x) / sympy.gamma(a),
    "gammaincc": lambda a, x: sympy.uppergamma(a, x) / sympy.gamma(a),
}

_POSITIVE = (0.5, 2.0)

DOMAIN = {
    "log": _POSITIVE,
    "sqrt": _POSITIVE,
    "power": {"x": _POSITIVE},
    "float_power": {"x": _POSITIVE},
    "log2": _POSITIVE,
    "log10": _POSITIVE,
    "log1p": (-0.5, 2.0),
    "tan": (-1.2, 1.2),  # away from the poles at +-pi/2
    "arcsin": (-0.9, 0.9),
    "arccos": (-0.9, 0.9),
    "arctanh": (-0.9, 0.9),
    "arccosh": (1.2, 3.0),
    # the bounds apart, and x on both sides of them and between
    "clip": {"x": (-2.0, 2.0), "a_min": (-1.0, -0.3), "a_max": (0.3, 1.0)},
    "logit": (0.1, 0.9),
    "gammaln": (0.5, 3.0),
    "digamma": (0.5, 3.0),
    "gamma": (0.5, 3.0),
    "rgamma": (0.5, 3.0),
    "gammasgn": (0.5, 3.0),
    "polygamma": (0.2, 2.9),  # the order n in 0, 1, 2 (read as floor(n) by the oracle)
    "xlogy": {"y": _POSITIVE},
    # Bessel functions: y0, y1, yv on x > 0; the orders (v) and the incomplete gamma's a are
    # constants, or integers floor(v) + 1 (1, 2, 3: their derivative is not written)
    "y0": (0.5, 3.0),
    "y1": (0.5, 3.0),
    **{prim: {"v": (0.2, 2.9), "x": (0.5, 3.0)} for prim in ("jv", "yv", "iv", "ive")},
    "yn": {"n": (0.2, 2.9), "x": (0.5, 3.0)},
    "erfinv": (-0.9, 0.9),
    "erfcinv": (0.1, 1.9),
    "gammainc": {"a": (0.2, 2.9), "x": (0.3, 3.0)},
    "gammaincc": {"a": (0.2, 2.9), "x": (0.3, 3.0)},
}

#: The operand shapes of tests/test_rules.py's broadcasting checks.
_BROADCAST_PAIRS = [((2, 3), (3,)), ((2, 3), (1, 3)), ((2, 3), (2, 1)), ((2, 3), ())]

#: Calls for the elementwise rules that the generic ``{f}(x)`` / ``{f}(x, y)`` cannot reach.
#: Case parameters x, y take the domains of the rule's first operands.
SPECS = {
    # x in (-2, 2), y = a_min in (-1, -0.3), a_max = y + 1.3 in (0.3, 1)
    "clip": [
        ("{f}(x, y, y + 1.3)", [(), ()]),
        ("{f}(x, y, y + 1.3)", [(3,), (3,)]),
        ("{f}(x, y, y + 1.3)", [(2, 3), (3,)]),
        ("{f}(x, y, 0.5)", [(2, 3), (2, 1)]),
        ("{f}(x, -0.5, y + 1.3)", [(2, 3), ()]),
        ("{f}(x, -0.5, 0.5)", [(2, 3)]),
    ],
    "where": [
        ("{f}(x > 0.0, x, y)", [(), ()]),
        ("{f}(x > 0.0, x, y)", [(2, 3), (2, 3)]),
        ("{f}(x > y, x, y)", [(2, 3), (3,)]),
        ("{f}(y < 0.0, x, 0.5 * y)", [(2, 3), (2, 1)]),
        ("{f}(x > 0.0, x, y)", [(3,), ()]),
    ],
    # the order n: a constant, or integers (floor(x) in 0, 1, 2) broadcast against y
    "polygamma": [
        ("{f}(0, x)", [(3,)]),
        ("{f}(1, x)", [(2, 3)]),
        ("{f}(2, x)", [()]),
        *(("{f}(np.floor(x), y)", shapes) for shapes in ([(), ()], [(3,), (3,)], [(2, 3), (2, 3)])),
        *(("{f}(np.floor(x), y)", [a, b]) for a, b in _BROADCAST_PAIRS),
        *(("{f}(np.floor(x), y)", [b, a]) for a, b in _BROADCAST_PAIRS),
    ],
    **{
        prim: [
            ("{f}(1.5, x)", [(3,)]),
            ("{f}(2, x)", [(2, 3)]),
            ("{f}(0.5, x)", [()]),
            *(("{f}(np.floor(x) + 1.0, y)", shapes) for shapes in ([(), ()], [(3,), (3,)], [(2, 3), (2, 3)])),
            *(("{f}(np.floor(x) + 1.0, y)", [a, b]) for a, b in _BROADCAST_PAIRS),
            *(("{f}(np.floor(x) + 1.0, y)", [b, a]) for a, b in _BROADCAST_PAIRS),
        ]
        for prim in ("jv", "yv", "yn", "iv", "ive", "gammainc", "gammaincc")
    },
}

METHODS = {
    "ndarray.clip": [
        ("x.clip(y, y + 1.3)", [(2, 3), (3,)]),
        ("x.clip(-0.5, 0.5)", [(2, 3)]),
        ("x.clip(y, 0.5)", [(3,), ()]),
    ],
    "ndarray.real": [("x.real", [(2, 3)]), ("x.real", [()])],
    "ndarray.imag": [("x.imag", [(2, 3)])],
    "ndarray.conj": [("x.conj()", [(2, 3)])],
    "ndarray.conjugate": [("x.conjugate()", [(3,)])],
}
