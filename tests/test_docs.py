"""The docs are part of the product: every error code has its section, and the pages are current."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from yota_s2s.errors import CODES

DOCS = Path(__file__).resolve().parent.parent / "docs"


def test_every_error_code_has_a_section_in_order():
    headings = re.findall(r"^## (YS\d{3})$", (DOCS / "errors.md").read_text(), re.MULTILINE)
    assert headings == list(CODES)


def test_relative_links_resolve():
    for page in DOCS.glob("*.md"):
        for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", page.read_text()):
            assert (page.parent / target).exists(), f"{page.name}: broken link {target}"


PAGES = sorted(p.name.removesuffix(".md.in") for p in (DOCS / "src").glob("*.md.in"))


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES)
def test_pages_show_what_the_tool_prints_today(page):
    """docs/render.py runs every example shown in the page; --check fails when it is stale.  A test
    per page: under ``-n`` the pages render side by side (each in its scratch folder, /tmp/demo/PAGE)."""
    proc = subprocess.run(
        [sys.executable, str(DOCS / "render.py"), "--check", page], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_every_page_has_its_template():
    """(the pages checked above are those of the templates: a page written by hand would go unchecked)"""
    assert sorted(p.name.removesuffix(".md") for p in DOCS.glob("*.md")) == PAGES


def test_a_block_shows_the_outcome_it_is_marked_with(tmp_path, monkeypatch):
    """A page never shows an error where it means a success (an example the tool stopped serving
    would otherwise be rendered as its refusal, and pass the staleness check), nor a refusal that
    is gone: an sh block may fail only where marked ``fails``, a py block raise only where marked
    ``raises``, and each marked block must."""
    sys.path.insert(0, str(DOCS))
    try:
        import render
    finally:
        sys.path.remove(str(DOCS))
    monkeypatch.setattr(render, "SCRATCH", tmp_path)
    page = render.Page("demo")
    page.sh([], "$ true\n")
    page.sh(["fails"], "$ false\n$ true\n")
    page.py([], "x = 1\n")
    page.py(["raises"], "1 / 0\n")
    assert page.wrong == []
    page.sh([], "$ exit 2\n")
    page.sh(["fails"], "$ true\n")
    page.py([], "1 / 0\n")
    page.py(["raises"], "x = 2\n")
    assert len(page.wrong) == 4
    assert "exited 2 in a block not marked 'fails'" in page.wrong[0]
    assert "marked 'fails'" in page.wrong[1] and "exited 0" in page.wrong[1]
    assert page.wrong[2].endswith("raised") and page.wrong[3].endswith("raised nothing")
