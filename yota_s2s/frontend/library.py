"""Library functions written as the NumPy they stand for: a call in, its definition to inline out.

A part of lowering with no state of its own.  ``np.average``, ``np.cov``, ``np.corrcoef``,
``np.linalg.multi_dot``, ``matrix_power`` and ``lstsq``, ``np.polyfit``, ``scipy.stats.norm``'s
densities and distribution functions, and ``sorted`` of differentiated values have no rule of
their own: each is a short composition of primitives that have one, so a call of one is inlined
as a helper of the user's file would be, from the definitions in ``SOURCE`` (Python the front
end parses, never imports).  Their derivatives are those of the primitives they are made of, and
the generated module writes the composition (``np.sum(a * w) / np.sum(w)`` for ``np.average(a,
weights=w)``), NumPy alone (``scipy.stats.norm.cdf`` is written with the runtime's ``_erfc``).

A definition is copied for each call and every node of the copy is placed at the call
(``definition``): a diagnostic, an equation's provenance and the generated ``# grad of:``
comment name the user's line, never this file's.  Its names resolve in ``NAMES`` (``np`` is
NumPy, ``special`` is ``scipy.special``), not in the user's imports.  A rule wins: a name a
shipped or ``--rules`` rule covers never reaches here.

    >>> fn = definition("numpy.linalg.multi_dot", ast.parse("f(x)").body[0].value)
    >>> fn.name, fn.lineno
    ('multi_dot', 1)
"""

from __future__ import annotations

import ast
import copy
import functools

from .values import _NOT_CONSTANT, _constant_value, _Function, _Module

#: The definitions (NumPy's own algorithms where they are compositions; the values agree with
#: NumPy's to rounding, checked in tests/test_library.py).
SOURCE = """
def average(a, axis=None, weights=None, *, keepdims=False):
    if weights is None:
        return np.mean(a, axis=axis, keepdims=keepdims)
    if axis is None:
        return np.sum(a * weights) / np.sum(weights)
    if np.ndim(weights) == np.ndim(a):
        return np.sum(a * weights, axis=axis, keepdims=keepdims) / np.sum(weights, axis=axis, keepdims=keepdims)
    total = np.sum(np.moveaxis(a, axis, -1) * weights, axis=-1) / np.sum(weights)
    if keepdims:
        return np.expand_dims(total, axis)
    return total


def cov(m, y=None, rowvar=True, bias=False, ddof=None):
    X = np.atleast_2d(m)
    if rowvar:
        pass
    elif np.shape(X)[0] != 1:
        X = X.T
    if y is not None:
        Y = np.atleast_2d(y)
        if rowvar:
            pass
        elif np.shape(Y)[0] != 1:
            Y = Y.T
        X = np.concatenate([X, Y], axis=0)
    if ddof is None:
        ddof = 0 if bias else 1
    centered = X - np.mean(X, axis=1, keepdims=True)
    return np.squeeze(centered @ centered.T / (np.shape(X)[1] - ddof))


def corrcoef(x, y=None, rowvar=True):
    c = cov(x, y, rowvar)
    stddev = np.sqrt(np.diag(c))
    return np.clip(c / stddev[:, None] / stddev[None, :], -1.0, 1.0)


def multi_dot(arrays):
    result = arrays[0]
    for a in arrays[1:]:
        result = result @ a
    return result


def matrix_power(a, n):
    if n == 0:
        return np.zeros_like(a) + np.eye(np.shape(a)[-1])
    if n < 0:
        a = np.linalg.inv(a)
        n = -n
    result = a
    for _ in range(n - 1):
        result = result @ a
    return result


def lstsq(a, b, rcond=None):
    x = np.linalg.pinv(a) @ b
    s = np.linalg.svdvals(a)
    m, n = np.shape(a)
    if rcond is None:
        rcond = 2.220446049250313e-16 * max(m, n)
    rank = np.sum(s > rcond * np.max(s))
    if rank == n and m > n:
        residuals = np.atleast_1d(np.sum((b - a @ x) ** 2, axis=0))
    else:
        residuals = np.zeros(0)
    return x, residuals, rank, s


def polyfit(x, y, deg, rcond=None, w=None):
    lhs = np.vander(x, deg + 1)
    rhs = y
    if w is not None:
        lhs = lhs * w[:, None]
        rhs = (rhs.T * w).T
    scale = np.sqrt(np.sum(lhs * lhs, axis=0))
    return ((np.linalg.pinv(lhs / scale) @ rhs).T / scale).T


def norm_logpdf(x, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    return -0.5 * z * z - np.log(scale) - 0.9189385332046727


def norm_pdf(x, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    return np.exp(-0.5 * z * z) / (2.5066282746310002 * scale)


def norm_cdf(x, loc=0.0, scale=1.0):
    return 0.5 * special.erfc((loc - x) / (scale * 1.4142135623730951))


def norm_sf(x, loc=0.0, scale=1.0):
    return 0.5 * special.erfc((x - loc) / (scale * 1.4142135623730951))


def norm_logcdf(x, loc=0.0, scale=1.0):
    return np.log(norm_cdf(x, loc, scale))


def norm_logsf(x, loc=0.0, scale=1.0):
    return np.log(norm_sf(x, loc, scale))


def multigammaln(a, d):
    total = 0.25 * d * (d - 1) * 1.1447298858494002
    for j in range(d):
        total = total + special.gammaln(a - 0.5 * j)
    return total


def betaln(a, b):
    return special.gammaln(a) + special.gammaln(b) - special.gammaln(a + b)


def beta(a, b):
    return special.gamma(a) * special.gamma(b) / special.gamma(a + b)


def dirichlet_logpdf(x, alpha):
    lnB = np.sum(special.gammaln(alpha)) - special.gammaln(np.sum(alpha))
    return np.sum(special.xlogy(alpha - 1.0, x.T).T, axis=0) - lnB


def dirichlet_pdf(x, alpha):
    return np.exp(dirichlet_logpdf(x, alpha))


def real_if_close(a, tol=100):
    return np.real(a)


def append(arr, values, axis=None):
    if axis is None:
        return np.concatenate([np.ravel(arr), np.ravel(values)])
    return np.concatenate([arr, values], axis=axis)


def rot90(m, k=1, axes=(0, 1)):
    k = k % 4
    if k == 0:
        return m[:]
    if k == 2:
        return np.flip(np.flip(m, axes[0]), axes[1])
    if k == 1:
        return np.swapaxes(np.flip(m, axes[1]), axes[0], axes[1])
    return np.flip(np.swapaxes(m, axes[0], axes[1]), axes[1])


def sorted_values(iterable, *, reverse=False):
    s = np.sort(np.asarray(iterable))
    if reverse:
        s = s[::-1]
    return list(s)


def simpson(y, x=None, *, dx=1.0, axis=-1):
    y = np.moveaxis(y, axis, -1)
    if np.shape(y)[-1] % 2 == 0:
        raise ValueError("scipy.integrate.simpson: the generated code takes an odd number of samples")
    if x is None:
        return dx / 3.0 * np.sum(y[..., 0:-1:2] + 4.0 * y[..., 1::2] + y[..., 2::2], axis=-1)
    h = np.diff(x)
    h0 = h[0::2]
    h1 = h[1::2]
    hsum = h0 + h1
    ratio = h0 / h1
    terms = y[..., 0:-1:2] * (2.0 - 1.0 / ratio) + y[..., 1::2] * (hsum * hsum / (h0 * h1)) + y[..., 2::2] * (2.0 - ratio)
    return np.sum(hsum / 6.0 * terms, axis=-1)


def cumulative_trapezoid(y, x=None, dx=1.0, axis=-1, initial=None):
    y = np.moveaxis(y, axis, -1)
    d = dx if x is None else np.diff(x)
    out = np.cumsum(d * (y[..., 1:] + y[..., :-1]) / 2.0, axis=-1)
    if initial is not None:
        out = np.concatenate([np.zeros_like(out[..., :1]) + initial, out], axis=-1)
    return np.moveaxis(out, -1, axis)


def solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False, check_finite=True):
    t = np.tril(a) if lower else np.triu(a)
    if unit_diagonal:
        t = t - np.diag(np.diag(t)) + np.eye(np.shape(a)[0])
    if trans == 1 or trans == 2 or trans == "T" or trans == "C":
        t = t.T
    return np.linalg.solve(t, b)


def cholesky_upper(a, lower=False, overwrite_a=False, check_finite=True):
    L = np.linalg.cholesky(a)
    if lower:
        return L
    return L.T


def cho_factor(a, lower=False, overwrite_a=False, check_finite=True):
    return cholesky_upper(a, lower), lower


def cho_solve(c_and_lower, b, overwrite_b=False, check_finite=True):
    c, lower = c_and_lower
    L = np.tril(c) if lower else np.triu(c).T
    return np.linalg.solve(L.T, np.linalg.solve(L, b))


def multiply_outer(a, b):
    return np.reshape(a, np.shape(a) + (1,) * np.ndim(b)) * b


def add_outer(a, b):
    return np.reshape(a, np.shape(a) + (1,) * np.ndim(b)) + b


def subtract_outer(a, b):
    return np.reshape(a, np.shape(a) + (1,) * np.ndim(b)) - b


def divide_outer(a, b):
    return np.reshape(a, np.shape(a) + (1,) * np.ndim(b)) / b


def max_by_key(*args, key):
    items = args[0] if len(args) == 1 else args
    keys = [key(v) for v in items]
    return np.asarray(items)[np.argmax(np.asarray(keys))]


def min_by_key(*args, key):
    items = args[0] if len(args) == 1 else args
    keys = [key(v) for v in items]
    return np.asarray(items)[np.argmin(np.asarray(keys))]
"""

#: The library name each definition stands for.
DEFINES = {
    "numpy.average": "average",
    "numpy.cov": "cov",
    "numpy.corrcoef": "corrcoef",
    "numpy.linalg.multi_dot": "multi_dot",
    "numpy.linalg.matrix_power": "matrix_power",
    "numpy.linalg.lstsq": "lstsq",
    "numpy.polyfit": "polyfit",
    "scipy.stats.norm.logpdf": "norm_logpdf",
    "scipy.stats.norm.pdf": "norm_pdf",
    "scipy.stats.norm.cdf": "norm_cdf",
    "scipy.stats.norm.sf": "norm_sf",
    "scipy.stats.norm.logcdf": "norm_logcdf",
    "scipy.stats.norm.logsf": "norm_logsf",
    "builtins.sorted": "sorted_values",
    "scipy.integrate.simpson": "simpson",
    "scipy.integrate.cumulative_trapezoid": "cumulative_trapezoid",
    "scipy.linalg.solve_triangular": "solve_triangular",
    "scipy.linalg.cholesky": "cholesky_upper",
    "scipy.linalg.cho_factor": "cho_factor",
    "scipy.linalg.cho_solve": "cho_solve",
    "numpy.multiply.outer": "multiply_outer",
    "numpy.add.outer": "add_outer",
    "numpy.subtract.outer": "subtract_outer",
    "numpy.divide.outer": "divide_outer",
    "numpy.true_divide.outer": "divide_outer",
    "builtins.max#key": "max_by_key",
    "builtins.min#key": "min_by_key",
    "scipy.special.multigammaln": "multigammaln",
    "scipy.special.betaln": "betaln",
    "scipy.special.beta": "beta",
    "scipy.stats.dirichlet.logpdf": "dirichlet_logpdf",
    "scipy.stats.dirichlet.pdf": "dirichlet_pdf",
    "numpy.real_if_close": "real_if_close",
    "numpy.append": "append",
    "numpy.rot90": "rot90",
}

#: What the definitions' free names are (module names, read by ``frontend.names``).
NAMES = {"np": "numpy", "special": "scipy.special"}


@functools.cache
def _definitions() -> dict[str, ast.FunctionDef]:
    return {node.name: node for node in ast.parse(SOURCE).body if isinstance(node, ast.FunctionDef)}


def definition(name: str, call: ast.AST) -> ast.FunctionDef | None:
    """The definition that library function ``name`` stands for, every node placed at ``call``
    (None: ``name`` has none)."""
    own = DEFINES.get(name)
    if own is None:
        return None
    return _placed(_definitions()[own], call)


def serves(name: str, args: list, kwargs: dict) -> bool:
    """A call of ``name`` with these (lowered) arguments is read as its definition: ``name`` has
    one, and it is not ``sorted`` of constants (static code, written as the source writes it;
    ``scipy.stats.norm.cdf(0.3)`` is NumPy's all the same)."""
    static = name.startswith("builtins.") and all(
        _constant_value(v) is not _NOT_CONSTANT for v in (*args, *kwargs.values())
    )
    return name in DEFINES and not static


def serving(lo, name: str, args: list, kwargs: dict) -> str | None:
    """The name of the definition a call of ``name`` is read as (``DEFINES``' key), or None:
    ``max``/``min`` with ``key=`` (the item at the keys' argmax); a name with no rule that
    ``serves``, but ``sorted`` of a value of static code (a set maybe: Python's sorted, static too)."""
    if name in ("builtins.max", "builtins.min") and set(kwargs) == {"key"}:  # (of constants: static code)
        return None if all(_constant_value(v) is not _NOT_CONSTANT for v in args) else f"{name}#key"
    static = any(lo.prims.get(getattr(a, "id", None)) == "static" for a in args if not isinstance(a, tuple | dict))
    if not serves(name, args, kwargs) or (static and name == "builtins.sorted"):
        return None
    return name


def call(calls, name: str, args: list, kwargs: dict, node: ast.AST) -> object:
    """The value of the call ``node`` of ``name``: its definition inlined by ``calls`` (the
    lowerer's ``CallLowering``) with the arguments bound, its names in ``NAMES``."""
    scope: dict[str, object] = {alias: _Module(full) for alias, full in NAMES.items()}
    for own, fn in helpers(node).items():
        scope[own] = _Function(own, fn, closure=scope, module=calls.lo.module)
    return calls.call_local(definition(name, node), args, kwargs, node, scope)


def helpers(call: ast.AST) -> dict[str, ast.FunctionDef]:
    """Every definition by its own name (``norm_logcdf`` calls ``norm_cdf``), placed at ``call``."""
    return {name: _placed(fn, call) for name, fn in _definitions().items()}


def _placed(fn: ast.FunctionDef, call: ast.AST) -> ast.FunctionDef:
    fn = copy.deepcopy(fn)
    for node in ast.walk(fn):
        if "lineno" in node._attributes:
            ast.copy_location(node, call)
    return fn
