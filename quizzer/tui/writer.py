"""HistoryWriter: the app's history writes, in order, on one thread of their own (never the UI thread)."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from typing import Any

_STOP = object()


class HistoryWriter:
    """Run the store's writes one after another on a daemon thread, in the order they were submitted.

    ``submit`` returns at once; ``drain`` waits until everything submitted so far is done; ``close``
    drains and stops the thread (what is submitted after it runs at once, on the caller's thread).
    A write that raises is reported to ``on_error`` and the next one still runs.
    """

    def __init__(self, on_error: Callable[[BaseException], None] | None = None) -> None:
        self._queue: queue.Queue[Any] = queue.Queue()
        self._on_error = on_error
        self._thread = threading.Thread(target=self._run, name="quizzer-history", daemon=True)
        self._closed = False
        self._thread.start()

    def submit(self, write: Callable[..., object], *args: object) -> None:
        """Queue ``write(*args)``."""
        if self._closed:
            self._call(write, args)
            return
        self._queue.put((write, args))

    def drain(self) -> None:
        """Wait until every write submitted so far has run."""
        if not self._closed:
            self._queue.join()

    def close(self) -> None:
        """Run what is queued, then stop the thread."""
        if self._closed:
            return
        self._queue.put(_STOP)
        self._thread.join()
        self._closed = True

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            try:
                if item is _STOP:
                    return
                write, args = item
                self._call(write, args)
            finally:
                self._queue.task_done()

    def _call(self, write: Callable[..., object], args: tuple[object, ...]) -> None:
        try:
            write(*args)
        except BaseException as exc:  # the store never raises on a write; anything else is a bug to show
            if self._on_error is not None:
                self._on_error(exc)
