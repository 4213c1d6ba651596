"""Runtime helpers of ``rules/special.py``: the error function and its complement, ``log|gamma|``,
gamma, its reciprocal and its sign, digamma and polygamma, written with the array module alone, so a generated module that
differentiates ``math.erf``, ``math.erfc`` or ``math.lgamma`` (or their ``scipy.special`` names)
imports NumPy only.

The error functions: below ``|x| = 1``, ``erf`` by its series of positive terms
``2/sqrt(pi) exp(-x^2) sum 2^n x^(2n+1) / (1 3 5 ... (2n+1))`` (no cancellation) and ``erfc`` as
``1 - erf``; above, ``erfc(|x|)`` by Laplace's continued fraction, evaluated backwards with as
many terms as the smallest ``|x|`` needs (about ``160 / x^2``), with ``exp(-x^2)`` from ``x`` split
in two parts so that ``x^2`` is not rounded; ``erf = sign(x) (1 - erfc(|x|))``.  Relative error
about 1e-15 against ``math.erf`` and ``math.erfc`` (``tests/test_fresh_findings.py``).

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


def _erf(x):
    """The error function, elementwise."""
    return _erf_either(x, False)


def _erfc(x):
    """The complementary error function ``1 - erf(x)``, elementwise, accurate where it is small."""
    return _erf_either(x, True)


def _erf_either(x, complement):
    """erf(x), or erfc(x) where ``complement``: the series below |x| = 1, the fraction above."""
    x, dtype = _float64(x)
    if x.ndim == 0:  # a number: Python's floats (a 0-d array's operations cost a microsecond each)
        v = float(x)
        if abs(v) < 1.0:
            out = _erf_series(v)
            out = 1.0 - out if complement else out
        else:
            tail = v if xp.isnan(v) else _erfc_fraction(abs(v))
            out = (2.0 - tail if v < 0.0 else tail) if complement else (-1.0 if v < 0.0 else 1.0) * (1.0 - tail)
        return xp.asarray(out).astype(dtype)[()]
    a = xp.abs(x)
    small = a < 1.0
    out = _erf_series(xp.where(small, x, 0.0))
    out = 1.0 - out if complement else out
    big = ~small  # (nan too)
    if xp.any(big):
        known = ~xp.isnan(a[big])
        tail, negative = xp.where(known, _erfc_fraction(xp.where(known, a[big], 40.0)), a[big]), x[big] < 0.0
        out[big] = xp.where(negative, 2.0 - tail, tail) if complement else xp.where(negative, tail - 1.0, 1.0 - tail)
    return out.astype(dtype)


def _erf_series(x):
    """erf(x) for |x| < 1 (a float64 array, or a float): its series of positive terms, 30 of them."""
    x2, term, total = x * x, x, x
    for n in range(1, 30):
        term = term * (2.0 * x2 / (2 * n + 1))
        total = total + term
    scale = float(xp.exp(-x2)) if isinstance(x, float) else xp.exp(-x2)
    return 1.1283791670955126 * scale * total  # 1.128...: 2 / sqrt(pi)


def _erfc_fraction(a):
    """erfc(a) for float64 a >= 1 (a 1-d array with no nan, or a float): Laplace's continued
    fraction 1 / (a + (1/2) / (a + 1 / (a + (3/2) / (a + ...)))) times exp(-a^2) / sqrt(pi)."""
    a = xp.minimum(a, 40.0)  # (erfc is 0 in float64 from 27 on; inf too)
    least = float(xp.min(a)) if xp.size(a) else 40.0
    a = float(a) if xp.ndim(a) == 0 else a
    tail = a
    for k in range(int(12 + 160.0 / least**2), 0, -1):
        tail = a + (0.5 * k) / tail
    hi = xp.floor(a * 16.0) / 16.0  # a = hi + lo: hi * hi is exact, so exp(-a^2) is not rounded twice
    lo = a - hi
    return xp.exp(-hi * hi) * xp.exp(-(2.0 * hi + lo) * lo) / tail * 0.5641895835477563  # 1 / sqrt(pi)


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


def _gammasgn(x):
    """The sign of gamma(x), elementwise: 1 above 0, (-1)^k between the poles -k and -k + 1 below
    (nan at the poles 0, -1, -2, ...)."""
    x, dtype = _float64(x)
    pole = (x <= 0.0) & (x == xp.floor(x))
    odd = (xp.floor(x) % 2.0) != 0.0
    out = xp.where(x > 0.0, 1.0, xp.where(pole, xp.nan, xp.where(odd, -1.0, 1.0)))
    out = out.astype(dtype)
    return out[()] if out.ndim == 0 else out


def _gamma(x):
    """gamma(x), elementwise: its sign times exp(log|gamma(x)|) (nan at the poles)."""
    return _gammasgn(x) * xp.exp(_gammaln(x))


def _rgamma(x):
    """1 / gamma(x), elementwise: 0 at the poles, as scipy.special.rgamma."""
    sign = _gammasgn(x)
    return xp.where(xp.isnan(sign), 0.0, sign) * xp.exp(-_gammaln(x))


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
