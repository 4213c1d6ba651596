"""HIPS/autograd's own test suite through yota-s2s: every ``check_grads(fun, argnum)(*args)`` case.

Not a test (it needs autograd and a checkout of its tests): a list of NumPy usage the tool
refuses, biggest groups first, and a count of wrong gradients that must stay 0.

    python -m benchmarks.autograd_suite AUTOGRAD_REPO [--only test_numpy] [--show 30]

How: the suite's test modules are imported with ``autograd.test_util.check_grads`` replaced by
a recorder (``combo_check`` calls it too), and each test function run, so each case is the
function checked, its ``argnum``, arguments and keyword arguments.  The function's source
(``inspect``; a lambda found in its line), the sources of the test's helper functions it
calls, and a wrapper ``case(a0, .., W, c0, ..)`` returning ``np.sum(fun(a0, ..) * W)`` (the
vector-Jacobian product with a random ``W``, as ``check_grads`` checks) make one file; the
closure's and globals' other values (arrays) are parameters ``c0, ..``.  A library function
checked as it is (``combo_check(np.sum, ...)``) is called by its NumPy name.  (The checked function is
renamed ``checked``: the suite's wrappers call an inner function named ``fun`` too.)  The gradient of
each ``argnum`` parameter is compared with autograd's (rtol 1e-6).  Outcomes: ok, refused
(a UserError: grouped by code and message), wrong, crash (an internal error or the generated
code raising), skipped (complex values, which the case wrappers do not take; no source).
"""

from __future__ import annotations

import argparse
import ast
import collections
import importlib
import inspect
import re
import sys
import textwrap
import types
from pathlib import Path

import numpy

CASES: list[tuple] = []


def _recorder(fun, argnum=0, modes=None, order=2):
    def record(*args, **kwargs):
        CASES.append((fun, argnum, args, kwargs))

    return record


def collect(tests: Path, only: str | None) -> list[tuple]:
    """Run the suite's test functions with check_grads recording its cases."""
    import autograd.test_util

    autograd.test_util.check_grads = _recorder
    sys.path.insert(0, str(tests))
    for path in sorted(tests.glob("test_*.py")):
        if only and path.stem != only:
            continue
        numpy.random.seed(42)
        try:
            module = importlib.import_module(path.stem)
        except Exception:  # noqa: BLE001, S112 - a module the installed autograd cannot import
            continue
        for name, fn in sorted(vars(module).items()):
            if name.startswith("test_") and callable(fn) and not inspect.signature(fn).parameters:
                numpy.random.seed(42)
                start = len(CASES)
                try:
                    fn()
                except BaseException:  # noqa: BLE001, S110 - a failing test (pytest.fail too) records what it reached
                    pass
                for k in range(start, len(CASES)):
                    CASES[k] = (*CASES[k], f"{path.stem}::{name}")
    return CASES


def _lambda_source(fun) -> str | None:
    lines = textwrap.dedent(inspect.getsource(fun))
    try:
        tree = ast.parse(lines)
    except SyntaxError:
        tree = ast.parse("(" + lines.strip().rstrip(",") + ")") if lines.strip() else None
    names = fun.__code__.co_varnames[: fun.__code__.co_argcount]
    for node in ast.walk(tree):
        if isinstance(node, ast.Lambda) and tuple(a.arg for a in node.args.args) == names:
            return ast.unparse(node)
    return None


def function_source(fun, name: str) -> str | None:
    """``def name(...)`` for a Python function (a lambda made a def), None where none is found."""
    try:
        if fun.__name__ == "<lambda>":
            text = _lambda_source(fun)
            if text is None:
                return None
            lam = ast.parse(text, mode="eval").body
            return ast.unparse(ast.FunctionDef(name, lam.args, [ast.Return(lam.body)], [], lineno=1))
        tree = ast.parse(textwrap.dedent(inspect.getsource(fun)))
    except (OSError, TypeError, SyntaxError):
        return None
    fn = tree.body[0]
    if not isinstance(fn, ast.FunctionDef):
        return None
    fn.decorator_list = []
    fn.name = name
    return ast.unparse(fn)


_MODULES = {"np": "import numpy as np", "npr": "import numpy.random as npr", "onp": "import numpy as onp"}


def case_file(fun, argnum, args, kwargs, w) -> tuple[str, list, list[str]] | None:
    """The source of one case, its extra parameters' values, and the wrt names."""
    params = [repr(a) if _literal(a) else f"a{i}" for i, a in enumerate(args)]  # "ij->ji": written in
    wrt = [params[i] for i in ((argnum,) if isinstance(argnum, int) else argnum)]
    if not all(w.isidentifier() for w in wrt):
        return None
    defs, extras, imports = [], [], {"import numpy as np"}
    if isinstance(fun, types.FunctionType) and not fun.__module__.startswith("autograd"):
        todo, seen, names = [(fun, "checked")], set(), {}
        while todo:
            f, fname = todo.pop()
            if id(f) in seen:
                continue
            seen.add(id(f))
            text = function_source(f, fname)
            if text is None:
                return None
            free = dict(zip(f.__code__.co_freevars, (c.cell_contents for c in f.__closure__ or ())))
            refs = {n: f.__globals__[n] for n in f.__code__.co_names if n in f.__globals__}
            for k, v in {**refs, **free}.items():
                if isinstance(v, types.ModuleType):
                    mod = v.__name__.replace("autograd.", "")
                    imports.add(_MODULES.get(k, f"import {mod} as {k}" if mod != k else f"import {mod}"))
                elif isinstance(v, types.FunctionType) and not v.__module__.startswith("autograd"):
                    todo.append((v, k))
                elif callable(v) and getattr(v, "__module__", "").startswith("autograd"):
                    return None  # an autograd function (grad, elementwise_grad) inside the case
                elif isinstance(v, numpy.ndarray | float | int | complex | bool | tuple | list | str) or v is None:
                    if k not in names:
                        names[k] = v
                elif callable(v):
                    continue
                else:
                    return None
            defs.append(text)
        for k, v in names.items():
            extras.append((k, v))
        call = f"checked({', '.join(params)}{''.join(f', {k}={v!r}' for k, v in kwargs.items())})"
    else:
        qualified = _library_name(fun)
        if qualified is None:
            return None
        module, name = qualified
        if module != "numpy":
            imports.add(f"import {module}")
        call = f"{module.replace('numpy', 'np', 1) if module.startswith('numpy') else module}.{name}({', '.join(params)}{''.join(f', {k}={v!r}' for k, v in kwargs.items())})"
    extra_names = [k for k, _ in extras]
    # closure values enter as parameters (the case's own names, so fun reads them as globals do not)
    sig = ", ".join([*(p for p in params if p.isidentifier()), "W", *extra_names])
    body = f"def case({sig}):\n    return np.sum({call} * W)\n"
    text = "\n".join(sorted(imports)) + "\n\n\n" + "\n\n\n".join(defs) + "\n\n\n" + body
    if extra_names:  # fun reads them as free names: make them module-level reads of the case's parameters
        text = _thread(text, extra_names)
        if text is None:
            return None
    return text, [v for _, v in extras], wrt


_LIBRARIES = ("numpy", "numpy.linalg", "numpy.fft", "scipy.special", "scipy.signal", "scipy.linalg")


def _library_name(fun) -> tuple[str, str] | None:
    """(module, name) of the library function an autograd primitive wraps (``np.sum``: numpy, sum)."""
    raw, name = getattr(fun, "fun", fun), getattr(fun, "__name__", None)
    for module in _LIBRARIES:
        try:
            lib = importlib.import_module(module)
        except ImportError:
            continue
        if name is not None and getattr(lib, name, None) is raw:
            return module, name
    if name is None or str(getattr(raw, "__module__", "")).startswith("autograd.scipy") or not hasattr(numpy, name):
        return None  # autograd's own function (autograd.scipy.signal.convolve)
    return "numpy", name  # a NumPy function autograd wraps in a function of its own (np.dot)


def _literal(value) -> bool:
    """An argument written into the case as a literal: a string, None, a bool, a tuple or list of ints."""
    if isinstance(value, str | bool) or value is None:
        return True
    return isinstance(value, tuple | list) and all(type(v) is int or v is Ellipsis or _literal(v) for v in value)


def _thread(text: str, names: list[str]) -> str | None:
    """Pass the free names each helper reads as trailing keyword parameters of every function."""
    tree = ast.parse(text)
    for fn in tree.body:
        if isinstance(fn, ast.FunctionDef) and fn.name != "case":
            fn.args.kwonlyargs += [ast.arg(n) for n in names]
            fn.args.kw_defaults += [None for _ in names]
    for node in ast.walk(tree):
        own = isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        if own and any(isinstance(f, ast.FunctionDef) and f.name == node.func.id for f in tree.body):
            node.keywords += [ast.keyword(n, ast.Name(n, ast.Load())) for n in names]
    return ast.unparse(tree)


def reference(fun, argnum, args, kwargs, w) -> list:
    import autograd
    import autograd.numpy as anp

    positions = (argnum,) if isinstance(argnum, int) else tuple(argnum)
    return [autograd.grad(lambda *a: anp.sum(fun(*a, **kwargs) * w), i)(*args) for i in positions]


def run_case(case) -> tuple[str, str]:
    from yota_s2s.errors import UserError, UserErrors
    from yota_s2s.pipeline import generate

    fun, argnum, args, kwargs, where = case
    values = list(args)
    if any(isinstance(a, list | tuple) and not _literal(a) for a in values):
        return "skipped", "a list of arrays as an argument"
    if any(isinstance(a, complex) or getattr(a, "dtype", None) is not None and a.dtype.kind == "c" for a in values):
        return "skipped", "complex arguments"
    try:
        out = fun(*args, **kwargs)
    except Exception:  # noqa: BLE001
        return "skipped", "the function raises on its own"
    if not isinstance(out, numpy.ndarray | numpy.generic | float | int):
        return "skipped", "a container value (tuple, list, dict)"
    if numpy.iscomplexobj(out):
        return "skipped", "complex value"
    w = numpy.random.default_rng(0).normal(size=numpy.shape(out))
    made = case_file(fun, argnum, args, kwargs, w)
    if made is None:
        return "skipped", "no source"
    text, extras, wrt = made
    try:
        generated = generate(text, "case.py", ["case"], wrt=wrt).text
    except (UserError, UserErrors) as exc:
        err = exc.errors[0] if isinstance(exc, UserErrors) else exc
        message = re.sub(r"\d+", "_", err.message)[:90]
        return "refused", f"{err.code} {message}"
    except Exception as exc:  # noqa: BLE001
        return "crash", f"generate: {type(exc).__name__}: {str(exc)[:80]}"
    namespace: dict = {}
    try:
        exec(compile(generated, "grad_case.py", "exec"), namespace)  # noqa: S102 - the tool's output
        arrays = [v for v in values if not _literal(v)]
        _, *grads = namespace["grad_case"](*arrays, w, *extras)
    except Exception as exc:  # noqa: BLE001
        return "crash", f"run: {type(exc).__name__}: {str(exc)[:80]}"
    try:
        expected = reference(fun, argnum, args, kwargs, w)
    except Exception:  # noqa: BLE001
        return "skipped", "autograd raises"
    for got, want in zip(grads, expected):
        if not _same(got, want):
            return "wrong", where
    return "ok", ""


def _same(got, want) -> bool:
    """The tool's gradient ``got`` is autograd's ``want`` (None: zeros; dicts, lists, tuples by item)."""
    if isinstance(want, dict):
        got = got or {}
        return isinstance(got, dict) and all(_same(got.get(k), v) for k, v in want.items())
    if isinstance(want, list | tuple):
        got = [None] * len(want) if got is None else got
        return len(got) == len(want) and all(_same(g, v) for g, v in zip(got, want))
    got = numpy.zeros_like(want) if got is None else got  # None: no differentiable path
    return numpy.shape(got) == numpy.shape(want) and numpy.allclose(got, want, rtol=1e-6, atol=1e-8)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", type=Path, help="a checkout of HIPS/autograd (its tests/ folder is read)")
    parser.add_argument("--only", help="one test module (test_numpy)")
    parser.add_argument("--show", type=int, default=25, help="how many refusal groups to list")
    ns = parser.parse_args(argv)
    import warnings

    warnings.simplefilter("ignore")
    cases = collect(ns.repo / "tests", ns.only)
    outcomes = collections.Counter()
    groups: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for case in cases:
        kind, why = run_case(case)
        outcomes[kind] += 1
        if kind != "ok":
            groups[kind][why] += 1
    print(f"{len(cases)} cases: " + ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items())))
    for kind in ("wrong", "crash", "refused", "skipped"):
        for why, n in groups[kind].most_common(ns.show):
            print(f"  {kind:8} {n:4}  {why}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
