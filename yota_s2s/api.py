"""The Python API, after Yota.jl's: generate, compile and call gradients in-process.

    >>> import numpy as np
    >>> from yota_s2s import grad
    >>> from yota_s2s.api import _example_loss
    >>> value, (dx,) = grad(_example_loss, np.array([1.0, 2.0]))
    >>> float(value), dx.tolist()
    (5.0, [2.0, 4.0])

Where the source comes from.  A function defined at the top level of a file is
differentiated from that file, exactly as ``yota-s2s FILE --func NAME`` would
(its helpers, methods and constants are the file's).  Any other function (one
defined in a notebook cell, a doctest, a method, a nested function) is
differentiated from a module assembled from its own source and what its code
refers to: the modules it uses become imports (``np`` -> ``import numpy as
np``), the functions it calls are added by their source (and theirs, in turn),
and the numbers it reads become constants (``assemble.py``).  Errors in that
code are reported at the function's own file and line.

Caching.  ``grad`` compiles a function once per *argument structure* (which
arguments are arrays or numbers, which are objects of which class with which
attributes, recursively), never per shape or value, and checks the arguments
against what the function reads the first time it sees a structure;
``simplegrad`` compiles once per function and ``wrt``.  A function's identity
is its code object and the numbers in its closure; for an assembled module, the
globals it copied (numbers, helpers) are re-checked on each call and a change
compiles again.  ``reset()`` forgets everything compiled.
"""

from __future__ import annotations

import dataclasses
import inspect
import types
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from .assemble import LIBRARIES, Source, is_number, source_of, unsupported
from .codegen.target import BACKENDS
from .errors import UserError, UserErrors
from .files import load_source
from .ir.core import NO_DEFAULT, Key, Listed
from .ir.modes import mode_named
from .ir.printer import format_path, format_tape
from .pipeline import STAGES, Generated, generate
from .project import Entry

#: Values that are arrays or numbers to the generated code (leaves of an argument's structure).
_LEAVES = (np.ndarray, np.generic, int, float, complex, bool, type(None))

_cache: dict[tuple, _Compiled] = {}
#: A global that a guarded name no longer has (it was deleted).
_guards_missing = object()


def _example_loss(x):
    return np.sum(x * x)


def _example_square(x):
    return x * x


# ---------------------------------------------------------------------------- public API


def grad(f: Callable, *args: object, wrt: Sequence[str] | None = None) -> tuple[object, tuple]:
    """``(f(*args), (gradient for each parameter of f, or for each name in wrt))``.

    An array or number argument gets an array (or number) gradient of its shape;
    an object argument whose attributes ``f`` reads gets a dict of attribute
    gradients, nested for nested objects; an argument the value does not depend
    on differentiably gets ``None``.  A bound method ``m.loss`` is
    ``Model.loss`` with ``m`` as its first argument, so its first gradient is
    ``m``'s.  Compiled on the first call for each argument structure, then cached.

    >>> import numpy as np
    >>> from dataclasses import dataclass
    >>> @dataclass
    ... class Linear:
    ...     W: np.ndarray
    ...     b: np.ndarray
    >>> def loss(m, x):
    ...     return np.sum(np.tanh(m.W @ x + m.b))
    >>> m = Linear(np.eye(2), np.zeros(2))
    >>> value, (dm, dx) = grad(loss, m, np.array([0.0, 0.0]))
    >>> sorted(dm), dm["W"].shape, dx.tolist()
    (['W', 'b'], (2, 2), [1.0, 1.0])
    >>> grad(loss, m, np.zeros(2), wrt=["x"])[1][0].tolist()
    [1.0, 1.0]
    """
    __tracebackhide__ = True  # pytest shows the error without this frame
    try:
        return _grad(f, args, wrt)
    except (UserError, UserErrors) as exc:
        raise exc.with_traceback(None) from None


def _grad(f: Callable, args: tuple, wrt: Sequence[str] | None) -> tuple[object, tuple]:
    if inspect.ismethod(f):
        f, args = f.__func__, (f.__self__, *args)
    wrt_key = tuple(wrt) if wrt is not None else None
    key = (_identity(f), wrt_key, tuple(_structure(a, set()) for a in args))
    compiled = _cache.get(key)
    if compiled is None or not compiled.current():
        compiled = _compile(f, wrt_key, args)
        compiled.check(args)
        _cache[key] = compiled
    value, *grads = compiled.fn(*args)
    return value, tuple(grads)


def simplegrad(f: Callable, wrt: Sequence[str] | None = None, value: bool = True) -> Callable:
    """The compiled ``grad_f``: same parameters as ``f``, returns ``(value, d_A, d_B, ...)``.

    With ``value=False`` (``--no-value``) it returns only the gradients ``(d_A, d_B, ...)`` and
    skips the work that only the value needs.

    The same function the command line writes into a file, compiled in memory
    and cached by ``f`` and ``wrt``: a second call returns the same object.  For
    a bound method ``m.loss`` it is the gradient of ``Model.loss``: pass ``m`` first.

    >>> import numpy as np
    >>> g = simplegrad(_example_loss)
    >>> g(np.array([3.0]))[1].tolist()
    [6.0]
    >>> simplegrad(_example_loss) is g
    True
    >>> simplegrad(_example_loss, value=False)(np.array([3.0]))[0].tolist()
    [6.0]
    """
    __tracebackhide__ = True
    return _compiled(f, wrt, value, "grad")


def vjp(f: Callable, wrt: Sequence[str] | None = None, value: bool = True) -> Callable:
    """The compiled ``vjp_f`` (``--vjp``): ``f``'s parameters then ``dout``, an array of the shape
    of ``f``'s value; returns ``(value, dA, dB, ...)``, ``dA`` the product of ``dout`` with the
    Jacobian of the value with respect to ``A`` (``dA.shape == np.shape(A)``).

    >>> import numpy as np
    >>> vjp(_example_square)(np.array([1.0, 2.0]), np.array([1.0, 10.0]))[1].tolist()
    [2.0, 40.0]
    """
    __tracebackhide__ = True
    return _compiled(f, wrt, value, "vjp")


def jvp(f: Callable, wrt: Sequence[str] | None = None, value: bool = True) -> Callable:
    """The compiled ``jvp_f`` (``--jvp``): ``f``'s parameters, then a tangent of the shape of each
    ``wrt`` parameter; returns ``(value, dvalue)``, ``dvalue = J_A @ A_dot + J_B @ B_dot + ...``.

    >>> import numpy as np
    >>> jvp(_example_square)(np.array([1.0, 2.0]), np.array([1.0, 10.0]))[1].tolist()
    [2.0, 40.0]
    """
    __tracebackhide__ = True
    return _compiled(f, wrt, value, "jvp")


def jacobian(f: Callable, wrt: Sequence[str] | None = None, value: bool = True) -> Callable:
    """The compiled ``jac_f`` (``--jacobian``): ``f``'s parameters; returns ``(value, J_A, J_B, ...)``
    with ``J_A.shape == np.shape(value) + np.shape(A)``.

    >>> import numpy as np
    >>> jacobian(_example_square)(np.array([1.0, 2.0]))[1].tolist()
    [[2.0, 0.0], [0.0, 4.0]]
    """
    __tracebackhide__ = True
    return _compiled(f, wrt, value, "jacobian")


def hessian(f: Callable, wrt: Sequence[str] | None = None, value: bool = True) -> Callable:
    """The compiled ``hess_f`` (``--hessian``) of a scalar ``f`` with respect to one parameter ``x``
    (``wrt``: one name, or ``f``'s only parameter): returns ``(value, dx, H)`` with ``H.shape ==
    np.shape(x) + np.shape(x)``; with respect to several (``wrt=["A", "B"]``), ``(value, dA, dB,
    ((H_AA, H_AB), (H_BA, H_BB)))``, ``H_AB.shape == np.shape(A) + np.shape(B)``.

    >>> import numpy as np
    >>> hessian(_example_loss)(np.array([1.0, 2.0]))[2].tolist()
    [[2.0, 0.0], [0.0, 2.0]]
    """
    __tracebackhide__ = True
    return _compiled(f, wrt, value, "hessian")


def hvp(f: Callable, wrt: Sequence[str] | None = None, value: bool = True) -> Callable:
    """The compiled ``hvp_f`` (``--hvp``): ``f``'s parameters, then ``v`` of the shape of the one
    ``wrt`` parameter ``x``; returns ``(value, dx, Hv)``, ``Hv = H @ v`` with ``H`` the Hessian of
    ``f`` with respect to ``x``, computed without forming ``H``.  With respect to several
    (``wrt=["A", "B"]``): ``v_A``, ``v_B`` after ``f``'s parameters, and ``(value, dA, dB, Hv_A,
    Hv_B)``, ``Hv_A = H_AA @ v_A + H_AB @ v_B``.

    >>> import numpy as np
    >>> hvp(_example_loss)(np.array([1.0, 2.0]), np.array([1.0, 10.0]))[2].tolist()
    [2.0, 20.0]
    """
    __tracebackhide__ = True
    return _compiled(f, wrt, value, "hvp")


def _compiled(f: Callable, wrt: Sequence[str] | None, value: bool, mode: str) -> Callable:
    """The function ``mode`` writes for ``f`` (``grad_f``, ``vjp_f``, ``jac_f``), compiled once."""
    __tracebackhide__ = True
    f = f.__func__ if inspect.ismethod(f) else f
    wrt_key = tuple(wrt) if wrt is not None else None
    key = (_identity(f), wrt_key, None, value, mode)
    if key not in _cache or not _cache[key].current():
        try:
            _cache[key] = _compile(f, wrt_key, None, value, mode)
        except (UserError, UserErrors) as exc:
            raise exc.with_traceback(None) from None
    return _cache[key].fn


def gradsource(
    f_or_path: Callable | str | Path,
    func: str | Sequence[str] | None = None,
    wrt: Sequence[str] | None = None,
    target: str = "numpy",
    buffers: bool = False,
    value: bool = True,
    mode: str = "grad",
) -> str:
    """The generated module's text for a function, or for ``func`` (default: the entry points) in a file.

    ``buffers=True`` is ``--buffers``: the module also defines a class per function that reuses its
    arrays across calls (see docs/buffers.md).  ``value=False`` is ``--no-value``: each ``grad_NAME``
    returns only the gradients.  ``mode="vjp"`` is ``--vjp`` (``vjp_NAME``), ``mode="jvp"`` ``--jvp``
    (``jvp_NAME``), ``mode="jacobian"`` ``--jacobian`` (``jac_NAME``), ``mode="hvp"`` ``--hvp``
    (``hvp_NAME``), ``mode="hessian"`` ``--hessian`` (``hess_NAME``), ``mode="holomorphic"``
    ``--holomorphic`` (``grad_NAME``, the complex derivative: docs/complex.md).

    >>> text = gradsource(_example_loss)
    >>> print(text.splitlines()[0])  # doctest: +ELLIPSIS
    # Code generated by yota-s2s ... from .../api.py::_example_loss (target numpy). DO NOT EDIT.
    >>> print(text[text.index("def grad_") :].splitlines()[0])
    def grad__example_loss(x):
    """
    __tracebackhide__ = True
    try:
        return _gradsource(f_or_path, func, wrt, target, buffers, value, mode)
    except (UserError, UserErrors) as exc:
        raise exc.with_traceback(None) from None


def _gradsource(
    f_or_path: Callable | str | Path,
    func: object,
    wrt: Sequence[str] | None,
    target: str,
    buffers: bool = False,
    value: bool = True,
    mode: str = "grad",
) -> str:
    if target not in BACKENDS:
        raise ValueError(f"unknown target {target!r} (known: {', '.join(sorted(BACKENDS))})")
    if isinstance(f_or_path, str | Path):
        path = str(f_or_path)
        file = load_source(path)
        funcs = [func] if isinstance(func, str) else list(func) if func else None
        source = Source(file.text, path, funcs, sha256=file.sha256)
    else:
        if func is not None:
            raise TypeError("gradsource(f, func=...): func names functions of a file; pass the file's path")
        f = f_or_path.__func__ if inspect.ismethod(f_or_path) else f_or_path
        source = source_of(f, ())
    return _generate(source, wrt, target, buffers, value, mode).text


def gradtape(f: Callable, stage: str = "optimize", wrt: Sequence[str] | None = None) -> str:
    """The printed tape of ``f`` after ``stage`` (``lower``, ``primal``, ``differentiate``, ``optimize``).

    >>> for line in gradtape(_example_loss, "lower").splitlines()[:3]:
    ...     print(line[:40].rstrip())
    tape _example_loss(x)
      inp %1 x
      %2 = mul(%1, %1)
    """
    if stage not in STAGES:
        raise ValueError(f"unknown stage {stage!r} (stages: {', '.join(STAGES)})")
    __tracebackhide__ = True
    f = f.__func__ if inspect.ismethod(f) else f
    try:
        generated = _generate(source_of(f, ()), tuple(wrt) if wrt is not None else None, "numpy")
    except (UserError, UserErrors) as exc:
        raise exc.with_traceback(None) from None
    return "".join(format_tape(t) for t in generated.tapes[stage])


def update(obj: object, grads: object, fn: Callable[[object, object], object], ignore: Sequence[str] = ()) -> None:
    """Apply ``fn(value, gradient)`` to every attribute of ``obj`` that has a gradient, in place.

    Yota's ``update!``.  ``grads`` is what ``grad`` returned for ``obj``: a dict
    of attribute gradients, nested for nested objects (dataclasses, plain
    classes, dicts, and lists or tuples of those, matched by position).  Each
    attribute is *set* to ``fn``'s result (the object now holds the array
    ``fn`` returned; other references to the old array keep the old values).
    ``None`` gradients and the dotted paths in ``ignore`` (``"l1.b"``) are
    skipped.  When ``obj`` is itself an array, it is overwritten in place with
    ``fn(obj, grads)``.  A frozen dataclass cannot be updated (``TypeError``).

    >>> import numpy as np
    >>> class Layer:
    ...     def __init__(self, W, b):
    ...         self.W, self.b = W, b
    >>> class Model:
    ...     def __init__(self, l1, l2):
    ...         self.l1, self.l2 = l1, l2
    >>> def loss(m, x):
    ...     h = np.tanh(m.l1.W @ x + m.l1.b)
    ...     return np.sum(m.l2.W @ h)
    >>> m = Model(Layer(np.ones((2, 2)), np.zeros(2)), Layer(np.ones((1, 2)), None))
    >>> _, (dm, dx) = grad(loss, m, np.array([0.5, -0.5]))
    >>> sorted(dm), sorted(dm["l1"]), sorted(dm["l2"])
    (['l1', 'l2'], ['W', 'b'], ['W'])
    >>> update(m, dm, lambda w, d: w - 0.1 * d)
    >>> m.l1.b.tolist(), m.l2.W.tolist()
    ([-0.1, -0.1], [[1.0, 1.0]])
    """
    _update(obj, grads, fn, "", {str(p) for p in ignore})


def reset() -> None:
    """Forget every compiled gradient (Yota's ``reset!``).

    >>> g = simplegrad(_example_loss)
    >>> reset()
    >>> simplegrad(_example_loss) is g
    False
    """
    _cache.clear()


# ---------------------------------------------------------------------------- compiling


@dataclasses.dataclass
class _Compiled:
    """A compiled ``grad_f`` and what ``f`` reads from its arguments (to check them once)."""

    fn: Callable
    name: str
    params: list[tuple[str, bool]]  # (name, has a default)
    paths: list[tuple]  # the tape's input paths: ("x",), ("m", "W"), ...
    guards: list[tuple[dict, str, object]] = dataclasses.field(default_factory=list)

    def current(self) -> bool:
        """Whether the globals an assembled module copied (numbers, helpers) still have those values.

        A notebook cell that sets ``K = 3.0`` or redefines a helper makes the
        compiled gradient stale; a file's function is read from the file instead.
        """
        for namespace, name, value in self.guards:
            now = namespace.get(name, _guards_missing)
            if now is not value and not (is_number(value) and is_number(now) and now == value):
                return False
        return True

    def check(self, args: Sequence[object]) -> None:
        """Raise ``TypeError`` when ``args`` do not have the structure ``f`` reads."""
        name = self.name
        if len(args) > len(self.params):
            raise TypeError(f"{name}() takes {len(self.params)} arguments ({len(args)} given)")
        missing = [p for p, default in self.params[len(args) :] if not default]
        if missing:
            raise TypeError(f"{name}() is missing the argument {missing[0]!r}")
        bound = dict(zip((p for p, _ in self.params), args))
        for path in self.paths:
            if path[0] not in bound:
                continue
            value = bound[path[0]]
            for depth, key in enumerate(path[1:], 1):
                where = format_path(path[:depth])
                if isinstance(key, int | Key):  # m.layers[0], params["W1"]
                    try:
                        value = value[key if isinstance(key, int) else key.name]
                    except (TypeError, IndexError, KeyError):
                        raise TypeError(f"{name}() reads {format_path(path)}, but {where} has no item {key}") from None
                elif isinstance(value, dict) and (key in value or isinstance(key, Listed)):  # (.values(): a tree)
                    value = list(getattr(value, key.what)()) if isinstance(key, Listed) else value[key]
                elif _is_structured(value) and hasattr(value, key):
                    value = getattr(value, key)
                else:
                    raise TypeError(
                        f"{name}() reads {format_path(path)}, but {where} is {_a(value)} with no attribute {key!r}"
                    )
            if _is_structured(value):
                raise TypeError(f"{name}() uses {format_path(path)} as an array, but it is {_a(value)}")


def _compile(
    f: Callable, wrt: tuple[str, ...] | None, args: Sequence[object] | None, value: bool = True, mode: str = "grad"
) -> _Compiled:
    classes = _classes_of(args) if args is not None else ()
    source = source_of(f, classes)
    generated = _generate(source, wrt, "numpy", value=value, mode=mode)
    name = source.funcs[0]
    namespace: dict[str, object] = {"__name__": f"yota_s2s_generated_{name}"}
    exec(compile(generated.text, f"<grad of {source.path}::{name}>", "exec"), namespace)  # noqa: S102 - our output
    tape = generated.tapes["lower"][0]
    params = [(p.name, p.default is not NO_DEFAULT) for p in tape.params]
    return _Compiled(
        namespace[mode_named(mode).prefix + name], name, params, [inp.path for inp in tape.inputs], source.guards
    )


def _generate(
    source: Source,
    wrt: Sequence[str] | None,
    target: str,
    buffers: bool = False,
    value: bool = True,
    mode: str = "grad",
) -> Generated:
    """The pipeline run on ``source``, its errors and its tapes' provenance at the lines of the original files."""
    # the command line that writes the same module (its options in the header's order)
    entry = Entry(
        source.path, "-", source.funcs, list(wrt) if wrt else None, target, buffers=buffers, value=value, mode=mode
    )
    try:
        generated = generate(
            source.text,
            source.path,
            source.funcs,
            wrt,
            target,
            command=entry.command(),
            buffers=buffers,
            value=value,
            source_sha256=source.sha256,
            mode=mode,
        )
    except UserErrors as exc:
        raise UserErrors([source.relocate(e) for e in exc.errors]) from None
    except UserError as exc:
        raise source.relocate(exc) from None
    if source.blocks:  # the tapes' provenance, at the lines of the original files
        seen: set[int] = set()
        todo = [t for tapes in generated.tapes.values() for t in tapes]
        while todo:
            tape = todo.pop()
            for eqn in tape.eqns:
                todo.extend(eqn.regions)
                if eqn.span is not None and id(eqn) not in seen:
                    seen.add(id(eqn))
                    path, line = source.where(eqn.span.path, eqn.span.line)
                    at_line = source.where(eqn.span.path, eqn.span.at_line)[1] if eqn.span.at_line else 0
                    eqn.span = dataclasses.replace(eqn.span, path=path, line=line, at_line=at_line)
    return generated


def _identity(f: Callable) -> object:
    """The cache identity of ``f``: its code object and the constants its closure holds.

    A redefinition is a new code object; ``make_penalty(0.5)`` and
    ``make_penalty(2.0)`` share their code but not their closure.
    """
    f = inspect.unwrap(f)
    code = getattr(f, "__code__", None)
    if code is None:
        unsupported(f)
    cells = tuple(_frozen(c.cell_contents) for c in f.__closure__ or ())
    return (code, cells) if cells else code


def _frozen(value: object) -> object:
    if isinstance(value, bool | int | float | complex | str | np.generic) or value is None:
        return value
    if isinstance(value, types.FunctionType):
        return _identity(value)
    if isinstance(value, tuple) and all(isinstance(v, int | float) for v in value):
        return value
    return type(value)


# ---------------------------------------------------------------------------- argument structure


def _structure(value: object, active: set[int]) -> object:
    """A hashable summary of what kind of value ``value`` is, never of its shape or contents.

    >>> _structure(np.zeros(3), set()) == _structure(2.0, set()) == _structure([1.0, 2.0], set())
    True
    >>> from types import SimpleNamespace as NS
    >>> _structure(NS(W=np.zeros(2), inner=NS(b=1.0)), set())[1]
    (('W', 'a'), ('inner', (<class 'types.SimpleNamespace'>, (('b', 'a'),))))
    """
    if isinstance(value, _LEAVES):
        return "a"
    if id(value) in active:  # a cycle (a child pointing at its parent)
        return "cycle"
    active = active | {id(value)}
    if isinstance(value, list | tuple):
        parts = tuple(_structure(v, active) for v in value)
        return "a" if all(p == "a" for p in parts) else (type(value), parts)
    if isinstance(value, dict):
        return (dict, tuple((k, _structure(v, active)) for k, v in value.items()))
    attrs = _attributes(value)
    if attrs is None:
        return type(value)
    return (type(value), tuple((k, _structure(v, active)) for k, v in attrs))


def _attributes(obj: object) -> list[tuple[str, object]] | None:
    """An object's attributes in order (dataclass fields, ``__dict__``, ``__slots__``), or None."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return [(f.name, getattr(obj, f.name)) for f in dataclasses.fields(obj) if hasattr(obj, f.name)]
    out = dict(vars(obj)) if hasattr(obj, "__dict__") and not isinstance(obj, type | types.ModuleType) else None
    slots = [s for cls in type(obj).__mro__ for s in getattr(cls, "__slots__", ()) if hasattr(obj, s)]
    if slots:
        out = out or {}
        out.update((s, getattr(obj, s)) for s in slots)
    return None if out is None else list(out.items())


def _is_structured(value: object) -> bool:
    """Whether ``value`` is an object with attributes (not an array, a number or a list of them)."""
    return not isinstance(value, (*_LEAVES, list, tuple)) and (
        isinstance(value, dict) or _attributes(value) is not None
    )


def _classes_of(args: Sequence[object]) -> tuple[type, ...]:
    """The user classes of the objects among ``args`` (recursively): their methods may be called."""
    found: dict[type, None] = {}

    def walk(value: object, depth: int) -> None:
        if depth > 20 or isinstance(value, _LEAVES):
            return
        if isinstance(value, list | tuple | dict):
            for v in value.values() if isinstance(value, dict) else value:
                walk(v, depth + 1)
            return
        attrs = _attributes(value)
        if attrs is not None:
            found[type(value)] = None
            for _, v in attrs:
                walk(v, depth + 1)

    for a in args:
        walk(a, 0)
    return tuple(c for c in found if c.__module__.split(".")[0] not in LIBRARIES)


# ---------------------------------------------------------------------------- update


def _update(obj: object, grads: object, fn: Callable, where: str, ignore: set[str]) -> None:
    if grads is None or where in ignore:
        return
    if isinstance(grads, dict):
        for key, g in grads.items():
            path = f"{where}.{key}" if where else str(key)
            if g is None or path in ignore:
                continue
            if isinstance(obj, dict) or isinstance(key, int):
                value = obj[key]
            else:
                value = getattr(obj, key)
            if isinstance(g, dict | list | tuple) and not _is_array_list(g):
                _update(value, g, fn, path, ignore)
            else:
                _set(obj, key, fn(value, g), path)
        return
    if isinstance(grads, list | tuple) and isinstance(obj, list | tuple) and not _is_array_list(grads):
        for i, g in enumerate(grads):
            path = f"{where}.{i}" if where else str(i)
            if isinstance(g, dict | list | tuple):
                _update(obj[i], g, fn, path, ignore)
            elif g is not None and path not in ignore:
                _set(obj, i, fn(obj[i], g), path)
        return
    if isinstance(obj, np.ndarray):
        obj[...] = fn(obj, grads)
        return
    raise TypeError(f"update: cannot update {_a(obj)} in place; pass the object that holds it and its gradient dict")


def _is_array_list(value: object) -> bool:
    return isinstance(value, list | tuple) and all(isinstance(v, _LEAVES) for v in value) and bool(value)


def _set(obj: object, key: object, value: object, path: str) -> None:
    if isinstance(obj, dict | list):
        obj[key] = value
        return
    if isinstance(obj, tuple):
        raise TypeError(f"update: {path} is in a tuple, which cannot be changed; use a list")
    try:
        setattr(obj, key, value)
    except (AttributeError, dataclasses.FrozenInstanceError) as exc:
        raise TypeError(f"update: cannot set {path} on {_a(obj)}: {exc}") from None


def _a(value: object) -> str:
    name = type(value).__name__
    return f"an {name}" if name[:1].lower() in "aeiou" or name.startswith("nd") else f"a {name}"
