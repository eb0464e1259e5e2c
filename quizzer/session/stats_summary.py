"""Stats' summary line from one light pass over the history: what the Stats screen paints first."""

from __future__ import annotations

from collections.abc import Iterable

from quizzer.session.records import RIGHT, Attempt, SessionMark
from quizzer.session.stats import UNANSWERED, Stats, current_run, local_day, longest_run

#: The fields of Stats that ``summary_stats`` fills as ``compute_stats`` does (the others are left empty).
SUMMARY_FIELDS = (
    "attempts",
    "right",
    "accuracy",
    "skipped",
    "unfinished_mocks",
    "current_streak_days",
    "longest_streak_days",
)


def summary_stats(
    attempts: Iterable[Attempt],
    *,
    now: float,
    utc_offset_seconds: int = 0,
    sessions: Iterable[SessionMark] = (),
) -> Stats:
    """The summary of ``compute_stats`` over the same arguments: answers, right, accuracy, skips, unfinished
    mocks and streaks (``SUMMARY_FIELDS``); no topics, mistakes, days or times.

    Args:
        attempts: the history, in any order.
        now: seconds since the epoch: "today" is its local day.
        utc_offset_seconds: the local offset from UTC (east positive).
        sessions: the history's session marks (for the mocks left unfinished).

    Returns:
        A Stats whose ``SUMMARY_FIELDS`` are those ``compute_stats`` gives, the rest empty.

    >>> from quizzer.session.records import Attempt
    >>> a = Attempt("t", 1, {}, "3", 3, 3, "", "exact", 0.0, None, 30.0, 0, at=10.0)
    >>> s = summary_stats([a, a.replace(verdict="wrong"), a.replace(verdict="skipped")], now=86_405.0)
    >>> s.attempts, s.right, s.accuracy, s.skipped, s.current_streak_days, s.longest_streak_days
    (2, 1, 0.5, 1, 1, 1)
    """
    total = right = skipped = 0
    practised: set[int] = set()  # local days with any attempt, skips included (the streak)
    for a in attempts:
        practised.add(local_day(a.at, utc_offset_seconds))
        if a.verdict in UNANSWERED:
            skipped += 1
        else:
            total += 1
            right += a.verdict in RIGHT
    return Stats(
        attempts=total,
        right=right,
        accuracy=right / total if total else 0.0,
        topics=(),
        mistakes=(),
        days=(),
        current_streak_days=current_run(practised, local_day(now, utc_offset_seconds)),
        first_at=None,
        last_at=None,
        skipped=skipped,
        unfinished_mocks=sum(1 for m in sessions if m.mode == "mock" and m.finished is None),
        longest_streak_days=longest_run(practised),
    )


__all__ = ["SUMMARY_FIELDS", "summary_stats"]
