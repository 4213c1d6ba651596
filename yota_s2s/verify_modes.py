"""``--verify`` of ``vjp_NAME``, ``jvp_NAME``, ``jac_NAME``, ``hvp_NAME``, ``hess_NAME`` and ``--holomorphic``'s
``grad_NAME``: each read as the gradient of a real scalar; the directions of complex arguments.

For a fixed random ``u`` of the value's shape, ``g(*args) = sum(u * f(*args))`` is a scalar
function whose gradient is ``u`` times the Jacobians: ``vjp_NAME(*args, dout=u)``, or
``jac_NAME``'s Jacobians contracted with ``u``, or, from ``jvp_NAME``, ``sum(u * dvalue)`` with
each unit tangent in turn.  For ``--holomorphic``'s ``grad_NAME`` (a complex value) ``g`` is
``real(sum(conj(u) * f))`` with a complex ``u``, whose gradient ``dL/dRe + 1j * dL/dIm`` is
``u * conj(f'(z))`` (docs/complex.md); for ``jac_NAME`` of complex values (``cjac``), the same ``g``, whose
gradient is ``u`` contracted with ``conj(J)``; ``vjp_NAME(..., dout=u)`` of complex values (``cvjp``) is
that gradient, and from ``jvp_NAME`` of complex values (``cjvp``) it is ``conj(sum(conj(u) * dvalue))``
with each unit tangent.  ``verify.check_grads`` then checks that gradient against
central differences of ``g``, as it checks ``grad_NAME``; a complex argument (or one whose gradient
is complex) is moved along a complex direction, real and imaginary parts drawn (``direction``).

    >>> import numpy as np
    >>> def f(x):
    ...     return x * x
    >>> def jac_f(x):
    ...     return f(x), np.diag(2 * x)
    >>> from yota_s2s.ir.modes import JACOBIAN
    >>> g, grad_g = as_gradient(JACOBIAN, f, jac_f, np.array([1.0, -1.0]))
    >>> float(g(np.array([1.0, 2.0]))), grad_g(np.array([1.0, 2.0]))[1].tolist()
    (-3.0, [2.0, -4.0])

``hvp_NAME`` and ``hess_NAME`` (``second_order``) are checked twice: their gradient ``dx`` as
``grad_NAME``'s, against differences of ``f``; then, for a fixed random ``v`` of ``x``'s shape,
``Hv`` (or ``H`` contracted with ``v``) as the gradient of ``sum(v * dx)``, against differences
of the ``dx`` just checked; with several parameters, a ``v`` for each, ``sum(v_A * dA) + sum(v_B *
dB) + ...`` and its gradient ``(Hv_A, Hv_B, ...)``.
"""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Callable

import numpy as np

from .ir.modes import Mode


def as_gradient(
    mode: Mode, f: Callable, fn: Callable, u: np.ndarray, value: bool = True, complex_values: bool = False
) -> tuple[Callable, Callable]:
    """``(g, grad_g)`` for the function ``fn`` of ``mode`` (``vjp_NAME``, ``jvp_NAME``, ``jac_NAME``, or
    ``grad_NAME`` of complex values: ``--holomorphic``), ``u`` of the shape of ``f``'s value;
    ``grad_g`` returns ``(g(...), dA, dB, ...)``.  ``value``: whether ``fn`` returns the value first
    (not written with ``--no-value``); ``complex_values``: ``f``'s values are complex (``g`` is then
    ``real(sum(conj(u) * f))``).  What ``fn`` returns is read from the mode's record: a gradient of
    the value (no seed), the seed a parameter (``dout``), the rows of the value, or tangents."""
    own = list(inspect.signature(f).parameters)
    extra = [p for p in inspect.signature(fn).parameters if p not in own]
    skip = 1 if value else 0

    @functools.wraps(f)  # (f's signature: check_grads reads its parameters)
    def g(*args, **kwargs):
        if complex_values:
            return np.real(np.sum(np.conj(u) * np.asarray(f(*args, **kwargs))))
        return np.sum(u * np.asarray(f(*args, **kwargs)))

    @functools.wraps(f)
    def grad_g(*args, **kwargs):
        if not mode.seeded and not mode.forward:  # (--holomorphic's grad_NAME: the gradient is u * conj(f'))
            return g(*args, **kwargs), *(None if d is None else u * np.conj(d) for d in fn(*args, **kwargs)[skip:])
        if mode.seed_param:  # (complex: dout = u gives the gradient of real(sum(conj(u) * f)))
            return g(*args, **kwargs), *fn(*args, **kwargs, **{extra[0]: u})[skip:]
        if mode.value_rows:  # (complex: the gradient of real(sum(conj(u) * f)) is u times conj(J), contracted)
            jacobians = [None if J is None else np.conj(J) if complex_values else J for J in fn(*args, **kwargs)[skip:]]
            return g(*args, **kwargs), *(None if J is None else np.tensordot(u, J, axes=np.ndim(u)) for J in jacobians)
        bound = inspect.signature(f).bind(*args, **kwargs)
        bound.apply_defaults()
        point = dict(bound.arguments)
        names = [t.rsplit("_dot", 1)[0] for t in extra]
        grads = []
        for name, tangent in zip(names, extra, strict=True):
            x = np.asarray(point[name], dtype=complex if complex_values else float)
            d = np.zeros(x.shape, x.dtype)
            for idx in np.ndindex(x.shape):  # one jvp_NAME per element: a unit tangent
                tangents = {t: np.zeros(np.shape(point[n])) for n, t in zip(names, extra, strict=True)}
                unit = np.zeros(x.shape)
                unit[idx] = 1.0
                tangents[tangent] = unit if x.ndim else 1.0
                dvalue = np.asarray(fn(**point, **tangents)[-1])
                d[idx] = np.conj(np.sum(np.conj(u) * dvalue)) if complex_values else np.sum(u * dvalue)
            grads.append(d if x.ndim else d[()] if complex_values else float(d))
        return g(*args, **kwargs), *grads

    return g, grad_g


def direction(rng, start: object, analytic: object) -> tuple[np.ndarray, np.ndarray, bool]:
    """``(x, v, complex)``: the leaf ``start`` as a float64 array and a standard normal direction ``v``
    of its shape; complex128, with a complex ``v``, where ``start`` or its gradient ``analytic`` is
    complex (its real and imaginary parts both move)."""
    if np.iscomplexobj(start) or np.iscomplexobj(analytic):
        x = np.asarray(start, dtype=np.complex128)
        return x, rng.standard_normal(x.shape) + 1j * rng.standard_normal(x.shape), True
    x = np.asarray(start, dtype=np.float64)
    return x, rng.standard_normal(x.shape), False


def pairing(analytic: object, v: np.ndarray) -> float:
    """The directional derivative along ``v`` that the gradient ``analytic`` gives: ``sum(analytic * v)``,
    ``sum(real(conj(analytic) * v))`` for complex ones (``dL/dRe * Re v + dL/dIm * Im v``)."""
    a = np.asarray(analytic)
    if np.iscomplexobj(a) or np.iscomplexobj(v):
        return float(np.sum(np.real(np.conj(a) * v)))
    return float(np.sum(np.asarray(a, dtype=np.float64) * v))


def second_order(
    mode: Mode, f: Callable, fn: Callable, text: str, rng: np.random.Generator, inputs: dict, value: bool = True
) -> list[tuple[Callable, Callable, list[str]]]:
    """The two checks of ``hvp_NAME`` or ``hess_NAME`` (``mode.products``: the products) of the generated
    ``text``: ``(g, grad_g, wrt)`` for ``check_grads``, each ``grad_g`` returning the value first
    (see the module docstring).  With several parameters ``A, B, ...`` (``hvp_NAME(..., v_A, v_B)``,
    ``hess_NAME``'s ``H`` nested blocks), ``g`` is ``sum(v_A * dA) + sum(v_B * dB) + ...``, whose
    gradient is ``(Hv_A, Hv_B, ...)``, or ``H``'s blocks contracted with the ``v``'s."""
    name = f.__name__
    # (the signature and the docstring may be wrapped over several lines)
    doc = re.search(rf'^def {mode.prefix}{name}\(.*?\):\n\s*"""(.*?)"""', text, flags=re.MULTILINE | re.DOTALL)
    found = re.search(r"with respect to (\w+|\([\w, ]+\))[ ,]", " ".join(doc.group(1).split()))
    xs = found.group(1).strip("()").split(", ")
    seeds = [p for p in inspect.signature(fn).parameters if p not in inspect.signature(f).parameters]
    skip, n = (1 if value else 0), len(xs)
    vs = [rng.standard_normal(np.shape(inputs[x])) for x in xs]
    vs = [v if np.ndim(inputs[x]) else float(v) for v, x in zip(vs, xs, strict=True)]

    def call(*args, **kwargs):
        return fn(*args, **kwargs, **dict(zip(seeds, vs, strict=True))) if mode.products else fn(*args, **kwargs)

    @functools.wraps(f)
    def first(*args, **kwargs):
        return f(*args, **kwargs), *call(*args, **kwargs)[skip : skip + n]

    @functools.wraps(f)
    def g(*args, **kwargs):
        return sum(np.sum(v * np.asarray(d)) for v, d in zip(vs, first(*args, **kwargs)[1:], strict=True))

    @functools.wraps(f)
    def grad_g(*args, **kwargs):
        out = call(*args, **kwargs)
        if mode.products:
            return g(*args, **kwargs), *out[skip + n : skip + 2 * n]
        H = out[skip + n] if n > 1 else ((out[skip + 1],),)  # (the blocks, H_PQ of P.shape + Q.shape)
        contract = [sum(np.tensordot(v, H[p][q], axes=np.ndim(v)) for p, v in enumerate(vs)) for q in range(n)]
        return g(*args, **kwargs), *contract

    return [(f, first, xs), (g, grad_g, xs)]
