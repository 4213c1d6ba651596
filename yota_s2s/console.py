"""What the command line prints besides its output: diagnostics, notes, ``-q``/``-v``, colour.

One ``Console`` per run holds the choices of ``-q/--quiet``, ``-v/--verbose`` and
``--color/--no-color``:

- errors (``path:line:col: error: ... (YSnnn)``, internal errors) and the reasons of a
  failed status (``--check``'s "out of date" lines) are always printed, on stderr;
- warnings and notes (the lines of the project run that say what was regenerated) are left out
  by ``--quiet``;
- ``--verbose`` adds a line on stderr for each file: what was written, checked or left as it
  was, and how long it took;
- colour: ``--color`` or ``--no-color`` when given; else none when the ``NO_COLOR``
  environment variable is set to anything but the empty string (https://no-color.org); else
  colour only when stderr is a terminal.  Only the ``error``/``warning`` label and the caret
  are coloured: without colour the text is byte for byte the same.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import TextIO

from .errors import UserError, UserErrors, paint


def wants_color(flag: bool | None, stream: TextIO, environ: dict[str, str] | None = None) -> bool:
    """Whether diagnostics on ``stream`` are coloured: ``flag`` (``--color``/``--no-color``) when
    given, else not when ``NO_COLOR`` is set and not empty, else when ``stream`` is a terminal.

    >>> import io
    >>> wants_color(None, io.StringIO(), {}), wants_color(True, io.StringIO(), {"NO_COLOR": "1"})
    (False, True)
    """
    if flag is not None:
        return flag
    if (os.environ if environ is None else environ).get("NO_COLOR", ""):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def color_flag(argv: Sequence[str]) -> bool | None:
    """``--color``/``--no-color`` as the last of them in ``argv`` says (before argparse has parsed it:
    its own usage errors are coloured too); None when neither is given."""
    flags = [a for a in argv if a in ("--color", "--no-color")]
    return None if not flags else flags[-1] == "--color"


class Console:
    """Where and how the command line reports (see the module docstring)."""

    def __init__(self, quiet: bool = False, verbose: bool = False, color: bool = False):
        self.quiet = quiet
        self.verbose = verbose
        self.color = color

    def errors(self, exc: UserError | UserErrors) -> int:
        """Print user errors on stderr, located, one after another; the exit code is 2."""
        for e in exc.errors if isinstance(exc, UserErrors) else [exc]:
            print(e.format(color=self.color), file=sys.stderr)
        return 2

    def warning(self, warning: UserError) -> None:
        if not self.quiet:
            print(warning.format("warning", color=self.color), file=sys.stderr)

    def warning_line(self, where: str, message: str) -> None:
        """``where: warning: message`` on stderr, unless ``--quiet``."""
        if not self.quiet:
            print(f"{where}: {self.label('warning', 'warning')}: {message}", file=sys.stderr)

    def label(self, text: str, role: str) -> str:
        """``text`` coloured as ``role`` when colour is on."""
        return paint(text, role, self.color)

    def failure(self, line: str) -> None:
        """A line that says why the status is not 0 (``--check``): printed even with ``--quiet``."""
        print(line, file=sys.stderr)

    def note(self, line: str) -> None:
        """A line on stdout that ``--quiet`` leaves out (``FILE: regenerated from SOURCE``)."""
        if not self.quiet:
            print(line)

    def detail(self, line: str) -> None:
        """A line on stderr for ``--verbose`` only."""
        if self.verbose:
            print(f"yota-s2s: {line}", file=sys.stderr)
