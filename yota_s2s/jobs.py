"""The files one ``yota-s2s`` command generates: from its sources and options, a list of ``Job``.

- One source and ``--out FILE`` (or ``-``, stdout): one job, as today.
- ``-`` as the source: the text is read from stdin; ``--stdin-filename NAME`` gives it the name
  ``NAME`` in messages and in the header (the module is then the one ``yota-s2s NAME`` writes
  when ``NAME`` holds those bytes); without it the name is ``<stdin>`` and the header's command
  reads stdin (``yota-s2s - ...``).
- Several sources: one job each, each writing ``DIR/grad_STEM.py`` in the folder ``--out DIR``
  (which must exist; ``--out DIR/``, ending with a slash, asks for this naming with one source
  too).  Each job is the command of one source: its header's command writes the same bytes.
- A source and an ``--out`` file that the project config lists together (``[tool.yota-s2s]`` of
  the nearest ``pyproject.toml``) run as that entry of the config, in the config's folder, when
  the command line gives no other option for the source or the same ones: so a one-file
  ``--check`` checks what ``yota-s2s`` would write, and suggests the entry's own command.
  With other options, the command line wins and a warning says that the config differs.

A mistake in the arguments is a ``UsageError`` (``YS005``, printed with the usage line).
"""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass, field, replace
from pathlib import Path

from .console import Console
from .ir.modes import MODES
from .project import Entry, Project, find_project, parse_wrt, shell_quote


class UsageError(Exception):
    """Bad command-line arguments: the message of ``YS005``."""


@dataclass
class Job:
    """One generated file: the command that writes it and where to run it."""

    entry: Entry  # the command as given (the header's ``# regenerate:`` line)
    path: str  # the source's name in messages and in the header
    funcs: list[str] | None  # the options, parsed
    wrt: list[str] | dict[str, list[str]] | None
    protect: dict[str, str] = field(default_factory=dict)  # the files the output must never be
    suggest: str | None = None  # the command ``--check`` suggests (default: ``entry.command()``)
    folder: Path | None = None  # run there (the folder of a project config); None: here
    stdin: bytes | None = None  # the source's bytes, read from stdin
    project: bool = False  # written only when its bytes change, with a note (``yota-s2s``)

    @property
    def command(self) -> str:
        return self.suggest or self.entry.command()


def protected(source: str, rules: list[str], example: str | None = None) -> dict[str, str]:
    """The files an output must never overwrite, each with what it is."""
    protect = {path: "the rule file" for path in rules}
    if example:
        protect[example] = "the --example file"
    return {source: "the source file", **protect}


def project_jobs(project: Project) -> list[Job]:
    """``yota-s2s`` without a source: every entry of the config, run in its folder."""
    config = project.config.name
    return [
        Job(
            entry=e,
            path=e.source,
            funcs=e.funcs,
            wrt=e.wrt,
            protect={config: "the project config", **protected(e.source, e.rules)},
            suggest="yota-s2s",
            folder=project.root,
            project=True,
        )
        for e in project.entries
    ]


def command_jobs(args: argparse.Namespace, console: Console, read_stdin) -> list[Job]:
    """The jobs of ``yota-s2s SOURCE... [options]`` (``read_stdin()``: the bytes of stdin)."""
    sources: list[str] = args.sources
    stdin = sources == ["-"]
    if "-" in sources and not stdin:
        raise UsageError("- (the source on stdin) is one source: give it alone")
    if args.stdin_filename is not None and not stdin:
        raise UsageError("--stdin-filename names the source read from stdin: give - as the SOURCE")
    if stdin and args.verify:
        raise UsageError("--verify imports the source file: give its path, not -")
    if (args.check or args.diff) and args.out == "-":
        raise UsageError("--check and --diff compare with the committed file: give it with --out FILE")
    try:
        wrt = parse_wrt(args.wrt)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    funcs = [f.strip() for group in args.func or [] for f in group.split(",") if f.strip()] or None
    outs = _outputs(args, sources)
    data = read_stdin() if stdin else None
    jobs = []
    finder = _ConfigFinder()
    for source, out in zip(sources, outs, strict=True):
        name = args.stdin_filename if source == "-" and args.stdin_filename else source
        entry = Entry(
            source=name,
            out=out,
            funcs=args.func,
            wrt=wrt if isinstance(wrt, dict) else args.wrt[:1] if args.wrt else None,
            target=args.target or "numpy",
            rules=args.rules,
            format=args.format,
            buffers=args.buffers,
            sparse=args.sparse,
            value=args.value is not False,
            mode=args.mode,
            checkpoint=args.checkpoint,
            form=args.form or "auto",
        )
        protect = protected(name, args.rules, args.example) if name != "-" else protected("-", args.rules)
        job = Job(entry, "<stdin>" if name == "-" else name, funcs, wrt, protect, stdin=data if source == "-" else None)
        jobs.append(_configured(job, args, console, finder) or job)
    return jobs


def _outputs(args: argparse.Namespace, sources: list[str]) -> list[str]:
    """The output of each source: ``--out`` itself, or ``DIR/grad_STEM.py`` in a folder ``--out``."""
    out = args.out
    several = len(sources) > 1
    folder = out != "-" and (out.endswith(("/", os.sep)) or (several and os.path.isdir(out)))
    if not folder:
        if several and out != "-":
            raise UsageError(
                f"several sources write one module each: --out names a folder, and {out!r} is not one "
                "(--out DIR/ writes DIR/grad_NAME.py for each NAME.py)"
            )
        if several and not (args.verify or args.dump_ir):
            raise UsageError(
                "several sources write one module each: give --out DIR/, a folder where each NAME.py "
                "is written as grad_NAME.py"
            )
        return [out] * len(sources)
    outs = []
    for source in sources:
        name = args.stdin_filename if source == "-" else source
        if name is None:
            raise UsageError("--out DIR/ names the module after its source: give --stdin-filename NAME")
        outs.append(os.path.join(out, f"grad_{Path(name).stem}.py"))
    seen: dict[str, str] = {}
    for source, path in zip(sources, outs, strict=True):
        key = os.path.normpath(path)
        if key in seen:
            raise UsageError(f"{seen[key]} and {source} would both write {path}: run them one at a time")
        seen[key] = source
    return outs


class _ConfigFinder:
    """The nearest project config, looked for once, when a job writes a file."""

    def __init__(self) -> None:
        self.project: Project | None = None
        self.looked = False

    def __call__(self) -> Project | None:
        if not self.looked:
            self.looked = True
            self.project = find_project(Path.cwd())
        return self.project


def _same(a: str | Path, b: str | Path) -> bool:
    return os.path.normcase(os.path.realpath(a)) == os.path.normcase(os.path.realpath(b))


def _configured(job: Job, args: argparse.Namespace, console: Console, finder: _ConfigFinder) -> Job | None:
    """The job as the project config's entry for its source and output, when it lists them."""
    if job.entry.out == "-" or job.entry.source == "-":
        return None
    project = finder()
    if project is None:
        return None
    root = project.root
    entry = next(
        (e for e in project.entries if _same(root / e.source, job.entry.source) and _same(root / e.out, job.entry.out)),
        None,
    )
    if entry is None:
        return None
    given = replace(
        job.entry,
        source=entry.source,
        out=entry.out,
        funcs=job.funcs,
        wrt=job.wrt,
        rules=[os.path.relpath(os.path.realpath(r), os.path.realpath(root)) for r in job.entry.rules],
    )
    mine = replace(
        entry, rules=[os.path.relpath(os.path.realpath(root / r), os.path.realpath(root)) for r in entry.rules]
    )
    options = [args.func, args.wrt, args.rules, args.target, args.format, args.buffers, args.value is False]
    options.append(MODES[args.mode].flag is not None)
    if any(options) and given != mine:
        console.warning_line(
            job.entry.out,
            f"{project.config.name} lists this file with other options: written as this command says, "
            f"not as 'yota-s2s' writes it ({entry.command()})",
        )
        return None
    here = os.path.realpath(os.getcwd())
    where = os.path.relpath(os.path.realpath(root), here)
    suggest = entry.command() if where == "." else f"cd {shell_quote(where)} && {entry.command()}"
    console.detail(f"{job.entry.out}: generated as {project.config.name} says ({entry.command()}, in {where})")
    return Job(
        entry=entry,
        path=entry.source,
        funcs=entry.funcs,
        wrt=entry.wrt,
        protect={project.config.name: "the project config", **protected(entry.source, entry.rules)},
        suggest=suggest,
        folder=root,
        stdin=job.stdin,
    )
