"""Runtime helpers of the gamma family (``rules/special.py``): ``log|gamma|``, digamma and
polygamma written with the array module alone, so a generated module that differentiates
``math.lgamma`` (or ``scipy.special.gammaln``) imports NumPy only.

Like ``runtime.core``: each ``_<prim>`` writes the primitive ``prim`` and is copied into the
generated modules that use it, with ``xp`` renamed to the target's array module.  The method:
shift ``x`` up by the recurrences until it is at least ``_GAMMA_SHIFT``, where the asymptotic
(Stirling) series converge to double precision, and reflect negative ``x`` through
``gamma(x) gamma(1 - x) = pi / sin(pi x)``.  Absolute error about 1e-14 against ``math.lgamma``.
"""

import numpy as xp

#: Where the asymptotic series take over (their first omitted term is below 1e-17 there).
_GAMMA_SHIFT = 16.0
#: The Bernoulli numbers B_2k, k = 1..8: the Stirling series of log gamma is
#: sum B_2k / (2k (2k - 1) x^(2k-1)).
_BERNOULLI = (1.0 / 6, -1.0 / 30, 1.0 / 42, -1.0 / 30, 5.0 / 66, -691.0 / 2730, 7.0 / 6, -3617.0 / 510)


def _gammaln(x):
    """log|gamma(x)|, elementwise (inf at the poles 0, -1, -2, ...)."""
    x, dtype = _float64(x)
    neg = x < 0.5
    y = xp.where(neg, 1.0 - x, x)  # reflected: y >= 0.5
    shift = xp.zeros_like(y)
    while True:  # lgamma(y) = lgamma(y + 1) - log(y)
        low = y < _GAMMA_SHIFT
        if not xp.any(low):
            break
        shift = shift + xp.where(low, xp.log(xp.where(low, y, 1.0)), 0.0)
        y = xp.where(low, y + 1.0, y)
    inv, series = 1.0 / y, 0.0
    for k in range(len(_BERNOULLI), 0, -1):  # Horner in 1 / y^2
        series = series * inv * inv + _BERNOULLI[k - 1] / (2 * k * (2 * k - 1))
    out = (y - 0.5) * xp.log(y) - y + 0.9189385332046728 + series * inv - shift  # 0.91...: log(2 pi) / 2
    sine = xp.abs(xp.sin(xp.pi * (x - xp.round(x))))  # |sin(pi x)| from x's distance to an integer
    reflected = 1.1447298858494002 - xp.log(xp.where(sine > 0.0, sine, 1.0)) - out  # 1.14...: log(pi)
    out = xp.where(neg, xp.where(sine > 0.0, reflected, xp.inf), out)
    out = out.astype(dtype)
    return out[()] if out.ndim == 0 else out


def _digamma(x):
    """The digamma function psi(x) = d/dx log gamma(x), elementwise (nan at the poles)."""
    x, dtype = _float64(x)
    neg = x < 0.5
    y = xp.where(neg, 1.0 - x, x)
    shift = xp.zeros_like(y)
    while True:  # psi(y) = psi(y + 1) - 1 / y
        low = y < _GAMMA_SHIFT
        if not xp.any(low):
            break
        shift = shift + xp.where(low, 1.0 / xp.where(low, y, 1.0), 0.0)
        y = xp.where(low, y + 1.0, y)
    inv, series = 1.0 / y, 0.0
    for k in range(len(_BERNOULLI), 0, -1):  # psi(y) ~ log y - 1 / (2y) - sum B_2k / (2k y^2k)
        series = series * inv * inv + _BERNOULLI[k - 1] / (2 * k)
    out = xp.log(y) - 0.5 * inv - series * inv * inv - shift
    frac = x - xp.round(x)  # cot has period 1: reduced to [-1/2, 1/2], accurate near the poles
    cot = xp.cos(xp.pi * frac) / xp.sin(xp.pi * xp.where(frac == 0.0, 0.5, frac))
    out = xp.where(neg, xp.where(frac == 0.0, xp.nan, out - xp.pi * cot), out)  # psi(1 - x) - pi cot(pi x)
    out = out.astype(dtype)
    return out[()] if out.ndim == 0 else out


def _polygamma(n, x):
    """The polygamma function psi^(n)(x), the n-th derivative of digamma, elementwise; ``n`` an
    integer >= 0 (or an array of them, broadcast against ``x``)."""
    orders = xp.asarray(n)
    x, dtype = _float64(x)
    if orders.ndim:
        out = xp.zeros_like(orders + x)
        for k in sorted({int(k) for k in orders.ravel()}):
            out = xp.where(orders == k, _polygamma(k, x), out)
        return out.astype(dtype)
    n = int(orders)
    if n == 0:
        return _digamma(x.astype(dtype))
    sign, fact = (-1.0) ** (n + 1), _factorial(n)
    y, shift = x, xp.zeros_like(x)
    while True:  # psi_n(y) = psi_n(y + 1) + (-1)^(n+1) n! / y^(n+1)
        low = y < _GAMMA_SHIFT
        if not xp.any(low):
            break
        pole = low & (y == 0.0)
        shift = shift + xp.where(low, 1.0 / xp.where(low & ~pole, y, 1.0) ** (n + 1), 0.0)
        y = xp.where(low, y + 1.0, y)
    inv = 1.0 / y
    # (-1)^(n+1) [(n-1)! / y^n + n! / (2 y^(n+1)) + sum B_2k (2k+n-1)! / ((2k)! y^(2k+n))]
    series = _factorial(n - 1) * inv**n + 0.5 * fact * inv ** (n + 1)
    for k in range(1, len(_BERNOULLI) + 1):
        term = _BERNOULLI[k - 1] * _factorial(2 * k + n - 1) / _factorial(2 * k)
        series = series + term * inv ** (2 * k + n)
    out = sign * (series + fact * shift)
    out = xp.where(x == xp.floor(x), xp.where(x <= 0.0, xp.nan, out), out)
    out = out.astype(dtype)
    return out[()] if out.ndim == 0 else out


def _float64(x):
    """``x`` as a float64 array, and the floating dtype the result is given back in."""
    x = xp.asarray(x)
    wide = x.astype(float)
    return wide, (x.dtype if x.dtype.kind == "f" else wide.dtype)


def _factorial(n):
    """n! as a float."""
    out = 1.0
    for k in range(2, n + 1):
        out *= k
    return out
