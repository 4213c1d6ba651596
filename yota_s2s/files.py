"""The user's files: a source file's text in, a generated module's text out.

``load_source(path)`` reads a Python file as Python reads it (``sources.read_python``:
a UTF-8 byte order mark or a PEP 263 ``coding`` line, universal line ends), after checking that
it is a regular file (a FIFO would hang); its ``sha256`` is that of the file's bytes, as
``sha256sum`` prints it.  ``read_source(path)`` is its text (the command line, the project
config runner, ``gradsource(path)`` and ``--verify`` read the same way).

``write_atomically(path, text, protect)`` writes an output the careful way:

- it refuses a path that names one of the files in ``protect`` (the source, a rule file, the
  example, the project config), however it is spelled (another path, a symlink, a hard link:
  the same device and inode) ``YS019``;
- it refuses anything that exists and is not a regular file (a device, a FIFO, a folder:
  replacing ``/dev/null`` with a file would break the system) ``YS044``; a symlink is followed,
  and the file it points to is replaced;
- it writes a temporary file in the target's folder, flushes it to disk, gives it the previous
  file's permission bits (a new file gets ``0666`` minus the umask), and renames it over the
  target with ``os.replace`` (atomic): a reader sees the old file or the new one, never a part;
- the temporary file is removed on any failure, ``KeyboardInterrupt`` and ``SIGTERM`` included
  (only ``SIGKILL`` can leave a ``.yota-s2s-*.tmp`` behind).

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

import contextlib
import errno
import os
import signal
import stat
import tempfile
import threading
from collections.abc import Iterator, Mapping

from .errors import UserError
from .sources import PythonFile, file_kind, read_python, read_regular

__all__ = ["PythonFile", "load_source", "read_output", "read_source", "write_atomically"]


def load_source(path: str) -> PythonFile:
    """The source file ``path``: its text as Python reads it, and the SHA-256 of its bytes.

    ``YS002`` when it cannot be read, ``YS045`` when it is not a regular file, ``YS046`` when its
    bytes are not text in its encoding."""
    return read_python(path)


def read_source(path: str) -> str:
    """The text of the source file ``path`` (``load_source``)."""
    return read_python(path).text


def read_output(path: str) -> bytes | None:
    """The bytes of the output file now at ``path`` (``--check``, ``--diff``); None when there is
    none.  ``YS044`` when it is not a regular file (reading a FIFO would hang)."""
    try:
        os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise UserError("YS006", f"cannot read the output file: {exc.strerror}", path) from None
    return read_regular(path, "YS044", "the output")


def write_atomically(path: str, text: str, protect: Mapping[str, str] | None = None) -> None:
    """Write ``text`` to ``path`` via a temporary file in the target's folder and ``os.replace``.

    ``protect``: the files ``path`` must not be, each with what it is (``{"loss.py": "the
    source"}``): ``YS019``.  ``YS044`` when ``path`` exists and is
    not a regular file; ``OSError`` when the folder cannot be written."""
    target = os.path.realpath(path)  # a symlink's file is replaced, the symlink kept
    try:
        info: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        info = None
    if info is not None:
        kind = file_kind(info.st_mode)
        if kind != "regular file":
            raise UserError(
                "YS044",
                f"the output is {kind}, not a regular file: refusing to replace it (--out - writes to stdout)",
                path,
            )
        for other, what in (protect or {}).items():
            if _same_file(info, other):
                raise UserError(
                    "YS019", f"the output is {what} {other} (the same file): refusing to overwrite it", path
                )
    mode = stat.S_IMODE(info.st_mode) if info is not None else 0o666 & ~_umask()
    folder = os.path.dirname(target)
    with _terminate_as_exception():
        fd, tmp = tempfile.mkstemp(prefix=".yota-s2s-", suffix=".tmp", dir=folder)
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(text)
                fh.flush()
                os.fsync(fh.fileno())
                os.chmod(fh.fileno() if os.chmod in os.supports_fd else tmp, mode)
            os.replace(tmp, target)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            raise


def _same_file(info: os.stat_result, other: str) -> bool:
    """``info`` (of the output) is the file ``other`` (same device and inode)."""
    try:
        theirs = os.stat(other)
    except OSError:
        return False
    return (info.st_dev, info.st_ino) == (theirs.st_dev, theirs.st_ino)


def _umask() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return umask


class Terminated(BaseException):
    """``SIGTERM`` arrived while an output was written (raised so the temporary file is removed)."""


@contextlib.contextmanager
def _terminate_as_exception() -> Iterator[None]:
    """While the block runs, ``SIGTERM`` (and ``SIGHUP``) raise ``Terminated`` instead of ending
    the process at once, so ``finally`` clauses run; the signal is then delivered again with its
    previous handler, so the process ends as it would have (a handler that returns gets an
    ``InterruptedError``).  Only on the main thread (where Python runs signal handlers);
    elsewhere the block runs as it is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    names = [name for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)]
    received: list[int] = []

    def handler(signum: int, frame: object) -> None:
        received.append(signum)
        raise Terminated(signum)

    previous = {name: signal.signal(getattr(signal, name), handler) for name in names}
    try:
        yield
    except Terminated:
        pass  # the temporary file is gone: deliver the signal again below
    finally:
        for name, old in previous.items():
            signal.signal(getattr(signal, name), old)
    if received:
        os.kill(os.getpid(), received[0])
        # a handler of the caller's that returns: the file was not written, say so
        raise InterruptedError(errno.EINTR, f"interrupted by signal {received[0]}")
