"""Runtime helpers of the reduction and linear-algebra rules (``rules/reductions.py``, ``rules/linalg.py``);
those of the decompositions (``eigh``, ``eig``, ``svd``, ``pinv``, ``qr``) are ``decompositions.py``'s.

As in ``runtime``: each ``_<prim>`` writes the helper primitive ``<prim>`` and is
copied as source into the generated modules that use it (with ``xp`` renamed to
the target's array module), together with the ``_`` helpers it calls.  Only
top-level ``_`` functions are copied, so a helper uses nothing else of this
module: no constants, no imports but ``xp``.
"""

import numpy as xp

from .core import _matmul_dx, _matmul_dy, _unbroadcast, _xtx_dx, _xxt_dx  # for direct calls; modules copy them


def _mT(x):
    """``x`` with its last two axes swapped (NumPy's ``x.mT``): the transpose of each matrix."""
    return xp.swapaxes(x, -1, -2)


# ----------------------------------------------------------------------------- reductions


def _or_one(n):
    """``n``, or 1 where ``n`` is 0: a count to divide by (mean's: a gradient spread over an empty
    array is empty whatever it is divided by, and Python's ``1.0 / 0`` raises)."""
    return n or 1


def _reduced_axes(axis, ndim):
    """The axes a reduction over ``axis`` (None, an int or a tuple) removes, non-negative, in order.

    None of a 0-d array: NumPy reduces one over ``axis=0`` or ``-1`` to itself."""
    if axis is None or ndim == 0:
        return tuple(range(ndim))
    if isinstance(axis, int):
        axis = (axis,)
    return tuple(a % ndim for a in axis)


def _prod_dx(g, x, axis=None, keepdims=False):
    """Gradient of ``prod(x, axis)``: ``g`` times the product of the *other* elements.

    The products of the elements before and after each one (exclusive cumulative
    products), not ``prod / x``: exact when ``x`` holds zeros.
    """
    x = xp.asarray(x)
    axes = _reduced_axes(axis, x.ndim)
    if not keepdims:
        g = xp.expand_dims(g, axes)
    rows, order, moved = _as_rows(x, axes)
    ones = xp.ones_like(rows[..., :1])
    before = xp.cumprod(xp.concatenate([ones, rows[..., :-1]], axis=-1), axis=-1)
    after = xp.flip(xp.cumprod(xp.concatenate([ones, xp.flip(rows, -1)[..., :-1]], axis=-1), axis=-1), -1)
    others = xp.transpose(xp.reshape(before * after, moved), xp.argsort(order))
    return g * others


def _as_rows(x, axes):
    """``x`` with the reduced ``axes`` moved last and made one (a row per index of the others), the order
    of its axes and their shape once moved: ``xp.transpose(xp.reshape(r, moved), xp.argsort(order))``
    puts an array of rows back in ``x``'s layout."""
    order = [a for a in range(x.ndim) if a not in axes] + list(axes)
    moved = xp.transpose(x, order)
    n = 1  # the length of a row (not -1: NumPy cannot infer it when another axis is 0)
    for a in axes:
        n *= x.shape[a]
    return xp.reshape(moved, moved.shape[: x.ndim - len(axes)] + (n,)), order, moved.shape


def _std_dx(g, x, s, axis=None, ddof=0, keepdims=False):
    """Gradient of ``s = np.std(x, axis, ddof=ddof, keepdims=keepdims)``: ``g / s * (x - mean) / (n - ddof)``.

    Along a reduction whose elements are all equal it is 0: std is identically 0 there for one
    element (its derivative is 0) and at a kink for more (the tip of a cone, as ``abs`` at 0,
    whose smallest subgradient is 0), where the formula gives 0 / 0 = NaN, or, when the mean
    rounds (three times 0.1), the noise of ``x - mean`` divided by a tiny ``s``.
    """
    x = xp.asarray(x)
    if x.size == 0:  # nothing to differentiate (and max/min refuse an empty reduction)
        return xp.zeros(x.shape, xp.result_type(x, g, 0.0))
    axes = _reduced_axes(axis, x.ndim)
    if not keepdims:  # (a Python float g kept weak: a float32 x gets a float32 gradient)
        g = xp.expand_dims(xp.asarray(g, xp.result_type(g, s)), axes)
        s = xp.expand_dims(s, axes)
    flat = xp.max(x, axis=axes, keepdims=True) == xp.min(x, axis=axes, keepdims=True)
    scale = g / xp.where(flat, 1.0, s)  # (a std that underflowed to 0 unequal elements: inf)
    n = x.size // s.size
    dx = scale * (x - xp.mean(x, axis=axes, keepdims=True)) / (n - ddof)
    return xp.where(flat, 0.0, dx) if flat.any() else dx  # +0, not 0 times a negative noise


def _cumsum_dx(g, x, axis=None):
    """Gradient of ``cumsum(x, axis)``: the reversed cumulative sum of ``g`` (``axis=None`` flattens;
    so does ``axis=0`` of a 0-d ``x``, as NumPy does)."""
    if axis is None or xp.ndim(x) == 0:
        return xp.reshape(xp.flip(xp.cumsum(xp.flip(xp.ravel(g)))), xp.shape(x))
    return xp.flip(xp.cumsum(xp.flip(g, axis), axis=axis), axis)


def _norm_axes(x, ord, axis):
    """The axes ``np.linalg.norm(x, ord, axis)`` reduces (``ord=None, axis=None``: all, whatever the rank)."""
    ndim = xp.ndim(x)
    return tuple(range(ndim)) if axis is None and ord is None else _reduced_axes(axis, ndim)


def _norm_dx(g, x, n, ord=None, axis=None, keepdims=False):
    """Gradient of ``n = np.linalg.norm(x, ord, axis, keepdims)`` with respect to ``x``.

    Vector norms (``axis`` an int, or ``None`` with ``x`` 1-D): ord None/2, 1, inf, -inf, 0
    and any other number p.  Matrix norms (``axis`` a pair, or ``None`` with ``x`` 2-D and
    ``ord`` given): 'fro', 'nuc', 1, -1, 2, -2, inf, -inf.  ``ord=None, axis=None`` is the
    2-norm of ``x`` flattened, whatever its rank.  At a tie of maxima (inf, 1 ...) the
    gradient is split evenly; singular values (2, -2, 'nuc') are assumed distinct.  At ``x == 0``
    (``n == 0``) the 2-norm's and the p-norms' gradient is 0, as ``hypot``'s at the origin (the
    tip of a cone), not ``0 / 0``.
    """
    x = xp.asarray(x)
    axes = _norm_axes(x, ord, axis)
    if not keepdims:
        g = xp.expand_dims(g, axes)
        n = xp.expand_dims(n, axes)
    safe = xp.where(n == 0, 1.0, n)  # x / n is 0 where x is 0
    if ord is None or ord == "fro" or (ord == 2 and len(axes) == 1):
        return g * x / safe
    a = xp.abs(x)
    s = xp.sign(x)
    if len(axes) == 1:
        if ord == 0:
            return xp.zeros_like(g * x)
        if ord == 1:
            return g * s
        if ord in (xp.inf, -xp.inf):
            hit = a == n
            return g * s * hit / xp.sum(hit, axis=axes, keepdims=True)
        return g * s * (a / safe) ** (ord - 1)
    if ord in ("nuc", 2, -2):
        m = xp.moveaxis(x, axes, (-2, -1))
        u, _, vt = xp.linalg.svd(m, full_matrices=False)
        if ord == "nuc":
            d = u @ vt
        else:
            k = 0 if ord == 2 else -1
            d = u[..., :, k, None] * vt[..., None, k, :]
        return g * xp.moveaxis(d, (-2, -1), axes)
    # 1, -1: the largest (smallest) column sum of |x|; inf, -inf: row sum
    summed = axes[0] if ord in (1, -1) else axes[1]
    hit = xp.sum(a, axis=summed, keepdims=True) == n
    other = axes[1] if summed == axes[0] else axes[0]
    return g * s * hit / xp.sum(hit, axis=other, keepdims=True)


# ----------------------------------------------------------------------------- contractions


def _einsum_explicit(subscripts, ndims):
    """``subscripts`` for operands of ranks ``ndims`` as ``(input terms, output term)`` of single letters.

    The output of the implicit form (no ``->``) is spelled out, and ``...`` becomes
    letters unused elsewhere (the broadcast axes, aligned on the right).
    """
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    spec = subscripts.replace(" ", "")
    lhs, arrow, output = spec.partition("->")
    terms = lhs.split(",")
    free = [c for c in letters if c not in spec]
    n_ellipsis = max([nd - (len(t) - 3) for t, nd in zip(terms, ndims) if "..." in t] or [0])
    broadcast = "".join(free[:n_ellipsis])
    spelled = []
    for term, nd in zip(terms, ndims):
        if "..." in term:
            k = nd - (len(term) - 3)
            term = term.replace("...", broadcast[n_ellipsis - k :])
        spelled.append(term)
    if arrow:
        output = output.replace("...", broadcast)
    else:
        named = lhs.replace("...", "").replace(",", "")
        output = broadcast + "".join(sorted(c for c in set(named) if named.count(c) == 1))
    return spelled, output


def _einsum_dx(g, xs, subscripts="", k=0):
    """Gradient of ``np.einsum(subscripts, *xs)`` with respect to ``xs[k]``.

    An einsum of ``g`` with the other operands, into ``xs[k]``'s subscripts.  Each
    axis of ``xs[k]`` gets its own letter: an index it repeats (``'ii->i'``, a
    diagonal) is tied back by an identity matrix, an index found nowhere else (summed
    within ``xs[k]`` only) by a vector of ones that broadcasts the gradient, and an
    axis of length 1 that broadcast against a longer one by a ``ones(1)`` (summed).  An axis
    along which only ``xs[k]`` is long (the others have length 1) is broadcast at the end.
    """
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    shapes = [xp.shape(x) for x in xs]
    terms, output = _einsum_explicit(subscripts, [len(s) for s in shapes])
    sizes = {}
    for term, shape in zip(terms, shapes):
        for c, size in zip(term, shape):
            sizes[c] = size if sizes.get(c, 1) == 1 else sizes[c]  # broadcast: 1 against 0 is 0
    free = iter(c for c in letters if c not in sizes)
    elsewhere = output + "".join(t for j, t in enumerate(terms) if j != k)
    dtype = xp.result_type(g, *xs)
    target, extra_terms, extra_ops = [], [], []
    for c, size in zip(terms[k], shapes[k]):
        if size == 1 and sizes[c] != 1:
            f = next(free)
            target.append(f)
            extra_terms.append(f)
            extra_ops.append(xp.ones(1, dtype))
        elif c in target:
            f = next(free)
            target.append(f)
            extra_terms.append(c + f)
            extra_ops.append(xp.eye(size, dtype=dtype))
        else:
            target.append(c)
            if c not in elsewhere:
                extra_terms.append(c)
                extra_ops.append(xp.ones(size, dtype))
    ins = [output] + [t for j, t in enumerate(terms) if j != k] + extra_terms
    ops = [g] + [x for j, x in enumerate(xs) if j != k] + extra_ops
    dx = xp.einsum(",".join(ins) + "->" + "".join(target), *ops, optimize=len(ops) > 2)
    if dx.shape != shapes[k]:  # xs[k] alone is long on an axis the others have as length 1
        dx = dx + xp.zeros(shapes[k], dtype)
    return dx


def _tensordot_subscripts(axes, nx, ny):
    """``np.tensordot(x, y, axes)`` for ``x``, ``y`` of ranks ``nx``, ``ny`` as einsum subscripts.

    With a 0-d operand it is a product (as ``np.inner`` of a scalar is).
    """
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    sx, sy = list(letters[:nx]), list(letters[nx : nx + ny])
    if nx == 0 or ny == 0:
        return "".join(sx) + "," + "".join(sy) + "->" + "".join(sx + sy)
    if isinstance(axes, int):
        ax, ay = list(range(nx - axes, nx)), list(range(axes))
    else:
        ax, ay = ([a] if isinstance(a, int) else list(a) for a in axes)
    ax, ay = [a % nx for a in ax], [a % ny for a in ay]
    for i, j in zip(ax, ay):
        sy[j] = sx[i]
    out = [c for i, c in enumerate(sx) if i not in ax] + [c for j, c in enumerate(sy) if j not in ay]
    return "".join(sx) + "," + "".join(sy) + "->" + "".join(out)


def _tensordot_dx(g, x, y, axes=2):
    """Gradient of ``np.tensordot(x, y, axes)`` (and ``np.inner``) with respect to ``x``."""
    spec = _tensordot_subscripts(axes, xp.ndim(x), xp.ndim(y))
    return _einsum_dx(g, [x, y], subscripts=spec, k=0)


def _tensordot_dy(g, x, y, axes=2):
    """Gradient of ``np.tensordot(x, y, axes)`` (and ``np.inner``) with respect to ``y``."""
    spec = _tensordot_subscripts(axes, xp.ndim(x), xp.ndim(y))
    return _einsum_dx(g, [x, y], subscripts=spec, k=1)


def _dot_dx(g, x, y):
    """Gradient of ``np.dot(x, y)`` with respect to ``x``, for operands of every rank.

    ``np.dot`` is ``x @ y`` (or a product, with a 0-d operand) except where ``y`` has more than two
    axes and ``x`` at least two: there it sums the last axis of ``x`` against the second-to-last of
    ``y`` over every pair of their leading axes (``dot(a, b)[i, j, k, m] = sum(a[i, j, :] *
    b[k, :, m])``), where matmul broadcasts them.  ``g`` has the axes of ``x`` but its last, then
    those of ``y`` but its second-to-last: summed against ``y`` over those, it has ``x``'s shape.
    """
    if type(y) is xp.ndarray and y.ndim < 3 or xp.ndim(y) < 3 or xp.ndim(x) < 2:  # (attributes first: 0.1 µs)
        return _matmul_dx(g, x, y)
    nx, ny = xp.ndim(x), xp.ndim(y)
    return xp.tensordot(g, y, axes=(list(range(nx - 1, nx + ny - 2)), [*range(ny - 2), ny - 1]))


def _dot_dy(g, x, y):
    """Gradient of ``np.dot(x, y)`` with respect to ``y``, for operands of every rank (see ``_dot_dx``):
    ``g`` summed against ``x`` over the leading axes of ``x``, the axis of ``x``'s last moved before
    ``y``'s last."""
    if type(y) is xp.ndarray and y.ndim < 3 or xp.ndim(y) < 3 or xp.ndim(x) < 2:
        return _matmul_dy(g, x, y)
    lead = list(range(xp.ndim(x) - 1))
    return xp.moveaxis(xp.tensordot(x, g, axes=(lead, lead)), 0, -2)


def _dot_xtx_dx(g, x):
    """Gradient of ``np.dot(x.T, x)`` with respect to ``x``: ``_xtx_dx`` (one product for a matrix)
    where ``np.dot`` is ``x.T @ x``, that is where ``x`` has at most two axes; else the sum of
    ``np.dot``'s own two adjoints."""
    if type(x) is xp.ndarray and x.ndim < 3 or xp.ndim(x) < 3:
        return _xtx_dx(g, x)
    xt = xp.transpose(x)
    return _dot_dy(g, xt, x) + xp.transpose(_dot_dx(g, xt, x))


def _dot_xxt_dx(g, x):
    """Gradient of ``np.dot(x, x.T)`` with respect to ``x``: ``_xxt_dx`` where ``x`` has at most two
    axes (see ``_dot_xtx_dx``)."""
    if type(x) is xp.ndarray and x.ndim < 3 or xp.ndim(x) < 3:
        return _xxt_dx(g, x)
    xt = xp.transpose(x)
    return _dot_dx(g, x, xt) + xp.transpose(_dot_dy(g, x, xt))


def _diagonal_dx(g, x, offset=0, axis1=0, axis2=1):
    """Gradient of ``np.diagonal(x, offset, axis1, axis2)``: ``g`` written on that diagonal of zeros.

    ``g`` may have length 1 on its last axis: it is broadcast along the diagonal.
    """
    dx = xp.zeros(xp.shape(x), dtype=xp.result_type(g, x))
    view = xp.moveaxis(dx, (axis1, axis2), (-2, -1))
    i = xp.arange(min(view.shape[-2] - max(-offset, 0), view.shape[-1] - max(offset, 0)))
    view[..., i + max(-offset, 0), i + max(offset, 0)] = g
    return dx


def _trace_dx(g, x, offset=0, axis1=0, axis2=1):
    """Gradient of ``np.trace(x, offset, axis1, axis2)``: ``g`` all along that diagonal of zeros."""
    return _diagonal_dx(xp.expand_dims(g, -1), x, offset=offset, axis1=axis1, axis2=axis2)


def _inner_dx(g, x, y):
    """Gradient of ``np.inner(x, y)``, ``tensordot(x, y, axes=(-1, -1))``, with respect to ``x``."""
    return _tensordot_dx(g, x, y, axes=((-1,), (-1,)))


def _inner_dy(g, x, y):
    """Gradient of ``np.inner(x, y)`` with respect to ``y``."""
    return _tensordot_dy(g, x, y, axes=((-1,), (-1,)))


# ----------------------------------------------------------------------------- inverses, determinants, solves


def _logdet_dx(g, x):
    """``g`` times the gradient of ``log|det(x)|``, ``inv(x)^T``, for a matrix or a stack (``g`` per matrix)."""
    return xp.asarray(g)[..., None, None] * _mT(xp.linalg.inv(x))


def _cholesky_dx(g, L, upper=False):
    """Gradient of ``L = np.linalg.cholesky(A)`` with respect to ``A``, for a symmetric ``A``.

    Murray's formula: ``S = L^-T Phi(L^T g) L^-1`` with ``Phi`` the lower triangle with
    its diagonal halved, returned symmetrized, ``(S + S^T) / 2``: the gradient of ``A ->
    cholesky(A)`` on symmetric matrices (as in JAX, PyTorch and autograd), exact for any
    symmetric perturbation of ``A``.  ``upper=True``: ``L`` is ``U = L^T`` and ``g`` its gradient.
    """
    if upper:
        L, g = _mT(L), _mT(g)
    p = _mT(L) @ g
    p = xp.tril(p) - 0.5 * xp.triu(xp.tril(p))
    left = xp.linalg.solve(_mT(L), p)  # L^-T Phi
    s = _mT(xp.linalg.solve(_mT(L), _mT(left)))  # (L^-T (L^-T Phi)^T)^T = L^-T Phi L^-1
    return 0.5 * (s + _mT(s))


def _solve_adjoint(g, a, b):
    """``solve(a^T, g)``, shaped like ``x = solve(a, b)`` (a 1-D ``b`` is one vector, even for a stack ``a``)."""
    if xp.ndim(b) == 1:
        return xp.linalg.solve(_mT(a), xp.asarray(g)[..., None])[..., 0]
    return xp.linalg.solve(_mT(a), g)


def _solve_da(gb, x, a, b):
    """Gradient of ``x = solve(a, b)`` with respect to ``a``: ``-gb x^T``, where ``gb = solve(a^T, g)``."""
    if xp.ndim(b) == 1:
        da = -gb[..., :, None] * x[..., None, :]
    else:
        da = -(gb @ _mT(x))
    return _unbroadcast(da, a)
