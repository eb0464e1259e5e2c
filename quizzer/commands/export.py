"""`quizzer export`: every recorded attempt as JSON or CSV, or the whole history, to stdout or a file."""

from __future__ import annotations

import argparse
import sys
import time

from quizzer.commands.common import UsageError
from quizzer.commands.history import open_history
from quizzer.core.words import counted
from quizzer.store.history import HistoryStore
from quizzer.store.rows import COLUMNS, attempt_row, iso_utc, to_csv, to_json

__all__ = ["COLUMNS", "attempt_row", "iso_utc", "machine_name", "run", "to_csv", "to_json"]


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    store = open_history(args.db)
    try:
        if args.format == "history":
            text, what = _history(store)
        else:
            attempts = store.attempts()
            text = to_json(attempts) + "\n" if args.format == "json" else to_csv(attempts)
            what = counted(len(attempts), "attempt")
    finally:
        store.close()
    if args.output is None:
        sys.stdout.write(text)
        return 0
    try:
        with open(args.output, "w", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as exc:
        raise UsageError(f"cannot write {args.output}: {exc.strerror or exc}") from None
    print(f"quizzer: wrote {what} to {args.output}", file=sys.stderr)
    return 0


def _history(store: HistoryStore) -> tuple[str, str]:
    """The history file (quizzer.store.history_file) of everything the store keeps, and what it holds."""
    from quizzer import __version__
    from quizzer.store.history_file import document

    attempts, cards, sessions = store.attempts(), store.cards(), store.sessions()
    text = document(
        attempts,
        cards,
        sessions,
        machine=machine_name(),
        exported_at=time.time(),
        quizzer_version=__version__,
    )
    what = (
        f"the history ({counted(len(attempts), 'attempt')}, {counted(len(cards), 'study card')},"
        f" {counted(len(sessions), 'session mark')})"
    )
    return text + "\n", what


def machine_name() -> str:
    """This machine's name, as a history file records where it came from."""
    import socket

    return socket.gethostname() or "unknown"
