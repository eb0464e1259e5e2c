"""Where the verbs' text leaves for the terminal: control characters become visible escapes (``\\x1b``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TextIO

from quizzer.bank.read.control import visible


class EscapedStream:
    r"""A text stream that writes every control character but newline and tab as its escape (ESC as the
    four characters ``\x1b``) to the stream it wraps; everything else (flush, fileno, isatty, encoding...) is
    the wrapped stream's.

    The verbs print pack texts, file names, history (answers from an imported side file, mistake titles)
    and settings: none of it may retitle the window, clear the screen or set the clipboard. What quizzer
    writes itself never needs a control character, so escaping all of them here, in one place, loses
    nothing (JSON output holds none: it escapes them itself).

    >>> import io
    >>> out = io.StringIO()
    >>> print("a\x1b]52;c;eA==\x07b", file=EscapedStream(out))
    >>> out.getvalue()
    'a\\x1b]52;c;eA==\\x07b\n'
    """

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        self.stream.write(visible(text))
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


__all__ = ["EscapedStream", "visible"]
