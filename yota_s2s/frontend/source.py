"""Source text: a statement's text on one line (reading a file as Python reads it is
``yota_s2s.sources``).

``statement_text`` is a statement's text on one line, for the provenance comments of the tape
and the output.

>>> import ast
>>> src = "def f(x):\\n    return (x +\\n            1.0)\\n"
>>> statement_text(src, ast.parse(src).body[0].body[0])
'return (x + 1.0)'
"""

from __future__ import annotations

import ast
import functools
import re


def statement_text(source: str, stmt: ast.stmt, limit: int = 100) -> str:
    """A statement's source on one line (whitespace collapsed), cut at ``limit`` characters."""
    text = " ".join(_source_segment(source, stmt).split())
    text = re.sub(r"([(\[{]) ", r"\1", re.sub(r" ([)\]}])", r"\1", text))
    return text if len(text) <= limit else text[: limit - 3].rstrip() + "..."


def _source_segment(source: str, node: ast.AST) -> str:
    """``ast.get_source_segment(source, node)``, with the source split into lines only once."""
    lines = _parser_lines(source)
    first, last = node.lineno - 1, node.end_lineno - 1
    if first == last:
        return lines[first].encode()[node.col_offset : node.end_col_offset].decode()
    head = lines[first].encode()[node.col_offset :].decode()
    return head + "".join(lines[first + 1 : last]) + lines[last].encode()[: node.end_col_offset].decode()


@functools.lru_cache(maxsize=4)
def _parser_lines(source: str) -> list[str]:
    """``source`` split into lines (ends kept) where the parser splits them: at \\n, \\r\\n, \\r."""
    return re.findall(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$", source)
