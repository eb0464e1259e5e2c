"""`quizzer export`: every recorded attempt as JSON or CSV, to stdout or a file."""

from __future__ import annotations

import argparse
import sys

from quizzer.commands.common import UsageError
from quizzer.commands.history import open_history
from quizzer.store.rows import COLUMNS, attempt_row, iso_utc, to_csv, to_json

__all__ = ["COLUMNS", "attempt_row", "iso_utc", "run", "to_csv", "to_json"]


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    store = open_history(args.db)
    try:
        attempts = store.attempts()
    finally:
        store.close()
    text = to_json(attempts) + "\n" if args.format == "json" else to_csv(attempts)
    if args.output is None:
        sys.stdout.write(text)
        return 0
    try:
        with open(args.output, "w", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as exc:
        raise UsageError(f"cannot write {args.output}: {exc.strerror or exc}") from None
    print(
        f"quizzer: wrote {len(attempts)} attempt{'' if len(attempts) == 1 else 's'} to {args.output}",
        file=sys.stderr,
    )
    return 0
