"""The CuPy API as the ``cupy`` target knows it: which names exist, and which calls they accept.

Generating for ``--target cupy`` must not need CuPy installed, so the API is a checked-in
table, ``cupy_api.json`` beside this module, written from the installed CuPy by
``python -m yota_s2s.codegen.cupy_api --write`` and compared with it by ``--check`` (and by
``tests/test_cupy.py``).  It maps each public dotted name of the modules in ``MODULES`` to
its call signature, every default written ``...``; a name that is not called (``cupy.inf``,
``cupy.s_``) maps to ``null``.

Signatures come from ``inspect.signature``.  What it cannot read is found another way:
a ufunc is ``(x1, x2, out1=..., /, *, KEYWORDS)``, its keywords found by calling it with
each keyword NumPy's ufuncs take (CuPy rejects an unknown keyword before it touches a
GPU); ``add.at`` is recorded for the ufuncs whose ``at`` is implemented (found the same
way); a Cython function's signature is read from the first line of its docstring.

    >>> api = load()
    >>> api.signature("cupy.sum")
    '(a, axis=..., dtype=..., out=..., keepdims=...)'
    >>> api.problem("cupy.linalg.multi_dot", 1, [])
    'CuPy 14.2.0 has no cupy.linalg.multi_dot'
    >>> api.problem("cupy.linalg.cholesky", 1, ["upper"])
    "cupy.linalg.cholesky() has no keyword 'upper' in CuPy 14.2.0"
    >>> api.problem("cupy.add.at", 3, []) is None
    True
"""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
import json
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

#: The modules whose names are recorded (cupyx.scipy.linalg and others import CUDA libraries).
MODULES = ("cupy", "cupy.linalg", "cupy.random", "cupy.fft", "cupyx", "cupyx.scipy.special")

#: The keywords of NumPy's ufuncs, tried on each CuPy ufunc.
UFUNC_KEYWORDS = ("out", "where", "casting", "order", "dtype", "subok", "signature")

#: The ufunc methods tried on each ufunc (``np.add.at`` writes scatter-adds).
UFUNC_METHODS = ("at",)

TABLE = Path(__file__).with_name("cupy_api.json")


@dataclass(frozen=True)
class CupyApi:
    """The recorded API: ``version`` of ``library`` (CuPy, or the array API standard), and ``names``:
    dotted name -> signature text or None."""

    version: str
    names: dict[str, str | None]
    library: str = "CuPy"

    def has(self, name: str) -> bool:
        """``name`` (``cupy.linalg.inv``) is in the recorded CuPy."""
        return name in self.names

    def signature(self, name: str) -> str | None:
        """The signature text of ``name`` (None for a name that is not a function)."""
        return self.names[name]

    def lacks(self, name: str) -> str | None:
        """``CuPy VERSION has no NAME`` when it has not, else None."""
        return None if name in self.names else f"{self.library} {self.version} has no {name}"

    def problem(self, name: str, positional: int | None, keywords: Sequence[str]) -> str | None:
        """Why ``name(<positional arguments>, <keywords>=...)`` fails on this CuPy, or None.

        ``positional`` None: not known (``f(*xs)``); only the keywords are checked.
        """
        if name not in self.names:
            return self.lacks(name)
        text = self.names[name]
        if text is None:
            return f"{name} is not a function in {self.library} {self.version}"
        sig = parse_signature(text)
        for k in keywords:
            if not _accepts_keyword(sig, k):
                return f"{name}() has no keyword {k!r} in {self.library} {self.version}"
        try:
            if positional is None:
                sig.bind_partial(**dict.fromkeys(keywords))
            else:
                sig.bind(*[None] * positional, **dict.fromkeys(keywords))
        except TypeError as exc:
            return f"{name}{text} cannot take these arguments in {self.library} {self.version}: {exc}"
        return None


def _accepts_keyword(sig: inspect.Signature, name: str) -> bool:
    p = sig.parameters.get(name)
    if p is not None and p.kind is not inspect.Parameter.POSITIONAL_ONLY:
        return True
    return any(p.kind is inspect.Parameter.VAR_KEYWORD for p in sig.parameters.values())


@functools.cache
def load() -> CupyApi:
    """The checked-in table."""
    data = json.loads(TABLE.read_text(encoding="utf-8"))
    return CupyApi(data["cupy_version"], data["names"])


# ----------------------------------------------------------------------------- signatures as text


def signature_text(sig: inspect.Signature) -> str:
    """``sig`` with no annotations and every default ``...``: ``(a, /, axis=..., *, out=...)``.

    >>> signature_text(inspect.signature(lambda a, b=2, *c, d, **e: 0))
    '(a, b=..., *c, d, **e)'
    """
    parts: list[str] = []
    kinds = inspect.Parameter
    star = False
    for i, p in enumerate(sig.parameters.values()):
        if p.kind is kinds.KEYWORD_ONLY and not star:
            parts.append("*")
            star = True
        if p.kind is kinds.VAR_POSITIONAL:
            parts.append(f"*{p.name}")
            star = True
        elif p.kind is kinds.VAR_KEYWORD:
            parts.append(f"**{p.name}")
        else:
            parts.append(p.name + ("=..." if p.default is not p.empty else ""))
        following = list(sig.parameters.values())[i + 1 :]
        if p.kind is kinds.POSITIONAL_ONLY and not (following and following[0].kind is kinds.POSITIONAL_ONLY):
            parts.append("/")
    return "(" + ", ".join(parts) + ")"


def parse_signature(text: str) -> inspect.Signature:
    """The ``inspect.Signature`` of a text ``signature_text`` wrote (defaults are ``...``)."""
    args = ast.parse(f"def f{text}: pass").body[0].args
    kinds = inspect.Parameter
    params: list[inspect.Parameter] = []
    positional = [(a, kinds.POSITIONAL_ONLY) for a in args.posonlyargs] + [
        (a, kinds.POSITIONAL_OR_KEYWORD) for a in args.args
    ]
    first_default = len(positional) - len(args.defaults)
    for i, (a, kind) in enumerate(positional):
        params.append(kinds(a.arg, kind, default=... if i >= first_default else kinds.empty))
    if args.vararg:
        params.append(kinds(args.vararg.arg, kinds.VAR_POSITIONAL))
    for a, d in zip(args.kwonlyargs, args.kw_defaults):
        params.append(kinds(a.arg, kinds.KEYWORD_ONLY, default=kinds.empty if d is None else ...))
    if args.kwarg:
        params.append(kinds(args.kwarg.arg, kinds.VAR_KEYWORD))
    return inspect.Signature(params)


def _docstring_signature(obj: object) -> str | None:
    """A Cython function's signature from its docstring's first line: ``size(_ndarray_base a, axis=None)``."""
    first = (getattr(obj, "__doc__", None) or "").strip().splitlines()[:1]
    match = re.match(r"^[\w.]+\((.*)\)", first[0]) if first else None
    if match is None:
        return None
    parts, depth, current = [], 0, ""
    for c in match.group(1):
        depth += c in "([{"
        depth -= c in ")]}"
        if c == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += c
    parts.append(current)
    names = []
    for part in parts:
        name, eq, _ = part.strip().partition("=")
        name = name.split()[-1] if name.split() else ""
        if name and name != "self":
            names.append(name + ("=..." if eq else ""))
    text = "(" + ", ".join(names) + ")"
    try:
        parse_signature(text)
    except SyntaxError:
        return None
    return text


# ----------------------------------------------------------------------------- reading the installed CuPy


def _rejects(func, *args, **kwargs) -> bool:
    """``func(*args, **kwargs)`` fails on the arguments themselves (not for want of a GPU)."""
    try:
        func(*args, **kwargs)
    except TypeError as exc:  # CuPy's own words for a keyword it does not take
        return "Wrong arguments" in str(exc)
    except NotImplementedError:
        return True
    except Exception:  # noqa: BLE001 - no GPU (CUDARuntimeError), or bad values: the arguments were taken
        return False
    return False


def _ufunc_signature(u) -> str:
    keywords = [k for k in UFUNC_KEYWORDS if not _rejects(u, *[1.0] * u.nin, **{k: None})]
    inputs = ["x"] if u.nin == 1 else [f"x{i + 1}" for i in range(u.nin)]
    outputs = [f"out{i + 1}=..." for i in range(u.nout)]
    return "(" + ", ".join([*inputs, *outputs, "/", "*", *(f"{k}=..." for k in keywords)]) + ")"


def _callable_signature(obj: object) -> str:
    try:
        return signature_text(inspect.signature(obj))
    except (TypeError, ValueError):
        return _docstring_signature(obj) or "(*args, **kwargs)"


def describe() -> dict:
    """The table of the installed CuPy (what ``--write`` writes)."""
    import cupy
    import numpy

    names: dict[str, str | None] = {}
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        for attr in sorted(dir(module)):
            if attr.startswith("_"):
                continue
            obj = getattr(module, attr)
            name = f"{module_name}.{attr}"
            if inspect.ismodule(obj):
                continue
            if isinstance(obj, cupy.ufunc):
                names[name] = _ufunc_signature(obj)
                for method in UFUNC_METHODS:
                    call = getattr(obj, method)
                    if not _rejects(call, numpy.zeros(3), numpy.array([0]), 1.0):
                        names[f"{name}.{method}"] = _docstring_signature(call)
            elif callable(obj) and not isinstance(obj, numpy.ndarray):
                names[name] = _callable_signature(obj)
            else:
                names[name] = None
    return {"cupy_version": cupy.__version__, "modules": list(MODULES), "names": names}


def dumps(table: dict) -> str:
    """The JSON text of ``table``: one name a line, sorted, so a CuPy upgrade reads as a diff."""
    lines = [f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in sorted(table["names"].items())]
    head = f'{{\n  "cupy_version": {json.dumps(table["cupy_version"])},\n  "modules": {json.dumps(table["modules"])},\n'
    return head + '  "names": {\n' + ",\n".join("  " + line for line in lines) + "\n  }\n}\n"


def table_command(argv: list[str], table: Path, text: Callable[[], str], source: str, module: str) -> int:
    """A table tool's command line: ``--write`` writes ``text()`` (the table as ``source`` has it)
    to ``table``; ``--check`` exits 1 where the file differs; anything else is a usage error."""
    if argv not in (["--write"], ["--check"]):
        print(f"usage: python -m {module} --write | --check", file=sys.stderr)
        return 2
    current = text()
    if argv == ["--write"]:
        table.write_text(current, encoding="utf-8")
        return 0
    if table.read_text(encoding="utf-8") != current:
        print(f"{table}: out of date with {source}; run 'python -m {module} --write'")
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    """``--write``: write the table from the installed CuPy; ``--check``: exit 1 when it differs."""
    argv = sys.argv[1:] if argv is None else argv
    return table_command(argv, TABLE, lambda: dumps(describe()), "the installed CuPy", "yota_s2s.codegen.cupy_api")


if __name__ == "__main__":
    raise SystemExit(main())
