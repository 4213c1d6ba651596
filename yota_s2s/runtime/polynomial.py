"""Runtime helpers of the polynomial rules (``rules/polynomial.py``).

As in ``runtime``: each ``_<prim>`` writes the helper primitive ``<prim>`` and is copied as
source into the generated modules that use it (``xp`` renamed to the target's array module),
with the ``_`` helpers it calls.  None of them raises a power of ``x`` to an exponent: powers
are built by products, basis values by their three-term recurrences, so the gradients are
finite at ``x == 0``.

The evaluators of ``numpy.polynomial`` (``_chebval``, ...) sum the basis values of the same
recurrences, so that a CuPy module can run them too (CuPy has no ``cupy.polynomial.chebyshev``):
NumPy's values up to rounding (NumPy evaluates by Clenshaw's recurrence).
"""

import numpy as xp

from .core import _unbroadcast  # for direct calls; modules copy it


def _vander_dx(g, x, N=None, increasing=False):
    """Gradient of ``np.vander(x, N, increasing)`` with respect to the 1-D ``x``.

    Column ``j`` of the (increasing) matrix is ``x ** j``, of derivative ``j * x ** (j - 1)``:
    ``x ** (j - 1)`` is column ``j - 1`` of the matrix with one column fewer (products).
    """
    x = xp.asarray(x)
    n = x.shape[0] if N is None else N
    dtype = xp.result_type(g, x, 0.0)
    if n < 2:  # the columns x ** 0 (or none): constant
        return xp.zeros(x.shape, dtype)
    if not increasing:
        g = g[:, ::-1]
    lower = xp.vander(x, n - 1, increasing=True)
    return xp.sum(g[:, 1:] * lower * xp.arange(1, n, dtype=dtype), axis=1).astype(dtype, copy=False)


def _polyval_dx(g, p, x):
    """Gradient of ``np.polyval(p, x)`` with respect to ``x``: ``g`` times ``p'(x)``.

    Horner's scheme on the derivative's coefficients ``(n - 1 - k) * p[k]`` (highest first).
    """
    p = xp.asarray(p)
    n = p.shape[0]
    slope = 0.0
    for k in range(n - 1):
        slope = slope * x + (n - 1 - k) * p[k]
    return _unbroadcast(g * slope, x)


def _polyval_dp(g, p, x):
    """Gradient of ``np.polyval(p, x)`` with respect to ``p``: ``dp[k]`` sums ``g * x ** (n - 1 - k)``.

    The powers are repeated products from ``x ** 0 = 1`` (also at ``x == 0``).
    """
    p = xp.asarray(p)
    n = p.shape[0]
    if n == 0:
        return xp.zeros(p.shape, xp.result_type(g, p, 0.0))
    parts = [None] * n
    power = g
    for k in range(n - 1, -1, -1):
        parts[k] = _unbroadcast(power, p[k])
        if k:
            power = power * x
    return xp.stack([xp.asarray(q) for q in parts]).astype(xp.result_type(g, p, 0.0), copy=False)


# ----------------------------------------------------------------------------- numpy.polynomial's evaluators


def _series_operands(x, c, tensor):
    """``x`` and ``c`` as ``numpy.polynomial``'s evaluators read them: ``c`` at least 1-D and inexact,
    and with ``tensor`` one axis of length 1 appended per axis of an array ``x`` (so that each
    ``c[k]`` meets every element of ``x``)."""
    c = xp.atleast_1d(xp.asarray(c))
    if c.dtype.kind in "biu":
        c = c.astype(xp.float64)
    if isinstance(x, tuple | list):
        x = xp.asarray(x)
    if tensor:  # (NumPy's test is isinstance(x, ndarray): a number has no axes to append anyway)
        c = xp.reshape(c, c.shape + (1,) * xp.ndim(x))
    return x, c


def _polynomial_polyval(x, c, tensor=True):
    """``numpy.polynomial.polynomial.polyval(x, c, tensor)``: sum of ``c[k] * x ** k``, by Horner's scheme."""
    x, c = _series_operands(x, c, tensor)
    c0 = c[-1] + x * 0
    for i in range(2, len(c) + 1):
        c0 = c[-i] + c0 * x
    return c0


def _series_sum(x, c, kind, tensor):
    """``numpy.polynomial``'s ``<kind>val(x, c, tensor)``: sum of ``c[k] * B_k(x)``, the basis values
    by their three-term recurrences (``_series_basis``).  The same values as NumPy's Clenshaw
    evaluation, up to rounding."""
    x, c = _series_operands(x, c, tensor)
    values, _ = _series_basis(x, len(c), kind, slopes=False)
    total = c[0] * values[0]
    for k in range(1, len(c)):
        total = total + c[k] * values[k]
    return total


def _chebval(x, c, tensor=True):
    """``numpy.polynomial.chebyshev.chebval(x, c, tensor)``: sum of ``c[k] * T_k(x)``."""
    return _series_sum(x, c, "cheb", tensor)


def _legval(x, c, tensor=True):
    """``numpy.polynomial.legendre.legval(x, c, tensor)``: sum of ``c[k] * P_k(x)``."""
    return _series_sum(x, c, "leg", tensor)


def _hermval(x, c, tensor=True):
    """``numpy.polynomial.hermite.hermval(x, c, tensor)``: sum of ``c[k] * H_k(x)``."""
    return _series_sum(x, c, "herm", tensor)


def _hermeval(x, c, tensor=True):
    """``numpy.polynomial.hermite_e.hermeval(x, c, tensor)``: sum of ``c[k] * He_k(x)``."""
    return _series_sum(x, c, "herme", tensor)


def _lagval(x, c, tensor=True):
    """``numpy.polynomial.laguerre.lagval(x, c, tensor)``: sum of ``c[k] * L_k(x)``."""
    return _series_sum(x, c, "lag", tensor)


# ----------------------------------------------------------------------------- their gradients


def _series_basis(x, n, kind, slopes=True):
    """The basis values ``B_k(x)`` and their derivatives ``B_k'(x)``, ``k < n``, of a family
    (``kind``: poly, cheb, leg, herm, herme, lag), by the three-term recurrences (no powers,
    no division by ``x``); the derivatives are zeros where ``slopes`` is false (not needed)."""
    one = x * 0 + 1.0
    values, slope_list = [one], [one * 0]
    for k in range(n - 1):
        b, d = values[k], slope_list[k] if slopes else 0.0
        b0 = values[k - 1] if k else 0.0
        d0 = slope_list[k - 1] if k and slopes else 0.0
        if kind == "poly":  # x ** (k + 1)
            values.append(x * b)
            slope_list.append((k + 1) * b)
        elif kind == "cheb":  # T_{k+1} = 2 x T_k - T_{k-1} (T_1 = x)
            m = 2 if k else 1
            values.append(m * x * b - b0)
            slope_list.append(m * (b + x * d) - d0)
        elif kind == "leg":  # (k + 1) P_{k+1} = (2k + 1) x P_k - k P_{k-1}; P_{k+1}' = P_{k-1}' + (2k + 1) P_k
            values.append(((2 * k + 1) * x * b - k * b0) / (k + 1))
            slope_list.append(d0 + (2 * k + 1) * b)
        elif kind == "herm":  # H_{k+1} = 2 x H_k - 2k H_{k-1}; H_{k+1}' = 2 (k + 1) H_k
            values.append(2 * x * b - 2 * k * b0)
            slope_list.append(2 * (k + 1) * b)
        elif kind == "herme":  # He_{k+1} = x He_k - k He_{k-1}; He_{k+1}' = (k + 1) He_k
            values.append(x * b - k * b0)
            slope_list.append((k + 1) * b)
        else:  # lag: (k + 1) L_{k+1} = (2k + 1 - x) L_k - k L_{k-1}; L_{k+1}' = L_k' - L_k
            values.append(((2 * k + 1 - x) * b - k * b0) / (k + 1))
            slope_list.append(d - b)
    return values, slope_list


def _series_dx(g, x, c, kind="poly", tensor=True):
    """Gradient of ``numpy.polynomial``'s ``<kind>val(x, c, tensor)`` with respect to ``x``: ``g`` times
    the derivative of the series, sum of ``c[k] * B_k'(x)``, summed down to the shape of ``x``."""
    x, c = _series_operands(x, c, tensor)
    _, slopes = _series_basis(x, len(c), kind)
    slope = c[0] * slopes[0]
    for k in range(1, len(c)):
        slope = slope + c[k] * slopes[k]
    return _unbroadcast(g * slope, x)


def _series_dc(g, x, c, kind="poly", tensor=True):
    """Gradient of ``numpy.polynomial``'s ``<kind>val(x, c, tensor)`` with respect to ``c``, in which it is
    linear: ``dc[k]`` sums ``g * B_k(x)`` down to the shape of ``c[k]`` (over every element of ``x``
    with ``tensor``, which gave ``c[k]`` an axis of length 1 per axis of ``x``)."""
    shape = xp.shape(c)
    x, c = _series_operands(x, c, tensor)
    values, _ = _series_basis(x, len(c), kind)
    parts = [_unbroadcast(g * values[k], c[k]) for k in range(len(c))]
    return xp.reshape(xp.stack([xp.asarray(q) for q in parts]), shape).astype(xp.result_type(g, c), copy=False)


# ----------------------------------------------------------------------------- 2-D and 3-D power series


def _series_grid(xs, c):
    """``xs`` as arrays of one shape and ``c`` inexact with an axis of length 1 per axis of them, as
    ``numpy.polynomial``'s ``<kind>val2d`` and ``<kind>val3d`` read them (``c[i, j, ...]`` the
    coefficient of ``B_i(x) B_j(y)``; its axes past the first ``len(xs)`` lead the result's)."""
    xs = [xp.asarray(x) for x in xs]
    if any(x.shape != xs[0].shape for x in xs[1:]):
        raise ValueError("x, y, z are incompatible" if len(xs) == 3 else "x, y are incompatible")
    c = xp.asarray(c)
    if c.ndim < len(xs):  # NumPy evaluates a scalar's axes as coefficients: no gradient for that
        raise ValueError(f"the coefficients of a {len(xs)}-D series need {len(xs)} axes, not {c.ndim}")
    if c.dtype.kind in "biu":
        c = c.astype(xp.float64)
    return xs, xp.reshape(c, c.shape + (1,) * xs[0].ndim)


def _polynomial_polyval2d(x, y, c):
    """``numpy.polynomial.polynomial.polyval2d(x, y, c)``: sum of ``c[i, j] * x ** i * y ** j``, as NumPy
    evaluates it (along ``x``, then along ``y``)."""
    _series_grid([x, y], c)
    return _polynomial_polyval(xp.asarray(y), _polynomial_polyval(xp.asarray(x), c), tensor=False)


def _polynomial_polyval3d(x, y, z, c):
    """``numpy.polynomial.polynomial.polyval3d(x, y, z, c)``: sum of ``c[i, j, k] * x ** i * y ** j * z ** k``."""
    _series_grid([x, y, z], c)
    c = _polynomial_polyval(xp.asarray(x), c)
    c = _polynomial_polyval(xp.asarray(y), c, tensor=False)
    return _polynomial_polyval(xp.asarray(z), c, tensor=False)


def _series_grid_dx(g, xs, c, kind, wrt):
    """Gradient of the ``len(xs)``-D series of ``c`` at ``xs`` with respect to ``xs[wrt]``: ``g`` times the
    sum of ``c[i, j, ...] B_i(x) B_j'(y) ...``, the derivative's basis on axis ``wrt`` of ``c``."""
    xs, c = _series_grid(xs, c)
    for i, x in enumerate(xs):  # sum along the leading axis of c, one axis of the grid at a time
        values, slopes = _series_basis(x, c.shape[0], kind)
        basis = slopes if i == wrt else values
        total = c[0] * basis[0]
        for k in range(1, len(basis)):
            total = total + c[k] * basis[k]
        c = total
    return _unbroadcast(g * c, xs[wrt])


def _series_grid_dc(g, xs, c, kind):
    """Gradient of the ``len(xs)``-D series of ``c`` at ``xs`` with respect to ``c``, in which it is linear:
    ``dc[i, j, ...]`` sums ``g * B_i(x) B_j(y) ...`` over the elements of the grid."""
    shape = xp.shape(c)
    xs, full = _series_grid(xs, c)
    grid = xs[0].shape
    product = None
    for i, x in enumerate(xs):
        values, _ = _series_basis(x, shape[i], kind)
        basis = xp.stack([xp.broadcast_to(v, grid) for v in values])  # (n_i,) + grid
        product = basis if product is None else xp.reshape(product, product.shape[:i] + (1,) + grid) * basis
    axes = list(range(len(xs), len(xs) + len(grid)))
    g_axes = list(range(xp.ndim(g) - len(grid), xp.ndim(g)))
    return xp.reshape(xp.tensordot(product, g, axes=(axes, g_axes)), shape).astype(xp.result_type(g, full))


def _series2d_dx(g, x, y, c, kind="poly", wrt=0):
    """Gradient of ``<kind>val2d(x, y, c)`` with respect to ``x`` (``wrt=0``) or ``y`` (``wrt=1``)."""
    return _series_grid_dx(g, [x, y], c, kind, wrt)


def _series2d_dc(g, x, y, c, kind="poly"):
    """Gradient of ``<kind>val2d(x, y, c)`` with respect to ``c``."""
    return _series_grid_dc(g, [x, y], c, kind)


def _series3d_dx(g, x, y, z, c, kind="poly", wrt=0):
    """Gradient of ``<kind>val3d(x, y, z, c)`` with respect to ``x``, ``y`` or ``z`` (``wrt`` 0, 1, 2)."""
    return _series_grid_dx(g, [x, y, z], c, kind, wrt)


def _series3d_dc(g, x, y, z, c, kind="poly"):
    """Gradient of ``<kind>val3d(x, y, z, c)`` with respect to ``c``."""
    return _series_grid_dc(g, [x, y, z], c, kind)
