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
}
