"""Which code runs on the app's UI thread: the history refuses it there when the tests ask (a strict mode)."""

from __future__ import annotations

import threading
from contextvars import ContextVar

#: The id of the thread the app's tasks run on, in the context of those tasks (set by the app as it loads).
#: The tests' own code shares that thread but not that context, so it may still read the history directly;
#: a worker thread has another id.
_UI_THREAD: ContextVar[int | None] = ContextVar("quizzer_ui_thread", default=None)


class UIThreadRead(RuntimeError):
    """The history was called on the UI thread (in strict mode: a read must run in a worker)."""


def mark() -> None:
    """The calling task (the app's, as it loads) and the tasks it starts run on the UI thread."""
    _UI_THREAD.set(threading.get_ident())


def on_ui_thread() -> bool:
    """Whether the caller is the app's code on its UI thread."""
    return _UI_THREAD.get() == threading.get_ident()


def refuse_on_ui_thread() -> None:
    """The history's guard in strict mode: raise if the app calls it from its UI thread."""
    if on_ui_thread():
        raise UIThreadRead("the history was called on the UI thread: read it in a worker (HistoryReader)")
