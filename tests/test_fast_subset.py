"""The fast subset's tables (``tests/conftest.py``: ``SAMPLED``, ``SLOW``) name tests that exist.

A test renamed or removed would leave its entry naming nothing: the fast subset would silently keep
a renamed slow test.  Each entry's file must define its test function.
"""

from __future__ import annotations

import re
from pathlib import Path

from .conftest import SAMPLED, SLOW

ROOT = Path(__file__).resolve().parent.parent


def test_every_entry_names_a_test_function_of_its_file():
    missing = []
    for entry in [*SAMPLED, *SLOW]:
        path, _, rest = entry.partition("::")
        function = rest.partition("[")[0]
        text = (ROOT / path).read_text(encoding="utf-8") if (ROOT / path).is_file() else ""
        if not re.search(rf"^def {re.escape(function)}\(", text, flags=re.MULTILINE):
            missing.append(entry)
    assert not missing, f"entries of tests/conftest.py naming no test (renamed? removed?): {missing}"


def test_a_sweep_keeps_a_case_in_k_and_a_named_case_has_its_parameters():
    assert all(isinstance(k, int) and k >= 2 for k in SAMPLED.values()), SAMPLED
    assert not set(SAMPLED) & set(SLOW), "a test both sampled and left out whole"  # (one costly case may be)
    assert all(e.endswith("]") for e in SLOW if "[" in e)
