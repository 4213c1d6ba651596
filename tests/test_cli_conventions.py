"""The command line's conventions, those of black and ruff (docs/cli.md#conventions): a source on
stdin, several sources in one call, -q/-v, colour and NO_COLOR, no abbreviated options, short usage
errors, a one-file command for a file the project config lists, the pre-commit hook, and --wrt per
function (in the config too).

The command line runs as a subprocess in ``tmp_path`` with relative file names, as a user runs it.
"""

from __future__ import annotations

import os
import pty
import re
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from .gradcheck import load_module
from .test_workflow import BIN, LOSS, PENALTY, REPO, make_project, run_command, write

ANSI = re.compile(r"\x1b\[[0-9;]*m")
# (a with block: try/except is served since round five, on the path on which nothing raises)
BAD = "def bad(x):\n    with g():\n        y = x * 2.0\n    return y\n"
WARN = "import numpy as np\n\n\ndef sweep(u):\n    u[1] = 0.5 * (u[0] + u[2])\n    return np.sum(u * u)\n"


def run_in(cwd: Path, *args: str, stdin: str | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    """``yota-s2s ARGS`` in ``cwd`` with ``stdin`` as its input and ``env`` added to the environment."""
    full = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", "TMPDIR": str(cwd)}
    full.pop("NO_COLOR", None)
    full.update(env or {})
    return subprocess.run(
        ["yota-s2s", *args], cwd=cwd, env=full, input=stdin, capture_output=True, text=True, timeout=120, check=False
    )


def assert_usage_error(proc: subprocess.CompletedProcess, message: str) -> None:
    """Exit 2 with the two lines of a usage error: the usage, then ``yota-s2s: error: MESSAGE (YS005)``."""
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 2, proc.stderr
    assert lines[0].startswith("usage: yota-s2s [SOURCE.py ... | -] [options]")
    assert lines[1].startswith("yota-s2s: error: ") and lines[1].endswith("(YS005)"), lines[1]
    assert message in lines[1], lines[1]
    assert proc.stdout == ""


# ------------------------------------------------------------------------------------------------ stdin


def test_stdin_with_a_file_name_gives_the_bytes_of_that_file(tmp_path):
    write(tmp_path / "loss.py", LOSS)
    from_file = run_in(tmp_path, "loss.py", "--wrt", "w")
    piped = run_in(tmp_path, "-", "--stdin-filename", "loss.py", "--wrt", "w", stdin=(tmp_path / "loss.py").read_text())
    assert (piped.returncode, piped.stderr) == (0, "")
    assert piped.stdout == from_file.stdout  # the header names loss.py, its command reads it
    assert "# regenerate: yota-s2s loss.py --wrt w\n" in piped.stdout


def test_stdin_without_a_name_is_stdin_in_messages_and_header(tmp_path):
    text = write(tmp_path / "loss.py", LOSS).read_text()
    proc = run_in(tmp_path, "-", "--out", "grad.py", stdin=text)
    assert proc.returncode == 0, proc.stderr
    header = (tmp_path / "grad.py").read_text().splitlines()
    assert header[0].endswith("from <stdin>::loss (target numpy). DO NOT EDIT.")
    assert header[3] == "# regenerate: yota-s2s - --out grad.py"
    proc = run_in(tmp_path, "-", stdin=BAD)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith("<stdin>:2:5: error: ")
    proc = run_in(tmp_path, "-", "--stdin-filename", "src/bad.py", stdin=BAD)
    assert proc.stderr.startswith("src/bad.py:2:5: error: ")


def test_stdin_check_compares_the_text_read_with_the_out_file(tmp_path):
    """``git show :loss.py | yota-s2s - --stdin-filename loss.py --out grad_loss.py --check``: the staged text."""
    text = write(tmp_path / "loss.py", LOSS).read_text()
    assert run_in(tmp_path, "loss.py", "--out", "grad_loss.py").returncode == 0
    args = ["-", "--stdin-filename", "loss.py", "--out", "grad_loss.py", "--check"]
    assert run_in(tmp_path, *args, stdin=text).returncode == 0
    proc = run_in(tmp_path, *args, stdin=text.replace("** 2", "** 4"))
    assert proc.returncode == 1
    assert proc.stderr == "grad_loss.py: out of date with loss.py; run 'yota-s2s loss.py --out grad_loss.py'\n"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-", "loss.py"], "- (the source on stdin) is one source: give it alone"),
        (["loss.py", "--stdin-filename", "x.py"], "--stdin-filename names the source read from stdin"),
        (["-", "--verify", "--shape", "w=3"], "--verify imports the source file: give its path, not -"),
        (["-", "--out", "gen/"], "--out DIR/ names the module after its source: give --stdin-filename NAME"),
    ],
)
def test_stdin_refusals_are_usage_errors(tmp_path, args, message):
    write(tmp_path / "loss.py", LOSS)
    assert_usage_error(run_in(tmp_path, *args, stdin=LOSS), message)


# ------------------------------------------------------------------------------------------------ several sources


def test_several_sources_write_one_module_each_as_their_own_commands_would(tmp_path):
    write(tmp_path / "loss.py", LOSS)
    write(tmp_path / "src" / "penalty.py", PENALTY)
    (tmp_path / "gen").mkdir()
    proc = run_in(tmp_path, "loss.py", "src/penalty.py", "--out", "gen")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
    assert sorted(p.name for p in (tmp_path / "gen").iterdir()) == ["grad_loss.py", "grad_penalty.py"]
    for name in ["grad_loss.py", "grad_penalty.py"]:
        text = (tmp_path / "gen" / name).read_text()
        command = text.splitlines()[3].removeprefix("# regenerate: ")
        assert command.endswith(f"--out gen/{name}")
        (tmp_path / "gen" / name).unlink()
        assert run_command(tmp_path, shlex.split(command)).returncode == 0
        assert (tmp_path / "gen" / name).read_text() == text
    proc = run_in(tmp_path, "loss.py", "--out", "gen/")  # DIR/ with one source: the same naming
    assert proc.returncode == 0 and "--out gen/grad_loss.py" in (tmp_path / "gen/grad_loss.py").read_text()


def test_one_bad_source_stops_none_of_the_others_and_keeps_its_previous_output(tmp_path):
    write(tmp_path / "a.py", LOSS)
    write(tmp_path / "b.py", BAD)
    write(tmp_path / "c.py", PENALTY)
    (tmp_path / "gen").mkdir()
    (tmp_path / "gen" / "grad_b.py").write_text("previous\n")
    proc = run_in(tmp_path, "a.py", "b.py", "c.py", "--out", "gen/")
    assert proc.returncode == 2
    assert proc.stderr.startswith("b.py:2:5: error: ") and "(YS013)" in proc.stderr
    assert (tmp_path / "gen" / "grad_b.py").read_text() == "previous\n"
    assert (tmp_path / "gen" / "grad_a.py").exists() and (tmp_path / "gen" / "grad_c.py").exists()
    assert sorted(p.name for p in (tmp_path / "gen").iterdir()) == ["grad_a.py", "grad_b.py", "grad_c.py"]


def test_the_exit_status_of_several_sources_is_the_worst(tmp_path):
    write(tmp_path / "a.py", LOSS)
    write(tmp_path / "c.py", PENALTY)
    (tmp_path / "gen").mkdir()
    assert run_in(tmp_path, "a.py", "c.py", "--out", "gen").returncode == 0
    assert run_in(tmp_path, "a.py", "c.py", "--out", "gen", "--check").returncode == 0
    write(tmp_path / "c.py", PENALTY.replace("1.0", "2.0"))
    proc = run_in(tmp_path, "a.py", "c.py", "--out", "gen", "--check")
    assert (proc.returncode, proc.stderr) == (
        1,
        "gen/grad_c.py: out of date with c.py; run 'yota-s2s c.py --out gen/grad_c.py'\n",
    )
    write(tmp_path / "a.py", BAD.replace("bad", "a"))
    proc = run_in(tmp_path, "c.py", "a.py", "--out", "gen", "--check")  # 1 then 2: 2
    assert proc.returncode == 2
    assert proc.stderr.splitlines()[0].startswith("gen/grad_c.py: out of date")
    assert proc.stderr.splitlines()[1].startswith("a.py:2:5: error:")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["a.py", "c.py"], "several sources write one module each: give --out DIR/"),
        (["a.py", "c.py", "--out", "one.py"], "--out names a folder, and 'one.py' is not one"),
        (["a.py", "sub/a.py", "--out", "gen/"], "a.py and sub/a.py would both write gen/grad_a.py"),
        (["a.py", "c.py", "--out", "gen/", "--wrt", "w", "--wrt", "lam"], "--wrt A,B applies to every function"),
    ],
)
def test_several_sources_refusals_are_usage_errors(tmp_path, args, message):
    write(tmp_path / "a.py", LOSS)
    write(tmp_path / "c.py", PENALTY)
    assert_usage_error(run_in(tmp_path, *args), message)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.py", "c.py"]  # nothing written


def test_several_sources_verify_without_out_writes_nothing(tmp_path):
    write(tmp_path / "a.py", "import numpy as np\n\n\ndef l2(w):\n    return np.sum(w * w)\n")
    write(tmp_path / "c.py", PENALTY)
    proc = run_in(tmp_path, "a.py", "c.py", "--verify", "--shape", "w=3")
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.py", "c.py"]
    assert [line.split(":")[0] for line in proc.stdout.splitlines()] == ["OK", "OK"]


# ------------------------------------------------------------------------------------------------ -q and -v


def test_quiet_prints_only_errors_and_why_check_fails(tmp_path):
    root = make_project(tmp_path)
    proc = run_in(root, "-q")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")  # no "regenerated" lines
    write(root / "src/demo/loss.py", LOSS.replace("** 2", "** 4"))
    proc = run_in(root, "--check", "--quiet")
    assert (proc.returncode, proc.stdout) == (1, "")
    assert proc.stderr == "src/demo/grad_loss.py: out of date with src/demo/loss.py; run 'yota-s2s'\n"
    (tmp_path / "gs.py").write_text(WARN)
    assert run_in(tmp_path, "gs.py", "--out", "grad_gs.py").stderr.startswith("gs.py:5:5: warning: ")
    assert run_in(tmp_path, "gs.py", "--out", "grad_gs.py", "-q").stderr == ""
    proc = run_in(tmp_path, "gs.py", "-q", "--verify", "--shape", "u=3")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")


def test_verbose_says_what_is_written_and_checked(tmp_path):
    root = make_project(tmp_path)
    proc = run_in(root, "-v")
    assert proc.returncode == 0
    lines = [ANSI.sub("", line) for line in proc.stderr.splitlines()]
    assert re.fullmatch(r"yota-s2s: src/demo/grad_loss\.py: written from src/demo/loss\.py \(\d+\.\d\d s\)", lines[0])
    assert lines[-1].startswith("yota-s2s: 2 files, exit status 0 (")
    proc = run_in(root, "-v")
    assert "src/demo/grad_loss.py: up to date with src/demo/loss.py, left as it is" in proc.stderr
    proc = run_in(root, "--check", "-v")
    assert "yota-s2s: src/demo/grad_penalty.py: up to date with src/demo/penalty.py (" in proc.stderr
    assert_usage_error(run_in(root, "-q", "-v"), "-q/--quiet and -v/--verbose: give one of them")


# ------------------------------------------------------------------------------------------------ colour


def _diagnostic(tmp_path: Path, *args: str, env: dict | None = None) -> str:
    (tmp_path / "bad.py").write_text(BAD)
    proc = run_in(tmp_path, "bad.py", *args, env=env)
    assert proc.returncode == 2
    return proc.stderr


def test_color_wraps_only_the_label_and_the_caret(tmp_path):
    plain = _diagnostic(tmp_path, "--no-color")
    colored = _diagnostic(tmp_path, "--color")
    assert plain.splitlines()[0].startswith("bad.py:2:5: error: 'with' blocks are not supported")
    assert plain.splitlines()[2] == "        ^"
    assert colored != plain and ANSI.sub("", colored) == plain  # the same text, with colour
    assert colored.splitlines()[0].startswith("bad.py:2:5: \x1b[1;31merror\x1b[0m: ")
    assert colored.splitlines()[2] == "        \x1b[1;32m^\x1b[0m"
    assert _diagnostic(tmp_path) == plain  # not a terminal: no colour by default
    assert _diagnostic(tmp_path, "--color", env={"NO_COLOR": "1"}) == colored  # the flag wins
    usage = run_in(tmp_path, "--wrong", "--color")
    assert "yota-s2s: \x1b[1;31merror\x1b[0m: unrecognized arguments: --wrong (YS005)" in usage.stderr


def _on_a_terminal(tmp_path: Path, env: dict) -> str:
    """stderr of ``yota-s2s bad.py`` when stderr is a terminal (a pseudo-terminal)."""
    (tmp_path / "bad.py").write_text(BAD)
    primary, secondary = pty.openpty()
    full = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    full.pop("NO_COLOR", None)
    full.update(env)
    proc = subprocess.run(
        ["yota-s2s", "bad.py"],
        cwd=tmp_path,
        env=full,
        stdout=subprocess.PIPE,
        stderr=secondary,
        timeout=120,
        check=False,
    )
    os.close(secondary)
    chunks = []
    while True:
        try:
            chunk = os.read(primary, 4096)
        except OSError:  # EIO: the other side is closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(primary)
    assert proc.returncode == 2
    return b"".join(chunks).decode().replace("\r\n", "\n")


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def test_a_terminal_gets_colour_unless_no_color_is_set(tmp_path):
    assert "\x1b[1;31merror\x1b[0m" in _on_a_terminal(tmp_path, {})
    no_color = _on_a_terminal(tmp_path, {"NO_COLOR": "1"})
    assert "\x1b[" not in no_color and "bad.py:2:5: error: " in no_color
    assert "\x1b[1;31merror" in _on_a_terminal(tmp_path, {"NO_COLOR": ""})  # empty: not set (no-color.org)


# ------------------------------------------------------------------------------------------------ arguments


@pytest.mark.parametrize("option", ["--wr", "--chec", "--out-", "--no-val", "--stdin"])
def test_options_are_never_abbreviated(tmp_path, option):
    write(tmp_path / "loss.py", LOSS)
    args = ["loss.py", option] if option in ("--chec", "--no-val") else ["loss.py", option, "w"]
    assert_usage_error(run_in(tmp_path, *args), "unrecognized arguments: " + option)


def test_no_source_and_no_config_is_a_two_line_usage_error(tmp_path):
    for args in [(), ("--check",), ("--diff", "-v")]:
        proc = run_in(tmp_path, *args)
        assert_usage_error(proc, "give a SOURCE.py, or list the files to generate in [tool.yota-s2s]")


def test_help_says_how_to_select_the_parameters():
    proc = run_in(REPO, "--help")
    assert proc.returncode == 0
    text = " ".join(proc.stdout.split())
    assert "data such as X and y included: select the parameters with --wrt w,b" in text
    assert "FUNC:A,B selects them for one function" in text


# ------------------------------------------------------------------------------------------------ the config


CONFIGURED = """
    [tool.yota-s2s]
    rules = ["rules/extra.py"]

    [[tool.yota-s2s.generate]]
    source = "src/demo/loss.py"
    out = "src/demo/grad_loss.py"
    wrt = ["w"]
    value = false
    """


@pytest.mark.slow
def test_check_of_one_file_the_config_lists_uses_and_suggests_the_configs_options(tmp_path):
    root = make_project(tmp_path)
    write(root / "pyproject.toml", CONFIGURED)
    assert run_in(root).returncode == 0
    written = (root / "src/demo/grad_loss.py").read_text()
    command = written.splitlines()[3].removeprefix("# regenerate: ")
    assert command == "yota-s2s src/demo/loss.py --rules rules/extra.py --wrt w --out src/demo/grad_loss.py --no-value"
    # one file, no options: checked as the config says (before, without its wrt and value: out of date)
    proc = run_in(root, "src/demo/loss.py", "--out", "src/demo/grad_loss.py", "--check")
    assert (proc.returncode, proc.stderr) == (0, "")
    sub = root / "src" / "demo"
    assert run_in(sub, "loss.py", "--out", "grad_loss.py", "--check").returncode == 0  # from another folder
    write(sub / "loss.py", LOSS.replace("** 2", "** 4"))
    proc = run_in(root, "src/demo/loss.py", "--out", "src/demo/grad_loss.py", "--check")
    assert proc.returncode == 1
    assert proc.stderr == f"src/demo/grad_loss.py: out of date with src/demo/loss.py; run '{command}'\n"
    proc = run_in(sub, "loss.py", "--out", "grad_loss.py", "--check")
    assert proc.stderr.endswith(f"; run 'cd ../.. && {command}'\n")
    # the suggested command writes what `yota-s2s` writes
    assert run_command(root, shlex.split(command)).returncode == 0
    suggested = (sub / "grad_loss.py").read_text()
    (sub / "grad_loss.py").unlink()
    assert run_in(root).returncode == 0
    assert (sub / "grad_loss.py").read_text() == suggested
    # so does the one-file command without options, from the source's folder
    (sub / "grad_loss.py").unlink()
    assert run_in(sub, "loss.py", "--out", "grad_loss.py").returncode == 0
    assert (sub / "grad_loss.py").read_text() == suggested


def test_one_file_with_other_options_than_the_config_is_written_as_given_with_a_warning(tmp_path):
    root = make_project(tmp_path)
    write(root / "pyproject.toml", CONFIGURED)
    proc = run_in(root, "src/demo/loss.py", "--wrt", "x", "--out", "src/demo/grad_loss.py")
    assert proc.returncode == 0
    assert proc.stderr.startswith(
        "src/demo/grad_loss.py: warning: pyproject.toml lists this file with other options: written as this "
        "command says, not as 'yota-s2s' writes it (yota-s2s src/demo/loss.py --rules rules/extra.py --wrt w"
    )
    assert "--wrt x --out src/demo/grad_loss.py\n" in (root / "src/demo/grad_loss.py").read_text()


def test_a_command_that_writes_a_file_reads_the_config_and_reports_a_mistake_in_it(tmp_path):
    write(tmp_path / "loss.py", LOSS)
    (tmp_path / "pyproject.toml").write_text('[[tool.yota-s2s.generate]]\nsource = "loss.py"\noutput = "g.py"\n')
    proc = run_in(tmp_path, "loss.py", "--out", "grad_loss.py")
    assert proc.returncode == 2
    assert proc.stderr.startswith("pyproject.toml:3:1: error: unknown key 'output' in [[tool.yota-s2s.generate]]")
    assert not (tmp_path / "grad_loss.py").exists()
    proc = run_in(tmp_path, "loss.py")  # to stdout: the config is not read
    assert (proc.returncode, proc.stderr) == (0, "")


# ------------------------------------------------------------------------------------------------ --wrt per function

PER_FUNCTION = {
    "inline table": 'wrt = {penalty = ["w"], other = "w"}\n',
    "table": '\n[tool.yota-s2s.generate.wrt]\npenalty = ["w"]\nother = "w"\n',
}


@pytest.mark.parametrize("form", sorted(PER_FUNCTION))
def test_the_config_selects_the_parameters_of_each_function(tmp_path, form):
    write(tmp_path / "penalty.py", PENALTY)
    config = '[[tool.yota-s2s.generate]]\nsource = "penalty.py"\nout = "grad_penalty.py"\n' + PER_FUNCTION[form]
    (tmp_path / "pyproject.toml").write_text(config)
    proc = run_in(tmp_path)
    assert proc.returncode == 0, proc.stderr
    text = (tmp_path / "grad_penalty.py").read_text()
    command = text.splitlines()[3].removeprefix("# regenerate: ")
    assert command == "yota-s2s penalty.py --wrt penalty:w --wrt other:w --out grad_penalty.py"
    assert re.findall(r"^def (grad_\w+)\((.*)\):", text, re.MULTILINE) == [
        ("grad_penalty", "w, lam=0.1"),
        ("grad_other", "w"),
    ]
    module = load_module(tmp_path / "grad_penalty.py")
    assert len(module.grad_penalty(np.ones(2))) == 2  # (value, dw): lam is left out
    (tmp_path / "grad_penalty.py").unlink()
    assert run_command(tmp_path, shlex.split(command)).returncode == 0
    assert (tmp_path / "grad_penalty.py").read_text() == text


def test_wrt_per_function_on_the_command_line(tmp_path):
    write(tmp_path / "penalty.py", PENALTY)
    proc = run_in(tmp_path, "penalty.py", "--wrt", "penalty:w,lam", "--out", "grad_penalty.py")
    assert proc.returncode == 0, proc.stderr
    module = load_module(tmp_path / "grad_penalty.py")
    _, _, dlam = module.grad_penalty(np.ones(2))
    assert np.isclose(dlam, 2 * np.sqrt(2.0)) and len(module.grad_other(np.ones(2))) == 2
    proc = run_in(tmp_path, "penalty.py", "--wrt", "nope:w")
    assert proc.returncode == 2
    assert proc.stderr == (
        "penalty.py: error: --wrt nope:...: nope is not a differentiated function (they are penalty, other) (YS004)\n"
    )
    assert_usage_error(run_in(tmp_path, "penalty.py", "--wrt", "w", "--wrt", "other:w"), "--wrt A,B applies to every")
    assert_usage_error(run_in(tmp_path, "penalty.py", "--wrt", "penalty:"), "write FUNC:A,B")
    assert_usage_error(run_in(tmp_path, "penalty.py", "--wrt", "other:w", "--wrt", "other:w"), "of other twice")


BAD_WRT = {
    "empty table": ("wrt = {}\n", "wrt = {} names no function: give FUNC = [names] pairs, or leave wrt out"),
    "not names": ("wrt = {penalty = 3}\n", "wrt.penalty must be a string or a list of names"),
    "not a function name": ('wrt = {"a-b" = ["w"]}\n', "wrt: 'a-b' is not a function name"),
    "not in func": ('func = ["penalty"]\nwrt = {other = ["w"]}\n', "wrt: 'other' is not one of the functions of func"),
}


@pytest.mark.parametrize("case", sorted(BAD_WRT))
def test_a_bad_per_function_wrt_is_a_located_ys007(tmp_path, case):
    line, message = BAD_WRT[case]
    config = '[[tool.yota-s2s.generate]]\nsource = "p.py"\nout = "g.py"\n' + line
    (tmp_path / "pyproject.toml").write_text(config)
    proc = run_in(tmp_path)
    assert proc.returncode == 2
    first = proc.stderr.splitlines()[0]
    assert re.fullmatch(r"pyproject\.toml:\d+:\d+: error: (.*) \(YS007\)", first), first
    assert message in first
    assert proc.stderr.splitlines()[1].lstrip().startswith(("wrt", "func"))


# ------------------------------------------------------------------------------------------------ pre-commit


def _pinned_rev() -> str:
    page = (REPO / "docs/src/workflow.md.in").read_text()
    found = re.findall(r"^\s+rev: (\S+)", page, flags=re.MULTILINE)
    assert len(found) == 1, found
    return found[0]


def test_the_documented_pre_commit_rev_is_a_commit_of_this_repository_with_the_hook():
    rev = _pinned_rev()
    assert re.fullmatch(r"[0-9a-f]{40}", rev), f"pin a full commit SHA (no tag exists yet): {rev}"
    git = ["git", "-C", str(REPO)]
    if subprocess.run([*git, "rev-parse", "--git-dir"], capture_output=True, check=False).returncode != 0:
        pytest.skip("not a git checkout")
    shown = subprocess.run([*git, "show", f"{rev}:.pre-commit-hooks.yaml"], capture_output=True, text=True, check=False)
    shallow = subprocess.run(
        [*git, "rev-parse", "--is-shallow-repository"], capture_output=True, text=True, check=False
    )
    if shown.returncode != 0 and shallow.stdout.strip() == "true":
        pytest.skip("a shallow clone: the pinned commit may be outside it")
    assert shown.returncode == 0, shown.stderr
    assert "- id: yota-s2s-check\n" in shown.stdout and "entry: yota-s2s --check\n" in shown.stdout


@pytest.mark.skipif(
    subprocess.run([sys.executable, "-c", "import pre_commit"], capture_output=True, check=False).returncode != 0,
    reason="pre-commit is not installed (pip install pre-commit to run the hook for real)",
)
def test_pre_commit_runs_the_hook_from_this_repository(tmp_path):
    """pre-commit itself installs this checkout's committed HEAD as the hook and runs it (slow: a venv)."""
    root = make_project(tmp_path / "repo")
    head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True, check=True)
    (root / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {REPO}\n    rev: {head.stdout.strip()}\n    hooks:\n      - id: yota-s2s-check\n"
    )
    env = {"PRE_COMMIT_HOME": str(tmp_path / "cache")}
    assert run_in(root).returncode == 0
    for command in (["git", "init", "-q"], ["git", "add", "-A"]):
        subprocess.run(command, cwd=root, check=True)
    pre_commit = [sys.executable, "-m", "pre_commit", "run", "--all-files"]
    proc = subprocess.run(pre_commit, cwd=root, env={**os.environ, **env}, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    write(root / "src/demo/loss.py", LOSS.replace("** 2", "** 4"))
    proc = subprocess.run(pre_commit, cwd=root, env={**os.environ, **env}, capture_output=True, text=True, check=False)
    assert proc.returncode == 1
    assert "src/demo/grad_loss.py: out of date with src/demo/loss.py; run 'yota-s2s'" in proc.stdout
