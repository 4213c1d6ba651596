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
``rtol=atol=1e-5``).

``verify_generated(source, text, ...)`` is ``yota-s2s --verify``: it imports the
source file (this runs its code), builds each function's inputs (an
``--example`` file, random arrays of ``--shape`` shapes), and runs this check
on each ``grad_NAME`` of the freshly generated module ``text``; its exit code is
0 when every gradient matches, 1 when one does not.

NumPy is imported inside the functions that use it: the command line imports
this module, and starts without NumPy unless ``--verify`` runs.
"""

from __future__ import annotations

import copy
import importlib.util
import inspect
import re
import runpy
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from .errors import UserError
from .files import read_source

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
    import numpy as np

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
        import numpy as np

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
    import numpy as np

    return isinstance(value, np.ndarray) and value.ndim > 0 and np.issubdtype(value.dtype, np.floating)


# ---------------------------------------------------------------------------------------------- --verify


def verify_generated(
    source: str,
    text: str,
    wrt: list[str] | None,
    *,
    example: str | None,
    shape_specs: list[str],
    seed: int,
    value: bool,
) -> int:
    """``yota-s2s --verify``: import ``source``, run each gradient of the generated ``text`` and check it.

    Each ``grad_NAME`` is checked with ``check_grads`` against finite differences of ``NAME`` at
    the inputs of the ``example`` file and random arrays of the ``shape_specs`` (``NAME=D1,D2``),
    drawn with ``seed``.  Prints what it imports (stderr) and the verdict; the exit code is 0 when
    every gradient matches, 1 at the first that does not.  Bad inputs are ``UserError`` (YS008,
    YS009).
    """
    import numpy as np

    print(f"yota-s2s: --verify imports {source}: this runs its code", file=sys.stderr)
    module = _import_source(source)
    namespace: dict[str, object] = {"__name__": f"yota_s2s_verify_{Path(source).stem}"}
    exec(compile(text, f"<generated from {source}>", "exec"), namespace)  # noqa: S102 - our output
    positional, named = _load_example(example) if example else ([], {})
    shapes = _parse_shapes(shape_specs)
    names = re.findall(r"^def grad_(\w+)\(", text, flags=re.MULTILINE)
    unknown = [s for s in shapes if not any(s in _parameters(getattr(module, n, None)) for n in names)]
    if unknown:
        raise UserError(
            "YS008", f"--shape {unknown[0]}=: no differentiated function has a parameter {unknown[0]!r}", source
        )
    rng = np.random.default_rng(seed)
    for name in names:
        f = getattr(module, name, None)
        if not callable(f):
            raise UserError("YS009", f"importing {source} does not define a function {name!r}", source)
        inputs = _inputs(name, f, positional, named, shapes, rng, source)
        try:
            f(**inputs)
        except Exception as exc:  # noqa: BLE001 - the user's code failed on the inputs
            message = f"{name}(...) raised {type(exc).__name__}: {exc} (are the --example/--shape inputs right?)"
            raise _at_function("YS009", message, f, source) from None
        try:
            check_grads(f, namespace[f"grad_{name}"], inputs, seed=seed, wrt=wrt, value=value)
        except AssertionError as exc:
            print(f"{source}::{name}: {exc}", file=sys.stderr)
            return 1
        except Exception as exc:  # noqa: BLE001 - the generated gradient failed where f ran
            print(f"{source}::{name}: grad_{name} raised {type(exc).__name__}: {exc}", file=sys.stderr)
            return 1
    listed = ", ".join(f"grad_{n}" for n in names)
    verb = "matches" if len(names) == 1 else "match"
    print(f"OK: {listed} {verb} central differences in random directions (seed {seed}, rtol {RTOL}, atol {ATOL})")
    return 0


def _import_source(path: str):
    """Import the source file as a module (its folder first on sys.path, as ``python path`` does)."""
    name = re.sub(r"\W", "_", Path(path).stem)
    sys.path.insert(0, str(Path(path).resolve().parent))
    try:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # dataclasses look their module up while the file runs
        spec.loader.exec_module(module)
    except BaseException as exc:  # noqa: BLE001 - SystemExit too: the user's code failed
        raise UserError("YS009", f"importing the source raised {type(exc).__name__}: {exc}", path) from None
    return module


def _load_example(path: str) -> tuple[list, dict]:
    """The arguments an example file gives: positional ones, and named ones."""
    if path.endswith(".npz"):
        import numpy as np

        try:
            with np.load(path, allow_pickle=False) as data:
                arrays = {k: data[k] for k in data.files}
        except (OSError, ValueError) as exc:
            raise UserError("YS008", f"cannot read the --example file: {exc}", path) from None
        positional = [arrays.pop(f"arr_{i}") for i in range(len(arrays)) if f"arr_{i}" in arrays]
        return positional, arrays
    if path.endswith(".py"):
        try:
            values = runpy.run_path(path)
        except BaseException as exc:  # noqa: BLE001 - the user's code failed
            raise UserError("YS009", f"running the --example file raised {type(exc).__name__}: {exc}", path) from None
        example = values.get("args")
        if isinstance(example, tuple | list):
            return list(example), {}
        if isinstance(example, dict):
            return [], dict(example)
        raise UserError("YS008", "an --example .py file must define args: a tuple, or a dict by parameter name", path)
    raise UserError("YS008", "an --example file is a .npz or a .py file", path)


def _parse_shapes(specs: list[str]) -> dict[str, tuple[int, ...]]:
    shapes: dict[str, tuple[int, ...]] = {}
    for spec in specs:
        found = re.fullmatch(r"\s*([A-Za-z_]\w*)\s*=\s*(\d+(?:\s*,\s*\d+)*)?\s*,?\s*", spec)
        if not found:
            raise UserError("YS008", f"--shape takes NAME=D1,D2,... (NAME= for a scalar), not {spec!r}", "yota-s2s")
        name, dims = found[1], found[2]
        if name in shapes:
            raise UserError("YS008", f"--shape gives {name!r} twice", "yota-s2s")
        shapes[name] = tuple(int(d) for d in dims.split(",")) if dims else ()
    return shapes


def _parameters(f: object) -> list[str]:
    try:
        return list(inspect.signature(f).parameters) if callable(f) else []
    except (TypeError, ValueError):
        return []


def _at_function(code: str, message: str, f, path: str) -> UserError:
    """A ``UserError`` located at the ``def`` line of ``f`` in the file ``path``."""
    line = getattr(getattr(f, "__code__", None), "co_firstlineno", 0)
    lines = read_source(path).splitlines()
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    col = text.find("def ") + 1 if "def " in text else 1
    return UserError(code, message, path, line if text else 0, col, text or None)


def _inputs(name: str, f, positional: list, named: dict, shapes: dict, rng, path: str) -> dict[str, object]:
    """The arguments of ``f`` by name: the example's, then random ones of the --shape shapes."""
    import numpy as np

    signature = inspect.signature(f)
    try:
        given = signature.bind_partial(*positional, **named).arguments
    except TypeError as exc:
        raise _at_function("YS008", f"the --example arguments do not fit {name}{signature}: {exc}", f, path) from None
    inputs: dict[str, object] = {}
    for param in signature.parameters.values():
        if param.name in given and param.name in shapes:
            raise _at_function("YS008", f"both --example and --shape give {param.name!r} of {name}", f, path)
        if param.name in given:
            value = given[param.name]
            if isinstance(value, np.ndarray) and np.issubdtype(value.dtype, np.floating):
                value = value.astype(np.float64)
            inputs[param.name] = value
        elif param.name in shapes:
            # inside the domain of log, sqrt, arcsin, arccos, ...: [0.1, 0.9)
            value = rng.uniform(0.1, 0.9, size=shapes[param.name])
            inputs[param.name] = float(value) if value.ndim == 0 else value
        elif param.default is inspect.Parameter.empty and param.kind not in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            message = (
                f"--verify has no value for parameter {param.name!r} of {name}{signature}: "
                f"give --shape {param.name}=D1,D2 or an --example file"
            )
            raise _at_function("YS008", message, f, path)
    return inputs
