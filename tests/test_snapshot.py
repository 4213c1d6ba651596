"""The tool writes what it wrote before: every text of ``tests/snapshot.py`` has its recorded SHA-256,
and the sample kept whole in ``tests/goldens/`` is the text of today.

A change to the generated modules, the printed tapes or the diagnostics fails here until it is
made on purpose: run ``python -m tests.snapshot --write`` and say in the commit why the output
changed (the goldens' diff shows how on a sample; ``--dump DIR`` on two commits shows every text).
The texts are checked in ``SHARDS`` parts, a test each (``shard_params``), so that pytest-xdist
runs them side by side; each part is generated once per process and shared with
``tests/test_output_form.py``'s check of its lines.
"""

from __future__ import annotations

import difflib
import json

import pytest

from .snapshot import (
    GOLDENS,
    GOLDENS_DIR,
    MANIFEST,
    SHARDS,
    collect,
    digests,
    golden_path,
    shard_of,
    shard_params,
    shard_texts,
    source_key,
)


@pytest.mark.slow
@pytest.mark.parametrize("shard", shard_params())
def test_every_text_is_as_recorded(shard):
    recorded = {k: v for k, v in json.loads(MANIFEST.read_text(encoding="utf-8")).items() if shard_of(k) == shard}
    texts = shard_texts(shard)
    now = digests(texts)
    changed = sorted(k for k in now.keys() & recorded.keys() if now[k] != recorded[k])
    added = sorted(now.keys() - recorded.keys())
    removed = sorted(recorded.keys() - now.keys())
    report = [
        f"{len(changed)} changed, {len(added)} new, {len(removed)} gone (of {len(recorded)} recorded in this part)"
    ]
    report += [f"changed: {k}" for k in changed[:20]] + [f"new: {k}" for k in added[:10]]
    report += [f"gone: {k}" for k in removed[:10]]
    if changed:
        report.append(f"--- {changed[0]} now:\n{texts[changed[0]][:3000]}")
    assert not (changed or added or removed), "\n".join(report)


def test_the_goldens_are_the_texts_of_today():
    """Each text of ``GOLDENS`` is its file in tests/goldens/ (a unified diff on failure), and no other file is there."""
    texts = collect(keys=GOLDENS)
    diffs = []
    for key in GOLDENS:
        path = golden_path(key)
        kept = path.read_text(encoding="utf-8") if path.exists() else ""
        if texts.get(key) != kept:
            lines = difflib.unified_diff(
                kept.splitlines(), texts.get(key, "(no such text)").splitlines(), str(path.name), "now", lineterm=""
            )
            diffs.append("\n".join(list(lines)[:60]))
    stray = sorted({p.name for p in GOLDENS_DIR.glob("*.*")} - {golden_path(k).name for k in GOLDENS} - {"README.md"})
    assert not diffs, (
        f"{len(diffs)} of {len(GOLDENS)} goldens differ (python -m tests.snapshot --write):\n" + "\n".join(diffs[:3])
    )
    assert not stray, f"files of no golden in {GOLDENS_DIR.name}/: {stray}"


def test_the_goldens_are_recorded_texts():
    recorded = json.loads(MANIFEST.read_text(encoding="utf-8"))
    assert all(k in recorded for k in GOLDENS), [k for k in GOLDENS if k not in recorded]
    kept = {k: golden_path(k).read_text(encoding="utf-8") for k in GOLDENS}
    assert digests(kept) == {k: recorded[k] for k in GOLDENS}


def test_a_text_is_checked_in_the_part_that_generates_its_source():
    """``shard_of`` of a text's key is the part ``collect(shard)`` generates its source in: a source's
    key never holds a form's name (``source_key`` finds the source by it)."""
    from .snapshot import FORMS, _part, sources

    for source in sources():
        for form in FORMS:
            assert source_key(f"{source.key}::{form}::lower") == source.key
            assert shard_of(f"{source.key}::{form}") == _part(source.key)
    assert source_key("docs-errors::ys003.py --wrt w") == "docs-errors"


def test_the_snapshot_covers_every_kind_of_text():
    keys = json.loads(MANIFEST.read_text(encoding="utf-8")).keys()
    kinds = {k.split("::")[0].split(":")[0] for k in keys}
    assert {"corpus", "corpus_control", "language", "refusal", "example", "workload"} <= kinds
    assert {"docs-errors", "rules-broken", "test_stages", "test_buffers"} <= kinds
    forms = {k.split("::")[2] for k in keys if k.startswith("corpus::")}
    assert forms >= {"numpy-value", "numpy-no-value", "cupy-value", "cupy-no-value", "buffers-value"}
    assert any(k.endswith("::optimize") for k in keys) and any(k.endswith("::lower") for k in keys)
    assert {shard_of(k) for k in keys} == set(range(SHARDS))  # (every part checks something)


def test_a_parts_two_checks_run_in_one_group_under_xdist():
    """tests/conftest.py's scheduler puts a part's hashes and its lines' widths in one process (which
    generates the part once), a page of the docs or a block of the fuzzer in its own, any other test in its file's."""
    from .conftest import group_of

    for k in range(SHARDS):
        hashes = group_of(f"tests/test_snapshot.py::test_every_text_is_as_recorded[part{k}]")
        lines = group_of(
            f"tests/test_output_form.py::test_no_text_of_the_snapshot_has_a_line_over_120_characters[part{k}]"
        )
        assert hashes == lines == f"snapshot-{k}"
    assert group_of("tests/test_fuzz.py::test_fuzz_bounded[seeds0-99]") != group_of(
        "tests/test_fuzz.py::test_regression[a]"
    )
    assert group_of("tests/test_docs.py::test_pages_show_what_the_tool_prints_today[cli]") != group_of(
        "tests/test_docs.py::test_pages_show_what_the_tool_prints_today[api]"
    )
    assert group_of("tests/test_cli.py::test_func_selection[x]") == "tests/test_cli.py"
    assert group_of("yota_s2s/pipeline.py::yota_s2s.pipeline.generate") == "yota_s2s/pipeline.py"
