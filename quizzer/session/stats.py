"""Statistics over practice history: accuracy and times per topic, frequent mistakes, days, streak."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date
from typing import Any

from quizzer.core.record import Record
from quizzer.grading.bands import title_from_name
from quizzer.session.records import RIGHT, Attempt, SessionMark

#: Verdicts of questions not answered: a skip, a mock question whose time ran out.
UNANSWERED = frozenset({"skipped", "timed-out"})

SECONDS_PER_DAY = 86_400
#: How many mistakes `Stats.mistakes` keeps.
TOP_MISTAKES = 10
_EPOCH_ORDINAL = date(1970, 1, 1).toordinal()


class TopicStats(Record):
    """Attempts, accuracy and typical times in one topic."""

    topic: str
    attempts: int
    right: int
    accuracy: float
    """right / attempts, in [0, 1]."""
    median_seconds: float
    """The median time spent on a question of this topic."""
    median_expected_seconds: float | None
    """The median of the templates' expected time (``minutes * 60``); None when no attempt recorded one."""
    skipped: int = 0
    """Questions skipped or left unanswered in this topic (not in ``attempts``, accuracy or times)."""


class PartStats(Record):
    """How one part of the chains of a topic goes ("part 2 of kv-cache chains: 40% right")."""

    topic: str
    part: int
    """1 is the main question of a chain, 2 its first follow-up, ..."""
    attempts: int
    right: int
    accuracy: float
    """right / attempts, in [0, 1] (0.0 when every attempt was skipped)."""
    skipped: int = 0


class MistakeCount(Record):
    """A named mistake and how often it was made."""

    name: str
    count: int
    template_ids: tuple[str, ...]
    """The templates it was made on, sorted."""
    title: str = ""
    """Its human title ("Untied head left out"): the latest recorded, else one made from the name."""


class DayStats(Record):
    """Attempts on one local day."""

    day: str
    """The local date, ``YYYY-MM-DD``."""
    attempts: int
    right: int


class Stats(Record):
    """The summary `quizzer stats` prints."""

    attempts: int
    right: int
    accuracy: float
    """right / attempts, in [0, 1] (0.0 with no attempts)."""
    topics: tuple[TopicStats, ...]
    """Worst accuracy first, then most attempts, then by name."""
    mistakes: tuple[MistakeCount, ...]
    """The most frequent first (ties by name), at most TOP_MISTAKES."""
    days: tuple[DayStats, ...]
    """The last ``days`` local days, oldest first, ending today, including days without attempts."""
    streak_days: int
    """Consecutive local days with an attempt, up to today (or yesterday, if nothing yet today)."""
    first_at: float | None
    """The earliest attempt's ``at`` (None with no attempts)."""
    last_at: float | None
    skipped: int = 0
    """Questions skipped, or left unanswered when a mock's time ran out: practice, but not answers, so
    they are left out of ``attempts``, the accuracy and the times (they do count for the streak)."""
    unfinished_mocks: int = 0
    """Mocks that started and never finished (the app crashed or was killed while one ran)."""
    parts: tuple[PartStats, ...] = ()
    """The parts of the chains answered, by topic then part number (questions of one part are left out)."""


def local_day(at: float, utc_offset_seconds: int = 0) -> int:
    """The local day number (days since 1970-01-01) of an epoch time.

    Args:
        at: seconds since the epoch (UTC).
        utc_offset_seconds: the local offset from UTC (east positive: +3600 for UTC+1).

    Returns:
        ``floor((at + utc_offset_seconds) / 86400)``.

    >>> local_day(86_399.0), local_day(86_399.0, 3600), local_day(0.0, -1)
    (0, 1, -1)
    """
    return int((at + utc_offset_seconds) // SECONDS_PER_DAY)


def day_text(day: int) -> str:
    """A day number as ``YYYY-MM-DD``.

    >>> day_text(0), day_text(19_723)
    ('1970-01-01', '2024-01-01')
    """
    return date.fromordinal(_EPOCH_ORDINAL + day).isoformat()


def _median(values: list[float]) -> float:
    values.sort()
    mid = len(values) // 2
    return values[mid] if len(values) % 2 else (values[mid - 1] + values[mid]) / 2


def compute_stats(
    attempts: Iterable[Attempt],
    *,
    now: float,
    utc_offset_seconds: int = 0,
    days: int = 14,
    sessions: Iterable[SessionMark] = (),
) -> Stats:
    """Summarise attempts: overall and per-topic accuracy, median times, mistakes, recent days, streak.

    Skipped and timed-out attempts are not answers: they are counted in ``skipped`` (overall and per
    topic) and left out of the attempts, the accuracy and the times; a day with only skips still counts
    for the streak. Days are local days: an attempt's ``at`` plus ``utc_offset_seconds``. One pass over
    the attempts, then sorts of the per-topic times.

    Args:
        attempts: the history, in any order.
        now: seconds since the epoch: "today" is its local day.
        utc_offset_seconds: the local offset from UTC (east positive).
        days: how many local days ``Stats.days`` covers, ending today (0 for none).
        sessions: the history's session marks (for the mocks left unfinished).

    Returns:
        A Stats.

    >>> from quizzer.session.records import Attempt
    >>> a = Attempt("t", 1, {}, "3", 3, 3, "", "exact", 0.0, None, 30.0, 0, topic="x", minutes=1.0, at=10.0)
    >>> wrong = a.replace(verdict="wrong", seconds=50.0)
    >>> s = compute_stats([a, wrong, a.replace(verdict="skipped", seconds=2.0)], now=86_400.0 + 5, days=2)
    >>> s.attempts, s.right, s.accuracy, s.skipped, s.streak_days
    (2, 1, 0.5, 1, 1)
    >>> s.topics[0].median_seconds, s.topics[0].median_expected_seconds, s.topics[0].skipped
    (40.0, 60.0, 1)
    >>> [(d.day, d.attempts) for d in s.days]
    [('1970-01-01', 2), ('1970-01-02', 0)]
    """
    if days < 0:
        raise ValueError(f"days must be >= 0, not {days}")
    total = right_total = 0
    first_at: float | None = None
    last_at: float | None = None
    per_topic: dict[str, list[Any]] = {}  # topic -> [attempts, right, seconds list, expected seconds list]
    mistakes: dict[str, list[Any]] = {}  # name -> [count, template ids, title]
    per_day: dict[int, list[int]] = {}  # local day -> [attempts, right]
    skipped_total = 0
    skipped_in: dict[str, int] = {}
    practised: set[int] = set()  # local days with any attempt, skips included (the streak)
    per_part: dict[tuple[str, int], list[int]] = {}  # (topic, part) -> [attempts, right, skipped]
    for a in attempts:
        practised.add(local_day(a.at, utc_offset_seconds))
        if a.part is not None:
            tally = per_part.setdefault((a.topic, a.part), [0, 0, 0])
            if a.verdict in UNANSWERED:
                tally[2] += 1
            else:
                tally[0] += 1
                tally[1] += a.verdict in RIGHT
        if a.verdict in UNANSWERED:
            skipped_total += 1
            skipped_in[a.topic] = skipped_in.get(a.topic, 0) + 1
            continue
        is_right = a.verdict in RIGHT
        total += 1
        right_total += is_right
        at = a.at
        if first_at is None or at < first_at:
            first_at = at
        if last_at is None or at > last_at:
            last_at = at
        topic = per_topic.get(a.topic)
        if topic is None:
            topic = per_topic[a.topic] = [0, 0, [], []]
        topic[0] += 1
        topic[1] += is_right
        topic[2].append(a.seconds)
        if a.minutes > 0:
            topic[3].append(a.minutes * 60.0)
        if a.mistake:
            mistake = mistakes.get(a.mistake)
            if mistake is None:
                mistake = mistakes[a.mistake] = [0, set(), ""]
            mistake[0] += 1
            mistake[1].add(a.template_id)
            mistake[2] = a.mistake_title or mistake[2]
        day = per_day.get(d := local_day(at, utc_offset_seconds))
        if day is None:
            day = per_day[d] = [0, 0]
        day[0] += 1
        day[1] += is_right

    topics = sorted(
        (
            TopicStats(
                name,
                n,
                r,
                r / n,
                _median(seconds),
                _median(expected) if expected else None,
                skipped_in.get(name, 0),
            )
            for name, (n, r, seconds, expected) in per_topic.items()
        ),
        key=lambda t: (t.accuracy, -t.attempts, t.topic),
    )
    top_mistakes = sorted(mistakes.items(), key=lambda item: (-item[1][0], item[0]))[:TOP_MISTAKES]
    today = local_day(now, utc_offset_seconds)
    window = tuple(DayStats(day_text(d), *per_day.get(d, (0, 0))) for d in range(today - days + 1, today + 1))
    streak = 0
    d = today if today in practised else today - 1
    while d in practised:
        streak += 1
        d -= 1
    return Stats(
        attempts=total,
        right=right_total,
        accuracy=right_total / total if total else 0.0,
        topics=tuple(topics),
        mistakes=tuple(
            MistakeCount(name, n, tuple(sorted(ids)), title or title_from_name(name))
            for name, (n, ids, title) in top_mistakes
        ),
        days=window,
        streak_days=streak,
        first_at=first_at,
        last_at=last_at,
        skipped=skipped_total,
        unfinished_mocks=sum(1 for m in sessions if m.mode == "mock" and m.finished is None),
        parts=tuple(
            PartStats(topic, part, n, r, r / n if n else 0.0, skipped)
            for (topic, part), (n, r, skipped) in sorted(per_part.items())
        ),
    )


def stats_json(stats: Stats) -> dict[str, Any]:
    """Stats as JSON-ready dicts and lists.

    Args:
        stats: what compute_stats returned.

    Returns:
        The fields of Stats, with topics, mistakes and days as lists of dicts (template_ids a list).

    >>> s = compute_stats([], now=0.0, days=1)
    >>> stats_json(s)["days"], stats_json(s)["topics"], stats_json(s)["first_at"]
    ([{'day': '1970-01-01', 'attempts': 0, 'right': 0}], [], None)
    """
    out = stats.as_dict()
    out["topics"] = [t.as_dict() for t in stats.topics]
    out["mistakes"] = [{**m.as_dict(), "template_ids": list(m.template_ids)} for m in stats.mistakes]
    out["days"] = [d.as_dict() for d in stats.days]
    out["parts"] = [p.as_dict() for p in stats.parts]
    return out


__all__ = [
    "DayStats",
    "MistakeCount",
    "PartStats",
    "Stats",
    "TopicStats",
    "compute_stats",
    "day_text",
    "local_day",
    "stats_json",
]
