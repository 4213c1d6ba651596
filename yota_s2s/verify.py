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
on each ``grad_NAME`` of the freshly generated module ``text`` (``vjp_NAME``, ``jvp_NAME`` and
``jac_NAME`` as the gradient of ``sum(u * f)``, ``u`` random: ``verify_modes``); its exit code is
0 when every gradient matches, 1 when one does not.

NumPy is imported inside the functions that use it: the command line imports
this module, and starts without NumPy unless ``--verify`` runs.
"""

from __future__ import annotations

import contextlib
import copy
import importlib.util
import inspect
import os
import re
import runpy
import signal
import stat
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from . import argtrees
from .errors import UserError
from .files import read_source
from .ir.core import is_option
from .ir.modes import GRAD, MODES
from .kinks import KINDS, KinkCount, central_difference, converged_difference, edge_points, kink_check, special
from .verify_modes import direction as directed
from .verify_modes import pairing

#: Defaults, as JAX's ``check_grads`` uses them for float64.
EPS = 1e-4
#: The time the check at one edge point may take, at least (a loop of ``f`` may not end there),
#: and in multiples of the time the check at the given point took.
EDGE_SECONDS, EDGE_FACTOR = 2.0, 20
RTOL = 1e-5
ATOL = 1e-5


@dataclass(repr=False)
class CheckReport:
    """What ``check_grads`` checked: the points, the edge points skipped and why, the kinks.

    ``str(report)`` says it in one line, with the convention checked at kinks."""

    seed: int
    points: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    kinks: KinkCount = field(default_factory=KinkCount)

    def __str__(self) -> str:
        edges = [p for p in self.points if p != "the given point"]
        text = f"central differences in random directions (seed {self.seed}) at the given point"
        if edges:
            text += f" and at {len(edges)} edge points ({', '.join(edges)})"
        if self.kinks.components or self.kinks.ties:
            text += (
                f"; at kinks, {self.kinks.components} zero, tied or integer components lie between their one-sided "
                f"derivatives and {self.kinks.ties} ties match moved together"
            )
        if self.skipped:
            text += f"; not checked: {'; '.join(self.skipped)}"
        return text

    def __repr__(self) -> str:
        return f"<CheckReport: {self}>"


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
    edges: bool = True,
) -> CheckReport:
    """Check ``grad_f`` (returning ``(value, d_A, d_B, ...)``) against central differences of ``f``.

    ``args`` is a tuple of positional arguments, or a dict of arguments by name.
    ``wrt`` names the parameters the gradients belong to, in order (default: every
    parameter of ``f`` but the options, those whose default is None, a string or a bool, as
    ``yota-s2s`` without ``--wrt`` returns them).  A gradient
    may be ``None`` (then ``f`` must not change along that parameter, if it is a float array) or, for an
    object parameter, a dict of gradients by attribute (nested for nested objects).
    ``grad_f`` may also return ``(value, (d_A, d_B, ...))``, as ``yota_s2s.grad`` does.  A complex
    argument (or one with a complex gradient, ``dL/dRe + 1j * dL/dIm``: docs/complex.md) moves along
    a complex direction, its real and imaginary parts both drawn.  With
    ``value=False`` it returns only the gradients ``(d_A, d_B, ...)``, as ``yota-s2s --no-value`` writes it.

    With ``edges`` (the default), the check runs again at four *edge points* derived from
    ``args`` (``kinks.edge_points``: zeros, ties, both signs, integer values), where the rules'
    conventions at kinks matter; there, and wherever the random direction disagrees at a point
    with zero, tied or integer components, a component is accepted when it lies between its
    one-sided difference quotients (``kinks.kink_check``).  An edge point where ``f`` is not
    finite (or raises), or where ``grad_f`` raises, is skipped and listed in the report.
    Returns the ``CheckReport``; raises ``AssertionError`` on a mismatch.

    >>> import numpy as np
    >>> def f(x, y):
    ...     return np.sum(np.sin(x) * y)
    >>> def grad_f(x, y):
    ...     return f(x, y), np.cos(x) * y, np.sin(x)
    >>> args = (np.linspace(0.0, 1.0, 4), np.arange(4.0))
    >>> print(check_grads(f, grad_f, args))  # doctest: +ELLIPSIS
    central differences in random directions (seed 0) at the given point and at 4 edge points (zeros, ties, ...
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
    names = list(wrt) if wrt is not None else call.values
    report = CheckReport(seed)
    check = _Point(call, grad_f, names, value, (eps, rtol, atol), seed, report)
    started = time.perf_counter()
    leaves = check.run(call.arguments, np.random.default_rng(seed), None)
    limit = max(EDGE_SECONDS, EDGE_FACTOR * (time.perf_counter() - started))
    report.points.append("the given point")
    if not edges or not leaves:
        return report
    rng = np.random.default_rng([seed, 1])  # a stream of its own: the given point's directions are as before
    starts = [np.asarray(argtrees.get(call.arguments[name], path), dtype=np.float64) for name, path in leaves]
    for kind, moved in edge_points(starts, rng):
        arguments = dict(call.arguments)
        for (name, path), new in zip(leaves, moved):
            arguments[name] = argtrees.replace(arguments[name], path, new if new.ndim else float(new))
        try:
            with np.errstate(all="ignore"), time_limit(limit):
                reason = check.skip_reason(arguments)
                if reason is None:
                    check.run(arguments, rng, kind)
        except TooSlow:
            reason = f"not done within {limit:.3g} s: a loop of f may not end there"
        if reason is None:
            report.points.append(kind)
        else:
            report.skipped.append(f"{kind} ({reason})")
    return report


class TooSlow(BaseException):  # (not an Exception: f's own "except Exception" does not catch it)
    """A block under ``time_limit`` ran past it (the check at an edge point; the fuzzer's programs)."""


@contextlib.contextmanager
def time_limit(seconds: float):
    """Raise ``TooSlow`` in the block after ``seconds`` (a ``while`` loop of ``f`` that never ends
    outside its domain, as Newton's iteration for the square root of a negative number).  Needs
    ``SIGALRM`` and the main thread; elsewhere the block runs without a limit."""
    usable = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    if not usable or signal.getitimer(signal.ITIMER_REAL)[0]:  # (a timer of the caller's is left alone)
        yield
        return

    def expired(signum, frame):
        raise TooSlow

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


class _Point:
    """The check of ``grad_f`` at one point (the given arguments, or an edge point)."""

    def __init__(self, call, grad_f, names, value, tolerances, seed, report):
        self.call, self.grad_f, self.names, self.value = call, grad_f, names, value
        self.tolerances, self.seed, self.report = tolerances, seed, report

    def skip_reason(self, arguments: dict) -> str | None:
        """Why an edge point cannot be checked (f raises or is not finite, grad_f raises), or None."""
        import numpy as np

        try:
            fx = self.call.value(arguments)
        except Exception as exc:  # noqa: BLE001 - outside f's domain
            return f"f raised {type(exc).__name__}"
        if not np.isfinite(fx):
            return f"f is {fx} there"
        args, kwargs = self.call.split(arguments)
        try:
            self.grad_f(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001 - a refusal of the gradient, not a wrong number
            return f"grad_f raised {type(exc).__name__}: {exc}"
        return None

    def run(self, arguments: dict, rng, kind: str | None) -> list[tuple[str, tuple]]:
        """Check every gradient at ``arguments``; the (parameter, path) of each float leaf with a
        gradient (the leaves the edge points move).  ``kind``: the edge point, None for the given one."""
        import numpy as np

        call, (eps, rtol, atol), seed = self.call, self.tolerances, self.seed
        at = f" at the edge point '{kind}' (seed {seed})" if kind else ""
        expected = call.value(arguments)
        args, kwargs = call.split(arguments)
        result = self.grad_f(*args, **kwargs)
        if not isinstance(result, tuple) or (self.value and not result):
            expected_form = "(value, grads...)" if self.value else "a tuple of gradients"
            raise AssertionError(f"check_grads: grad_f must return {expected_form}, got {type(result).__name__}")
        if not np.isfinite(expected):
            raise AssertionError(
                f"check_grads: f returned {expected} at these arguments; check at arguments where f is finite"
            )
        grads = result
        if self.value:
            got = float(np.asarray(result[0]))
            nested = len(result) == 2 and isinstance(result[1], tuple) and len(result[1]) == len(self.names)
            if nested and len(self.names) == 1 and isinstance(arguments.get(self.names[0]), list | tuple):
                nested = len(result[1]) == 1 and not isinstance(result[1][0], list | tuple)  # (a tuple's gradient)
            grads = result[1] if nested else result[1:]
            if not np.allclose(got, expected, rtol=rtol, atol=atol):
                raise AssertionError(f"check_grads: grad_f's value {got!r} != f(*args) {expected!r}{at}")
        names = self.names
        if len(grads) != len(names):
            raise AssertionError(
                f"check_grads: grad_f returned {len(grads)} gradients for {len(names)} parameters ({', '.join(names)})"
            )
        leaves: list[tuple[str, tuple]] = []
        everything = []
        for name, grad in zip(names, grads):
            arguments_of = call.with_default(name, arguments)
            if name not in arguments_of:
                raise AssertionError(f"check_grads: {name!r} is not a parameter of f({', '.join(call.names)})")
            for path, analytic in argtrees.leaves(grad, arguments_of[name]):
                start = argtrees.get(arguments_of[name], path)
                if analytic is not None and name in arguments and _is_float(start) and not np.iscomplexobj(analytic):
                    leaves.append((name, path))
                    everything.append(np.ravel(np.asarray(start, dtype=np.float64)))
        kink_rng = np.random.default_rng([seed, 2])
        for name, grad in zip(names, grads):
            arguments_of = call.with_default(name, arguments)
            for path, analytic in argtrees.leaves(grad, arguments_of[name]):
                what = ".".join([name, *map(str, path)])
                start = argtrees.get(arguments_of[name], path)
                if analytic is None and not (name in arguments and _is_float_array(start)):
                    # a None gradient is checked on float arrays given in args only: a scalar or a default
                    # with no gradient is often a tolerance or a bound, and moving it can stop a loop ending
                    continue
                if analytic is None and kind:
                    continue  # (checked at the given point)
                x, direction, cplx = directed(rng, start, analytic)  # (complex: both parts move)
                if analytic is not None and np.shape(analytic) != x.shape:
                    raise AssertionError(
                        f"check_grads: the gradient for {what} has shape {np.shape(analytic)}, the argument {x.shape}"
                    )

                def along(moved_x, arguments_of=arguments_of, name=name, path=path, kind=complex if cplx else float):
                    moved = kind(moved_x) if not np.ndim(moved_x) else moved_x
                    return call.value({**arguments_of, name: argtrees.replace(arguments_of[name], path, moved)})

                exact = 0.0 if analytic is None else pairing(analytic, direction)
                numeric, matches = central_difference(along, x, direction, self.tolerances, exact, not kind)
                if matches and not kind:
                    continue
                if not matches and kind and converged_difference(along, x, direction, self.tolerances) is None:
                    # an edge point where finite differences are rounding noise (f huge or wild there)
                    self.report.kinks.skipped += 1
                    self.report.kinks.skipped_where.append(f"{what} at '{kind}'")
                    continue
                why = ""
                mask = special(x, everything) if analytic is not None and (name, path) in leaves else None
                if mask is not None and mask.any():
                    # zero, tied or integer components: a kink may be here, and the check at a kink decides
                    # (at an edge point always: a convention may hide from a central difference)
                    others = [e for (n, p), e in zip(leaves, everything) if (n, p) != (name, path)]
                    counts, report = self.tolerances, self.report.kinks
                    why = kink_check(
                        along,
                        x,
                        analytic,
                        mask,
                        kink_rng,
                        counts,
                        report,
                        what,
                        np.concatenate(others or [np.zeros(0)]),
                    )
                    if why is None:
                        continue
                    why = f"; checked as a kink: {why}"
                    if matches:
                        raise AssertionError(
                            f"check_grads: the gradient for {what} is wrong{at}: {why[2:]} (eps={eps}, rtol={rtol}, "
                            f"atol={atol})"
                        )
                elif matches:
                    continue
                kind_text = "is None but f changes along it" if analytic is None else "is wrong"
                raise AssertionError(
                    f"check_grads: the gradient for {what} {kind_text}: along a random direction (seed {seed}){at}, "
                    f"analytic {exact:.10g} != numeric {numeric:.10g}{why} (eps={eps}, rtol={rtol}, atol={atol})"
                )
        return leaves


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
            self.values = self.names
            self.arguments = dict(zip(self.names, args))
        else:
            try:
                bound = self.signature.bind(**args) if isinstance(args, Mapping) else self.signature.bind(*args)
            except TypeError as exc:
                raise AssertionError(f"check_grads: the arguments do not fit f{self.signature}: {exc}") from None
            self.arguments = dict(bound.arguments)
            kinds = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
            self.names = [p.name for p in self.signature.parameters.values() if p.kind not in kinds]
            #: The parameters ``yota-s2s`` differentiates without ``--wrt``: not the options.
            self.values = [n for n in self.names if not is_option(self.signature.parameters[n].default)]
        self.args, self.kwargs = self.split(self.arguments)

    def split(self, arguments: dict) -> tuple[tuple, dict]:
        if self.signature is None:
            return tuple(arguments.values()), {}
        bound = inspect.BoundArguments(self.signature, dict(arguments))
        return bound.args, bound.kwargs

    def with_default(self, name: str, arguments: dict) -> dict:
        """``arguments``, plus ``name`` at its default value when it was not given."""
        if name in arguments or self.signature is None or name not in self.signature.parameters:
            return arguments
        default = self.signature.parameters[name].default
        return arguments if default is inspect.Parameter.empty else {**arguments, name: default}

    def value(self, arguments: dict) -> float:
        import numpy as np

        args, kwargs = self.split(arguments)
        # f may write into its arguments (a Gauss-Seidel sweep): each call gets its own copies
        args, kwargs = copy.deepcopy((args, kwargs))
        value = np.asarray(self.f(*args, **kwargs), dtype=np.float64)
        if value.size != 1:
            raise AssertionError(f"check_grads: f must return a scalar, it returned shape {value.shape}")
        return float(value.reshape(()))


def _is_float(value: object) -> bool:
    """A real float number or array (the values edge points move; complex is left alone)."""
    import numpy as np

    if isinstance(value, float):
        return True
    return isinstance(value, np.ndarray | np.floating) and np.issubdtype(value.dtype, np.floating)


def _is_float_array(value: object) -> bool:
    import numpy as np

    return isinstance(value, np.ndarray) and value.ndim > 0 and np.issubdtype(value.dtype, np.floating)


# ---------------------------------------------------------------------------------------------- --verify


def verify_generated(
    source: str,
    text: str,
    wrt: list[str] | dict[str, list[str]] | None,
    *,
    example: str | None,
    shape_specs: list[str],
    seed: int,
    value: bool,
    quiet: bool = False,
) -> int:
    """``yota-s2s --verify``: import ``source``, run each gradient of the generated ``text`` and check it.

    Each ``grad_NAME`` is checked with ``check_grads`` against finite differences of ``NAME`` at
    the inputs of the ``example`` file and random arrays of the ``shape_specs`` (``NAME=D1,D2``),
    drawn with ``seed``.  Prints what it imports (stderr) and the verdict (only a failure with
    ``quiet``, ``-q``); the exit code is 0 when
    every gradient matches, 1 at the first that does not.  Bad inputs are ``UserError`` (YS008,
    YS009).
    """
    import numpy as np

    from .verify_modes import as_gradient, second_order

    if not quiet:
        print(f"yota-s2s: --verify imports {source}: this runs its code", file=sys.stderr)
    module = _import_source(source)
    namespace: dict[str, object] = {"__name__": f"yota_s2s_verify_{Path(source).stem}"}
    exec(compile(text, f"<generated from {source}>", "exec"), namespace)  # noqa: S102 - our output
    positional, named = _load_example(example) if example else ([], {})
    shapes = _parse_shapes(shape_specs)
    by_prefix = {m.prefix: m for m in reversed(MODES.values())}  # grad_: GRAD's (--holomorphic: complex values)
    prefixes = "|".join(sorted(p[:-1] for p in by_prefix))  # grad, vjp, jac, ...
    modes = {n: by_prefix[k + "_"] for k, n in re.findall(rf"^def ({prefixes})_(\w+)\(", text, flags=re.MULTILINE)}
    names = list(modes)
    unknown = [s for s in shapes if not any(s in _parameters(getattr(module, n, None)) for n in names)]
    if unknown:
        raise UserError(
            "YS008", f"--shape {unknown[0]}=: no differentiated function has a parameter {unknown[0]!r}", source
        )
    rng = np.random.default_rng(seed)
    kinks = KinkCount()
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
            names_wrt = wrt.get(name) if isinstance(wrt, dict) else wrt
            mode = modes[name]
            g, grad_g = f, namespace[f"{mode.prefix}{name}"]
            complex_values = mode.order == 1 and np.iscomplexobj(f(**inputs))  # the complex derivative
            checks = [(g, grad_g, names_wrt)]
            if mode.order == 2:  # dx, then Hv as the gradient of sum(v * dx), v random
                checks = second_order(mode, f, grad_g, text, rng, inputs, value)
            elif mode.seeded or mode.forward or complex_values:  # u times the Jacobians: the gradient of sum(u * f)
                u = rng.standard_normal(np.shape(f(**inputs))) * (1.0 + 1j if complex_values else 1.0)
                checks = [(*as_gradient(mode, f, grad_g, u, value, complex_values), names_wrt)]
            for g, grad_g, names_wrt in checks:
                report = check_grads(g, grad_g, inputs, seed=seed, wrt=names_wrt, value=value or mode is not GRAD)
        except AssertionError as exc:
            print(f"{source}::{name}: {exc}", file=sys.stderr)
            return 1
        except Exception as exc:  # noqa: BLE001 - the generated gradient failed where f ran
            print(f"{source}::{name}: {modes[name].prefix}{name} raised {type(exc).__name__}: {exc}", file=sys.stderr)
            return 1
        for what, kind in [(report.skipped, "edge points"), (report.kinks.skipped_where, "components")]:
            if what and not quiet:
                print(f"{source}::{name}: not checked at these {kind}: {'; '.join(what)}", file=sys.stderr)
        kinks.components += report.kinks.components
        kinks.ties += report.kinks.ties
    if quiet:
        return 0
    listed = ", ".join(f"{modes[n].prefix}{n}" for n in names)
    verb = "matches" if len(names) == 1 else "match"
    print(
        f"OK: {listed} {verb} central differences in random directions (seed {seed}, rtol {RTOL}, atol {ATOL}) "
        f"at the inputs and at edge points ({', '.join(KINDS)}); at kinks, {kinks.components} components lie "
        f"between their one-sided derivatives and {kinks.ties} ties match moved together"
    )
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
    if not path.endswith((".npz", ".py")):
        raise UserError("YS008", "an --example file is a .npz or a .py file", path)
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        raise UserError("YS008", f"cannot read the --example file: {exc.strerror}", path) from None
    if not stat.S_ISREG(mode):  # a FIFO would hang
        raise UserError("YS008", "the --example file is not a regular file", path)
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
            # inside the domain of log, sqrt, arcsin, arccos, ...: [0.1, 0.9) (+ [-0.4, 0.4)j if declared complex)
            value = rng.uniform(0.1, 0.9, size=shapes[param.name])
            if "complex" in str(param.annotation):
                value = value + 1j * rng.uniform(-0.4, 0.4, size=shapes[param.name])
            inputs[param.name] = value.item() if value.ndim == 0 else value
        elif param.default is inspect.Parameter.empty and param.kind not in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            message = (
                f"--verify has no value for parameter {param.name!r} of {name}{signature}: "
                f"give --shape {param.name}=D1,D2 or an --example file"
            )
            raise _at_function("YS008", message, f, path)
    return inputs
