"""`quizzer export`: every recorded attempt as JSON or CSV, to stdout or a file."""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys

from quizzer.commands.common import UsageError
from quizzer.commands.history import open_history
from quizzer.session.records import Attempt
from quizzer.store.rows import COLUMNS, attempt_row, iso_utc

__all__ = ["COLUMNS", "attempt_row", "iso_utc", "run", "to_csv", "to_json"]


def to_json(attempts: list[Attempt]) -> str:
    return json.dumps([attempt_row(a) for a in attempts], indent=2)


def to_csv(attempts: list[Attempt]) -> str:
    """A header row, then one row per attempt; variables (and carried answers) as JSON, None as empty."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for a in attempts:
        row = attempt_row(a)
        row["variables"] = json.dumps(row["variables"])
        if row["carried"] is not None:
            row["carried"] = json.dumps(row["carried"])
        writer.writerow(row.values())
    return out.getvalue()


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
