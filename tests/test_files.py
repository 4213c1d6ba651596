"""The user's files, handled like a careful tool (issue 23): what is read, what is written, what
reaches the generated text.

- ``--out`` never overwrites the source (however spelled: another path, a symlink, a hard
  link), a rule file or the project config (YS019), nor anything that is not a regular file (a
  device, a FIFO: YS044); reading a FIFO as source or output never hangs (YS045, YS044).
- Sources are read as Python reads them: a UTF-8 byte order mark, a PEP 263 coding line,
  ``\\r\\n`` line ends; the header's ``source-sha256`` is the hash of the file's bytes; bytes that
  are not text in the file's encoding are a located YS046.
- A file name with a newline never breaks the header: names reach the output only as escaped
  single-line text, and the API writes the same ``# regenerate:`` command as the command line.
- A failed or interrupted write leaves no temporary file and the previous output as it was; a
  replaced output keeps its permission bits.

Most runs call ``cli.main`` in-process (in ``tmp_path``); the signal test runs a subprocess.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import yota_s2s
from yota_s2s import cli, files
from yota_s2s.api import gradsource
from yota_s2s.errors import UserError
from yota_s2s.project import Entry

from .gradcheck import load_module, numeric_grad

LOSS = """\
import numpy as np


def loss(x):
    return np.sum(np.sin(x) * x)
"""


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "loss.py").write_text(LOSS)
    return tmp_path


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = cli.main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def listing(path: Path) -> list[str]:
    return sorted(p.name for p in path.iterdir())


# ----------------------------------------------------------------------------- --out is the source (YS019)


@pytest.mark.parametrize("spelling", ["loss.py", "./loss.py", "../{dir}/loss.py", "{abs}", "link.py", "hard.py"])
def test_out_naming_the_source_in_any_spelling_is_refused(folder, capsys, spelling):
    os.symlink("loss.py", folder / "link.py")
    os.link(folder / "loss.py", folder / "hard.py")
    out = spelling.format(dir=folder.name, abs=folder / "loss.py")
    status, stdout, err = run(capsys, "loss.py", "--out", out)
    assert status == 2 and stdout == ""
    assert (
        err
        == f"{out}: error: the output is the source file loss.py (the same file): refusing to overwrite it (YS019)\n"
    )
    assert (folder / "loss.py").read_text() == LOSS
    assert (folder / "link.py").is_symlink()


def test_out_naming_a_rule_file_or_the_example_is_refused(folder, capsys):
    (folder / "extra.py").write_text("")
    status, _, err = run(capsys, "loss.py", "--rules", "extra.py", "--out", "extra.py")
    assert status == 2 and "the output is the rule file extra.py (the same file)" in err and "(YS019)" in err
    assert (folder / "extra.py").read_text() == ""
    (folder / "example.py").write_text("import numpy as np\nargs = (np.array([0.5, 0.25]),)\n")
    status, _, err = run(capsys, "loss.py", "--verify", "--example", "example.py", "--out", "example.py")
    assert status == 2 and "the output is the --example file example.py" in err
    assert "args =" in (folder / "example.py").read_text()


def test_a_project_entry_whose_out_is_a_link_to_its_source_or_to_the_config_is_refused(folder, capsys):
    os.symlink("loss.py", folder / "alias.py")
    config = '[[tool.yota-s2s.generate]]\nsource = "loss.py"\nout = "{out}"\n'
    (folder / "pyproject.toml").write_text(config.format(out="alias.py"))
    status, _, err = run(capsys)
    assert status == 2 and err.startswith("alias.py: error: the output is the source file loss.py") and "YS019" in err
    assert (folder / "loss.py").read_text() == LOSS
    (folder / "pyproject.toml").write_text(config.format(out="pyproject.toml"))
    before = (folder / "pyproject.toml").read_text()
    status, _, err = run(capsys)
    assert status == 2 and "the output is the project config pyproject.toml" in err
    assert (folder / "pyproject.toml").read_text() == before


# ----------------------------------------------------------------------------- not a regular file (YS044, YS045)


def _char_device(path: Path) -> None:
    """A character device node of its own in ``tmp_path`` (the numbers of /dev/null, which is never
    touched: a test that went wrong would replace only this node); skip where mknod is not allowed."""
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except (PermissionError, AttributeError, OSError) as exc:
        pytest.skip(f"cannot make a device node here: {exc}")


def test_out_naming_a_fifo_or_a_link_to_a_device_is_refused_and_left_alone(folder, capsys):
    os.mkfifo(folder / "pipe")
    _char_device(folder / "device")
    os.symlink("device", folder / "null")
    for name, kind in [("pipe", "a FIFO (named pipe)"), ("null", "a character device")]:
        status, stdout, err = run(capsys, "loss.py", "--out", name)
        assert (status, stdout) == (2, "")
        assert err == (
            f"{name}: error: the output is {kind}, not a regular file: refusing to replace it "
            "(--out - writes to stdout) (YS044)\n"
        )
    assert stat.S_ISFIFO(os.lstat(folder / "pipe").st_mode)
    assert os.readlink(folder / "null") == "device" and stat.S_ISCHR(os.lstat(folder / "device").st_mode)
    assert listing(folder) == ["device", "loss.py", "null", "pipe"]  # no temporary file


def test_check_against_a_fifo_out_does_not_hang(folder, capsys):
    os.mkfifo(folder / "pipe")
    status, _, err = run(capsys, "loss.py", "--out", "pipe", "--check")  # would block in open() before
    assert status == 2 and "the output is a FIFO (named pipe), not a regular file: refusing to read it (YS044)" in err


def test_a_fifo_as_source_is_refused_without_hanging(tmp_path):
    os.mkfifo(tmp_path / "loss.py")
    proc = subprocess.run(
        [sys.executable, "-m", "yota_s2s", "loss.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == (
        "loss.py: error: the source is a FIFO (named pipe), not a regular file: refusing to read it (YS045)\n"
    )
    with pytest.raises(UserError, match="YS045"):
        gradsource(tmp_path / "loss.py")


# ----------------------------------------------------------------------------- reading as Python reads


def test_a_bom_and_crlf_source_is_read_as_python_reads_it_and_hashed_as_its_bytes(folder, capsys):
    data = b"\xef\xbb\xbf" + LOSS.replace("\n", "\r\n").encode()
    (folder / "loss.py").write_bytes(data)
    status, _, err = run(capsys, "loss.py", "--out", "grad_loss.py")
    assert status == 0, err
    text = (folder / "grad_loss.py").read_text()
    assert f"# source-sha256: {hashlib.sha256(data).hexdigest()}\n" in text  # what sha256sum prints
    assert run(capsys, "loss.py", "--out", "grad_loss.py", "--check")[0] == 0
    assert gradsource("loss.py") == run(capsys, "loss.py")[1]  # the API reads the same way
    x = np.array([0.3, -1.2, 2.0])
    value, dx = load_module(folder / "grad_loss.py").grad_loss(x)
    assert value == pytest.approx(np.sum(np.sin(x) * x))
    assert np.allclose(dx, numeric_grad(lambda x: np.sum(np.sin(x) * x), [x], 0), rtol=1e-7, atol=1e-9)


LATIN1 = """\
# -*- coding: latin-1 -*-
import numpy as np


def loss(x):
    \u00e9 = 2.0  # d\u00e9j\u00e0
    return np.sum(\u00e9 * np.sin(x) * x)
"""


def test_a_latin1_source_with_a_coding_line_is_accepted_and_its_diagnostics_count_characters(folder, capsys):
    data = LATIN1.encode("latin-1")
    (folder / "loss.py").write_bytes(data)
    status, _, err = run(capsys, "loss.py", "--out", "grad_loss.py")
    assert status == 0, err
    module_text = (folder / "grad_loss.py").read_text(encoding="utf-8")
    assert f"# source-sha256: {hashlib.sha256(data).hexdigest()}\n" in module_text
    x = np.array([0.3, -1.2, 2.0])
    _, dx = load_module(folder / "grad_loss.py").grad_loss(x)
    assert np.allclose(dx, numeric_grad(lambda x: np.sum(2.0 * np.sin(x) * x), [x], 0), rtol=1e-7, atol=1e-9)
    # an error after a non-ASCII character: the column counts characters, the line is decoded
    (folder / "loss.py").write_bytes(LATIN1.replace("np.sin(x) * x)", "(x and (y := x)))").encode("latin-1"))
    status, _, err = run(capsys, "loss.py")
    assert status == 2
    assert err.splitlines()[:3] == [
        "loss.py:7:31: error: assignment expressions (:=) are not supported (YS020)",
        "        return np.sum(\u00e9 * (x and (y := x)))",
        "                                  ^",
    ]


def test_bytes_that_are_not_text_in_the_encoding_are_a_located_ys046(folder, capsys):
    (folder / "loss.py").write_bytes(LOSS.replace("* x)", "* x)  # caf\u00e9").encode("latin-1"))
    status, _, err = run(capsys, "loss.py")
    assert status == 2
    assert err.splitlines() == [
        (
            "loss.py:5:40: error: the source is not UTF-8 text: byte 0xe9 cannot be decoded; declare its encoding "
            "with a '# -*- coding: NAME -*-' line (YS046)"
        ),
        "        return np.sum(np.sin(x) * x)  # caf?",
        "    " + " " * 39 + "^",
    ]
    (folder / "loss.py").write_bytes(b"# -*- coding: klingon -*-\n" + LOSS.encode())
    status, _, err = run(capsys, "loss.py")
    assert status == 2 and err.startswith("loss.py:1:7: error: the source's encoding declaration is wrong: unknown")


def test_an_imported_sibling_module_is_read_the_same_way(folder, capsys):
    (folder / "helpers.py").write_bytes("# coding: latin-1\ndef sq(x):\n    return x * x  # \u00e9\n".encode("latin-1"))
    (folder / "loss.py").write_text(
        "import numpy as np\n\nimport helpers\n\n\ndef loss(x):\n    return np.sum(helpers.sq(x))\n"
    )
    status, out, err = run(capsys, "loss.py")
    assert status == 0, err
    assert "def grad_loss(x):" in out
    os.remove(folder / "helpers.py")
    os.mkfifo(folder / "helpers.py")
    status, _, err = run(capsys, "loss.py")  # a FIFO is no module file: never opened, no hang
    assert status == 2 and "no derivative rule for helpers.sq()" in err


# ----------------------------------------------------------------------------- names never break the header


def test_file_names_with_newlines_reach_the_header_escaped_and_the_command_regenerates(tmp_path):
    source = "a\nimport os; os.mkdir('pwned')\n#.py"
    out = "o\nraise SystemExit('pwned')\n.py"
    (tmp_path / source).write_text(LOSS)
    proc = subprocess.run(
        [sys.executable, "-m", "yota_s2s", source, "--out", out],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    text = (tmp_path / out).read_text()
    header = text.split("\n")[:4]
    assert header[0] == r"# Code generated by yota-s2s " + yota_s2s.__version__ + (
        r" from a\nimport os; os.mkdir('pwned')\n#.py::loss (target numpy). DO NOT EDIT."
    )
    assert header[3] == "# regenerate: yota-s2s $'a\\nimport os; os.mkdir(\\'pwned\\')\\n#.py' " + (
        "--out $'o\\nraise SystemExit(\\'pwned\\')\\n.py'"
    )
    assert all(line.startswith("#") for line in header)
    load_module(tmp_path / out)  # importing it runs nothing of the names
    assert not (tmp_path / "pwned").exists()
    # the header's command, run by a shell, writes the same file (here: checks it)
    command = (
        header[3].removeprefix("# regenerate: ").replace("yota-s2s", shlex.quote(sys.executable) + " -m yota_s2s", 1)
    )
    assert subprocess.run(["bash", "-c", command + " --check"], cwd=tmp_path, check=False).returncode == 0


def test_every_header_line_is_one_printable_line_whatever_the_names():
    from yota_s2s.pipeline import generate

    for path in ["x\ry.py", "x\u2028y.py", "x\x1b[31my.py", "x" + os.fsdecode(b"\xff") + ".py"]:
        text = generate(LOSS, path, command=Entry(path, "g\n.py").command()).text
        header = text.split("\n")[:5]  # the 4 header lines, then the imports
        assert [line[:2] for line in header] == ["# "] * 4 + ["im"], header
        assert all(line.isprintable() for line in header)
        text.encode("utf-8")  # no lone surrogate left


def test_the_api_and_the_cli_write_the_same_regenerate_command(folder, capsys):
    os.rename(folder / "loss.py", folder / "my loss.py")
    assert run(capsys, "my loss.py", "--wrt", "x")[1] == gradsource("my loss.py", wrt=["x"])
    assert "# regenerate: yota-s2s 'my loss.py' --wrt x\n" in gradsource("my loss.py", wrt=["x"])


# ----------------------------------------------------------------------------- temporaries and permissions


@pytest.mark.parametrize("error", [OSError(28, "No space left on device"), KeyboardInterrupt()])
def test_a_failure_during_the_write_leaves_no_temporary_and_the_previous_output(folder, capsys, monkeypatch, error):
    (folder / "grad_loss.py").write_text("previous\n")

    def failing_fsync(fd):
        assert any(name.startswith(".yota-s2s-") for name in os.listdir(folder))  # the temporary exists now
        raise error

    monkeypatch.setattr(files.os, "fsync", failing_fsync)
    if isinstance(error, KeyboardInterrupt):
        with pytest.raises(KeyboardInterrupt):
            cli.main(["loss.py", "--out", "grad_loss.py"])
    else:
        status, _, err = run(capsys, "loss.py", "--out", "grad_loss.py")
        assert (
            status == 2
            and err == "grad_loss.py: error: cannot write the output file: No space left on device (YS006)\n"
        )
    assert listing(folder) == ["grad_loss.py", "loss.py"]
    assert (folder / "grad_loss.py").read_text() == "previous\n"


SIGTERM_DURING_WRITE = """
import os, signal, sys
import yota_s2s
from yota_s2s import cli, files

real_fsync = files.os.fsync
def fsync(fd):
    real_fsync(fd)
    os.kill(os.getpid(), signal.SIGTERM)  # as a kill arrives in the middle of the write
    signal.pause() if hasattr(signal, "pause") else None
files.os.fsync = fsync
sys.exit(cli.main(["loss.py", "--out", "grad_loss.py"]))
"""


def test_sigterm_during_the_write_removes_the_temporary_and_ends_the_process_by_the_signal(tmp_path):
    (tmp_path / "loss.py").write_text(LOSS)
    (tmp_path / "grad_loss.py").write_text("previous\n")
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(SIGTERM_DURING_WRITE)],
        cwd=tmp_path,
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == -15, proc.stderr
    assert listing(tmp_path) == ["grad_loss.py", "loss.py"]
    assert (tmp_path / "grad_loss.py").read_text() == "previous\n"


def test_a_replaced_output_keeps_its_permission_bits_and_a_new_one_gets_the_umask_default(folder, capsys):
    assert run(capsys, "loss.py", "--out", "new.py")[0] == 0
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(os.stat(folder / "new.py").st_mode) == 0o666 & ~umask
    (folder / "grad_loss.py").write_text("previous\n")
    os.chmod(folder / "grad_loss.py", 0o640)
    assert run(capsys, "loss.py", "--out", "grad_loss.py")[0] == 0
    assert stat.S_IMODE(os.stat(folder / "grad_loss.py").st_mode) == 0o640
    assert "def grad_loss" in (folder / "grad_loss.py").read_text()


def test_an_out_symlink_to_a_regular_file_is_kept_and_its_file_replaced(folder, capsys):
    (folder / "gen").mkdir()
    (folder / "gen" / "grad_loss.py").write_text("previous\n")
    os.symlink("gen/grad_loss.py", folder / "grad_loss.py")
    assert run(capsys, "loss.py", "--out", "grad_loss.py")[0] == 0
    assert os.readlink(folder / "grad_loss.py") == "gen/grad_loss.py"
    assert "def grad_loss" in (folder / "gen" / "grad_loss.py").read_text()
    assert listing(folder / "gen") == ["grad_loss.py"]


def test_a_rule_file_is_read_as_python_reads_a_source(folder, capsys):
    """``--rules`` FILE: a FIFO was waited on forever and bytes not in its encoding were an internal
    error; a latin-1 rule file with a coding line is read."""
    os.mkfifo(folder / "pipe.py")
    status, _, err = run(capsys, "loss.py", "--rules", "pipe.py")
    assert (
        status == 2
        and err
        == "pipe.py: error: the rule file is a FIFO (named pipe), not a regular file: refusing to read it (YS045)\n"
    )
    (folder / "bad.py").write_bytes(b"x = 1\n# caf\xe9\n")
    status, _, err = run(capsys, "loss.py", "--rules", "bad.py")
    assert status == 2 and "bad.py:2:6: error: the rule file is not UTF-8 text: byte 0xe9" in err and "(YS046)" in err
    (folder / "latin.py").write_bytes(b"# -*- coding: latin-1 -*-\n# caf\xe9\n")
    status, _, err = run(capsys, "loss.py", "--rules", "latin.py")
    assert status == 0, err
