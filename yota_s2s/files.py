"""The user's files: a source file's text in, a generated module's text out.

``read_source(path)`` is the text of a Python file, or a ``YS002`` user error located at the file
(the command line, the project config runner, ``gradsource(path)`` and ``--verify`` read the
same way).  ``write_atomically(path, text)`` writes through a temporary file in the same folder
and a rename, so a failed run leaves the previous file as it was.

    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     write_atomically(os.path.join(folder, "grad_loss.py"), "x = 1\\n")
    ...     print(read_source(os.path.join(folder, "grad_loss.py")), end="")
    ...     try:
    ...         read_source(os.path.join(folder, "missing.py"))
    ...     except UserError as exc:
    ...         print(exc.code, exc.message)
    x = 1
    YS002 cannot read the source file: No such file or directory
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from .errors import UserError


def read_source(path: str) -> str:
    """The text of the source file ``path``; a ``YS002`` error when it cannot be read as UTF-8."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
        raise UserError("YS002", f"cannot read the source file: {reason}", path) from None


def write_atomically(path: str, text: str) -> None:
    """Write ``text`` to ``path`` via a temporary file in the same folder and a rename."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".yota-s2s-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
