"""Runtime helpers of the decompositions' rules (``rules/linalg.py``: ``eigh``, ``eig``, ``svd``,
``pinv``, ``qr``): the gradients of eigenvalues and eigenvectors, singular values and vectors, a
pseudo-inverse and a QR factorization, each with the run-time check of where it holds.

As in ``runtime``: each ``_<prim>`` writes the helper primitive ``<prim>`` and is copied as
source into the generated modules that use it (with ``xp`` renamed to the target's array
module), together with the ``_`` helpers it calls (``_mT``, from ``linalg``).
"""

import numpy as xp

from .linalg import _mT  # for direct calls; modules copy it


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


def _qr_dx(gq, gr, q, r):
    """Gradient of ``q, r = np.linalg.qr(a)`` (mode ``'reduced'``) from those of ``q`` and ``r``
    (either may be 0): ``(gq + q copyltu(M)) r^-T`` with ``M = r gr^T - gq^T q``, ``copyltu(M)``
    the lower triangle of ``M`` reflected onto the upper.  For ``m >= n`` and ``a`` of full column
    rank (``ValueError`` otherwise: ``q`` is not a function of ``a`` elsewhere)."""
    m, n = q.shape[-2], r.shape[-1]
    d = xp.abs(xp.diagonal(r, axis1=-2, axis2=-1))
    if m < n or (d.size and xp.any(d <= max(m, n) * xp.finfo(r.dtype).eps * xp.max(d, axis=-1, keepdims=True))):
        raise ValueError("the gradient of np.linalg.qr needs a matrix with m >= n of full column rank")
    gq = xp.broadcast_to(gq, q.shape)
    gr = xp.broadcast_to(gr, r.shape)
    M = r @ _mT(gr) - _mT(gq) @ q
    lower = xp.tril(M)
    b = gq + q @ (lower + _mT(xp.tril(M, -1)))
    return _mT(xp.linalg.solve(r, _mT(b)))
