"""What every command pays before it generates: imports, and the runtime helpers it reads."""

from __future__ import annotations

import ast
import re
import subprocess
import sys

import pytest

from yota_s2s.codegen import helpers


def test_the_command_line_imports_no_numpy():
    """``yota-s2s FILE`` writes text: NumPy (0.1 s to import) is loaded by ``--verify`` alone."""
    code = "import sys, yota_s2s.cli, yota_s2s.pipeline; print('numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("variant", ["", "array_api"])
def test_helper_names_scanned_as_parsed(variant):
    """The helpers' names, found by scanning the runtime modules' texts, are those a parse of every
    module finds (its top-level ``def _name`` and ``_NAME = ...``), each with its last definition."""
    found = helpers._runtime_functions(variant)
    expected: dict[str, ast.stmt] = {}
    for text in found.texts.values():
        for node in ast.parse(text).body:
            target = node.targets[0] if isinstance(node, ast.Assign) else node
            name = getattr(target, "name", None) or getattr(target, "id", "")
            if isinstance(node, (ast.FunctionDef, ast.Assign)) and name.startswith("_"):
                expected[name] = node
    assert list(found) == list(expected)
    for name, node in expected.items():
        assert ast.dump(found[name][0]) == ast.dump(node)
        text = ast.get_source_segment(found[name][1], node)
        assert helpers.helper_source(name, "np", variant) == (text if variant else re.sub(r"\bxp\.", "np.", text))
