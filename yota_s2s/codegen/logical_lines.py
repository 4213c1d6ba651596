"""Which physical lines of a Python text start a logical line, read in one scan.

A line starts a logical line when it is not inside a string, a bracket, or the continuation of
a line ending in a backslash.  The layout (``layout.fit_module``) breaks a long line by parsing
it alone; where that line starts a logical line and parses alone as one whole statement, its
broken form parses to the same statement in the module too, and the module need not be parsed
again to know it.

The scan reads strings (every prefix but ``f``, single and triple quotes, escapes), comments,
brackets and backslash continuations with regular expressions: a text holding what it does not
read (an f-string, whose braces may nest quotes; a string left open) gets None, and the caller
checks the whole module as before.

    >>> sorted(logical_starts("x = (1,\\n     2)\\ns = '''a\\nb'''\\ny = 3 \\\\\\n  + 4\\nz = 5\\n"))
    [0, 2, 4, 6, 7]
"""

from __future__ import annotations

import re

#: What opens a string or a comment, a bracket, a backslash continuation, a line's end.
_SCAN = re.compile(
    r"""(?P<string>[rRbBuUfF]{0,2}(?:'''|\"\"\"|'|"))"""
    r"|(?P<comment>\#[^\n]*)"
    r"|(?P<open>[(\[{])"
    r"|(?P<close>[)\]}])"
    r"|(?P<continued>\\\r?\n)"
    r"|(?P<newline>\n)"
)
#: A string's rest after its opening quote, to its closing one.
_REST = {
    "'''": re.compile(r"(?:[^'\\]|\\.|'(?!''))*'''", re.DOTALL),
    '"""': re.compile(r'(?:[^"\\]|\\.|"(?!""))*"""', re.DOTALL),
    "'": re.compile(r"(?:[^'\\\n]|\\.)*'", re.DOTALL),
    '"': re.compile(r'(?:[^"\\\n]|\\.)*"', re.DOTALL),
}


def logical_starts(text: str) -> set[int] | None:
    """The numbers (from 0) of the lines of ``text`` that start a logical line, None where the
    scan cannot tell (an f-string, a string or bracket left open, a bracket closed twice)."""
    starts = {0}
    line = depth = pos = 0
    while True:
        found = _SCAN.search(text, pos)
        if found is None:
            break
        kind, pos = found.lastgroup, found.end()
        if kind == "newline":
            line += 1
            if depth == 0:
                starts.add(line)
        elif kind == "continued":
            line += 1
        elif kind == "open":
            depth += 1
        elif kind == "close":
            depth -= 1
            if depth < 0:
                return None
        elif kind == "string":
            opening = found.group()
            quote = opening.lstrip("rRbBuUfF")
            if "f" in opening.lower()[: len(opening) - len(quote)]:
                return None
            rest = _REST[quote].match(text, pos)
            if rest is None:
                return None
            line += text.count("\n", pos, rest.end())
            pos = rest.end()
    return starts if depth == 0 else None
