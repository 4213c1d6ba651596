"""The output snapshot: every text the tool writes for the sources the project knows, in every form.

Input: the repository (the corpora, the language cases and every other Python source written
in a test, the examples of ``[tool.yota-s2s]``, the benchmark workloads, the diagnostics that
``docs/errors.md`` documents, the broken rule files).  Output: ``collect()``, a dict from a key
(``corpus::poly8::numpy-value``) to the text the tool writes for it: the generated module,
the tape of each ``--dump-ir`` stage, or the diagnostic it prints.

Each source is generated for ``numpy`` and ``cupy``, with and without the value
(``--no-value``), and with ``--buffers`` (NumPy only); the sources of ``tests/test_jacobian.py``
also with ``--vjp``, ``--jvp`` and ``--jacobian``, and those of ``tests/test_hessian.py`` with ``--hvp``
and ``--hessian`` (without ``--buffers``).
``tests/snapshot.json`` holds the SHA-256 of each text; ``tests/test_snapshot.py`` fails when
one differs, so a change that alters what users get is never made by accident.  A sample of the
texts (``GOLDENS``) is also kept whole in ``tests/goldens/``, to be read and diffed in review.
A deliberate change updates both::

    python -m tests.snapshot --write           # rewrite tests/snapshot.json and tests/goldens/
    python -m tests.snapshot --dump DIR        # every text as a file in DIR, to diff two commits

The texts are generated in ``SHARDS`` parts (``shard_of``, by a hash of the source's key), each
once per test process (``shard_texts``): the tests of one part (its hashes, its lines' widths in
``tests/test_output_form.py``) share it, and pytest-xdist runs the parts side by side.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import hashlib
import io
import json
import os
import re
import shlex
import sys
import tempfile
import textwrap
import tomllib
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MANIFEST = Path(__file__).resolve().parent / "snapshot.json"
GOLDENS_DIR = Path(__file__).resolve().parent / "goldens"
#: The parts the snapshot is generated and checked in (a test each).
SHARDS = 8

#: (target, value, buffers) of each form, and its name in the keys.
FORMS = {
    "numpy-value": ("numpy", True, False),
    "numpy-no-value": ("numpy", False, False),
    "cupy-value": ("cupy", True, False),
    "cupy-no-value": ("cupy", False, False),
    "buffers-value": ("numpy", True, True),
    "buffers-no-value": ("numpy", False, True),
}


@dataclass
class Source:
    """One source to generate: its text, the path it is generated as, and the options."""

    key: str
    text: str
    path: str
    funcs: list[str] | None = None
    wrt: list[str] | None = None
    rules: list[str] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)  # other files beside it (sibling imports)
    mode: str = "grad"  # --vjp, --jvp, --jacobian, --hvp, --hessian: "vjp", "jvp", "jacobian", "hvp", "hessian"


def _corpus_sources() -> Iterator[Source]:
    from tests import corpus, corpus_control

    for module in (corpus, corpus_control):
        path = f"tests/{Path(module.__file__).name}"
        text = (ROOT / path).read_text(encoding="utf-8")
        for name in sorted(module.CASES):
            yield Source(f"{Path(path).stem}::{name}", text, path, [name])


def _language_sources() -> Iterator[Source]:
    from tests import test_language as lang

    files = {f"proj/{name}": textwrap.dedent(text) for name, text in lang.PROJECT_FILES.items()}
    for name in sorted(lang.CASES):
        yield Source(f"language::{name}", lang.CASES[name][0], "proj/user.py", files=files)
    for name in sorted(lang.REFUSALS):
        source = lang.REFUSALS[name][0]
        yield Source(f"refusal::{name}", source, "t.py", ["f"] if "def f(" in source else None)


def _test_sources() -> Iterator[Source]:
    """Every string in a test file that is a Python module defining a function (the sources tests
    generate), generated as the entry points of a file ``t.py``; keyed by a hash of its text, so
    that editing a test elsewhere leaves the keys as they are."""
    for test in sorted((ROOT / "tests").glob("test_*.py")):
        tree = ast.parse(test.read_text(encoding="utf-8"))
        seen: set[str] = set()
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Constant) and isinstance(node.value, str) and "def " in node.value):
                continue
            text = textwrap.dedent(node.value).lstrip("\n")
            try:
                module = ast.parse(text)
            except SyntaxError:
                continue
            if text in seen or not any(isinstance(n, ast.FunctionDef) for n in module.body):
                continue
            seen.add(text)
            yield Source(f"{test.stem}:{hashlib.sha256(text.encode()).hexdigest()[:12]}", text, "t.py")


def _example_sources() -> Iterator[Source]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    for entry in config["tool"]["yota-s2s"]["generate"]:
        path = entry["source"]
        yield Source(
            f"example::{path}",
            (ROOT / path).read_text(encoding="utf-8"),
            path,
            entry.get("func"),
            entry.get("wrt"),
            entry.get("rules", []),
        )


def _workload_sources() -> Iterator[Source]:
    from benchmarks.workloads import SIZES, WORKLOADS

    for name in sorted(WORKLOADS):
        w = WORKLOADS[name]
        for size in SIZES:
            func = w.func(size).__name__
            yield Source(f"workload::{name}::{size}", w.source(size), f"{name}.py", [func], w.wrt_names(size))


def _higher_order_sources() -> Iterator[Source]:
    """The systems and array-valued functions of ``tests/test_jacobian.py`` with ``--vjp``,
    ``--jvp`` and ``--jacobian``."""
    from tests import test_jacobian as jac

    for mode in ("vjp", "jvp", "jacobian"):
        for name in sorted(jac.SYSTEMS):
            for form in ("array", "stack"):
                text = jac.system_source(name, jac.SYSTEMS[name], form)
                yield Source(f"higher-order::{name}-{form}::{mode}", text, f"{name}.py", mode=mode)
        for name in sorted(jac.CASES) + ["cyclic5_arrays"]:
            yield Source(f"higher-order::{name}::{mode}", jac.ARRAYS, "arrays.py", [name], mode=mode)
        for name in ("chain", "comprehension", "nested", "carried", "branch"):
            yield Source(f"higher-order::{name}::{mode}", jac.LOOPS, "loops.py", [name], mode=mode)
    from tests import test_hessian as second

    for mode in ("hvp", "hessian"):  # the functions of tests/test_hessian.py, with respect to their one parameter
        for name, wrt in second.WRT.items():
            yield Source(f"second-order::{name}::{mode}", second.SOURCE, "second.py", [name], wrt, mode=mode)


def sources() -> list[Source]:
    return [
        *_corpus_sources(),
        *_language_sources(),
        *_test_sources(),
        *_example_sources(),
        *_workload_sources(),
        *_higher_order_sources(),
    ]


@contextlib.contextmanager
def _folder(files: dict[str, str]) -> Iterator[Path]:
    """A temporary working folder holding ``files``, the current folder while it is open."""
    cwd = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="yota-snapshot-") as folder:
        for name, text in files.items():
            path = Path(folder) / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        os.chdir(folder)
        try:
            yield Path(folder)
        finally:
            os.chdir(cwd)


def _generated(source: Source, out: dict[str, str], forms: Collection[str] = tuple(FORMS)) -> None:
    from yota_s2s.errors import UserError, UserErrors
    from yota_s2s.ir.printer import format_tape
    from yota_s2s.pipeline import STAGES, generate

    rules = [str(ROOT / r) for r in source.rules]
    for form, (target, value, buffers) in FORMS.items():
        if form not in forms or (buffers and source.mode != "grad"):  # (--buffers writes grad_NAME's classes only)
            continue
        key = f"{source.key}::{form}"
        try:
            generated = generate(
                source.text,
                source.path,
                source.funcs,
                source.wrt,
                target,
                rules,
                buffers=buffers,
                value=value,
                **({"mode": source.mode} if source.mode != "grad" else {}),
            )
        except (UserError, UserErrors) as exc:
            out[key] = f"error:\n{exc}\n"
            continue
        except Exception as exc:  # noqa: BLE001 - a bug of the tool is a text of the snapshot too
            out[key] = f"internal error: {type(exc).__name__}: {exc}\n"
            continue
        out[key] = generated.text
        if not buffers:  # (the tapes do not depend on --buffers)
            for stage in STAGES:
                try:
                    out[f"{key}::{stage}"] = "".join(format_tape(t) for t in generated.tapes[stage])
                except Exception as exc:  # noqa: BLE001 - as above
                    out[f"{key}::{stage}"] = f"internal error: {type(exc).__name__}: {exc}\n"


def _documented_diagnostics(out: dict[str, str]) -> None:
    """Each ``$ yota-s2s FILE ...`` of docs/errors.md run on the files of that page, in process."""
    from yota_s2s import cli

    page = (ROOT / "docs" / "src" / "errors.md.in").read_text(encoding="utf-8")
    files = dict(re.findall(r"^::: file (\S+)[^\n]*\n(.*?)^:::$", page, flags=re.MULTILINE | re.DOTALL))
    commands = re.findall(r"^\$ yota-s2s (\S+\.py[^;|\n]*)", page, flags=re.MULTILINE)
    with _folder(files):
        for command in commands:
            stdout, stderr = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
                try:
                    status = cli.main(shlex.split(command))
                except SystemExit as exc:
                    status = exc.code
            out[f"docs-errors::{command.strip()}"] = f"exit {status}\n{stdout.getvalue()}{stderr.getvalue()}"


def _broken_rules(out: dict[str, str]) -> None:
    from yota_s2s.dsl.load import load_rules
    from yota_s2s.errors import UserError, UserErrors

    for path in sorted((ROOT / "tests" / "rules_broken").glob("*.py")):
        if path.name == "conftest.py":
            continue
        try:
            load_rules([str(path.relative_to(ROOT))])
            out[f"rules-broken::{path.name}"] = "ok\n"
        except (UserError, UserErrors) as exc:
            out[f"rules-broken::{path.name}"] = f"{exc}\n"


def source_key(key: str) -> str:
    """The key of the source a text's key belongs to (``corpus::poly8`` of ``corpus::poly8::cupy-value::lower``);
    the documented diagnostics and the broken rule files are one source each."""
    parts = key.split("::")
    for n, part in enumerate(parts):
        if part in FORMS:
            return "::".join(parts[:n])
    return parts[0]


def _part(source: str) -> int:
    return int(hashlib.sha256(source.encode()).hexdigest()[:8], 16) % SHARDS


def shard_of(key: str) -> int:
    """The part (0 to ``SHARDS - 1``) of a text's key: that of its source, so all the texts of a source are in one."""
    return _part(source_key(key))


def collect(shard: int | None = None, keys: Collection[str] | None = None) -> dict[str, str]:
    """Every text of the snapshot, by key; with ``shard``, those of that part; with ``keys``, those
    texts alone (each source generated in the forms they name only)."""
    forms: dict[str, set[str]] | None = None
    if keys is not None:
        forms = {}
        for key in keys:
            parts = key.split("::")
            forms.setdefault(source_key(key), set()).update(p for p in parts if p in FORMS)

    def wanted(source: str) -> bool:
        return (shard is None or _part(source) == shard) and (forms is None or source in forms)

    out: dict[str, str] = {}
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        for source in sources():
            if not wanted(source.key):
                continue
            chosen = tuple(FORMS) if forms is None else forms[source.key]
            if source.files:
                with _folder({**source.files, source.path: source.text}):
                    _generated(source, out, chosen)
            else:
                _generated(source, out, chosen)
        if wanted("docs-errors"):
            _documented_diagnostics(out)
        if wanted("rules-broken"):
            _broken_rules(out)
    finally:
        os.chdir(cwd)
    return out if keys is None else {key: out[key] for key in keys if key in out}


def shard_params() -> list:
    """The parts as pytest parameters (``part3``): under ``-n``, the tests of one part (its hashes, its
    lines) run in one process, which generates it once (``tests/conftest.py``, ``group_of``)."""
    import pytest

    return [pytest.param(k, id=f"part{k}") for k in range(SHARDS)]


@functools.cache
def shard_texts(shard: int) -> dict[str, str]:
    """``collect(shard)``, generated once in a process (read, never changed, by the tests that share it)."""
    return collect(shard)


def digests(texts: dict[str, str]) -> dict[str, str]:
    return {key: hashlib.sha256(text.encode()).hexdigest()[:16] for key, text in sorted(texts.items())}


#: The texts kept whole in tests/goldens/: a sample of every kind of source, form and stage, and of
#: the diagnostics (the hashes of tests/snapshot.json hold all of them, but a hash shows only that a text moved).
GOLDENS = (
    "corpus::poly8::numpy-value",
    "corpus::poly8::numpy-no-value",
    "corpus::poly8::cupy-value",
    "corpus::poly8::buffers-value",
    "corpus::mlp::numpy-value",
    "corpus::mlp::numpy-value::lower",
    "corpus::mlp::numpy-value::optimize",
    "corpus::mat_reshape::numpy-value",
    "corpus::vec_slices::numpy-value",
    "corpus::vec_helpers::numpy-value",
    "corpus::scalar_trig::numpy-no-value",
    "corpus::bcast_both::buffers-no-value",
    "corpus_control::rk4::numpy-value",
    "corpus_control::rnn::numpy-value",
    "corpus_control::branch_sign::numpy-value",
    "corpus_control::loop_break::numpy-value",
    "corpus_control::newton_sqrt::cupy-no-value",
    "corpus_control::euler::numpy-value::optimize",
    "language::methods_calling_methods::numpy-value",
    "language::comprehension_zip_enumerate::numpy-value",
    "language::import_from_sibling::numpy-value",
    "refusal::recursion::numpy-value",
    "refusal::write into a view::numpy-value",
    "workload::pd::small::numpy-value",
    "workload::katsura8::small::numpy-value",
    "higher-order::katsura4-array::vjp::numpy-value",
    "higher-order::katsura4-array::jvp::numpy-value",
    "higher-order::katsura4-array::jacobian::numpy-value",
    "higher-order::layer::jacobian::numpy-no-value",
    "higher-order::carried::jvp::numpy-value",
    "second-order::mlp::hvp::numpy-value",
    "second-order::rosen::hessian::numpy-value",
    "second-order::softplus_rows::hessian::cupy-value",
    "docs-errors::ys001.py",
    "docs-errors::ys003.py --wrt w",
    "rules-broken::two_errors.py",
    "rules-broken::bad_shape.py",
)


def golden_path(key: str) -> Path:
    """The file of a golden text: ``corpus--poly8--numpy-value.py`` for a generated module, ``.txt``
    for a tape or a diagnostic."""
    parts = key.split("::")
    module = parts[-1] in FORMS and not key.startswith("refusal::")
    return GOLDENS_DIR / (re.sub(r"[^\w.-]+", "_", "--".join(parts)) + (".py" if module else ".txt"))


def write_goldens(texts: dict[str, str]) -> None:
    GOLDENS_DIR.mkdir(exist_ok=True)
    for path in GOLDENS_DIR.iterdir():
        if path.suffix in (".py", ".txt"):
            path.unlink()
    for key in GOLDENS:
        golden_path(key).write_text(texts[key], encoding="utf-8")


def main(argv: list[str]) -> int:
    if argv[:1] == ["--write"]:
        texts = collect()
        MANIFEST.write_text(json.dumps(digests(texts), indent=1, sort_keys=True) + "\n", encoding="utf-8")
        write_goldens(texts)
        print(f"{MANIFEST.relative_to(ROOT)}: {len(texts)} texts; {GOLDENS_DIR.relative_to(ROOT)}/: {len(GOLDENS)}")
        return 0
    if argv[:1] == ["--dump"] and len(argv) == 2:
        texts = collect()
        folder = Path(argv[1])
        folder.mkdir(parents=True, exist_ok=True)
        for key, text in texts.items():
            (folder / re.sub(r"[^\w.:-]", "_", key).replace(":", "_")).write_text(text, encoding="utf-8")
        print(f"{folder}: {len(texts)} texts")
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
