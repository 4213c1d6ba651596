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


@pytest.mark.slow
def test_pages_show_what_the_tool_prints_today():
    """docs/render.py runs every example shown in the pages; --check fails when one is stale."""
    proc = subprocess.run(
        [sys.executable, str(DOCS / "render.py"), "--check"], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
