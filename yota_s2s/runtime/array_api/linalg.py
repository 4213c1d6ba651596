"""Helpers of the array-API target for NumPy's products the standard lacks (see ``core``): ``np.dot``,
``np.outer`` and their gradients, written with ``xp.matmul`` and ``xp.tensordot``."""

from .core import _array_namespace, _ndim
from .shape import _matmul_dx, _matmul_dy


def _dot(x, y):
    """``np.dot(x, y)``: a product with a 0-d operand; ``x @ y`` up to a 2-D ``y`` or a 1-D ``x``; past
    them the last axis of ``x`` against the second-to-last of ``y`` over every pair of leading axes."""
    nx, ny = _ndim(x), _ndim(y)
    if nx == 0 or ny == 0:
        return x * y
    xp = _array_namespace(x, y)
    if ny < 3 or nx < 2:
        return xp.matmul(x, y)
    return xp.tensordot(x, y, axes=([nx - 1], [ny - 2]))


def _dot_dx(g, x, y):
    """Gradient of ``np.dot(x, y)`` with respect to ``x`` (NumPy's ``_dot_dx``, on the standard)."""
    nx, ny = _ndim(x), _ndim(y)
    if ny < 3 or nx < 2:
        return _matmul_dx(g, x, y)
    return _array_namespace(g, x, y).tensordot(g, y, axes=(list(range(nx - 1, nx + ny - 2)), [*range(ny - 2), ny - 1]))


def _dot_dy(g, x, y):
    """Gradient of ``np.dot(x, y)`` with respect to ``y`` (NumPy's ``_dot_dy``, on the standard)."""
    nx, ny = _ndim(x), _ndim(y)
    if ny < 3 or nx < 2:
        return _matmul_dy(g, x, y)
    xp = _array_namespace(g, x, y)
    lead = list(range(nx - 1))
    return xp.moveaxis(xp.tensordot(x, g, axes=(lead, lead)), 0, -2)


def _outer(x, y):
    """``np.outer(x, y)``: both operands flattened, ``out[i, j] = x.flat[i] * y.flat[j]``."""
    xp = _array_namespace(x, y)
    return xp.reshape(xp.asarray(x), (-1, 1)) * xp.reshape(xp.asarray(y), (1, -1))
