"""Runtime helpers of the reduction and linear-algebra rules (``rules/reductions.py``, ``rules/linalg.py``).

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


# ----------------------------------------------------------------------------- decompositions


def _inverse_gaps(w, tol, g, what):
    """``f[..., i, j] = 1 / (w_j - w_i)``, and 0 where ``w_i`` and ``w_j`` are equal within rounding
    (``|w_j - w_i| <= tol``, one tolerance per matrix of a stack; the diagonal too).

    The vectors of such a pair are any basis of the space they share: no gradient reaches them.
    ``g`` is the gradient of the vectors (one per column): ``ValueError`` (``what`` says why)
    unless its columns for the pair are 0, where the pair's term is 0.  (Not merely where the
    pair's coupling term of ``g`` is 0: for ``v diag(h(w)) v^T`` with ``h`` equal on the pair it
    is, yet the gradient has a term ``h'(w)`` that this formula cannot give.)
    """
    gap = w[..., None, :] - w[..., :, None]
    near = xp.abs(gap) <= xp.asarray(tol)[..., None, None]
    used = xp.any(g != 0, axis=-2)
    if xp.any(near & (used[..., None, :] | used[..., :, None]) & ~xp.eye(w.shape[-1], dtype=bool)):
        raise ValueError(what)
    return xp.where(near, 0.0, 1.0 / xp.where(near, 1.0, gap))


def _fold_triangle(m, UPLO="L"):
    """The gradient with respect to ``a`` of a function of the symmetric matrix that ``eigh(a,
    UPLO)`` reads from one triangle of ``a``, given ``m``, its gradient as a function of any matrix:
    ``m + m^T`` in the triangle read, ``m``'s diagonal on the diagonal, 0 in the other triangle."""
    s = m + _mT(m)
    half = xp.tril(s) if UPLO in ("L", "l") else xp.triu(s)
    return half - 0.5 * xp.triu(xp.tril(s))


def _eigh_values_dx(g, v, UPLO="L"):
    """Gradient of the eigenvalues ``w`` of ``np.linalg.eigh(a, UPLO)`` (and ``eigvalsh``) given
    the eigenvectors ``v``: ``v diag(g) v^T`` folded onto the triangle read.  No distinct
    eigenvalues needed: where some are equal and ``g`` is equal on them, ``v diag(g) v^T`` does
    not depend on the basis of their eigenspace; where ``g`` differs on them (a kink of the
    ascending eigenvalues), it is the gradient of the order ``eigh`` returned."""
    g = xp.broadcast_to(g, v.shape[:-1])
    return _fold_triangle((v * g[..., None, :]) @ _mT(v), UPLO)


def _eigh_vectors_dx(g, w, v, UPLO="L"):
    """Gradient of the eigenvectors ``v`` of ``w, v = np.linalg.eigh(a, UPLO)``.

    ``v (F o (v^T g)) v^T`` with ``F[i, j] = 1 / (w_j - w_i)`` off the diagonal, folded onto the
    triangle read (only the antisymmetric part of ``v^T g`` counts, on a symmetric matrix).  Two
    eigenvalues equal within rounding leave their eigenvectors undefined: ``ValueError`` unless
    the gradient does not reach them (their columns of ``g`` are 0: ``v[:, k]`` of a single
    eigenvalue used only, say).
    """
    g = xp.broadcast_to(g, v.shape)
    vg = _mT(v) @ g
    f = _inverse_gaps(
        w,
        _rounding(w, w.shape[-1]),
        g,
        "the gradient of the eigenvectors of np.linalg.eigh needs distinct eigenvalues: two are "
        "equal within rounding, so their eigenvectors are any basis of a shared eigenspace",
    )
    return _fold_triangle(v @ (f * vg) @ _mT(v), UPLO)


def _eig_real(x, func, k):
    """Element ``k`` of ``np.linalg.eig(x)`` (``func`` "eig") or ``eigvals(x)``, for a real symmetric
    ``x``: ``ValueError`` unless ``x`` is its transpose within rounding and the eigenvalues real (the
    rules of ``eig`` are those of real symmetric matrices)."""
    x = xp.asarray(x)
    eps = xp.finfo(xp.result_type(x, 1.0)).eps
    if x.size and xp.max(xp.abs(x - _mT(x))) > 16 * x.shape[-1] * eps * xp.max(xp.abs(x)):
        raise ValueError(
            "np.linalg." + func + " is differentiated for real symmetric matrices only (equal to their "
            "transpose within rounding): this one is not symmetric, its eigenvalues may be complex"
        )
    r = xp.linalg.eig(x) if func == "eig" else (xp.linalg.eigvals(x),)
    if xp.iscomplexobj(r[0]) and xp.any(r[0].imag != 0):
        raise ValueError("np.linalg." + func + " gave complex eigenvalues: complex values are not supported")
    return r[k].real if xp.iscomplexobj(r[k]) else r[k]  # (an array module whose eig is always complex)


def _eig_values(x):
    """``np.linalg.eig(x)[0]`` of a real symmetric ``x`` (checked, ``ValueError`` otherwise)."""
    return _eig_real(x, "eig", 0)


def _eig_vectors(x):
    """``np.linalg.eig(x)[1]`` of a real symmetric ``x`` (checked, ``ValueError`` otherwise)."""
    return _eig_real(x, "eig", 1)


def _eigvals(x):
    """``np.linalg.eigvals(x)`` of a real symmetric ``x`` (checked, ``ValueError`` otherwise)."""
    return _eig_real(x, "eigvals", 0)


def _eig_values_dx(g, x, w):
    """Gradient of the eigenvalues ``w`` of ``np.linalg.eig(x)`` (and ``eigvals``), ``x`` real
    symmetric (``_eig_values`` checked it): ``v diag(g) v^T`` with ``v`` the orthonormal eigenvectors
    of ``eigh(x)``, ``g`` taken in the order of ``w`` sorted (``eig``'s order is LAPACK's).  Exact
    entry by entry (``eig`` reads all of ``x``).  As for ``eigh``, no distinct eigenvalues needed."""
    _, v = xp.linalg.eigh(x)
    g = xp.take_along_axis(xp.broadcast_to(g, w.shape), xp.argsort(w, axis=-1), axis=-1)
    return (v * g[..., None, :]) @ _mT(v)


def _eig_vectors_dx(g, x, w, v):
    """Gradient of the eigenvectors ``v`` of ``w, v = np.linalg.eig(x)``, ``x`` real symmetric
    (checked by ``_eig_vectors``), entry by entry (``eig`` reads all of ``x``): ``v^-T (F o (v^T g
    - v^T v diag(v^T g))) v^T`` with ``F[i, j] = 1 / (w_j - w_i)``, the terms of ``diag(v^T g)``
    those of the unit norm of each column.  (``v`` is orthogonal where the eigenvalues are
    distinct, not between two that repeat: ``eig`` returns any basis of their eigenspace.)
    ``ValueError`` where the vectors of two eigenvalues equal within rounding get a gradient (as
    ``_eigh_vectors_dx``)."""
    g = xp.broadcast_to(g, v.shape)
    vg = _mT(v) @ g
    f = _inverse_gaps(
        w,
        _rounding(w, w.shape[-1]),
        g,
        "the gradient of the eigenvectors of np.linalg.eig needs distinct eigenvalues: two are "
        "equal within rounding, so their eigenvectors are any basis of a shared eigenspace",
    )
    vv = _mT(v) @ v
    inner = f * (vg - vv * xp.diagonal(vg, axis1=-2, axis2=-1)[..., None, :])
    return xp.linalg.solve(_mT(v), inner @ _mT(v))


def _rounding(w, n):
    """The rounding of eigenvalues or singular values ``w`` computed from matrices of size ``n``: ``n eps
    max|w|``, one per matrix of a stack (0 for empty ones)."""
    top = xp.max(xp.abs(w), axis=-1) if w.shape[-1] else xp.zeros(w.shape[:-1], w.dtype)
    return n * xp.finfo(w.dtype).eps * top


def _svd_s_dx(g, u, s, vh):
    """Gradient of the singular values ``s`` of ``u, s, vh = np.linalg.svd(a)``: ``u diag(g) vh``
    over the first ``k = len(s)`` columns of ``u`` and rows of ``vh`` (all of them unless
    ``full_matrices=True``).  No distinct singular values needed (as for ``eigh``'s eigenvalues)."""
    k = s.shape[-1]
    return (u[..., :, :k] * xp.broadcast_to(g, s.shape)[..., None, :]) @ vh[..., :k, :]


def _svdvals(x):
    """``np.linalg.svdvals(x)``, written as NumPy 1 and CuPy can: ``svd(x, compute_uv=False)``."""
    return xp.linalg.svd(x, compute_uv=False)


def _svdvals_dx(g, x):
    """Gradient of ``np.linalg.svdvals(x)`` (one SVD)."""
    u, s, vh = xp.linalg.svd(x, full_matrices=False)
    return _svd_s_dx(g, u, s, vh)


def _svd_u_dx(g, u, s, vh):
    """Gradient of the left singular vectors ``u`` of ``u, s, vh = np.linalg.svd(a)`` (see ``_svd_vectors_dx``)."""
    return _svd_vectors_dx(xp.broadcast_to(g, u.shape), u, s, vh, True)


def _svd_vh_dx(g, u, s, vh):
    """Gradient of the right singular vectors ``vh`` of ``u, s, vh = np.linalg.svd(a)`` (see ``_svd_vectors_dx``)."""
    return _svd_vectors_dx(_mT(xp.broadcast_to(g, vh.shape)), u, s, vh, False)


def _svd_vectors_dx(g, u, s, vh, left):
    """Gradient of ``u`` (``left``) or of ``vh`` (``g`` then the gradient of ``v = vh^T``) of an SVD.

    With ``F[i, j] = 1 / (s_j^2 - s_i^2)`` (Townsend's formulas): for ``u``, ``u (F o (u^T g -
    g^T u)) s vh + (I - u u^T) g s^-1 vh``; for ``v``, ``u s (F o (v^T g - g^T v)) vh + u s^-1 g^T
    (I - v v^T)``.  ``ValueError`` where the gradient reaches the vectors of two singular values
    equal within rounding, or ``1 / s`` of a zero singular value, or reaches the extra columns of
    ``full_matrices=True``, which are any basis of a complement.
    """
    k = s.shape[-1]
    m, n = u.shape[-2], vh.shape[-1]
    extra = g[..., :, k:]
    if extra.size and xp.any(extra != 0):
        raise ValueError(
            "the gradient of np.linalg.svd(..., full_matrices=True) of a non-square matrix reaches its "
            "extra singular vectors, any basis of a complement: write full_matrices=False"
        )
    g, u, v = g[..., :, :k], u[..., :, :k], _mT(vh[..., :k, :])
    tol = _rounding(s, max(m, n))
    mine = u if left else v
    a = _mT(mine) @ g
    coupled = a - _mT(a)
    f = _inverse_gaps(
        s,
        tol,
        g,
        "the gradient of the singular vectors of np.linalg.svd needs distinct singular values: two are "
        "equal within rounding, so their singular vectors are any basis of a shared subspace",
    )
    total = s[..., None, :] + s[..., :, None]
    f = f / xp.where(total == 0, 1.0, total)
    inner = f * coupled * (s[..., None, :] if left else s[..., :, None])
    dx = u @ inner @ _mT(v)
    if mine.shape[-2] > k:  # the part of g outside the span of u (of v)
        p = g - mine @ a
        small = s <= tol[..., None]
        if xp.any(small[..., None, :] & (p != 0)):
            raise ValueError(
                "the gradient of the singular vectors of np.linalg.svd of a non-square matrix needs its "
                "singular values nonzero (its rank full)"
            )
        p = p / xp.where(small, 1.0, s)[..., None, :]
        dx = dx + (p @ _mT(v) if left else u @ _mT(p))
    return dx


def _pinv_dx(g, x, p):
    """Gradient of ``p = np.linalg.pinv(x)`` (default ``rcond``) for a full-rank ``x`` (checked:
    ``ValueError`` otherwise, where ``pinv`` jumps): ``-p^T g p^T + (I - x p) g^T p p^T + p^T p
    g^T (I - p x)`` (Golub and Pereyra)."""
    s = xp.linalg.svd(x, compute_uv=False)
    m, n = x.shape[-2:]
    if s.size and xp.any(s[..., -1] <= max(m, n) * xp.finfo(s.dtype).eps * s[..., 0]):
        raise ValueError(
            "the gradient of np.linalg.pinv needs a matrix of full rank (pinv is not continuous elsewhere)"
        )
    g = xp.broadcast_to(g, p.shape)
    pt, gt = _mT(p), _mT(g)
    return (
        -(pt @ g @ pt)
        + (xp.eye(m, dtype=p.dtype) - x @ p) @ gt @ (p @ pt)
        + (pt @ p) @ gt @ (xp.eye(n, dtype=p.dtype) - p @ x)
    )
