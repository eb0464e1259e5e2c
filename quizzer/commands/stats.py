"""`quizzer stats`: accuracy, times, mistakes, days, streaks and a heatmap from the practice history."""

from __future__ import annotations

import argparse
import json
import time
from datetime import date

from quizzer.commands.common import UsageError, open_bank
from quizzer.commands.history import open_history
from quizzer.core.words import counted
from quizzer.session.leeches import leeches
from quizzer.session.past_mocks import past_mocks
from quizzer.session.stats import Stats, compute_stats, day_text, difficulties, local_day, stats_json, titles

#: The most days --days accepts (ten years).
MAX_DAYS = 3660
#: Past mocks the text report lists (--json has them all).
MOCKS_LISTED = 5
#: The width of the longest bar in the trend.
BAR_WIDTH = 30
_WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


def _minutes(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds / 60:.1f} min"


def _percent(fraction: float) -> str:
    return f"{fraction * 100:.0f}%"


def stats_text(stats: Stats, utc_offset_seconds: int = 0) -> str:
    """The plain-text report, at most 80 columns wide (topic and mistake names are cut to fit)."""
    if not stats.attempts or stats.first_at is None or stats.last_at is None:
        return (
            "No attempts recorded yet.\n"
            "Start practising with `quizzer drill` (the app) or `quizzer plain` (any terminal);\n"
            "every answer is recorded, and `quizzer stats` summarises them."
        )
    first = day_text(local_day(stats.first_at, utc_offset_seconds))
    last = day_text(local_day(stats.last_at, utc_offset_seconds))
    lines = [
        f"{counted(stats.attempts, 'attempt')}, {stats.right} right ({_percent(stats.accuracy)}), "
        + (f"{stats.skipped} skipped, " if stats.skipped else "")
        + (f"{counted(stats.unfinished_mocks, 'mock')} left unfinished, " if stats.unfinished_mocks else "")
        + f"{first} to {last}",
        f"Practised {counted(stats.current_streak_days, 'day')} in a row up to today "
        f"(longest: {counted(stats.longest_streak_days, 'day')} in a row)",
    ]
    for section in (_topics, _difficulties, _chains, _mistakes, _leeches, _mocks, _days):
        lines += section(stats, utc_offset_seconds)
    return "\n".join(lines)


def _topics(stats: Stats, utc_offset_seconds: int) -> list[str]:
    lines = [
        "",
        "By topic (weakest first)",
        f"  {'topic':<28} {'attempts':>8} {'accuracy':>8}   median time / expected",
    ]
    for t in stats.topics:
        name = _cut(t.topic or "(no topic)", 28)
        lines.append(
            f"  {name:<28} {t.attempts:>8} {_percent(t.accuracy):>8}   "
            f"{_minutes(t.median_seconds)} / {_minutes(t.median_expected_seconds)}"
        )
    return lines


def _difficulties(stats: Stats, utc_offset_seconds: int) -> list[str]:
    if not stats.by_difficulty:
        return []
    lines = ["", "By difficulty", f"  {'difficulty':<28} {'attempts':>8} {'accuracy':>8}"]
    for level in stats.by_difficulty:
        skipped = f"   {level.skipped} skipped" if level.skipped else ""
        name = _cut(level.difficulty, 28)
        lines.append(f"  {name:<28} {level.attempts:>8} {_percent(level.accuracy):>8}{skipped}")
    return lines


def _chains(stats: Stats, utc_offset_seconds: int) -> list[str]:
    if not stats.parts:
        return []
    lines = ["", "Chains, part by part"]
    for p in stats.parts:
        skipped = f", {p.skipped} skipped" if p.skipped else ""
        lines.append(
            f"  part {p.part} of {_cut(p.topic or '(no topic)', 28)} chains: "
            f"{_percent(p.accuracy)} right ({p.right}/{p.attempts}{skipped})"
        )
    return lines


def _mistakes(stats: Stats, utc_offset_seconds: int) -> list[str]:
    if not stats.mistakes:
        return []
    lines = ["", "Most frequent mistakes"]
    if stats.top_slip is not None:
        words, count = stats.top_slip
        lines.append(f"  your top slip: {words} ({count}×; quizzer drill --slips)")
    for m in stats.mistakes:
        more = f" +{len(m.template_ids) - 2} more" if len(m.template_ids) > 2 else ""
        templates = ", ".join(m.template_ids[:2]) + more
        lines.append(f"  {m.count:>5}  {_cut(m.title, 28):<28}  {_cut(templates, 40)}")
    return lines


def _leeches(stats: Stats, utc_offset_seconds: int) -> list[str]:
    if not stats.leeches:
        return []
    lines = ["", "Leeches, suspended from study (drill them in the app: Stats, l)"]
    for x in stats.leeches:
        since = day_text(local_day(x.suspended, utc_offset_seconds))
        lines.append(f"  {_cut(x.title, 44):<44}  {counted(x.lapses, 'lapse'):>10}  since {since}")
    return lines


def _mocks(stats: Stats, utc_offset_seconds: int) -> list[str]:
    if not stats.mocks:
        return []
    lines = ["", "Past mocks (newest first; the app's Stats reopens their reports)"]
    for mock in stats.mocks[:MOCKS_LISTED]:
        when = day_text(local_day(mock.started, utc_offset_seconds))
        limit = f" of {mock.minutes:g} min" if mock.minutes else ""
        ran_out = ", time ran out" if mock.timed_out else ""
        lines.append(
            f"  {when}  {mock.right} of {mock.questions} right, {mock.answered} answered, "
            f"{_minutes(mock.seconds_used)}{limit} used{ran_out}"
        )
    if len(stats.mocks) > MOCKS_LISTED:
        lines.append(f"  ... and {len(stats.mocks) - MOCKS_LISTED} earlier (--json lists them all)")
    return lines


def _days(stats: Stats, utc_offset_seconds: int) -> list[str]:
    if not stats.days:
        return []
    lines = ["", f"Last {counted(len(stats.days), 'day')} (# right, - not right)"]
    most = max(d.attempts for d in stats.days)
    scale = min(1.0, BAR_WIDTH / most) if most else 1.0
    for d in stats.days:
        weekday = _WEEKDAYS[date.fromisoformat(d.day).weekday()]
        right_width = round(d.right * scale)
        bar = "#" * right_width + "-" * max(round(d.attempts * scale) - right_width, 0)
        counts = f"{d.right}/{d.attempts}" if d.attempts else "."
        lines.append(f"  {d.day} {weekday}  {counts:>9}  {bar}")
    return lines


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    if not 1 <= args.days <= MAX_DAYS:
        raise UsageError(f"--days {args.days}: give a number of days from 1 to {MAX_DAYS}")
    now = time.time()
    utc_offset_seconds = time.localtime(now).tm_gmtoff  # today's offset, used for every attempt
    store = open_history(args.db)
    try:
        attempts, sessions, cards = store.attempts(), store.sessions(), store.cards()
    finally:
        store.close()
    bank = open_bank(args)
    from quizzer.session.chain import template_lookup
    from quizzer.session.slips import top_slip

    difficulty_of = difficulties(bank, (a.template_id for a in attempts))
    suspended = [c for c in cards if c.suspended is not None]
    title_of = titles(bank, (c.template_id for c in suspended))
    stats = compute_stats(
        attempts,
        now=now,
        utc_offset_seconds=utc_offset_seconds,
        days=args.days,
        sessions=sessions,
        difficulty_of=difficulty_of,
    ).replace(
        leeches=tuple(leeches(suspended, lambda t: title_of.get(t, t))),
        mocks=tuple(past_mocks(attempts, sessions)),
        top_slip=top_slip(attempts, template_lookup(bank)),
    )
    if args.json:
        print(json.dumps(stats_json(stats), indent=2))
    else:
        print(stats_text(stats, utc_offset_seconds))
    return 0
