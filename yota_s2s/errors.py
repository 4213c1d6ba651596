"""Located diagnostics: ``UserError`` in, ``path:line:col: error: message (YSnnn)`` text out.

Every error a user can cause carries a code from ``CODES`` (documented in
``docs/errors.md``), a file, a 1-based line and column, and is printed with the
source line and a caret under the column::

    loss.py:3:5: error: 'try' is not supported: the gradient cannot follow exceptions (YS013)
        try:
        ^

Errors that are bugs of the tool are ``InternalError`` and are printed as such.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

#: Every user-facing error code and its one-line meaning (the docs table mirrors it).
CODES: dict[str, str] = {
    "YS001": "the source file does not parse",
    "YS002": "the source file cannot be read",
    "YS003": "no such function in the source file",
    "YS004": "--wrt names something that is not a parameter",
    "YS005": "bad command-line arguments",
    "YS006": "the output file cannot be written",
    "YS007": "the project config ([tool.yota-s2s] in pyproject.toml) is invalid",
    "YS008": "--verify cannot build the inputs (--shape, --example)",
    "YS009": "--verify: importing the source or calling the function failed",
    "YS010": "unsupported statement",
    "YS011": "an unsupported form of loop (break/continue in a loop over a tuple, an unpacking target it cannot follow)",
    "YS012": "not raised any more: branches and returns anywhere are supported",
    "YS013": "try/except and with blocks are not supported",
    "YS014": "a class defined inside a function that reads its names is not supported",
    "YS015": "global/nonlocal are not supported",
    "YS016": "a generator is differentiated, or a yield is read for a value",
    "YS017": "an in-place update of an array another name shares (a view, an alias)",
    "YS018": "a statement that changes a value in place (x.sort(), np.copyto(a, b))",
    "YS019": "the output file is the source file (or a rule file, the example, the project config)",
    "YS020": "unsupported operator or expression",
    "YS021": "the differentiated function must return one number or array",
    "YS022": "a complex value the tool cannot differentiate (a complex dtype, np.fft, np.maximum of a complex value)",
    "YS023": "a function that is not holomorphic under --holomorphic or --jacobian of complex values (np.conj, np.real, np.imag, abs, np.angle)",
    "YS024": "the function returns an array, not a scalar (its Jacobian: --jacobian; products: --vjp)",
    "YS030": "unknown name",
    "YS031": "no derivative rule for the called function",
    "YS032": "bad arguments for a primitive",
    "YS033": "a static parameter (axis, keepdims, an index) must be a constant",
    "YS034": "unsupported index",
    "YS035": "a recursion whose depth is not known when generating",
    "YS036": "an object parameter is used as an array, or an array as an object",
    "YS037": "async functions and await are not supported",
    "YS038": "input read inside the function (open, input, breakpoint)",
    "YS039": "eval/exec: code built at run time cannot be differentiated",
    "YS041": "a sequence whose length is not known when generating (comprehension, unpacking, *args)",
    "YS042": "an object that changes its own state (an attribute is written)",
    "YS043": "an option the function cannot be written with: --buffers with --target cupy or array-api, --checkpoint beyond grad_NAME and vjp_NAME, a --form of another mode or one the function has not",
    "YS044": "the output exists and is not a regular file (a device, a FIFO, a folder)",
    "YS045": "the source is not a regular file (a FIFO, a device, a folder)",
    "YS046": "the source is not text in its encoding (UTF-8, or the one its coding line declares)",
    "YS047": "a constant indexed, or read for an attribute it lacks (Python raises TypeError or AttributeError)",
    "YS048": "a module-level name whose value the tool cannot follow (changed by a statement it does not fold, under if __name__ == '__main__':, an unseeded random draw)",
    "YS051": "warning: the function writes into its argument's array; the gradient is of the values on entry",
    "YS060": "--sparse: a form it does not write yet (a loop that ends early; without --jacobian or --hessian; --no-value; --target cupy or array-api)",
    "YS101": "rule file: a rule body must be declarative",
    "YS102": "rule file: a parameter has no gradient, nondiff() or not_implemented()",
    "YS103": "rule file: unbound name in a formula",
    "YS104": "rule file: call to an unknown primitive",
    "YS105": "rule file: two rules for one primitive, or one source name for two primitives",
    "YS106": "rule file: bad @diffrule header",
    "YS107": "rule file: the gradient is not implemented for this argument",
    "YS040": "the target library lacks a function or keyword the program needs (--target cupy, array-api)",
    "YS050": "--format ruff: ruff is not installed, or it failed",
}


@dataclass
class UserError(Exception):
    """An error in the user's input, located in a file."""

    code: str
    message: str
    path: str = "<input>"
    line: int = 0
    col: int = 0
    source_line: str | None = None

    def __str__(self) -> str:
        return self.format()

    def format(self, kind: str = "error", color: bool = False) -> str:
        """``path:line:col: error: message (code)`` plus the source line and a caret.

        ``kind`` is ``"warning"`` for a diagnostic that does not stop the run.  With ``color``,
        the label and the caret are wrapped in ANSI colour codes (``--color``); the text is
        otherwise the same.
        """
        where = f"{self.path}:{self.line}:{self.col}" if self.line else self.path
        text = f"{where}: {paint(kind, kind, color)}: {self.message} ({self.code})"
        if self.source_line is not None and self.line:
            line = self.source_line.rstrip("\n").expandtabs(1)
            text += f"\n    {line}\n    {' ' * max(self.col - 1, 0)}{paint('^', 'caret', color)}"
        return text


#: The ANSI styles of ``--color``: bold red errors, bold magenta warnings, a bold green caret.
STYLES = {"error": "1;31", "internal error": "1;31", "warning": "1;35", "caret": "1;32"}


def paint(text: str, role: str, color: bool = True) -> str:
    """``text`` in the colour of ``role`` (``STYLES``) when ``color``, else ``text`` itself.

    >>> paint("error", "error"), paint("error", "error", color=False)
    ('\\x1b[1;31merror\\x1b[0m', 'error')
    """
    if not color or role not in STYLES:
        return text
    return f"\x1b[{STYLES[role]}m{text}\x1b[0m"


class UserErrors(Exception):
    """Several ``UserError`` found in one pass (the fence reports all of them)."""

    def __init__(self, errors: list[UserError]):
        super().__init__("\n".join(e.format() for e in errors))
        self.errors = errors


class InternalError(Exception):
    """A bug in yota-s2s (an IR invariant broke, a rule misbehaved)."""


def located(code: str, message: str, node: object, path: str, source: str) -> UserError:
    """A ``UserError`` at an ``ast`` node of ``source`` (columns converted to 1-based)."""
    line, col, text = position(node, source)
    return UserError(code, message, path, line, col, text or None)


def at_span(code: str, message: str, span: object) -> UserError:
    """A ``UserError`` where an equation came from (an ``ir.Span``; ``None``: no location)."""
    if span is None:
        return UserError(code, message, "<input>", 0, 0, None)
    return UserError(code, message, span.path, span.at_line, span.col, span.at_text)


def position(node: object, source: str) -> tuple[int, int, str]:
    """(1-based line, 1-based character column, the line's text) of an ``ast`` node."""
    line = getattr(node, "lineno", 0) or 0
    offset = getattr(node, "col_offset", 0) or 0
    lines = _lines(source)
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    # ast columns count UTF-8 bytes; diagnostics count characters.
    if not text or text.isascii():  # (isascii is O(1): long lines are not re-encoded per node)
        return line, offset + 1, text
    col = len(text.encode()[:offset].decode(errors="replace")) + 1
    return line, col, text


@functools.lru_cache(maxsize=4)
def _lines(source: str) -> list[str]:
    """``source.splitlines()``, split once per source (lowering asks for a position per equation)."""
    return source.splitlines()
