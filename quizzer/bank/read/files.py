"""Reading a TOML file a pack or the settings name: regular files only (a FIFO would block), bounded, and
every way the bytes can fail to parse as one message."""

from __future__ import annotations

import os
import stat
from typing import Any


class NotAFile(Exception):
    """The path is a folder, a FIFO, a socket or a device: nothing is read from it. ``str()`` says which."""


class TooLarge(Exception):
    """The file holds more than the limit; ``size`` is what was seen (at least the limit plus one)."""

    def __init__(self, size: int) -> None:
        super().__init__(f"{size:,} bytes")
        self.size = size


def kind(mode: int) -> str:
    """What a ``st_mode`` other than a regular file's is, for a message: "a folder", "a named pipe (FIFO)"."""
    kinds = (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a named pipe (FIFO)"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    )
    return next((name for test, name in kinds if test(mode)), "not a regular file")


def read_regular(path: str, limit: int) -> bytes:
    """The bytes of the regular file ``path`` (a symlink to one is followed), never more than ``limit``.

    Raises NotAFile for anything else, checked before opening (opening a FIFO waits for a writer, a device
    may act) and again on the opened descriptor, which is opened non-blocking: a path swapped for a FIFO
    in between is found without blocking. TooLarge past ``limit`` (never reading more); OSError as open
    and read raise it.
    """
    mode = os.stat(path).st_mode
    if not stat.S_ISREG(mode):
        raise NotAFile(kind(mode))
    flags = (
        os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    )
    fd = os.open(path, flags)
    with os.fdopen(fd, "rb") as fh:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotAFile(kind(info.st_mode))
        size = info.st_size
        data = b"" if size > limit else fh.read(size + 1)  # no limit-sized buffer for every small file
        if size < len(data) <= limit:  # more than fstat said: it grew while read
            data += fh.read(limit + 1 - len(data))
    if size > limit or len(data) > limit:
        raise TooLarge(max(size, len(data)))
    return data


class Unreadable(Exception):
    """Bytes that cannot be read as TOML; the message says why and where, for people."""


def parse_toml(data: bytes) -> dict[str, Any]:
    r"""``data`` parsed as UTF-8 TOML; Unreadable for every failure (tomllib's syntax errors, and the ones it
    lets through: not UTF-8, nesting past the recursion limit, an integer over Python's digit limit).

    >>> parse_toml(b"a = [[[1]]]")
    {'a': [[[1]]]}
    >>> parse_toml(b"a = [1,\n  \xff]")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    quizzer.bank.read.files.Unreadable: is not UTF-8 text: byte 0xff at line 2, column 3 cannot be ...
    >>> parse_toml(b"a = " + b"[" * 5000)
    Traceback (most recent call last):
    ...
    quizzer.bank.read.files.Unreadable: arrays or tables nest too deeply to read
    """
    import tomllib

    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise Unreadable(
            f"is not UTF-8 text: byte 0x{data[exc.start]:02x} at line {line}, column {column} cannot be "
            "decoded; save the file as UTF-8"
        ) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise Unreadable(f"TOML syntax error: {exc}") from None
    except RecursionError:
        raise Unreadable("arrays or tables nest too deeply to read") from None
    except MemoryError:
        raise Unreadable("too large to read") from None
    except ValueError as exc:  # tomllib lets int()'s digit limit through: x = 1111...1 (5,000 digits)
        if "integer string conversion" in str(exc):
            raise Unreadable("cannot be read: an integer in it has more than 4,300 digits") from None
        raise Unreadable(f"cannot be read: {exc}") from None


__all__ = ["NotAFile", "TooLarge", "Unreadable", "kind", "parse_toml", "read_regular"]
