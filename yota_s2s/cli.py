"""The command line: ``yota-s2s SOURCE.py... [options]``, ``yota-s2s -`` (stdin), or ``yota-s2s``
for the project config.

Exit codes: 0 ok; 1 a generated file is out of date (``--check``, ``--diff``)
or a gradient failed ``--verify``; 2 user error (unsupported code, missing
rule, bad arguments, unreadable file, bad config) or internal error.
Diagnostics go to stderr as ``path:line:col: error: message (YSnnn)`` with the
source line and a caret; never a traceback for a user error.  The output file
is written atomically (temporary file + rename), so a failed run leaves the
previous file as it was.  The source is parsed, never executed, except by
``--verify``, which imports it to run the function.

Without a SOURCE, the files listed in ``[tool.yota-s2s]`` of the nearest
``pyproject.toml`` are regenerated (or checked); see ``project.py``.  What each
source writes (several sources, stdin, a source the config lists) is ``jobs.py``;
each is run on its own, so one that fails stops none of the others, and the exit
status is the worst of them.  ``-q``, ``-v`` and colour are ``console.py``.
Arguments are never abbreviated (``--wr`` is not ``--wrt``); a usage error is
two lines, the usage and the ``YS005`` message.
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
import time
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from .console import Console, color_flag, wants_color
from .dsl.load import load_rules
from .errors import InternalError, UserError, UserErrors, paint
from .files import PythonFile, load_source, read_output, write_atomically
from .ir.modes import FORMS, MODES
from .ir.printer import format_tape
from .jobs import Job, UsageError, command_jobs, project_jobs
from .pipeline import STAGES, generate
from .project import DEFAULT_TARGET, TARGETS, find_project
from .sources import decode_python
from .version import __version__

#: The ruff version ``--format ruff`` is pinned to (the ``format`` extra installs it).
RUFF_VERSION = "0.17.6"


USAGE = "yota-s2s [SOURCE.py ... | -] [options]"


class _Parser(argparse.ArgumentParser):
    color = False

    def error(self, message: str) -> NoReturn:  # argparse's own errors, and ours: two lines
        label = paint("error", "error", self.color)
        print(f"usage: {USAGE} (yota-s2s --help lists the options)", file=sys.stderr)
        print(f"{self.prog}: {label}: {message} (YS005)", file=sys.stderr)
        sys.exit(2)


def _parser() -> _Parser:
    p = _Parser(
        prog="yota-s2s",
        usage=USAGE,
        allow_abbrev=False,
        description="Write the reverse-mode gradient of Python/NumPy functions as a standalone module.",
        epilog="Docs: docs/cli.md. Example: yota-s2s loss.py --out grad_loss.py",
    )
    p.add_argument(
        "sources",
        nargs="*",
        metavar="SOURCE",
        help="the Python files holding the functions to differentiate, or - to read one from stdin "
        "(default: every file listed in [tool.yota-s2s] of the nearest pyproject.toml)",
    )
    p.add_argument(
        "--func",
        action="append",
        metavar="NAME",
        help="a function to differentiate (repeatable or comma-separated; default: the entry points, "
        "the public top-level functions that no other function in the file calls)",
    )
    p.add_argument(
        "--wrt",
        action="append",
        metavar="A,B",
        help="the parameters to differentiate with respect to, in the order of the returned gradients "
        "(default: all of them, data such as X and y included: select the parameters with --wrt w,b); "
        "FUNC:A,B selects them for one function (repeatable; the others get all theirs)",
    )
    p.add_argument("--target", choices=TARGETS, help="the array library of the output (default: numpy)")
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
    p.add_argument(
        "--out",
        metavar="FILE",
        default="-",
        help="output file, or - for stdout (default); with several sources, a folder DIR (or DIR/ for any "
        "number) where each NAME.py is written as grad_NAME.py",
    )
    p.add_argument(
        "--stdin-filename",
        metavar="NAME",
        help="with - as the SOURCE: the name of the source read from stdin, in messages and in the header",
    )
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
        "--checkpoint",
        type=int,
        default=0,
        metavar="S",
        help="binomial checkpointing (revolve) of the function's for loops: at most S snapshots of the "
        "carried state, steps run again in the backward sweep, memory independent of the trip count",
    )
    p.add_argument(
        "--form",
        choices=list(FORMS),
        help="the algorithm each function is written with, where its shapes leave a choice that only the "
        "call can make: auto (default) keeps each choice as one commented branch chosen when it runs; rows "
        "(reverse sweeps batched over the rows), columns (--jacobian: forward columns) and band (--hessian: "
        "the diagonals) commit one, with no branch (see docs/higher-order.md)",
    )
    p.add_argument(
        "--no-value",
        dest="value",
        action="store_false",
        default=None,
        help="grad_NAME returns only the gradients (d_A, d_B, ...), like jax.grad, and skips the work that "
        "only the value needs",
    )
    _mode_flags(p)
    p.add_argument(
        "--sparse",
        action="store_true",
        help="with --jacobian: jac_NAME returns scipy.sparse.csr_array Jacobians, by one JVP per color of "
        "their columns, and jac_NAME_pattern their sparsity pattern (see docs/sparse.md)",
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
    p.add_argument("-q", "--quiet", action="store_true", help="print only errors (and why --check fails)")
    p.add_argument("-v", "--verbose", action="store_true", help="say what is written or checked, and how long it took")
    p.add_argument(
        "--color",
        action=argparse.BooleanOptionalAction,
        help="color the diagnostics (default: when stderr is a terminal and NO_COLOR is not set)",
    )
    p.add_argument("--version", action="version", version=f"yota-s2s {__version__}")
    return p


def _mode_flags(p: _Parser) -> None:
    """``--vjp``, ``--jvp``, ``--jacobian``, ``--hvp``, ``--hessian``, ``--holomorphic``: what each function
    computes (one of them)."""
    modes = p.add_mutually_exclusive_group()
    modes.add_argument(
        "--vjp",
        dest="mode",
        action="store_const",
        const="vjp",
        default="grad",
        help="write vjp_NAME(..., dout) for a function whose value is an array (or a number): it returns "
        "(value, dA, ...), dout times the Jacobians (see docs/higher-order.md)",
    )
    modes.add_argument(
        "--jvp",
        dest="mode",
        action="store_const",
        const="jvp",
        help="write jvp_NAME(..., A_dot, B_dot, ...), returning (value, dvalue): the Jacobians times the tangents "
        "(forward mode, by transposing the vector-Jacobian product)",
    )
    modes.add_argument(
        "--jacobian",
        dest="mode",
        action="store_const",
        const="jacobian",
        help="write jac_NAME(...), returning (value, J_A, ...) with J_A.shape == value.shape + A.shape",
    )
    modes.add_argument(
        "--hvp",
        dest="mode",
        action="store_const",
        const="hvp",
        help="write hvp_NAME(..., v) for a scalar function of one --wrt parameter x, returning (value, dx, Hv): "
        "Hv = H @ v, the Hessian times v, without forming H; of several, hvp_NAME(..., v_A, v_B) returns "
        "(value, dA, dB, Hv_A, Hv_B), Hv_A = H_AA @ v_A + H_AB @ v_B",
    )
    modes.add_argument(
        "--hessian",
        dest="mode",
        action="store_const",
        const="hessian",
        help="write hess_NAME(...) for a scalar function of one --wrt parameter x, returning (value, dx, H) "
        "with H.shape == x.shape + x.shape; of several, (value, dA, dB, ((H_AA, H_AB), (H_BA, H_BB))) with "
        "H_AB.shape == A.shape + B.shape (jax.hessian's argnums=(0, 1))",
    )
    holomorphic = "grad_NAME returns f'(z) of a holomorphic f, as jax.grad(f, holomorphic=True) (docs/complex.md)"
    modes.add_argument("--holomorphic", dest="mode", action="store_const", const="holomorphic", help=holomorphic)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = _parser()
    parser.color = wants_color(color_flag(argv), sys.stderr)
    args = parser.parse_args(argv)
    if args.quiet and args.verbose:
        parser.error("-q/--quiet and -v/--verbose: give one of them")
    console = Console(args.quiet, args.verbose, wants_color(args.color, sys.stderr))
    if args.list_rules:
        return _list_rules(args.rules, console)
    if (args.example or args.shape) and not args.verify:
        parser.error("--example and --shape give the inputs of --verify")
    try:
        if not args.sources:
            jobs = _project_jobs(args)
        else:
            jobs = command_jobs(args, console, lambda: sys.stdin.buffer.read())
    except UsageError as exc:
        parser.error(str(exc))
    except (UserError, UserErrors) as exc:
        return console.errors(exc)
    start = time.perf_counter()
    status = max((_run(job, args, console) for job in jobs), default=0)
    if len(jobs) > 1:
        console.detail(f"{len(jobs)} files, exit status {status} ({time.perf_counter() - start:.2f} s)")
    return status


def _project_jobs(args: argparse.Namespace) -> list[Job]:
    """``yota-s2s [--check] [--diff]``: every file listed in ``[tool.yota-s2s]`` of pyproject.toml."""
    given = [
        option
        for option, value in [
            ("--func", args.func),
            ("--wrt", args.wrt),
            ("--rules", args.rules),
            ("--out", args.out != "-"),
            ("--target", args.target not in (None, DEFAULT_TARGET)),
            ("--dump-ir", args.dump_ir),
            ("--format", args.format),
            ("--buffers", args.buffers),
            ("--checkpoint", args.checkpoint),
            ("--form", args.form),
            ("--no-value", args.value is False),
            (MODES[args.mode].flag, MODES[args.mode].flag is not None),
            ("--verify", args.verify),
            ("--stdin-filename", args.stdin_filename),
        ]
        if value
    ]
    project = find_project(Path.cwd())
    if project is None:
        raise UsageError(
            "give a SOURCE.py, or list the files to generate in [tool.yota-s2s] of a pyproject.toml "
            "(none found in this folder or above it)"
        )
    if given:
        raise UsageError(f"{given[0]} needs a SOURCE.py; for the files of {project.config.name}, set it there")
    return project_jobs(project)


def _run(job: Job, args: argparse.Namespace, console: Console) -> int:
    """Generate, check or write one file; its exit status (a failure is reported, never raised)."""
    cwd = os.getcwd()
    made: list[object] = []
    try:
        if job.folder is not None:
            os.chdir(job.folder)  # the config's paths, and the commands in the headers, are relative to it
        return _run_here(job, args, console, made, cwd)
    except (UserError, UserErrors) as exc:
        return console.errors(exc)
    except BrokenPipeError:  # yota-s2s x.py --diff | head: the reader stopped reading, not a bug
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - replaces the closed stdout until exit
        return 1 if args.diff or args.check else 0  # (what --diff printed is a difference)
    except Exception as exc:  # noqa: BLE001 - every other failure is a bug of ours
        return _internal(exc, made[0] if made else None, job.path, console)
    finally:
        os.chdir(cwd)


def _run_here(job: Job, args: argparse.Namespace, console: Console, made: list, cwd: str) -> int:
    start = time.perf_counter()
    entry = job.entry
    if job.stdin is not None:
        source = PythonFile(decode_python(job.stdin, job.path), hashlib.sha256(job.stdin).hexdigest())
    else:
        source = load_source(entry.source)
    generated = generate(
        source.text,
        job.path,
        job.funcs,
        job.wrt,
        entry.target,
        entry.rules,
        command=entry.command(),
        buffers=entry.buffers,
        value=entry.value,
        source_sha256=source.sha256,
        mode=entry.mode,
        sparse=entry.sparse,
        checkpoint=entry.checkpoint,
        form=entry.form,
    )
    made.append(generated)
    for warning in generated.warnings:
        console.warning(warning)
    text = _ruff_format(generated.text, entry.out, console) if entry.format else generated.text
    if args.dump_ir:
        sys.stdout.write("".join(format_tape(t) for t in generated.tapes[args.dump_ir]))
    status = 0
    if args.verify:
        example = args.example  # a path from the folder the command runs in
        if example and job.folder is not None:
            example = os.path.relpath(os.path.join(cwd, example))
        from .verify import verify_generated  # (numpy: imported by --verify alone, not on every run)

        status = verify_generated(
            entry.source,
            text,
            job.wrt,
            example=example,
            shape_specs=args.shape,
            seed=args.seed,
            value=entry.value,
            quiet=console.quiet,
        )
    took = f"({time.perf_counter() - start:.2f} s)"
    if args.check or args.diff:
        status = max(status, _compare(job, text, args.check, args.diff, console))
        console.detail(f"{entry.out}: {'up to date with' if not status else 'checked against'} {job.path} {took}")
        return status
    if status or (entry.out == "-" and (args.dump_ir or args.verify)):
        return status
    if job.project and read_output(entry.out) == text.encode():
        console.detail(f"{entry.out}: up to date with {job.path}, left as it is {took}")
        return 0
    _write(entry.out, text, job.protect)
    if job.project:
        console.note(f"{entry.out}: regenerated from {entry.source}")
    console.detail(f"{entry.out if entry.out != '-' else 'stdout'}: written from {job.path} {took}")
    return 0


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


def _compare(job: Job, text: str, check: bool, diff: bool, console: Console) -> int:
    """``--check`` / ``--diff`` of ``job``'s output against ``text``: 0 when identical, 1 when not."""
    entry = job.entry
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
                f"{entry.out} (regenerated from {job.path})",
            )
        )
    if check or not diff:
        changed = _changed_sources(committed, entry.source)  # named where a file it imports changed
        why = f" ({', '.join(changed)} changed)" if set(changed) - {entry.source} else ""
        console.failure(f"{entry.out}: out of date with {job.path}{why}; run '{job.command}'")
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


def _internal(exc: Exception, generated: object, source: str, console: Console) -> int:
    report = _internal_report(exc, generated)
    kind = console.label("internal error", "internal error")
    kind = kind if isinstance(exc, InternalError) else f"{kind} ({type(exc).__name__})"
    print(
        f"{source}: {kind}: {exc}; this is a bug in yota-s2s, please report it with the details in {report}",
        file=sys.stderr,
    )
    return 2


# ---------------------------------------------------------------------------------------------- --format ruff


def _ruff_format(text: str, out: str, console: Console) -> str:
    """``text`` formatted by ``ruff format`` (the project's ruff settings apply, as for ``out``)."""
    if importlib.util.find_spec("ruff") is not None:
        ruff = [sys.executable, "-m", "ruff"]
    elif shutil.which("ruff"):
        ruff = [shutil.which("ruff")]
    else:
        raise UserError("YS050", "--format ruff needs ruff: pip install 'yota-s2s[format]'", out)
    version = subprocess.run([*ruff, "--version"], capture_output=True, text=True, check=False).stdout.split()
    if version[-1:] != [RUFF_VERSION] and not console.quiet:
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


def _list_rules(rule_files: list[str], console: Console) -> int:
    """Print every primitive: its differentiable operands and the source names that reach it."""
    try:
        table = load_rules(rule_files)
    except (UserError, UserErrors) as exc:
        return console.errors(exc)
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
