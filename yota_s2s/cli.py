"""The command line: ``yota-s2s SOURCE.py [options]``.

Exit codes: 0 ok; 1 reserved for stale/verification results; 2 user error
(unsupported code, missing rule, bad arguments, unreadable file) or internal
error.  Diagnostics go to stderr as ``path:line:col: error: message (YSnnn)``
with the source line and a caret; never a traceback for a user error.  The
output file is written atomically (temporary file + rename), so a failed run
leaves the previous file as it was.  The source is parsed, never executed.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import traceback
from collections.abc import Sequence
from pathlib import Path

from . import __version__
from .errors import InternalError, UserError, UserErrors
from .pipeline import STAGES, generate
from .printer import format_tape
from .ruledsl import load_rules


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
    p.add_argument("source", nargs="?", help="the Python file holding the functions to differentiate")
    p.add_argument(
        "--func",
        action="append",
        metavar="NAME",
        help="a function to differentiate (repeatable or comma-separated; default: the entry points, "
        "the public top-level functions that no other function in the file calls)",
    )
    p.add_argument("--wrt", metavar="A,B", help="parameters to differentiate with respect to (default: all)")
    p.add_argument("--target", choices=["numpy", "cupy"], default="numpy", help="the array library of the output")
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
    p.add_argument("--version", action="version", version=f"yota-s2s {__version__}")
    return p


def _command(args: argparse.Namespace) -> str:
    parts = ["yota-s2s", args.source]
    for f in args.func or []:
        parts += ["--func", f]
    for r in args.rules:
        parts += ["--rules", r]
    if args.wrt:
        parts += ["--wrt", args.wrt]
    if args.target != "numpy":
        parts += ["--target", args.target]
    if args.out != "-":
        parts += ["--out", args.out]
    return " ".join(parts)


def write_atomically(path: str, text: str) -> None:
    """Write ``text`` to ``path`` via a temporary file in the same folder and a rename."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".yota-s2s-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.list_rules:
        return _list_rules(args.rules)
    if args.source is None:
        parser.error("the following arguments are required: source")
    funcs = [f.strip() for group in args.func or [] for f in group.split(",") if f.strip()] or None
    wrt = [w.strip() for w in args.wrt.split(",") if w.strip()] if args.wrt is not None else None
    if wrt == []:
        _parser().error("--wrt needs at least one parameter name")
    generated = None
    try:
        try:
            source = Path(args.source).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
            raise UserError("YS002", f"cannot read the source file: {reason}", args.source) from None
        generated = generate(source, args.source, funcs, wrt, args.target, args.rules, command=_command(args))
        if args.dump_ir:
            sys.stdout.write("".join(format_tape(t) for t in generated.tapes[args.dump_ir]))
            if args.out == "-":
                return 0
        if args.out == "-":
            sys.stdout.write(generated.text)
        else:
            try:
                write_atomically(args.out, generated.text)
            except OSError as exc:
                raise UserError("YS006", f"cannot write the output file: {exc.strerror}", args.out) from None
        return 0
    except (UserError, UserErrors) as exc:
        return _report(exc)
    except Exception as exc:  # noqa: BLE001 - every other failure is a bug of ours
        report = _internal_report(exc, generated)
        kind = "internal error" if isinstance(exc, InternalError) else f"internal error ({type(exc).__name__})"
        print(
            f"{args.source}: {kind}: {exc}; this is a bug in yota-s2s, please report it with the details in {report}",
            file=sys.stderr,
        )
        return 2


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
