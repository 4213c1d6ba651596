"""The tool writes what it wrote before: every text of ``tests/snapshot.py`` has its recorded SHA-256.

A change to the generated modules, the printed tapes or the diagnostics fails here until it is
made on purpose: run ``python -m tests.snapshot --write`` and say in the commit why the output
changed (``--dump DIR`` on two commits shows how).
"""

from __future__ import annotations

import json

from .snapshot import MANIFEST, collect, digests


def test_every_text_is_as_recorded():
    recorded = json.loads(MANIFEST.read_text(encoding="utf-8"))
    texts = collect()
    now = digests(texts)
    changed = sorted(k for k in now.keys() & recorded.keys() if now[k] != recorded[k])
    added = sorted(now.keys() - recorded.keys())
    removed = sorted(recorded.keys() - now.keys())
    report = [f"{len(changed)} changed, {len(added)} new, {len(removed)} gone (of {len(recorded)} recorded)"]
    report += [f"changed: {k}" for k in changed[:20]] + [f"new: {k}" for k in added[:10]]
    report += [f"gone: {k}" for k in removed[:10]]
    if changed:
        report.append(f"--- {changed[0]} now:\n{texts[changed[0]][:3000]}")
    assert not (changed or added or removed), "\n".join(report)


def test_the_snapshot_covers_every_kind_of_text():
    keys = json.loads(MANIFEST.read_text(encoding="utf-8")).keys()
    kinds = {k.split("::")[0].split(":")[0] for k in keys}
    assert {"corpus", "corpus_control", "language", "refusal", "example", "workload"} <= kinds
    assert {"docs-errors", "rules-broken", "test_stages", "test_buffers"} <= kinds
    forms = {k.split("::")[2] for k in keys if k.startswith("corpus::")}
    assert forms >= {"numpy-value", "numpy-no-value", "cupy-value", "cupy-no-value", "buffers-value"}
    assert any(k.endswith("::optimize") for k in keys) and any(k.endswith("::lower") for k in keys)
