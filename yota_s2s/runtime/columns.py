"""Helpers of ``jac_NAME``'s forward columns (``codegen.forward_cols``): the unit tangents of the
columns ``start``, ``start + 1``, ... of the Jacobians of several parameters at once, and the
columns, computed as the rows of one array ``C`` (``C[j]`` the derivative of the value along
column ``j``), moved to the last axes of each Jacobian.

The columns of all the ``--wrt`` parameters are numbered in one sequence, the first parameter's
first: column ``j`` of parameter ``x`` is ``j - offset`` of it, ``offset`` the sizes of the
parameters before it.
"""

import numpy as xp


def _cols_seeds(start, step, *xs):
    """The tangents of each of ``xs`` for the columns ``start``, ..., ``start + k - 1`` (``k`` at
    most ``step``), each of shape ``(k,) + np.shape(x)``: row ``i`` the unit vector of column
    ``start + i`` where that column is one of ``x``'s, zeros otherwise."""
    total = sum(xp.size(x) for x in xs)
    k = min(step, total - start)
    out = []
    offset = 0
    for x in xs:
        n = xp.size(x)
        seed = xp.zeros((k, n))
        lo, hi = max(start, offset), min(start + k, offset + n)
        if lo < hi:  # rows lo - start ... of the identity's columns lo - offset ...
            rows = xp.arange(lo - start, hi - start)
            seed[rows, rows + start - offset] = 1.0
        out.append(seed.reshape((k,) + xp.shape(x)))
        offset += n
    return tuple(out)


def _cols_unit(j, *xs):
    """The tangents of each of ``xs`` for column ``j`` alone: the unit vector of ``j`` in the
    parameter it belongs to, zeros of the others' shapes."""
    out = []
    offset = 0
    for x in xs:
        n = xp.size(x)
        seed = xp.zeros(xp.shape(x))
        if offset <= j < offset + n:
            seed.reshape(-1)[j - offset] = 1.0
        out.append(seed)
        offset += n
    return tuple(out)


def _cols_split(columns, value, *xs):
    """The Jacobian of ``value`` with respect to each of ``xs`` from ``columns`` (shape ``(N,) +
    np.shape(value)``, ``N`` the sizes of ``xs`` together): ``J_x.shape == np.shape(value) +
    np.shape(x)``, contiguous."""
    out = []
    offset = 0
    shape = xp.shape(value)
    for x in xs:
        n = xp.size(x)
        block = columns[offset : offset + n].reshape((n, xp.size(value)))
        out.append(xp.ascontiguousarray(block.T).reshape(shape + xp.shape(x)))
        offset += n
    return tuple(out)
