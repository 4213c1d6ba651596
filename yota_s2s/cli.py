"""The command line: ``yota-s2s SOURCE.py [options]``, or ``yota-s2s`` for the project config.

Exit codes: 0 ok; 1 a generated file is out of date (``--check``, ``--diff``)
or a gradient failed ``--verify``; 2 user error (unsupported code, missing
rule, bad arguments, unreadable file, bad config) or internal error.
Diagnostics go to stderr as ``path:line:col: error: message (YSnnn)`` with the
source line and a caret; never a traceback for a user error.  The output file
is written atomically (temporary file + rename), so a failed run leaves the
previous file as it was.  The source is parsed, never executed, except by
``--verify``, which imports it to run the function.

Without a SOURCE, the files listed in ``[tool.yota-s2s]`` of the nearest
``pyproject.toml`` are regenerated (or checked); see ``project.py``.
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import traceback
from collections.abc import Sequence
from pathlib import Path

from .dsl.load import load_rules
from .errors import InternalError, UserError, UserErrors
from .files import load_source, read_output, write_atomically
from .ir.printer import format_tape
from .pipeline import STAGES, generate
from .project import TARGETS, Entry, find_project
from .verify import verify_generated
from .version import __version__

#: The ruff version ``--format ruff`` is pinned to (the ``format`` extra installs it).
RUFF_VERSION = "0.17.6"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse's own errors, in our format
        self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message} (YS005)", file=sys.stderr)
        sys.exit(2)


def _parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="yota-s2s",
        description="Write the reverse-mode gradient of Python/NumPy functions as a standalone module.",
        epilog="Docs: docs/cli.md. Example: yota-s2s loss.py --out grad_loss.py",
    )
    p.add_argument(
        "source",
        nargs="?",
        help="the Python file holding the functions to differentiate (default: every file listed in "
        "[tool.yota-s2s] of the nearest pyproject.toml)",
    )
    p.add_argument(
        "--func",
        action="append",
        metavar="NAME",
        help="a function to differentiate (repeatable or comma-separated; default: the entry points, "
        "the public top-level functions that no other function in the file calls)",
    )
    p.add_argument("--wrt", metavar="A,B", help="parameters to differentiate with respect to (default: all)")
    p.add_argument("--target", choices=TARGETS, default="numpy", help="the array library of the output")
    p.add_argument(
        "--rules",
        action="append",
        default=[],
        metavar="FILE",
        help="a rule file loaded on top of the shipped rules (repeatable; see docs/custom-rules.md)",
    )
    p.add_argument(
        "--list-rules",
        action="store_true",
        help="print the primitives (with --rules files) and the source names that reach them, then exit",
    )
    p.add_argument("--out", metavar="FILE", default="-", help="output file, or - for stdout (default)")
    p.add_argument(
        "--dump-ir",
        metavar="STAGE",
        choices=STAGES,
        help=f"print the tape after STAGE ({', '.join(STAGES)}) to stdout; "
        "the module is then written only to an --out FILE",
    )
    p.add_argument(
        "--check",
        action="store_true",
        help="regenerate in memory and exit 1 if the --out FILE differs from it or is missing; write nothing",
    )
    p.add_argument(
        "--diff",
        action="store_true",
        help="print a unified diff from the --out FILE to the regenerated module; exit 1 if they differ",
    )
    p.add_argument(
        "--buffers",
        action="store_true",
        help="also write a class per function (GradNAME) that reuses its arrays across calls of the same "
        "shapes; its returned gradients are overwritten by the next call (see docs/buffers.md)",
    )
    p.add_argument(
        "--no-value",
        dest="value",
        action="store_false",
        help="grad_NAME returns only the gradients (d_A, d_B, ...), like jax.grad, and skips the work that "
        "only the value needs",
    )
    p.add_argument("--format", choices=["ruff"], help=f"run ruff's formatter (ruff=={RUFF_VERSION}) on the module")
    p.add_argument(
        "--verify",
        action="store_true",
        help="import SOURCE (this runs its code) and check each gradient against finite differences "
        "at inputs from --example or --shape; exit 1 on a mismatch",
    )
    p.add_argument(
        "--example",
        metavar="FILE",
        help="--verify inputs: a .npz of arrays (by parameter name, or arr_0, arr_1, ... in order), or a .py "
        "file that defines args, a tuple of arguments or a dict of them by name",
    )
    p.add_argument(
        "--shape",
        action="append",
        default=[],
        metavar="NAME=D1,D2",
        help="--verify inputs: a random float64 array of this shape for parameter NAME (repeatable; "
        "NAME= for a scalar)",
    )
    p.add_argument(
        "--seed", type=int, default=0, metavar="N", help="--verify: the seed of the random inputs and directions"
    )
    p.add_argument("--version", action="version", version=f"yota-s2s {__version__}")
    return p


def _entry(args: argparse.Namespace) -> Entry:
    """The command line's options, as given (the header repeats them)."""
    return Entry(
        source=args.source,
        out=args.out,
        funcs=args.func,
        wrt=[args.wrt] if args.wrt else None,
        target=args.target,
        rules=args.rules,
        format=args.format,
        buffers=args.buffers,
        value=args.value,
    )


def _command(entry: Entry) -> str:
    """The exact command that regenerates the file (shell-quoted, on one line)."""
    return entry.command()


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.list_rules:
        return _list_rules(args.rules)
    if (args.example or args.shape) and not args.verify:
        parser.error("--example and --shape give the inputs of --verify")
    if args.source is None:
        return _main_project(parser, args)
    if (args.check or args.diff) and args.out == "-":
        parser.error("--check and --diff compare with the committed file: give it with --out FILE")
    funcs = [f.strip() for group in args.func or [] for f in group.split(",") if f.strip()] or None
    wrt = [w.strip() for w in args.wrt.split(",") if w.strip()] if args.wrt is not None else None
    if wrt == []:
        parser.error("--wrt needs at least one parameter name")
    entry = _entry(args)
    generated = None
    try:
        source = load_source(args.source)
        generated = generate(
            source.text,
            args.source,
            funcs,
            wrt,
            args.target,
            args.rules,
            command=_command(entry),
            buffers=args.buffers,
            value=args.value,
            source_sha256=source.sha256,
        )
        for warning in generated.warnings:
            print(warning.format("warning"), file=sys.stderr)
        text = _ruff_format(generated.text, args.out) if args.format else generated.text
        if args.dump_ir:
            sys.stdout.write("".join(format_tape(t) for t in generated.tapes[args.dump_ir]))
        status = 0
        if args.verify:
            status = verify_generated(
                args.source,
                text,
                wrt,
                example=args.example,
                shape_specs=args.shape,
                seed=args.seed,
                value=args.value,
            )
        if args.check or args.diff:
            return max(status, _compare(entry, text, _command(entry), args.check, args.diff))
        if status or (args.out == "-" and (args.dump_ir or args.verify)):
            return status
        _write(args.out, text, _protected(args.source, args.rules, args.example))
        return 0
    except (UserError, UserErrors) as exc:
        return _report(exc)
    except Exception as exc:  # noqa: BLE001 - every other failure is a bug of ours
        return _internal(exc, generated, args.source)


def _main_project(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """``yota-s2s [--check] [--diff]``: every file listed in ``[tool.yota-s2s]`` of pyproject.toml."""
    given = [
        option
        for option, value in [
            ("--func", args.func),
            ("--wrt", args.wrt),
            ("--rules", args.rules),
            ("--out", args.out != "-"),
            ("--target", args.target != "numpy"),
            ("--dump-ir", args.dump_ir),
            ("--format", args.format),
            ("--buffers", args.buffers),
            ("--no-value", not args.value),
            ("--verify", args.verify),
        ]
        if value
    ]
    try:
        project = find_project(Path.cwd())
    except UserError as exc:
        return _report(exc)
    if project is None:
        parser.error(
            "give a SOURCE.py, or list the files to generate in [tool.yota-s2s] of a pyproject.toml "
            "(none found in this folder or above it)"
        )
    if given:
        parser.error(f"{given[0]} needs a SOURCE.py; for the files of {project.config.name}, set it there")
    cwd = os.getcwd()
    os.chdir(project.root)  # the config's paths, and the commands in the headers, are relative to it
    try:
        return _run_entries(project.entries, args, project.config.name)
    finally:
        os.chdir(cwd)


def _run_entries(entries: list[Entry], args: argparse.Namespace, config: str) -> int:
    status = 0
    for entry in entries:
        generated = None
        try:
            command = _command(entry)
            source = load_source(entry.source)
            generated = generate(
                source.text,
                entry.source,
                entry.funcs,
                entry.wrt,
                entry.target,
                entry.rules,
                command=command,
                buffers=entry.buffers,
                value=entry.value,
                source_sha256=source.sha256,
            )
            text = _ruff_format(generated.text, entry.out) if entry.format else generated.text
            if args.check or args.diff:
                status = max(status, _compare(entry, text, "yota-s2s", args.check, args.diff))
            elif read_output(entry.out) != text.encode():
                _write(entry.out, text, {config: "the project config", **_protected(entry.source, entry.rules)})
                print(f"{entry.out}: regenerated from {entry.source}")
        except (UserError, UserErrors) as exc:
            status = max(status, _report(exc))
        except Exception as exc:  # noqa: BLE001 - every other failure is a bug of ours
            status = max(status, _internal(exc, generated, entry.source))
    return status


def _protected(source: str, rules: list[str], example: str | None = None) -> dict[str, str]:
    """The files an output must never overwrite, each with what it is."""
    protect = {path: "the rule file" for path in rules}
    if example:
        protect[example] = "the --example file"
    return {source: "the source file", **protect}


def _write(out: str, text: str, protect: dict[str, str]) -> None:
    """Write the module to ``out`` (``-``: stdout), never over a file of ``protect`` (the source,
    the rule files, the example, the project config) nor over anything but a regular file."""
    if out == "-":
        sys.stdout.write(text)
        return
    try:
        write_atomically(out, text, protect)
    except OSError as exc:
        raise UserError("YS006", f"cannot write the output file: {exc.strerror}", out) from None


def _compare(entry: Entry, text: str, command: str, check: bool, diff: bool) -> int:
    """``--check`` / ``--diff`` of ``entry.out`` against ``text``: 0 when identical, 1 when not."""
    committed = read_output(entry.out)
    if committed == text.encode():
        return 0
    if diff:
        before = committed.decode("utf-8", errors="replace") if committed is not None else ""
        sys.stdout.writelines(
            difflib.unified_diff(
                before.splitlines(keepends=True),
                text.splitlines(keepends=True),
                f"{entry.out} (committed)" if committed is not None else f"{entry.out} (missing)",
                f"{entry.out} (regenerated from {entry.source})",
            )
        )
    if check or not diff:
        changed = _changed_sources(committed, entry.source)  # named where a file it imports changed
        why = f" ({', '.join(changed)} changed)" if set(changed) - {entry.source} else ""
        print(f"{entry.out}: out of date with {entry.source}{why}; run '{command}'", file=sys.stderr)
    return 1


def _changed_sources(committed: bytes | None, source: str) -> list[str]:
    """The source files whose bytes are not those the committed header records (``source-sha256``,
    ``also-read``: a helper's file imported from the project), in the header's order."""
    if committed is None:
        return []
    recorded: list[tuple[str, str]] = []
    for line in committed.decode("utf-8", errors="replace").splitlines()[:64]:
        if not line.startswith("#"):
            break
        if line.startswith("# source-sha256: "):
            recorded.append((source, line.split(": ", 1)[1].strip()))
        elif line.startswith("# also-read: ") and " sha256: " in line:
            path, sha = line[len("# also-read: ") :].rsplit(" sha256: ", 1)
            recorded.append((path, sha.strip()))
    changed = []
    for path, sha in recorded:
        try:
            current = hashlib.sha256(Path(path).read_bytes()).hexdigest()
        except OSError:
            current = None
        if current != sha:
            changed.append(path)
    return changed


def _internal(exc: Exception, generated: object, source: str) -> int:
    report = _internal_report(exc, generated)
    kind = "internal error" if isinstance(exc, InternalError) else f"internal error ({type(exc).__name__})"
    print(
        f"{source}: {kind}: {exc}; this is a bug in yota-s2s, please report it with the details in {report}",
        file=sys.stderr,
    )
    return 2


# ---------------------------------------------------------------------------------------------- --format ruff


def _ruff_format(text: str, out: str) -> str:
    """``text`` formatted by ``ruff format`` (the project's ruff settings apply, as for ``out``)."""
    if importlib.util.find_spec("ruff") is not None:
        ruff = [sys.executable, "-m", "ruff"]
    elif shutil.which("ruff"):
        ruff = [shutil.which("ruff")]
    else:
        raise UserError("YS050", "--format ruff needs ruff: pip install 'yota-s2s[format]'", out)
    version = subprocess.run([*ruff, "--version"], capture_output=True, text=True, check=False).stdout.split()
    if version[-1:] != [RUFF_VERSION]:
        print(
            f"yota-s2s: warning: {' '.join(version) or 'ruff'} is not the pinned ruff {RUFF_VERSION}; "
            "the formatted file may differ from one made elsewhere",
            file=sys.stderr,
        )
    name = out if out != "-" else "generated.py"
    proc = subprocess.run(
        [*ruff, "format", "--stdin-filename", name, "-"], input=text, capture_output=True, text=True, check=False
    )
    if proc.returncode != 0:
        raise UserError("YS050", f"ruff format failed: {proc.stderr.strip()}", out)
    return proc.stdout


def _report(exc: UserError | UserErrors) -> int:
    """Print user errors on stderr, located, one after another; the exit code is 2."""
    for e in exc.errors if isinstance(exc, UserErrors) else [exc]:
        print(e.format(), file=sys.stderr)
    return 2


def _list_rules(rule_files: list[str]) -> int:
    """Print every primitive: its differentiable operands and the source names that reach it."""
    try:
        table = load_rules(rule_files)
    except (UserError, UserErrors) as exc:
        return _report(exc)
    rows = [("primitive", "gradient for", "source names")]
    for name, rule in sorted(table.rules.items()):
        grads = [op for op in rule.all_operands if op in rule.grads] or ["-"]
        rows.append((rule.signature(), ", ".join(grads), ", ".join(rule.names) or "(internal)"))
    width = max(len(r[0]) for r in rows)
    width2 = max(len(r[1]) for r in rows)
    text = "".join(f"{sig.ljust(width)}  {grads.ljust(width2)}  {names}".rstrip() + "\n" for sig, grads, names in rows)
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:  # yota-s2s --list-rules | head
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - replaces the closed stdout until exit
    return 0


def _internal_report(exc: BaseException, generated: object) -> str:
    fd, path = tempfile.mkstemp(prefix="yota-s2s-internal-", suffix=".txt")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(f"yota-s2s {__version__}\n")
        fh.write("".join(traceback.format_exception(exc)))
        tapes = getattr(exc, "yota_tapes", None) or getattr(generated, "tapes", None) or {}
        for stage, ts in tapes.items():
            for t in ts:
                fh.write(f"\n== {stage}\n{format_tape(t)}")
    return path


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
