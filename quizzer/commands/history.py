"""What the history verbs share: opening the store with its notices printed on stderr the moment they come."""

from __future__ import annotations

import sys

from quizzer.bank.read.control import visible
from quizzer.paths import db_path
from quizzer.store.history import HistoryStore


def print_notice(severity: str, message: str) -> None:
    """A store notice on stderr at once: ``quizzer: warning: ...`` (``quizzer: ...`` for good news)."""
    label = "" if severity == "information" else f"{severity}: "
    # visible: the app's verbs print this after it exits, outside the escaping stream of the other verbs
    print(f"quizzer: {label}{visible(message)}", file=sys.stderr, flush=True)


def open_history(flag: str | None) -> HistoryStore:
    """The history store at ``--db`` / QUIZZER_DB / the data folder; its notices go to stderr at once."""
    return HistoryStore.open(db_path(flag), on_notice=print_notice)
