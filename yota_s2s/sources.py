"""Reading a Python file as Python reads it (a bottom module: the front end reads sources and
the rule loader reads rule files with it).

``read_python(path)`` is a file's text, decoded as Python decodes a source (a UTF-8 byte order
mark, a PEP 263 ``coding`` line, universal line ends), with the SHA-256 of its bytes; anything
that is not a regular file is refused before it is read (a FIFO would hang).
"""

from __future__ import annotations

import hashlib
import io
import os
import stat
import tokenize
from dataclasses import dataclass

from .errors import UserError


@dataclass(frozen=True)
class PythonFile:
    """A Python source file as Python reads it: its ``text`` and the ``sha256`` of its bytes."""

    text: str
    sha256: str


def read_python(path: str, what: str = "the source") -> PythonFile:
    """The file ``path`` decoded as Python decodes a source file (PEP 263, PEP 3120).

    The encoding is the one ``tokenize.detect_encoding`` finds: a UTF-8 byte order mark, a
    ``# -*- coding: NAME -*-`` line among the first two, or UTF-8; line ends are ``\\n`` (as
    Python reads ``\\r\\n`` and ``\\r``).  The file is opened without blocking and must be a
    regular file (a FIFO, a device or a folder would hang or never end).  Errors are
    ``UserError``: ``YS002`` when it cannot be opened or read, ``YS045`` when it is not a regular
    file, ``YS046`` (located at the line and column) when its bytes are not text in its encoding.
    """
    data = read_regular(path, "YS045", what)
    return PythonFile(decode_python(data, path, what), hashlib.sha256(data).hexdigest())


def read_regular(path: str, code: str, what: str) -> bytes:
    """The bytes of the regular file ``path``; a ``code`` error (``what`` is not a regular file)
    for anything else, ``YS002`` when it cannot be opened or read.  A FIFO is opened with
    ``O_NONBLOCK``, so the check never waits for a writer."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise UserError("YS002", f"cannot read {what} file: {exc.strerror}", path) from None
    try:
        kind = file_kind(os.fstat(fd).st_mode)
        if kind != "regular file":
            raise UserError(code, f"{what} is {kind}, not a regular file: refusing to read it", path)
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError as exc:
        raise UserError("YS002", f"cannot read {what} file: {exc.strerror}", path) from None
    finally:
        os.close(fd)


def file_kind(mode: int) -> str:
    """What a ``st_mode`` is, in words: ``regular file``, ``a folder``, ``a FIFO``, ...

    >>> file_kind(stat.S_IFCHR | 0o666)
    'a character device'
    """
    kinds = [
        (stat.S_ISREG, "regular file"),
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ]
    return next((name for test, name in kinds if test(mode)), "not a regular file")


def decode_python(data: bytes, path: str, what: str = "the source") -> str:
    """``data`` decoded as Python decodes a source file; a located ``YS046`` error when it is not
    text in its encoding.

    >>> decode_python(b"\\xef\\xbb\\xbfx = 1\\r\\n", "f.py")
    'x = 1\\n'
    >>> decode_python(b"# -*- coding: latin-1 -*-\\nx = '\\xe9'\\n", "f.py")[-4:]
    "'é'\\n"
    >>> decode_python(b"x = 1\\ny = '\\xe9'\\n", "f.py")
    Traceback (most recent call last):
    yota_s2s.errors.UserError: f.py:2:6: error: the source is not UTF-8 text: byte 0xe9 cannot be decoded; declare its encoding with a '# -*- coding: NAME -*-' line (YS046)
        y = '?'
             ^
    """
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:  # an unknown encoding, or a coding line that contradicts the BOM
        line = data.count(b"\n", 0, data.find(b"coding")) + 1 if b"coding" in data[:1000] else 0
        text = data.splitlines()[line - 1].decode("ascii", "replace") if line else None
        col = text.find("coding") + 1 if text else 0
        raise UserError("YS046", f"{what}'s encoding declaration is wrong: {exc.msg}", path, line, col, text)
    try:
        raw = data.decode(encoding)
    except UnicodeDecodeError as exc:
        start = data.rfind(b"\n", 0, exc.start) + 1
        end = data.find(b"\n", exc.start)
        line_bytes = data[start : end if end >= 0 else len(data)].rstrip(b"\r")
        text = line_bytes.decode(encoding, "replace").replace("\ufffd", "?")
        col = len(data[start : exc.start].decode(encoding, "replace")) + 1
        name = "UTF-8" if encoding.startswith("utf-8") else encoding
        hint = "; declare its encoding with a '# -*- coding: NAME -*-' line" if name == "UTF-8" else ""
        line = data.count(b"\n", 0, exc.start) + 1
        message = f"{what} is not {name} text: byte 0x{data[exc.start]:02x} cannot be decoded{hint}"
        raise UserError("YS046", message, path, line, col, text) from None
    return raw.replace("\r\n", "\n").replace("\r", "\n")
