"""`quizzer import FILE`: merge another machine's history file into this history, each record once."""

from __future__ import annotations

import argparse

from quizzer.commands.common import UsageError
from quizzer.commands.history import open_history
from quizzer.core.words import counted
from quizzer.store.merge import MergeRefused, MergeReport
from quizzer.store.rows import iso_utc


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from quizzer.config import load_settings
    from quizzer.paths import config_file
    from quizzer.session.srs import Scheduler
    from quizzer.store.history_file import read

    try:
        incoming = read(args.file)
    except OSError as exc:
        raise UsageError(f"cannot read {args.file}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise UsageError(f"{args.file}: {exc}; nothing was imported") from None
    settings = load_settings(config_file())  # the replay schedules cards as this machine's study does
    store = open_history(args.db)
    try:
        report = store.merge(
            incoming,
            scheduler=Scheduler(desired_retention=settings.desired_retention),
            leech_lapses=settings.leech_lapses,
            dry_run=args.dry_run,
        )
    except MergeRefused as exc:
        raise UsageError(f"{exc}; nothing was imported") from None
    finally:
        store.close()
    source = f"{args.file} (from {incoming.machine}, exported {iso_utc(incoming.exported_at)[:16]}Z)"
    if report.changes == 0:
        print(f"quizzer: {source} adds nothing: this history has all of it; nothing changed")
        return 0
    verb = "would add" if args.dry_run else "added"
    print(f"quizzer: {source} {verb}:")
    for line in summary(report):
        print(f"  {line}")
    if args.dry_run:
        print("nothing was changed (--dry-run)")
    return 0


def summary(report: MergeReport) -> list[str]:
    """The report's lines: attempts, study cards, leeches, session marks (those with nothing left out)."""
    lines = [f"{counted(report.attempts_added, 'attempt')} ({report.attempts_known} already here)"]
    if report.reordered:
        lines[0] += ", placed among yours in the order they were answered"
    cards = [counted(report.cards_added, "new study card")] if report.cards_added else []
    if report.cards_changed:
        cards.append(f"{counted(report.cards_changed, 'card')} here rescheduled")
    if cards:
        lines.append(
            f"{counted(report.reviews_added, 'study review')}, replayed in time order with this history's"
            f" through fsrs: {', '.join(cards)}"
        )
    if report.leeches_added or report.leeches_returned:
        lines.append(
            f"leeches: {counted(report.leeches_added, 'card')} now suspended,"
            f" {counted(report.leeches_returned, 'card')} back in study"
        )
    if report.sessions_added or report.sessions_finished:
        lines.append(
            f"{counted(report.sessions_added, 'session mark')}"
            + (
                f", {report.sessions_finished} unfinished here now finished"
                if report.sessions_finished
                else ""
            )
        )
    return lines
