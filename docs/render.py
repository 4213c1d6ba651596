"""Render the documentation pages from their templates, running every example for real.

    python docs/render.py            # rewrite docs/*.md from docs/src/*.md.in
    python docs/render.py --check    # exit 1 if a page is not what the tool prints today
    python docs/render.py design cli # those pages only (docs/design.md, docs/cli.md)

Every command output, generated module and Python session shown in the pages is
produced here by running the installed ``yota-s2s`` (and the ``yota_s2s``
package) in a scratch folder, never typed by hand.  Re-render after a change
to the tool and review the diff.

Template directives (a block starts with ``::: KIND ARGS`` and ends with ``:::``):

``::: file NAME [hide]``
    write NAME in the page's scratch folder and show it (unless ``hide``).
``::: sh [fails] [hide]``
    one ``$ command`` per line, run with bash in the scratch folder; shows each
    command and its output (stdout and stderr together).  Every command must exit 0,
    unless the block is marked ``fails`` (then at least one must not): a page never
    shows an error where it means to show a success, nor a refusal that is gone.
``::: py [raises]``
    Python statements run in one session per page; shown as a ``>>>`` transcript.
    A statement may raise only in a block marked ``raises`` (and one must).
``::: show PATH [from=REGEX] [to=REGEX] [raw]``
    show a file of the scratch folder, or of the repository for ``@/PATH``
    (from the first line matching ``from``, up to the next matching ``to``); ``raw`` pastes it as markdown, unfenced.
``::: rules-table`` / ``::: codes-table PAGE``
    tables generated from ``load_rules()`` and ``yota_s2s.errors.CODES`` (links to
    ``PAGE#ysnnn``; ``#`` for the same page).
"""

from __future__ import annotations

import ast
import contextlib
import fcntl
import io
import os
import re
import shutil
import subprocess
import sys
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE / "src"
SCRATCH = Path("/tmp/demo")
LANGS = {".py": "python", ".md": "markdown", ".txt": "text"}


def _fence(lang: str, text: str) -> str:
    return f"```{lang}\n{text.rstrip()}\n```"


def _env(work: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["TMPDIR"] = str(work)  # internal-error reports land in the scratch folder
    env["COLUMNS"] = "80"  # argparse wraps --help at the terminal width
    env["REPO"] = str(HERE.parent)  # the checkout: examples are copied from "$REPO"/examples
    env.pop("PYTHONPATH", None)
    # the yota-s2s and python of the interpreter running this script (a venv need not be activated)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    return env


class Page:
    def __init__(self, name: str):
        self.name = name
        self.work = SCRATCH / name
        if self.work.exists():
            shutil.rmtree(self.work)
        self.work.mkdir(parents=True)
        self.namespace: dict[str, object] = {"__name__": "__main__"}
        self.wrong: list[str] = []  # blocks whose outcome is not the one they are marked with
        for mod in [m for m in sys.modules.values() if str(getattr(m, "__file__", "")).startswith(str(SCRATCH))]:
            del sys.modules[mod.__name__]  # a page's modules are its own

    # ------------------------------------------------------------------ directives
    def file(self, args: list[str], body: str) -> str:
        name = args[0]
        path = self.work / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body, encoding="utf-8")
        if "hide" in args:
            return ""
        return _fence(LANGS.get(path.suffix, "text"), body)

    def sh(self, args: list[str], body: str) -> str:
        out = []
        failed = False
        for line in body.splitlines():
            if not line.startswith("$ "):
                raise SystemExit(f"{self.name}: a sh block holds '$ command' lines, got {line!r}")
            cmd = line[2:]
            proc = subprocess.run(
                ["bash", "-c", cmd],
                check=False,
                cwd=self.work,
                env=_env(self.work),
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
            out.append(line)
            if proc.stdout:
                out.append(proc.stdout.rstrip("\n"))
            if proc.returncode and "fails" not in args:
                self.wrong.append(f"$ {cmd} exited {proc.returncode} in a block not marked 'fails'")
            failed = failed or proc.returncode != 0
        if "fails" in args and not failed:
            self.wrong.append(f"an sh block marked 'fails' ({body.splitlines()[0]}) exited 0")
        if "hide" in args:
            return ""
        return _fence("console", "\n".join(out))

    def py(self, args: list[str], body: str) -> str:
        tree = ast.parse(body)
        lines = body.splitlines()
        raised = False
        out = []
        old_cwd = os.getcwd()
        os.chdir(self.work)
        sys.path.insert(0, str(self.work))
        try:
            for stmt in tree.body:
                src = lines[stmt.lineno - 1 : stmt.end_lineno]
                out.append(">>> " + src[0])
                out.extend("... " + s if s else "..." for s in src[1:])
                if isinstance(stmt, ast.FunctionDef | ast.ClassDef | ast.For | ast.With | ast.If):
                    out.append("...")
                buf = io.StringIO()
                code = compile(ast.Interactive([stmt]), "<stdin>", "single")
                with contextlib.redirect_stdout(buf):
                    try:
                        exec(code, self.namespace)  # noqa: S102 - the documented session
                    except Exception as exc:  # noqa: BLE001 - shown as the REPL shows it
                        raised = True
                        print("Traceback (most recent call last):\n  ...")
                        print("".join(traceback.format_exception_only(exc)).rstrip())
                if buf.getvalue():
                    out.append(buf.getvalue().rstrip("\n"))
        finally:
            sys.path.remove(str(self.work))
            os.chdir(old_cwd)
        if raised != ("raises" in args):
            first = lines[0] if lines else ""
            marked = "" if raised else "marked 'raises' "
            self.wrong.append(f"a py block {marked}starting {first!r} {'raised' if raised else 'raised nothing'}")
        return _fence("pycon", "\n".join(out))

    def show(self, args: list[str], body: str) -> str:
        path = HERE.parent / args[0][2:] if args[0].startswith("@/") else self.work / args[0]
        text = path.read_text(encoding="utf-8")
        for a in args[1:]:
            if a.startswith("from="):
                pattern = re.compile(a[5:])
                lines = text.splitlines()
                start = next(i for i, line in enumerate(lines) if pattern.search(line))
                text = "\n".join(lines[start:])
            if a.startswith("to="):  # up to the first line that matches, blank lines before it dropped
                pattern = re.compile(a[3:])
                lines = text.splitlines()
                stop = next((i for i, line in enumerate(lines) if i and pattern.search(line)), len(lines))
                text = "\n".join(lines[:stop]).rstrip("\n") + "\n"
        if "raw" in args:
            return text.rstrip("\n")
        return _fence(LANGS.get(path.suffix, "text"), text)

    def rules_table(self, args: list[str], body: str) -> str:
        from yota_s2s.dsl.load import load_rules

        table = load_rules()
        rows = ["| Primitive | Source names | `shape` | Derivatives | Notes | File |", "|---|---|---|---|---|---|"]
        for rule in table.rules.values():
            grads = [f"`{k} = {ast.unparse(v)}`" for k, v in rule.temps.items()]
            for p in rule.all_operands:
                if p in rule.grads:
                    grads.append(f"`d{p} = {ast.unparse(rule.grads[p])}`")
                elif p in rule.nondiff:
                    grads.append(f"`nondiff({p})`")
                else:
                    grads.append(f"`d{p}`: not implemented ({rule.not_implemented[p]})")
            names = ", ".join(f"`{n}`" for n in _syntax(rule.name) + list(rule.names)) or _reached_by(rule.name)
            rows.append(
                f"| `{rule.signature()}` | {names} | `{rule.shape}` | {'<br>'.join(grads)} | {rule.doc} "
                f"| `rules/{Path(rule.path).name}` |"
            )
        return "\n".join(rows)

    def codes_table(self, args: list[str], body: str) -> str:
        from yota_s2s.errors import CODES

        rows = ["| Code | Meaning |", "|---|---|"]
        page = args[0] if args and args[0] != "#" else ""
        rows += [f"| [{code}]({page}#{code.lower()}) | {meaning} |" for code, meaning in CODES.items()]
        return "\n".join(rows)


def _syntax(prim: str) -> list[str]:
    """The operators of user code that lower to ``prim`` (from the lowering's own tables)."""
    from yota_s2s.ir.primitives import BINOPS, UNARYOPS

    a, b = ast.Name("a"), ast.Name("b")
    ops = [ast.unparse(ast.BinOp(a, op(), b)) for op, p in BINOPS.items() if p == prim]
    return ops + [ast.unparse(ast.UnaryOp(op(), a)) for op, p in UNARYOPS.items() if p == prim]


def _reached_by(prim: str) -> str:
    return {"getindex": "(indexing: `x[...]`)"}.get(prim, "(none: rules only)")


DIRECTIVES = {
    "file": Page.file,
    "sh": Page.sh,
    "py": Page.py,
    "show": Page.show,
    "rules-table": Page.rules_table,
    "codes-table": Page.codes_table,
}


def render(template: Path) -> str:
    page = Page(template.name.removesuffix(".md.in"))
    out: list[str] = []
    lines = template.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("::: "):
            kind, *args = line[4:].split()
            j = i + 1
            while lines[j] != ":::":
                j += 1
            body = "\n".join(lines[i + 1 : j]) + ("\n" if j > i + 1 else "")
            text = DIRECTIVES[kind](page, args, body)
            if text:
                out.append(text)
            elif out and out[-1] == "":
                out.pop()  # a hidden block leaves no blank-line pair behind
            i = j + 1
            continue
        out.append(line)
        i += 1
    # a page that shows an error where it means a success (or the other way round)
    WRONG.extend(f"{template.name}: {wrong}" for wrong in page.wrong)
    return "\n".join(out).rstrip("\n") + "\n"


WRONG: list[str] = []  # the blocks whose outcome is not the one they are marked with, every page

_REPORT = r"yota-s2s-internal-\w+\.txt"  # the random name of an internal-error report


def _stable(text: str) -> str:
    """The page without what differs from run to run (the random name of an internal-error report)."""
    return re.sub(_REPORT, "yota-s2s-internal-XXXX.txt", text)


def _same_report_name(before: str, text: str) -> str:
    """``text`` with the internal-error report named as in ``before`` (no diff for a random name)."""
    found = re.search(_REPORT, before)
    return re.sub(_REPORT, lambda _: found.group(0), text) if found else text


@contextlib.contextmanager
def _page_lock(name: str):
    """One render of a page at a time on a machine (each page renders in its folder, ``/tmp/demo/PAGE``);
    other pages render beside it (``tests/test_docs.py`` checks the pages side by side)."""
    SCRATCH.mkdir(parents=True, exist_ok=True)
    with open(SCRATCH / f".{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def main() -> int:
    # shared: renders run side by side, each page under its own lock; a render that must run alone
    # (render.py before pages were locked one by one) holds it exclusively
    with open(str(SCRATCH) + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_SH)
        return _main()


def _main() -> int:
    check = "--check" in sys.argv
    pages = {a.removesuffix(".md") for a in sys.argv[1:] if not a.startswith("--")}  # (none: every page)
    stale = []
    for template in sorted(SRC.glob("*.md.in")):
        name = template.name.removesuffix(".md.in")
        if pages and name not in pages:
            continue
        with _page_lock(name):
            text = render(template)
        target = HERE / template.name.removesuffix(".in")
        if target.exists():
            before = target.read_text(encoding="utf-8")
            if _stable(before) == _stable(text):
                continue  # unchanged (a page is not rewritten for a new report name alone)
            text = _same_report_name(before, text)
        if check:
            stale.append(target.name)
        else:
            target.write_text(text, encoding="utf-8")
            print(f"wrote {target.relative_to(HERE.parent)}")
    if stale:
        print("stale pages (run python docs/render.py):", ", ".join(stale))
    if WRONG:
        print("blocks whose outcome is not the one they are marked with ('fails', 'raises'):")
        print("\n".join(WRONG))
    return 1 if stale or WRONG else 0


if __name__ == "__main__":
    sys.exit(main())
