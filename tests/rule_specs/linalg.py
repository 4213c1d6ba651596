"""Linear algebra and reductions: call templates and shapes.

Matrices that must be invertible are written ``x + 4.0 * np.eye(n)`` with ``x`` sampled in
``(-1, 1)`` (``DOMAIN``): strictly diagonally dominant, so invertible and well conditioned
(condition number below 6), and the gradient with respect to ``x`` is the gradient with respect
to the matrix.  ``cholesky`` gets ``x @ x.T + 3.0 * np.eye(n)``: symmetric positive-definite, and
a perturbation of ``x`` is a symmetric perturbation of the matrix (the convention of its rule).
``tests/test_rules_linalg.py`` checks what templates cannot say (zeros in ``prod``, +-800, every
``ord``, three ``einsum`` operands, symmetric finite differences for ``cholesky``).
"""

_UNARY = [[()], [(3,)], [(2, 3)]]
_OVER_AXES = [
    ("{f}(x, axis=0)", [(2, 3)]),
    ("{f}(x, axis=1)", [(2, 3)]),
    ("{f}(x, axis=-1, keepdims=True)", [(2, 3)]),
    ("{f}(x, axis=(0, 1))", [(2, 3)]),
    ("{f}(x, 1)", [(2, 3)]),
]
_SOFTMAX = [
    *(("{f}(x)", s) for s in _UNARY),
    ("{f}(x, axis=0)", [(2, 3)]),
    ("{f}(x, 1)", [(2, 3)]),
    ("{f}(x, axis=(0, 1))", [(2, 3)]),
]
_INVERTIBLE = [
    ("{f}(x + 4.0 * np.eye(1))", [(1, 1)]),
    ("{f}(x + 4.0 * np.eye(3))", [(3, 3)]),
    ("{f}(x + 4.0 * np.eye(3))", [(2, 3, 3)]),
]

#: Symmetric matrices with well-separated eigenvalues: ``x`` in ``(-0.3, 0.3)`` (``_SMALL``), so
#: ``x + x^T`` has norm below 1.8 and the diagonal 0, 4, 8 keeps the eigenvalues at least 0.4 apart.
#: A perturbation of ``x`` is a symmetric one of the matrix.  ``_LOWER``: ``x`` itself, not symmetric:
#: eigh reads its lower triangle, and the check is entry by entry.
_SYMMETRIC = [
    ("(x + x.T + 4.0 * np.eye(1))", [(1, 1)]),
    ("(x + x.T + np.diag([0.0, 4.0, 8.0]))", [(3, 3)]),
    ("(x + np.swapaxes(x, -1, -2) + np.diag([0.0, 4.0, 8.0]))", [(2, 3, 3)]),
]
_LOWER = [("(x + np.diag([0.0, 4.0, 8.0]))", [(3, 3)]), ("(x + np.diag([0.0, 4.0, 8.0]))", [(2, 3, 3)])]


def _element(k: int, cases: list, tail: str = "", suffix: str = "") -> list:
    """Element ``k`` of a function returning a tuple, ``{f}`` keeping the ``#k`` of its source name (as
    slogdet's below): ``np.linalg.eigh#1\n(matrix, tail)[1] ** 2`` reads ``np.linalg.eigh(...)[1] ** 2``."""
    return [("{f}\n" + m[:-1] + tail + ")" + f"[{k}]" + suffix, s) for m, s in cases]


#: Matrices with well-separated singular values (``x`` in ``(-0.3, 0.3)``): about 4 and 8.
_SEPARATED = [
    ("(x + 4.0 * np.eye(1))", [(1, 1)]),
    ("(x + np.diag([4.0, 8.0, 12.0]))", [(3, 3)]),
    ("(x + np.array([[4.0, 0.0], [0.0, 8.0], [0.0, 0.0], [0.0, 0.0]]))", [(4, 2)]),
    ("(x + np.array([[4.0, 0.0, 0.0, 0.0], [0.0, 8.0, 0.0, 0.0]]))", [(2, 4)]),
    ("(x + np.array([[4.0, 0.0], [0.0, 8.0], [0.0, 0.0]]))", [(2, 3, 2)]),
]
_FULL_RANK = [*_SEPARATED, ("(x + np.array([[3.0, 0.0], [0.0, 3.0], [0.0, 0.0]]))", [(3, 2)])]

SPECS: dict = {
    # reductions (default sampling, |x| in [0.5, 2], is away from zero: prod's zeros are in
    # test_rules_linalg.py)
    "prod": [*(("{f}(x)", s) for s in _UNARY), *_OVER_AXES],
    "var": [
        *(("{f}(x)", s) for s in _UNARY),
        *_OVER_AXES,
        ("{f}(x, ddof=1)", [(3,)]),
        ("{f}(x, axis=1, ddof=1, keepdims=True)", [(2, 3)]),
    ],
    # std is not differentiable where it is 0: never at a 0-d x
    "std": [
        ("{f}(x)", [(3,)]),
        ("{f}(x)", [(2, 3)]),
        *_OVER_AXES,
        ("{f}(x, ddof=1)", [(3,)]),
        ("{f}(x, axis=0, ddof=1, keepdims=True)", [(2, 3)]),
    ],
    "cumsum": [
        *(("{f}(x)", s) for s in _UNARY),
        ("{f}(x, axis=0)", [(2, 3)]),
        ("{f}(x, 1)", [(2, 3)]),
        ("{f}(x, axis=-1)", [(2, 3)]),
    ],
    "logsumexp": [*(("{f}(x)", s) for s in _UNARY), *_OVER_AXES],
    "softmax": _SOFTMAX,
    "log_softmax": _SOFTMAX,
    "norm": [
        *(("{f}(x)", s) for s in _UNARY),
        ("{f}(x, 1)", [(3,)]),
        ("{f}(x, np.inf)", [(3,)]),
        ("{f}(x, 3)", [(3,)]),
        ("{f}(x, axis=1)", [(2, 3)]),
        ("{f}(x, 1, axis=0, keepdims=True)", [(2, 3)]),
        ("{f}(x, 'fro')", [(2, 3)]),
        ("{f}(x, 'nuc')", [(2, 3)]),
        ("{f}(x, 2)", [(2, 3)]),
        ("{f}(x, -1)", [(2, 3)]),
        ("{f}(x, np.inf, axis=(1, 2))", [(2, 2, 3)]),
    ],
    # products and contractions
    "vdot": [
        ("{f}(x, y)", [(3,), (3,)]),
        ("{f}(x, y)", [(2, 3), (3, 2)]),
        ("{f}(x, y)", [(), ()]),
    ],
    "inner": [
        ("{f}(x, y)", [(3,), (3,)]),
        ("{f}(x, y)", [(2, 3), (4, 3)]),
        ("{f}(x, y)", [(2, 3), (3,)]),
        ("{f}(x, y)", [(), (2, 3)]),
    ],
    "outer": [
        ("{f}(x, y)", [(3,), (4,)]),
        ("{f}(x, y)", [(2, 3), (2,)]),
        ("{f}(x, y)", [(), (3,)]),
    ],
    "tensordot": [
        ("{f}(x, y)", [(2, 3), (2, 3)]),
        ("{f}(x, y, 1)", [(2, 3), (3, 4)]),
        ("{f}(x, y, axes=0)", [(2,), (3,)]),
        ("{f}(x, y, axes=(0, 1))", [(3, 2), (4, 3)]),
    ],
    # one or two operands: the generic check names them x and y (three: test_rules_linalg.py)
    "einsum": [
        ("{f}('ij,jk->ik', x, y)", [(2, 3), (3, 4)]),
        ("{f}('ii->', x)", [(3, 3)]),
        ("{f}('i,j->ij', x, y)", [(2,), (3,)]),
        ("{f}('bij,bjk->bik', x, y)", [(2, 2, 3), (2, 3, 4)]),
        ("{f}('ii->i', x)", [(3, 3)]),
        ("{f}('ij,j', x, y)", [(2, 3), (3,)]),
    ],
    "trace": [
        ("{f}(x)", [(3, 3)]),
        ("{f}(x, 1)", [(3, 4)]),
        ("{f}(x, offset=-1, axis1=1, axis2=2)", [(2, 3, 3)]),
    ],
    "diagonal": [
        ("{f}(x)", [(3, 3)]),
        ("{f}(x, 1)", [(3, 4)]),
        ("{f}(x, offset=-1, axis1=2, axis2=0)", [(3, 2, 4)]),
    ],
    # inverses, determinants, solves
    "inv": _INVERTIBLE,
    "det": _INVERTIBLE,
    # callee() keeps the '#1' of the source name numpy.linalg.slogdet#1: the newline ends that
    # comment, so the case reads np.linalg.slogdet(...)[1]
    "slogdet_logabsdet": [("{f}\n(" + t[len("{f}(") :] + "[1]", s) for t, s in _INVERTIBLE],
    "solve": [
        ("{f}(x + 4.0 * np.eye(3), y)", [(3, 3), (3,)]),
        ("{f}(x + 4.0 * np.eye(3), y)", [(3, 3), (3, 2)]),
        ("{f}(x + 4.0 * np.eye(3), y)", [(2, 3, 3), (2, 3, 2)]),
    ],
    # decompositions: vectors squared (invariant to the sign of each eigenvector or pair of
    # singular vectors); tests/test_rules_linalg.py has the products v @ diag @ v.T and more
    "eigh_values": _element(0, _SYMMETRIC) + _element(0, _LOWER) + _element(0, _LOWER[:1], ", UPLO='U'"),
    "eigh_vectors": _element(1, _SYMMETRIC, "", " ** 2") + _element(1, _LOWER, ", 'U'", " ** 2"),
    "eigvalsh": [("{f}" + m, s) for m, s in _SYMMETRIC + _LOWER]
    + [("{f}(x + np.diag([0.0, 4.0, 8.0]), 'U')", [(3, 3)])],
    "eig_values": _element(0, _SYMMETRIC),
    "eig_vectors": _element(1, _SYMMETRIC, "", " ** 2"),
    "eigvals": [("{f}" + m, s) for m, s in _SYMMETRIC],
    "svd_u": _element(0, _SEPARATED, ", full_matrices=False", " ** 2") + _element(0, _SEPARATED[1:2], "", " ** 2"),
    "svd_s": _element(1, _SEPARATED) + _element(1, _SEPARATED[2:4], ", full_matrices=False"),
    "svd_vh": _element(2, _SEPARATED, ", full_matrices=False", " ** 2") + _element(2, _SEPARATED[1:2], "", " ** 2"),
    "svdvals": [("{f}" + m, s) for m, s in _SEPARATED],
    "pinv": [("{f}" + m, s) for m, s in _FULL_RANK],
    # np.linalg.qr: m >= n of full column rank (the wide ones of _SEPARATED are refused at run time)
    "qr_q": _element(0, [_SEPARATED[k] for k in (0, 1, 2, 4)]),
    "qr_r": _element(1, [_SEPARATED[k] for k in (0, 1, 2, 4)]),
    "cholesky": [
        ("{f}(x @ x.T + 1.0 * np.eye(1))", [(1, 1)]),
        ("{f}(x @ x.T + 3.0 * np.eye(3))", [(3, 3)]),
        ("{f}(x @ np.transpose(x, (0, 2, 1)) + 3.0 * np.eye(3))", [(2, 3, 3)]),
    ],
}

METHODS: dict = {
    "ndarray.prod": [("x.prod()", [(3,)]), ("x.prod(axis=0)", [(2, 3)]), ("x.prod(1, keepdims=True)", [(2, 3)])],
    "ndarray.var": [("x.var()", [(2, 3)]), ("x.var(axis=1)", [(2, 3)]), ("x.var(0, ddof=1, keepdims=True)", [(2, 3)])],
    "ndarray.std": [("x.std()", [(2, 3)]), ("x.std(axis=1)", [(2, 3)]), ("x.std(0, ddof=1, keepdims=True)", [(2, 3)])],
    "ndarray.cumsum": [("x.cumsum()", [(2, 3)]), ("x.cumsum(axis=0)", [(2, 3)]), ("x.cumsum(1)", [(2, 3)])],
    "ndarray.trace": [("x.trace()", [(3, 3)]), ("x.trace(1)", [(3, 4)]), ("x.trace(0, 1, 2)", [(2, 3, 3)])],
    "ndarray.diagonal": [
        ("x.diagonal()", [(3, 3)]),
        ("x.diagonal(offset=-1)", [(4, 3)]),
        ("x.diagonal(0, 2, 0)", [(3, 2, 4)]),
    ],
}

DOMAIN: dict = {
    "inv": (-1.0, 1.0),
    "det": (-1.0, 1.0),
    "slogdet_logabsdet": (-1.0, 1.0),
    "solve": {"a": (-1.0, 1.0)},
    "cholesky": (-1.0, 1.0),
    **dict.fromkeys(
        [
            "eigh_values",
            "eigh_vectors",
            "eigvalsh",
            "eig_values",
            "eig_vectors",
            "eigvals",
            "svd_u",
            "svd_s",
            "svd_vh",
            "svdvals",
            "pinv",
            "qr_q",
            "qr_r",
        ],
        (-0.3, 0.3),
    ),
}
