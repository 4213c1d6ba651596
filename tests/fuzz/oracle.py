"""The oracle: generate a program's gradient in every form and check it, or say why not.

``check(program)`` returns an ``Outcome``: ``ok``, ``refused`` (a ``UserError``: its ``YSnnn``
code is counted, it is never a failure), ``invalid`` (the program itself fails on its inputs:
the generator's fault, not the tool's) or ``failure`` with a ``kind`` naming the check that failed
and the form it failed in (``grad:default``, ``value:no_value``, ``internal``, ``timeout``, ...).

The checks, each at a random point in [-2, 2] and, for a smooth program, at edge points:

- the value equals the forward function's value;
- each gradient against central differences at two steps ``h`` and ``h/2`` (Richardson's
  combination of the two): a coordinate where the two disagree is near a kink and skipped; a
  mismatch is re-checked at larger steps before it is called wrong;
- the gradients have their parameters' shapes and dtypes (a Python float's is a float), an
  integer parameter's is ``None`` or a finite number;
- the inputs are not changed; the answer is the same on non-contiguous inputs (strided views,
  Fortran order);
- ``--no-value`` gives the same gradients; the ``--buffers`` class gives the plain function's
  results on two calls (the second one writes into the first one's buffers);
- edge points where the function is smooth: zeros, ties, integer-valued floats, float32, 0-d
  arrays for float parameters, empty arrays (where the function is defined on them);
- a program returning an array, or given complex numbers, must be refused clearly.
"""

from __future__ import annotations

import ast
import contextlib
import copy
import sys
import time
import types
from dataclasses import dataclass

import numpy as np

from yota_s2s.errors import UserError, UserErrors
from yota_s2s.pipeline import generate
from yota_s2s.verify import TooSlow as Timeout
from yota_s2s.verify import time_limit

from .gen import Program

FORMS = {"default": {}, "no_value": {"value": False}, "buffers": {"buffers": True}}


@dataclass
class Outcome:
    status: str  # ok | refused | invalid | failure
    kind: str = ""  # the failed check (failure), the code (refused), why (invalid)
    detail: str = ""
    gen_seconds: float = 0.0
    skipped: int = 0  # coordinates skipped near a kink
    checked: int = 0  # coordinates checked against finite differences

    @property
    def signature(self) -> tuple[str, str]:
        return (self.status, self.kind)


class Failure(Exception):
    def __init__(self, kind: str, detail: str):
        super().__init__(f"{kind}: {detail}")
        self.kind, self.detail = kind, detail


class Invalid(Exception):
    pass


# ---------------------------------------------------------------------------- programs and inputs

_counter = [0]


def load(source: str) -> dict:
    """Run a program's source as a module (dataclasses need one in ``sys.modules``)."""
    _counter[0] += 1
    name = f"_yota_fuzz_{_counter[0]}"
    module = types.ModuleType(name)
    sys.modules[name] = module
    try:
        exec(compile(source, f"{name}.py", "exec"), module.__dict__)  # noqa: S102 - generated test programs
    finally:
        del sys.modules[name]
    return module.__dict__


def make_args(program: Program, ns: dict, rng: np.random.Generator, dims: dict | None = None) -> list:
    try:
        return _make_args(program, ns, rng, dims)
    except Exception as exc:  # noqa: BLE001 - a shrunk program whose classes no longer fit its parameters
        raise Invalid(f"the arguments cannot be built: {type(exc).__name__}: {exc}") from None


def _make_args(program: Program, ns: dict, rng: np.random.Generator, dims: dict | None = None) -> list:
    dims = dims or dict(program.dims)

    def shape(tokens):
        return tuple(dims[t] if isinstance(t, str) else t for t in tokens)

    def value(spec_shape):
        s = shape(spec_shape)
        return float(rng.uniform(-2, 2)) if s == () else rng.uniform(-2.0, 2.0, s)

    def obj(cls, fields):
        kwargs = {}
        for fname, fspec in fields:
            if fspec and fspec[0] == "list":
                _, inner, count, inner_fields = fspec
                kwargs[fname] = [obj(inner, inner_fields) for _ in range(count)]
            else:
                kwargs[fname] = value(fspec)
        return ns[cls](**kwargs)

    args = []
    for spec in program.params:
        if spec[0] == "array":
            args.append(np.asarray(rng.uniform(-2.0, 2.0, shape(spec[2]))))  # 0-d: an array, not a NumPy float
        elif spec[0] == "float":
            args.append(float(rng.uniform(-2.0, 2.0)))
        elif spec[0] == "int":
            args.append(spec[2])
        elif spec[0] == "list":  # ("list", name, count, shape): a list of arrays of one shape
            args.append([np.asarray(rng.uniform(-2.0, 2.0, shape(spec[3]))) for _ in range(spec[2])])
        else:
            args.append(obj(spec[2], spec[3]))
    return args


def leaves(args: list) -> list[tuple[tuple, object]]:
    """(path, value) of every float array and float in the arguments (objects walked)."""
    out = []

    def walk(path, v):
        if isinstance(v, np.ndarray):
            if v.dtype.kind == "f":
                out.append((path, v))
        elif isinstance(v, float):
            out.append((path, v))
        elif isinstance(v, list):
            for i, item in enumerate(v):
                walk((*path, i), item)
        elif hasattr(v, "__dataclass_fields__"):
            for name in v.__dataclass_fields__:
                walk((*path, name), getattr(v, name))

    for i, a in enumerate(args):
        walk((i,), a)
    return out


def replace_leaf(args: list, path: tuple, value) -> list:
    new = copy.deepcopy(args)
    if len(path) == 1:
        new[path[0]] = value
        return new
    holder = new[path[0]]
    for key in path[1:-1]:
        holder = holder[key] if isinstance(key, int) else getattr(holder, key)
    if isinstance(path[-1], int):
        holder[path[-1]] = value
    else:
        setattr(holder, path[-1], value)
    return new


def map_leaves(args: list, fn) -> list:
    new = args
    for path, v in leaves(args):
        new = replace_leaf(new, path, fn(v))
    return new


def grad_at(grads: tuple, path: tuple):
    """The analytic gradient of the leaf at ``path`` (missing attribute: ``None``)."""
    g = grads[path[0]]
    for key in path[1:]:
        if g is None:  # the value does not depend on this object differentiably
            return None
        if isinstance(g, list | tuple | np.ndarray) and isinstance(key, int) and np.ndim(g) > 0 and key < len(g):
            g = g[key]  # a list parameter's gradient: a list, or its items' gradients stacked (an array)
            continue
        if not isinstance(g, dict):
            raise Failure("structure", f"the gradient at {path} is {type(g).__name__}, expected a dict")
        if key not in g:
            return None
        g = g[key]
    return g


def same_args(a, b) -> bool:
    if isinstance(b, np.ndarray):
        return isinstance(a, np.ndarray) and a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True)
    if isinstance(b, list):
        return isinstance(a, list) and len(a) == len(b) and all(same_args(x, y) for x, y in zip(a, b))
    if hasattr(b, "__dataclass_fields__"):
        return all(same_args(getattr(a, k), getattr(b, k)) for k in b.__dataclass_fields__)
    return type(a) is type(b) and (a == b or bool(np.isnan(a) and np.isnan(b)))


# ---------------------------------------------------------------------------- the checker


class Checker:
    """The checks of one program (``run(only=...)`` repeats one kind of failure, for the shrinker)."""

    def __init__(self, program: Program, seed: int = 0, only: str | None = None):
        self.p = program
        self.rng = np.random.default_rng(seed)
        self.only = only
        self.out = Outcome("ok")
        self.ns = load(program.source)
        self.f = self.ns["f"]
        self.mods: dict[str, dict] = {}
        self.in_tool: str | None = None  # what of the tool's runs now (a time-out there is a failure)

    @contextlib.contextmanager
    def tool(self, what: str):
        """Mark a run of the tool (or of its output): a time-out inside it is the tool's."""
        self.in_tool = what
        try:
            yield
        except Timeout:
            raise  # in_tool still says where
        except BaseException:
            self.in_tool = None
            raise
        self.in_tool = None

    def wants(self, kind: str) -> bool:
        return self.only is None or _head(self.only) == _head(kind)

    def F(self, args) -> float:
        try:
            with np.errstate(all="ignore"):
                v = self.f(*copy.deepcopy(args))
        except Exception as exc:  # noqa: BLE001 - the program is not defined here
            raise _Undefined(f"{type(exc).__name__}: {exc}") from None
        v = np.asarray(v)
        if v.shape != ():
            raise Invalid(f"f returned shape {v.shape}")
        return float(v)

    # ---------------------------------------------------------------- forms
    def generate_forms(self) -> None:
        forms = list(FORMS)
        if self.only and _head(self.only) not in ("mutated", "refused", "structure"):
            suffix = self.only.split("@")[0].split(":")[-1]
            forms = ["default"] + ([suffix] if suffix in FORMS and suffix != "default" else [])
        for form in forms:
            t0 = time.perf_counter()
            try:
                with self.tool(f"generating {form}"):
                    text = generate(self.p.source, "fuzz_prog.py", ["f"], **FORMS[form]).text
            except (UserError, UserErrors) as exc:
                err = exc.errors[0] if isinstance(exc, UserErrors) else exc
                if form == "default" or not self.mods:
                    raise _Refused(err.code, str(err)) from None
                raise Failure(f"refused:{form}", f"{form} refuses what the default form accepts: {err}") from None
            except Timeout:
                raise
            except Exception as exc:  # noqa: BLE001 - any other exception is a bug of the tool
                raise Failure("internal", f"{form}: {type(exc).__name__}: {exc}") from None
            finally:
                self.out.gen_seconds = max(self.out.gen_seconds, time.perf_counter() - t0)
            ns: dict = {}
            try:
                exec(compile(text, f"grad_fuzz_{form}.py", "exec"), ns)  # noqa: S102 - our output
            except Exception as exc:  # noqa: BLE001
                raise Failure("internal", f"{form}: the module does not run: {type(exc).__name__}: {exc}") from None
            self.mods[form] = ns

    def call(self, form: str, args: list, what: str) -> tuple:
        fn = self.mods[form]["grad_f"] if form != "buffers" else self.buffered
        try:
            with self.tool(f"grad_f ({form}) at {what}"), np.errstate(all="ignore"):
                result = fn(*args)
        except Timeout:
            raise
        except Exception as exc:  # noqa: BLE001
            raise Failure(f"crash:{form}", f"{what}: {type(exc).__name__}: {exc}") from None
        if not isinstance(result, tuple):
            raise Failure(f"structure:{form}", f"returned {type(result).__name__}, not a tuple")
        n = len(self.p.params)
        if len(result) != n + (form != "no_value"):
            raise Failure(f"structure:{form}", f"returned {len(result)} items for {n} parameters")
        return (result[0], result[1:]) if form != "no_value" else (None, result)

    # ---------------------------------------------------------------- one point
    def point(self, args: list, what: str, fd: bool = True, forms: bool = True) -> tuple:
        """Check the default form at ``args`` (value, types, gradient, inputs unchanged); a failure's
        kind names the edge point it was found at (``grad:default@zeros``)."""
        try:
            return self._point(args, what, fd, forms)
        except Failure as exc:
            tag = what.split(" ")[0] if not what.startswith(("random", "contiguous")) else ""
            if tag and "@" not in exc.kind:
                exc.kind += "@" + tag
            raise

    def _point(self, args: list, what: str, fd: bool, forms: bool) -> tuple:
        f0 = self.F(args)
        if not np.isfinite(f0):
            raise _Undefined("not finite")
        before = copy.deepcopy(args)
        value, grads = self.call("default", args, what)
        if not same_args(args, before):
            raise Failure("mutated", f"{what}: grad_f changed its arguments")
        if self.wants("value") and not _close(value, f0, 1e-8):
            raise Failure("value:default", f"{what}: value {value!r} != f {f0!r}")
        if self.wants("type"):
            self.types(args, grads, what)
        if fd and self.wants("grad"):
            self.gradient(args, grads, f0, what)
        if forms and "no_value" in self.mods and self.wants("forms:no_value"):
            _, g2 = self.call("no_value", copy.deepcopy(args), what)
            for path, _v in leaves(args):
                a, b = grad_at(grads, path), grad_at(g2, path)
                if not _close_arr(b, a, 1e-9):
                    raise Failure("forms:no_value", f"{what}: d{path} {_show(b)} != default {_show(a)}")
        if forms and "buffers" in self.mods and self.wants("forms:buffers"):
            self.buffers(args, what)
        return value, grads

    def types(self, args: list, grads: tuple, what: str) -> None:
        for i, (spec, a) in enumerate(zip(self.p.params, args)):
            g = grads[i]
            # an integer's gradient: None (a count, a flag) or a number (f(n) = n has slope 1); never nan
            if spec[0] == "int" and g is not None and not (np.ndim(g) == 0 and np.isfinite(float(g))):
                raise Failure("type", f"{what}: the integer parameter {spec[1]} has gradient {_show(g)}")
        for path, v in leaves(args):
            g = grad_at(grads, path)
            if g is None:
                continue
            if isinstance(v, np.ndarray):
                if not isinstance(g, np.ndarray) and np.ndim(v) > 0:
                    raise Failure("type", f"{what}: d{path} is {type(g).__name__}, the parameter an array")
                if np.shape(g) != v.shape:
                    raise Failure("type", f"{what}: d{path} has shape {np.shape(g)}, the parameter {v.shape}")
                if np.asarray(g).dtype != v.dtype:
                    raise Failure("type", f"{what}: d{path} has dtype {np.asarray(g).dtype}, the parameter {v.dtype}")
            elif isinstance(g, np.ndarray) and type(v) is float:
                raise Failure("type", f"{what}: d{path} is a {g.ndim}-d array, the parameter a Python float")

    def gradient(self, args: list, grads: tuple, f0: float, what: str) -> None:
        for path, v in leaves(args):
            g = grad_at(grads, path)
            x = np.asarray(v, dtype=float)
            for idx in np.ndindex(x.shape):
                gi = 0.0 if g is None else float(np.asarray(g, dtype=float)[idx]) if np.ndim(g) else float(g)
                x0 = float(x[idx])

                def at(t, idx=idx, path=path, v=v):
                    if isinstance(v, np.ndarray):
                        y = np.array(v, dtype=v.dtype)
                        y[idx] = t
                    else:
                        y = t
                    return self.F(replace_leaf(args, path, y))

                sides: list[float] = []

                def d(h, x0=x0, at=at, sides=sides):
                    up, down = at(x0 + h), at(x0 - h)
                    sides[:] = [(up - f0) / h, (f0 - down) / h]
                    return (up - down) / (2 * h)

                h = 1e-5 * max(1.0, abs(x0))
                try:
                    d1, d2 = d(h), d(h / 2)
                except _Undefined:  # at the edge of the domain
                    self.out.skipped += 1
                    continue
                if not (np.isfinite(d1) and np.isfinite(d2)) or abs(d1 - d2) > 1e-4 * (1 + abs(d2)) + 1e-8 * abs(f0):
                    self.out.skipped += 1  # a kink (a branch, a loop exit) within h: no derivative to compare
                    continue
                fwd, bwd = sides
                if abs(fwd - bwd) > 1e-2 * (1 + abs(fwd) + abs(bwd)) + 1e-9 * abs(f0) / h:
                    self.out.skipped += 1  # a kink at x0 itself (|t| at 0): central differences see no slope
                    continue
                self.out.checked += 1
                rich = (4 * d2 - d1) / 3
                if np.isfinite(gi) and abs(gi - rich) <= 1e-6 * (1 + abs(rich)) + 1e-8 * abs(f0):
                    continue
                # re-check at larger steps before calling it wrong
                try:
                    e1, e2 = d(1e-3 * max(1.0, abs(x0))), d(5e-4 * max(1.0, abs(x0)))
                except _Undefined:
                    e1 = e2 = np.nan
                rich2 = (4 * e2 - e1) / 3
                if abs(e1 - e2) > 1e-3 * (1 + abs(e2)) + 1e-7 * abs(f0):
                    self.out.skipped += 1
                    continue
                if np.isfinite(gi) and abs(gi - rich2) <= 1e-6 * (1 + abs(rich2)) + 1e-8 * abs(f0):
                    continue
                if d1 == 0.0 == d2 and abs(gi - rich2) <= 1e-1 * abs(rich2):
                    # f did not change at all at the small steps (an inner tanh near 1 absorbed them):
                    # the larger steps see the slope through their own rounding, to a few per cent (seed
                    # 803409: -1.1486e-4 analytic, -1.0849e-4 at h=1e-3, -1.1490e-4 in long double)
                    continue
                raise Failure(
                    "grad:default",
                    f"{what}: d{path}{list(idx) if idx else ''} = {gi!r}, finite differences {rich!r} "
                    f"(h={h:.0e}: {d1!r}, {d2!r}; h=1e-3: {e1!r}, {e2!r})",
                )

    def buffers(self, args: list, what: str) -> None:
        plain = self.mods["buffers"]["grad_f"]
        self.buffered = self.mods["buffers"]["GradF"]()
        other = map_leaves(args, lambda v: v * 0.75 + 0.1 if isinstance(v, np.ndarray) else v)
        for k, a in enumerate([args, other, args]):
            try:
                if not np.isfinite(self.F(a)):
                    continue
            except _Undefined:  # the function is not defined at the second point: no gradient to compare
                continue
            with np.errstate(all="ignore"), self.tool("grad_f (buffers)"):
                try:
                    expected = plain(*copy.deepcopy(a))
                except Exception as exc:  # noqa: BLE001
                    raise Failure("crash:buffers", f"{what}: plain grad_f: {type(exc).__name__}: {exc}") from None
            before = copy.deepcopy(a)
            got = copy.deepcopy(self.call("buffers", a, f"{what}, call {k}"))
            if not same_args(a, before):
                raise Failure("mutated", f"{what}: GradF changed its arguments (call {k})")
            if not _close(got[0], expected[0], 1e-12):
                raise Failure("forms:buffers", f"{what}, call {k}: value {got[0]!r} != plain {expected[0]!r}")
            for path, _v in leaves(a):
                x, y = grad_at(got[1], path), grad_at(tuple(expected[1:]), path)
                if not _close_arr(x, y, 1e-12):
                    raise Failure("forms:buffers", f"{what}, call {k}: d{path} {_show(x)} != plain {_show(y)}")

    # ---------------------------------------------------------------- the run
    def run(self) -> Outcome:
        try:
            self.defined()
            self.generate_forms()
            if self.p.vector and self.vector_valued():
                return self.vector()
            self.random_points()
            self.layouts()
            self.edges()
            if (self.only and _head(self.only) == "complex") or (self.only is None and self.rng.random() < 0.1):
                self.complex()
        except _Refused as exc:
            self.out.status, self.out.kind, self.out.detail = "refused", exc.code, exc.message
        except Failure as exc:
            self.out.status, self.out.kind, self.out.detail = "failure", exc.kind, exc.detail
        except Invalid as exc:
            self.out.status, self.out.kind, self.out.detail = "invalid", "program", str(exc)
        return self.out

    def defined(self) -> None:
        """The program runs at some random point (a shrunk program may not: then it is invalid)."""
        rng = np.random.default_rng(12345)
        for _ in range(4):
            args = make_args(self.p, self.ns, rng)
            try:
                with np.errstate(all="ignore"):
                    v = np.asarray(self.f(*copy.deepcopy(args)))
                finite = bool(np.all(np.isfinite(v)))
            except Exception:  # noqa: BLE001, S112 - not defined at this point: try another
                continue
            if finite:
                return
        raise Invalid("f is not defined at any random point")

    def vector_valued(self) -> bool:
        args = make_args(self.p, self.ns, np.random.default_rng(12345))
        with np.errstate(all="ignore"):
            return np.shape(self.f(*copy.deepcopy(args))) != ()

    def random_points(self) -> None:
        done = 0
        for attempt in range(4):
            args = make_args(self.p, self.ns, self.rng)
            try:
                self.point(args, f"random point {attempt}", forms=done == 0)
            except _Undefined:
                continue
            done += 1
            if done == 2 or self.p.smooth:
                return
        if done == 0:
            raise Invalid("f is not defined at any random point")

    def layouts(self) -> None:
        args = make_args(self.p, self.ns, self.rng)
        try:
            value, grads = self.point(args, "contiguous", fd=False, forms=False)
        except _Undefined:
            return

        def strided(v):
            if not isinstance(v, np.ndarray) or v.ndim == 0:
                return v
            if v.ndim == 2 and v.shape[0] > 1 and v.shape[1] > 1 and self.rng.random() < 0.5:
                return np.asfortranarray(v)
            big = np.zeros((*v.shape[:-1], 2 * v.shape[-1]))
            big[..., ::2] = v
            return big[..., ::2]

        other = map_leaves(args, strided)
        before = copy.deepcopy(other)
        v2, g2 = self.call("default", other, "non-contiguous")
        if not same_args(other, before):
            raise Failure("mutated", "grad_f changed non-contiguous arguments")
        if not _close(v2, value, 1e-10):
            raise Failure("layout", f"value {v2!r} on non-contiguous inputs, {value!r} on contiguous ones")
        # NumPy sums and multiplies a strided array in another order: a gradient as ill-conditioned
        # as sin(np.prod(v)) of a large product moves by 3e-10 (seed 1000282); a stride bug by O(1)
        for path, _v in leaves(args):
            a, b = grad_at(g2, path), grad_at(grads, path)
            if not _close_arr(a, b, 1e-8):
                raise Failure("layout", f"d{path} {_show(a)} on non-contiguous inputs, {_show(b)} on contiguous ones")

    def edges(self) -> None:
        base = make_args(self.p, self.ns, self.rng)
        points = []
        if self.p.smooth:
            points.append(("zeros", map_leaves(base, lambda v: v * 0.0)))
            points.append(
                ("ties", map_leaves(base, lambda v: np.full_like(v, 0.7) if isinstance(v, np.ndarray) else v))
            )
            points.append(
                (
                    "integer-valued floats",
                    map_leaves(base, lambda v: np.round(v) if isinstance(v, np.ndarray) else float(round(v))),
                )
            )
        for what, args in points:
            try:
                self.point(args, what, forms=False)
            except _Undefined:
                pass
        # 0-d arrays for the float parameters
        if any(s[0] == "float" for s in self.p.params):
            zd = [np.array(a) if s[0] == "float" else a for s, a in zip(self.p.params, base)]
            try:
                self.point(zd, "0-d arrays for the float parameters", forms=False)
            except _Undefined:
                pass
        self.float32(base)
        self.empty()

    def float32(self, base: list) -> None:
        if not any(s[0] == "array" for s in self.p.params):
            return
        args32 = [a.astype(np.float32) if s[0] == "array" else a for s, a in zip(self.p.params, base)]
        args64 = [a.astype(np.float64) if s[0] == "array" else a for s, a in zip(self.p.params, args32)]
        try:
            f0 = self.F(args64)
            with np.errstate(all="ignore"):
                f32 = self.f(*copy.deepcopy(args32))
        except Exception:  # noqa: BLE001
            return
        if not (np.isfinite(f0) and np.all(np.isfinite(f32))) or not self.p.smooth:
            return
        _, g64 = self.call("default", args64, "float64")
        _, g32 = self.call("default", args32, "float32 arrays")
        for i, (s, a) in enumerate(zip(self.p.params, args32)):
            if s[0] != "array":
                continue
            g, ref = g32[i], g64[i]
            if g is None:
                continue
            if np.asarray(g).dtype.kind != "f":  # float32 or float64: the dtype of the arithmetic (getting-started)
                raise Failure("type@float32", f"float32 arrays: d{s[1]} has dtype {np.asarray(g).dtype}")
            scale = 1e-2 * (1 + float(np.max(np.abs(ref)))) if np.size(ref) else 1
            if np.shape(g) != np.shape(ref) or np.max(np.abs(np.asarray(g, float) - ref), initial=0) > scale:
                raise Failure("grad:default@float32", f"d{s[1]} {_show(g)} in float32, {_show(ref)} in float64")

    def empty(self) -> None:
        arrays = [s for s in self.p.params if s[0] == "array"]
        if not arrays or "logsumexp" in self.p.source:
            # logsumexp of an empty axis is -inf (scipy hides the log(0)): a gradient through it
            # multiplies 0 by inf, NaN, as in autograd and JAX (docs/conventions.md)
            return
        for dim in ("n", "m"):
            if not any(dim in s[2] for s in arrays):
                continue
            dims = {**dict(self.p.dims), dim: 0}
            args = make_args(self.p, self.ns, self.rng, dims)
            try:
                with np.errstate(all="raise"):
                    f0 = np.asarray(self.f(*copy.deepcopy(args)))
                if f0.shape != () or not np.isfinite(f0):
                    continue
            except Exception:  # noqa: BLE001, S112 - not defined on empty arrays
                continue
            try:
                self.point(args, f"empty arrays ({dim} = 0)", forms=False)
            except _Undefined:
                continue

    def vector(self) -> Outcome:
        args = make_args(self.p, self.ns, self.rng)
        raised = None  # where f itself raises (an unbound name, shapes that do not fit), so must grad_f
        try:
            with np.errstate(all="ignore"):
                value = self.f(*copy.deepcopy(args))
        except Exception as exc:  # noqa: BLE001
            raised = f"{type(exc).__name__}: {exc}"
        else:
            if np.shape(value) == ():  # a branch made it a number here: nothing to refuse at this point
                raise Invalid("f returns a number at this point")
        try:
            with self.tool("grad_f of an array-valued f"):
                result = self.mods["default"]["grad_f"](*args)
        except Exception as exc:  # noqa: BLE001
            msg = str(exc)
            if raised is not None or "scalar" in msg or "returned None" in msg:
                self.out.status, self.out.kind = "refused", "runtime:scalar"
                return self.out
            raise Failure("crash:vector", f"{type(exc).__name__}: {msg}") from None
        if raised is not None:
            raise Failure("vector", f"f raises {raised}, grad_f returned {_show(result[0])} without an error")
        raise Failure("vector", f"an array-valued f: grad_f returned {_show(result[0])} without an error")

    def complex(self) -> None:
        tree = ast.parse(self.p.source)
        entry = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "f")
        read = {n.id for n in ast.walk(entry) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        for i, s in enumerate(self.p.params):
            if s[0] != "array" or s[1] not in read:  # an argument f never reads needs no check
                continue
            args = make_args(self.p, self.ns, self.rng)
            args[i] = args[i] + 0.5j
            try:
                with np.errstate(all="ignore"):
                    self.f(*copy.deepcopy(args))
            except Exception:  # noqa: BLE001
                return
            try:
                with np.errstate(all="ignore"), self.tool("grad_f on complex numbers"):
                    result = self.mods["default"]["grad_f"](*args)
                grad = result[1 + i] if isinstance(result, tuple) and len(result) > 1 + i else result
                if grad is None or not np.any(grad):  # f reads it only in dead code: nothing to prove
                    continue
            except Exception as exc:  # noqa: BLE001
                if s[1] in str(exc) or "complex" in str(exc):
                    return
                raise Failure("complex:unclear", f"complex {s[1]}: unclear error {type(exc).__name__}: {exc}") from None
            raise Failure("complex", f"a complex {s[1]} is accepted without an error (the rules assume real numbers)")


class _Refused(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code, self.message = code, message


class _Undefined(Exception):
    pass


def _head(kind: str) -> str:
    return kind.split("@")[0].split(":")[0]


def _close(a, b, rtol) -> bool:
    try:
        a, b = float(np.asarray(a)), float(np.asarray(b))
    except (TypeError, ValueError):
        return False
    return abs(a - b) <= rtol * (1 + abs(b)) or bool(np.isnan(a) and np.isnan(b))


def _close_arr(a, b, rtol) -> bool:
    if a is None or b is None:
        return a is None and b is None or np.all(np.asarray(a if b is None else b) == 0)
    if np.shape(a) != np.shape(b):
        return False
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return bool(np.all(np.abs(a - b) <= rtol * (1 + np.abs(b)) + 1e-300) or np.array_equal(a, b, equal_nan=True))


def _show(v) -> str:
    if isinstance(v, np.ndarray):
        return f"array{v.shape}{np.round(v, 6).tolist()}"
    return repr(v)


def check(program: Program, seed: int = 0, timeout: float = 20.0, only: str | None = None) -> Outcome:
    """Check one program (``only``: repeat only the check of this failure kind)."""
    start = time.perf_counter()
    checker = None
    try:
        with time_limit(timeout):
            try:
                checker = Checker(program, seed, only)
            except Exception as exc:  # noqa: BLE001
                return Outcome("invalid", "source", f"{type(exc).__name__}: {exc}")
            try:
                return checker.run()
            except Exception as exc:  # noqa: BLE001 - the oracle cannot judge this program: count it
                return Outcome("invalid", "oracle", f"{type(exc).__name__}: {exc}")
    except Timeout:
        if checker is None or checker.in_tool is None:  # the program itself (or the oracle) ran out of time
            return Outcome("invalid", "slow", f"no answer in {time.perf_counter() - start:.0f} s, outside the tool")
        return Outcome("failure", "timeout", f"{checker.in_tool}: no answer in {time.perf_counter() - start:.0f} s")
