"""The project config: ``[tool.yota-s2s]`` in ``pyproject.toml`` in, a list of generated files out.

``yota-s2s`` with no source file looks for the nearest ``pyproject.toml`` with a
``[tool.yota-s2s]`` table, from the current folder up, and regenerates (or, with
``--check``, checks) every file it lists::

    [tool.yota-s2s]
    rules = ["rules/extra.py"]        # optional: rule files for every entry

    [[tool.yota-s2s.generate]]
    source = "model/loss.py"          # required
    out = "model/grad_loss.py"        # required
    func = ["loss"]                   # optional: like --func (default: the entry points)
    wrt = ["w", "b"]                  # optional: like --wrt (default: all parameters), or per
                                      # function: wrt = {loss = ["w", "b"], other = "x"}
    target = "numpy"                  # optional: like --target
    rules = ["rules/more.py"]         # optional: added to the rules above
    format = "ruff"                   # optional: like --format ruff
    buffers = true                    # optional: like --buffers
    value = false                     # optional: like --no-value (grad_NAME returns only the gradients)
    mode = "jacobian"                 # optional: "vjp", "jvp", "jacobian", "hvp", "hessian", "holomorphic", like --jacobian
    sparse = true                     # optional: like --sparse (with mode = "jacobian")
    checkpoint = 10                   # optional: like --checkpoint 10 (loops keep at most 10 snapshots)
    form = "rows"                     # optional: like --form (default "auto")

Paths are relative to the folder of ``pyproject.toml``.  Each entry is the same
as one command, run in that folder; ``Entry.argv`` is that command, and it is
the one written in the generated file's header.  A bad config is a ``YS007``
error located in ``pyproject.toml``.
"""

from __future__ import annotations

import os
import re
import shlex
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from .codegen.target import BACKENDS, DEFAULT_TARGET
from .errors import UserError
from .ir.modes import FORMS, MODES

CONFIG_FILE = "pyproject.toml"
TARGETS = tuple(BACKENDS)
FORMATTERS = ("ruff",)
_TOP_KEYS = ("generate", "rules")
_ENTRY_KEYS = (
    "source",
    "out",
    "func",
    "wrt",
    "target",
    "rules",
    "format",
    "buffers",
    "value",
    "mode",
    "sparse",
    "checkpoint",
    "form",
)
_TABLE = r'tool\s*\.\s*(?:yota-s2s|"yota-s2s"|\'yota-s2s\')'


@dataclass(frozen=True)
class Entry:
    """One generated file: the options of the ``yota-s2s`` command that writes it."""

    source: str
    out: str
    funcs: list[str] | None = None
    #: the parameters of every function (a list), or of some functions by name (a dict; the
    #: others: all parameters); None: all parameters
    wrt: list[str] | dict[str, list[str]] | None = None
    target: str = DEFAULT_TARGET
    rules: list[str] = field(default_factory=list)
    format: str | None = None
    buffers: bool = False
    value: bool = True
    mode: str = "grad"  # grad_NAME; vjp_NAME (--vjp); jvp_NAME (--jvp); jac_NAME (--jacobian); hvp_NAME, hess_NAME
    sparse: bool = False  # --sparse (with --jacobian): sparse Jacobians
    checkpoint: int = 0  # --checkpoint S: binomial checkpointing of loops with S snapshots
    form: str = "auto"  # --form: the algorithms a function may hold (ir.modes.FORMS)

    def argv(self) -> list[str]:
        """The command's arguments, in the order ``yota-s2s`` writes them in the header.

        >>> Entry("loss.py", "grad_loss.py", funcs=["loss"], wrt=["w", "b"]).argv()
        ['loss.py', '--func', 'loss', '--wrt', 'w,b', '--out', 'grad_loss.py']
        """
        argv = [self.source]
        for f in self.funcs or []:
            argv += ["--func", f]
        for r in self.rules:
            argv += ["--rules", r]
        if isinstance(self.wrt, dict):
            argv += [a for func, names in self.wrt.items() for a in ("--wrt", f"{func}:{','.join(names)}")]
        elif self.wrt:
            argv += ["--wrt", ",".join(self.wrt)]
        if self.target != DEFAULT_TARGET:
            argv += ["--target", self.target]
        if self.out != "-":
            argv += ["--out", self.out]
        if self.format:
            argv += ["--format", self.format]
        if self.buffers:
            argv += ["--buffers"]
        if self.checkpoint:
            argv += ["--checkpoint", str(self.checkpoint)]
        if not self.value:
            argv += ["--no-value"]
        if MODES[self.mode].flag:
            argv += [MODES[self.mode].flag]
        if self.sparse:
            argv += ["--sparse"]
        if self.form != "auto":
            argv += ["--form", self.form]
        return argv

    def command(self) -> str:
        """The command that writes this file, on one line, quoted for the shell (the header's
        ``# regenerate:`` line; the command line and the Python API both write it).

        >>> Entry("my loss.py", "grad_loss.py").command()
        "yota-s2s 'my loss.py' --out grad_loss.py"
        >>> print(Entry("a\\nb.py", "-").command())
        yota-s2s $'a\\nb.py'
        """
        return " ".join(shell_quote(arg) for arg in ["yota-s2s", *self.argv()])


def shell_quote(arg: str) -> str:
    """``arg`` quoted for a POSIX shell, always on one line of printable text.

    ``shlex.quote`` when ``arg`` is printable; otherwise ANSI-C quoting (``$'...'``, POSIX.1-2024,
    bash, zsh, ksh), with a control character or a byte that is not UTF-8 (a file name read with
    ``surrogateescape``) as a backslash escape, so that no name can break a line of the output.

    >>> print(shell_quote("loss.py"), shell_quote("it's.py"), shell_quote("a\\x1b[0m\\tb"))
    loss.py 'it'"'"'s.py' $'a\\x1b[0m\\tb'
    """
    if arg.isprintable():
        return shlex.quote(arg)
    named = {0x5C: "\\\\", 0x27: "\\'", 0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t"}
    out = []
    for ch in arg:
        if ch.isprintable() and ch not in "\\'":
            out.append(ch)
            continue
        for byte in os.fsencode(ch) if not ch.isprintable() else ch.encode():
            out.append(named.get(byte) or (chr(byte) if 0x20 <= byte < 0x7F else f"\\x{byte:02x}"))
    return "$'" + "".join(out) + "'"


def parse_wrt(values: list[str] | None) -> list[str] | dict[str, list[str]] | None:
    """The ``--wrt`` options: ``A,B`` for every function, or ``FUNC:A,B`` (repeatable) for
    one; ``ValueError`` with the reason for a bad form.

    >>> parse_wrt(["w,b"]), parse_wrt(["loss:w,b", "other:x"]), parse_wrt(None)
    (['w', 'b'], {'loss': ['w', 'b'], 'other': ['x']}, None)
    """
    if not values:
        return None
    plain = [v for v in values if ":" not in v]
    if plain and len(values) > 1:
        raise ValueError(
            "--wrt A,B applies to every function and is given once; for one function, write --wrt FUNC:A,B (repeatable)"
        )
    if plain:
        names = [w.strip() for w in plain[0].split(",") if w.strip()]
        if not names:
            raise ValueError("--wrt needs at least one parameter name")
        return names
    per: dict[str, list[str]] = {}
    for value in values:
        func, _, rest = value.partition(":")
        func = func.strip()
        names = [w.strip() for w in rest.split(",") if w.strip()]
        if not func.isidentifier() or not names:
            raise ValueError(f"--wrt {value!r}: write FUNC:A,B (a function, then its parameters)")
        if func in per:
            raise ValueError(f"--wrt gives the parameters of {func} twice")
        per[func] = names
    return per


@dataclass(frozen=True)
class Project:
    """A ``pyproject.toml`` and the generated files its ``[tool.yota-s2s]`` table lists."""

    config: Path
    entries: list[Entry]

    @property
    def root(self) -> Path:
        return self.config.parent


def find_project(start: Path) -> Project | None:
    """The nearest ``pyproject.toml`` with a ``[tool.yota-s2s]`` table, from ``start`` up; None if none."""
    for folder in [start, *start.parents]:
        path = folder / CONFIG_FILE
        if path.is_file():
            project = load_project(path)
            if project is not None:
                return project
    return None


def load_project(path: Path) -> Project | None:
    """The entries of ``path``'s ``[tool.yota-s2s]`` table (None when it has none); YS007 when bad.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "pyproject.toml"
    ...     _ = path.write_text('[[tool.yota-s2s.generate]]\\nsource = "loss.py"\\nout = "grad_loss.py"\\nwrt = "w,b"\\n')
    ...     load_project(path).entries
    [Entry(source='loss.py', out='grad_loss.py', funcs=None, wrt=['w', 'b'], target='numpy', rules=[], format=None, buffers=False, value=True, mode='grad', sparse=False, checkpoint=0, form='auto')]
    """
    shown = _shown(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
        raise UserError("YS007", f"cannot read the project config: {reason}", shown) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        found = re.search(r"\(at line (\d+), column (\d+)\)$", message)
        line, col = (int(found[1]), int(found[2])) if found else (0, 0)
        reason = message[: found.start()].rstrip() if found else message
        raise _error(f"not valid TOML: {reason}", shown, text, line, col) from None
    table = data.get("tool", {}).get("yota-s2s") if isinstance(data.get("tool"), dict) else None
    if table is None:
        return None
    checker = _Checker(shown, text)
    if not isinstance(table, dict):
        raise checker.error("[tool.yota-s2s] must be a table")
    for key in table:
        if key not in _TOP_KEYS:
            raise checker.error(f"unknown key {key!r} in [tool.yota-s2s] (known: {', '.join(_TOP_KEYS)})", key=key)
    common_rules = checker.names(table, "rules", None, split=False) or []
    generate = table.get("generate")
    if not isinstance(generate, list) or not generate or not all(isinstance(e, dict) for e in generate):
        raise checker.error(
            "[tool.yota-s2s] needs a list of files to generate: one [[tool.yota-s2s.generate]] table per file, "
            "with source = ... and out = ...",
            key="generate" if "generate" in table else None,
        )
    entries = [checker.entry(i, e, common_rules) for i, e in enumerate(generate)]
    seen: dict[str, int] = {}
    for i, e in enumerate(entries):
        out = str(Path(e.out))
        if out in seen:
            raise checker.error(f"entries {seen[out] + 1} and {i + 1} both write {e.out!r}", i, "out")
        seen[out] = i
    return Project(path, entries)


class _Checker:
    """Type checks of the table's values, each failure located at its key in the file."""

    def __init__(self, shown: str, text: str):
        self.shown = shown
        self.text = text
        self.lines = text.splitlines()

    def entry(self, index: int, raw: dict, common_rules: list[str]) -> Entry:
        for key in raw:
            if key not in _ENTRY_KEYS:
                raise self.error(
                    f"unknown key {key!r} in [[tool.yota-s2s.generate]] (known: {', '.join(_ENTRY_KEYS)})", index, key
                )
        source = self.path(raw, "source", index)
        out = self.path(raw, "out", index)
        if Path(source) == Path(out):
            raise self.error(f"out is the source file {source!r}", index, "out")
        target = raw.get("target", DEFAULT_TARGET)
        if target not in TARGETS:
            raise self.error(f"target must be one of {', '.join(TARGETS)}, not {target!r}", index, "target")
        formatter = raw.get("format")
        if formatter is not None and formatter not in FORMATTERS:
            raise self.error(f"format must be one of {', '.join(FORMATTERS)}, not {formatter!r}", index, "format")
        buffers, value = self.flag(raw, "buffers", False, index), self.flag(raw, "value", True, index)
        mode = raw.get("mode", "grad")
        if mode not in MODES:
            raise self.error(f"mode must be one of {', '.join(map(repr, MODES))}, not {mode!r}", index, "mode")
        sparse = self.flag(raw, "sparse", False, index)  # (like --sparse)
        checkpoint = raw.get("checkpoint", 0)  # (like --checkpoint S; what S suits is the pipeline's YS043)
        if type(checkpoint) is not int:
            raise self.error(f"checkpoint must be a number of snapshots, not {checkpoint!r}", index, "checkpoint")
        form = raw.get("form", "auto")
        if form not in FORMS:
            raise self.error(f"form must be one of {', '.join(map(repr, FORMS))}, not {form!r}", index, "form")
        return Entry(
            source=source,
            out=out,
            funcs=self.names(raw, "func", index),
            wrt=self.wrt(raw, index),
            target=target,
            rules=[*common_rules, *(self.names(raw, "rules", index, split=False) or [])],
            format=formatter,
            buffers=buffers,
            value=value,
            mode=mode,
            sparse=sparse,
            checkpoint=checkpoint,
            form=form,
        )

    def flag(self, raw: dict, key: str, default: bool, index: int) -> bool:
        value = raw.get(key, default)
        if not isinstance(value, bool):
            raise self.error(f"{key} must be true or false, not {value!r}", index, key)
        return value

    def path(self, raw: dict, key: str, index: int) -> str:
        value = raw.get(key)
        if value is None:
            raise self.error(f'this entry has no {key} = "..."', index)
        if not isinstance(value, str) or not value.strip():
            raise self.error(f"{key} must be a file name (a string)", index, key)
        return value

    def wrt(self, raw: dict, index: int) -> list[str] | dict[str, list[str]] | None:
        """``wrt``: names for every function, or a table of them by function name."""
        value = raw.get("wrt")
        if not isinstance(value, dict):
            return self.names(raw, "wrt", index)
        if not value:
            raise self.error("wrt = {} names no function: give FUNC = [names] pairs, or leave wrt out", index, "wrt")
        funcs = self.names(raw, "func", index)
        per = {}
        for func, names in value.items():
            if not func.isidentifier():
                raise self.error(f"wrt: {func!r} is not a function name", index, "wrt")
            if funcs is not None and func not in funcs:
                raise self.error(
                    f"wrt: {func!r} is not one of the functions of func ({', '.join(funcs)})", index, "wrt"
                )
            per[func] = self.names({"wrt": names}, "wrt", index, label=f"wrt.{func}") or []
        return per

    def names(
        self, raw: dict, key: str, index: int | None, split: bool = True, label: str | None = None
    ) -> list[str] | None:
        """A list of strings, or one string (comma-separated when ``split``); None when absent.
        ``label``: the value's name in the message (default ``key``)."""
        value = raw.get(key)
        if value is None:
            return None
        if isinstance(value, str):
            value = value.split(",") if split else [value]
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value) or not value:
            kind = "a list of names" if split else "a list of file names"
            raise self.error(f"{label or key} must be a string or {kind}", index, key)
        return [v.strip() for v in value]

    def error(self, message: str, index: int | None = None, key: str | None = None) -> UserError:
        line = self._locate(index, key)
        return _error(message, self.shown, self.text, line, _column(self.lines, line, key))

    def _locate(self, index: int | None, key: str | None) -> int:
        """The 1-based line of ``key`` in the ``index``-th generate table (or the top table); 0 if not found."""
        header = rf"^\s*\[\[\s*{_TABLE}\s*\.\s*generate\s*\]\]" if index is not None else rf"^\s*\[\s*{_TABLE}\s*\]"
        starts = [i for i, line in enumerate(self.lines) if re.match(header, line)]
        if index is not None:
            starts = starts[index : index + 1]
        for start in starts[:1]:
            if key is None:
                return start + 1
            for i in range(start + 1, len(self.lines)):
                if re.match(r"^\s*\[", self.lines[i]):
                    break
                if re.match(rf"^\s*[\"']?{re.escape(key)}[\"']?\s*=", self.lines[i]):
                    return i + 1
            return start + 1
        return 0


def _column(lines: list[str], line: int, key: str | None) -> int:
    if not line:
        return 0
    text = lines[line - 1]
    found = text.find(key) if key else -1
    return (found if found >= 0 else len(text) - len(text.lstrip())) + 1


def _error(message: str, shown: str, text: str, line: int, col: int) -> UserError:
    lines = text.splitlines()
    source_line = lines[line - 1] if 0 < line <= len(lines) else None
    return UserError("YS007", message, shown, line, col, source_line)


def _shown(path: Path) -> str:
    """``path`` as a user would type it from the current folder."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)
