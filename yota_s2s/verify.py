"""Check a gradient function against finite differences: ``check_grads(f, grad_f, args)``.

Input: a scalar function ``f``, its gradient function ``grad_f`` (a generated
``grad_NAME``: same parameters, returns ``(value, d_A, d_B, ...)``), and the
arguments to check at.  Output: nothing, or an ``AssertionError`` that names
the parameter and gives the analytic and numeric values.

The check is the one of JAX's and autograd's ``check_grads``, in reverse mode:
for each parameter (each attribute of an object parameter) draw a random
direction ``v`` (seeded, so a failure reproduces), and compare the directional
derivative ``<grad, v>`` with the central difference
``(f(x + eps*v) - f(x - eps*v)) / (2*eps)``.  Everything is computed in
float64; the tolerances are JAX's for float64 (``eps=1e-4``,
``rtol=atol=1e-5``).  ``yota-s2s --verify`` runs this check on a freshly
generated module.
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Callable, Mapping, Sequence

import numpy as np

#: Defaults, as JAX's ``check_grads`` uses them for float64.
EPS = 1e-4
RTOL = 1e-5
ATOL = 1e-5


def check_grads(
    f: Callable,
    grad_f: Callable,
    args: Sequence | Mapping[str, object],
    *,
    seed: int = 0,
    eps: float | None = None,
    rtol: float | None = None,
    atol: float | None = None,
    wrt: Sequence[str] | None = None,
    value: bool = True,
) -> None:
    """Check ``grad_f`` (returning ``(value, d_A, d_B, ...)``) against central differences of ``f``.

    ``args`` is a tuple of positional arguments, or a dict of arguments by name.
    ``wrt`` names the parameters the gradients belong to, in order (default: every
    parameter of ``f``, as ``yota-s2s`` without ``--wrt`` returns them).  A gradient
    may be ``None`` (then ``f`` must not change along that parameter, if it is a float array) or, for an
    object parameter, a dict of gradients by attribute (nested for nested objects).
    ``grad_f`` may also return ``(value, (d_A, d_B, ...))``, as ``yota_s2s.grad`` does.  With
    ``value=False`` it returns only the gradients ``(d_A, d_B, ...)``, as ``yota-s2s --no-value`` writes it.

    >>> import numpy as np
    >>> def f(x, y):
    ...     return np.sum(np.sin(x) * y)
    >>> def grad_f(x, y):
    ...     return f(x, y), np.cos(x) * y, np.sin(x)
    >>> args = (np.linspace(0.0, 1.0, 4), np.arange(4.0))
    >>> check_grads(f, grad_f, args)
    >>> def wrong_grad_f(x, y):
    ...     return f(x, y), np.sin(x) * y, np.sin(x)
    >>> check_grads(f, wrong_grad_f, args)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    AssertionError: check_grads: the gradient for x is wrong: along a random direction (seed 0), analytic ... != numeric ...
    """
    eps = EPS if eps is None else eps
    rtol = RTOL if rtol is None else rtol
    atol = ATOL if atol is None else atol
    call = _Call(f, args)
    expected = call.value(call.arguments)
    result = grad_f(*call.args, **call.kwargs)
    if not isinstance(result, tuple) or (value and not result):
        expected_form = "(value, grads...)" if value else "a tuple of gradients"
        raise AssertionError(f"check_grads: grad_f must return {expected_form}, got {type(result).__name__}")
    if not np.isfinite(expected):
        raise AssertionError(
            f"check_grads: f returned {expected} at these arguments; check at arguments where f is finite"
        )
    grads = result
    if value:
        got = float(np.asarray(result[0]))
        grads = result[1] if len(result) == 2 and isinstance(result[1], tuple) else result[1:]
        if not np.allclose(got, expected, rtol=rtol, atol=atol):
            raise AssertionError(f"check_grads: grad_f's value {got!r} != f(*args) {expected!r}")
    names = list(wrt) if wrt is not None else call.names
    if len(grads) != len(names):
        raise AssertionError(
            f"check_grads: grad_f returned {len(grads)} gradients for {len(names)} parameters ({', '.join(names)})"
        )
    rng = np.random.default_rng(seed)
    for name, grad in zip(names, grads):
        arguments = call.with_default(name)
        if name not in arguments:
            raise AssertionError(f"check_grads: {name!r} is not a parameter of f({', '.join(call.names)})")
        for path, analytic in _leaves(grad, arguments[name]):
            what = ".".join([name, *path])
            start = _get(arguments[name], path)
            if analytic is None and not (name in call.arguments and _is_float_array(start)):
                # a None gradient is checked on float arrays given in args only: a scalar or a default
                # with no gradient is often a tolerance or a bound, and moving it can stop a loop ending
                continue
            x = np.asarray(start, dtype=np.float64)
            if analytic is not None and np.shape(analytic) != x.shape:
                raise AssertionError(
                    f"check_grads: the gradient for {what} has shape {np.shape(analytic)}, the argument {x.shape}"
                )
            direction = rng.standard_normal(x.shape)

            def along(t: float, x=x, direction=direction, path=path, name=name, arguments=arguments) -> float:
                moved = x + t * direction
                moved = moved if x.ndim else float(moved)
                return call.value({**arguments, name: _replace(arguments[name], path, moved)})

            numeric = (along(eps) - along(-eps)) / (2 * eps)
            exact = 0.0 if analytic is None else float(np.sum(np.asarray(analytic, dtype=np.float64) * direction))
            if not abs(exact - numeric) <= atol + rtol * abs(numeric):
                kind = "is None but f changes along it" if analytic is None else "is wrong"
                raise AssertionError(
                    f"check_grads: the gradient for {what} {kind}: along a random direction (seed {seed}), "
                    f"analytic {exact!r} != numeric {numeric!r} (eps={eps}, rtol={rtol}, atol={atol})"
                )


class _Call:
    """``f`` with its arguments bound by name, so any one of them can be replaced."""

    def __init__(self, f: Callable, args: Sequence | Mapping[str, object]):
        self.f = f
        try:
            self.signature: inspect.Signature | None = inspect.signature(f)
        except (TypeError, ValueError):  # a builtin without a signature: positional only
            self.signature = None
        if self.signature is None:
            if isinstance(args, Mapping):
                raise AssertionError("check_grads: f has no signature, give args as a tuple")
            self.names = [f"args[{i}]" for i in range(len(args))]
            self.arguments = dict(zip(self.names, args))
        else:
            try:
                bound = self.signature.bind(**args) if isinstance(args, Mapping) else self.signature.bind(*args)
            except TypeError as exc:
                raise AssertionError(f"check_grads: the arguments do not fit f{self.signature}: {exc}") from None
            self.arguments = dict(bound.arguments)
            kinds = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
            self.names = [p.name for p in self.signature.parameters.values() if p.kind not in kinds]
        self.args, self.kwargs = self._split(self.arguments)

    def _split(self, arguments: dict) -> tuple[tuple, dict]:
        if self.signature is None:
            return tuple(arguments.values()), {}
        bound = inspect.BoundArguments(self.signature, dict(arguments))
        return bound.args, bound.kwargs

    def with_default(self, name: str) -> dict:
        """The arguments, plus ``name`` at its default value when it was not given."""
        if name in self.arguments or self.signature is None or name not in self.signature.parameters:
            return self.arguments
        default = self.signature.parameters[name].default
        return self.arguments if default is inspect.Parameter.empty else {**self.arguments, name: default}

    def value(self, arguments: dict) -> float:
        args, kwargs = self._split(arguments)
        # f may write into its arguments (a Gauss-Seidel sweep): each call gets its own copies
        args, kwargs = copy.deepcopy((args, kwargs))
        value = np.asarray(self.f(*args, **kwargs), dtype=np.float64)
        if value.size != 1:
            raise AssertionError(f"check_grads: f must return a scalar, it returned shape {value.shape}")
        return float(value.reshape(()))


def _leaves(grad: object, arg: object, path: tuple[str, ...] = ()):
    """(attribute path, gradient) for each array gradient; a dict gradient is one per attribute."""
    if isinstance(grad, Mapping):
        for key in grad:
            yield from _leaves(grad[key], _get(arg, (key,)), (*path, key))
    else:
        yield path, grad


def _get(obj: object, path: Sequence[str]) -> object:
    for key in path:
        obj = obj[key] if isinstance(obj, Mapping) else getattr(obj, key)
    return obj


def _replace(obj: object, path: Sequence[str], value: object) -> object:
    """A copy of ``obj`` with the attribute (or item) at ``path`` replaced; ``obj`` is not changed."""
    if not path:
        return value
    key, rest = path[0], path[1:]
    new = copy.copy(obj)
    if isinstance(obj, Mapping):
        new[key] = _replace(obj[key], rest, value)
    else:  # object.__setattr__ also sets the field of a frozen dataclass copy
        object.__setattr__(new, key, _replace(getattr(obj, key), rest, value))
    return new


def _is_float_array(value: object) -> bool:
    return isinstance(value, np.ndarray) and value.ndim > 0 and np.issubdtype(value.dtype, np.floating)
