"""Statistics over practice history: accuracy per topic and difficulty, mistakes, days, heatmap, streaks."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import date
from typing import Any

from quizzer.core.record import Record
from quizzer.grading.bands import title_from_name
from quizzer.grading.slip_families import family_of
from quizzer.session.leeches import Leech
from quizzer.session.past_mocks import PastMock
from quizzer.session.records import RIGHT, Attempt, SessionMark

#: Verdicts of questions not answered: a skip, a mock question whose time ran out.
UNANSWERED = frozenset({"skipped", "timed-out"})

SECONDS_PER_DAY = 86_400
#: How many mistakes `Stats.mistakes` keeps.
TOP_MISTAKES = 10
_EPOCH_ORDINAL = date(1970, 1, 1).toordinal()
#: How many weeks the calendar heatmap covers, ending with this week (GitHub shows 53; 26 fit 80 columns).
HEATMAP_WEEKS = 26
#: The difficulties in the order they are listed (others a template may have come after, by name).
DIFFICULTY_ORDER = ("easy", "medium", "hard")


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


class DifficultyStats(Record):
    """Attempts and accuracy at one difficulty."""

    difficulty: str
    attempts: int
    right: int
    accuracy: float
    """right / attempts, in [0, 1] (0.0 when every attempt was skipped)."""
    skipped: int = 0


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
    current_streak_days: int
    """Consecutive local days with an attempt, up to today (or yesterday, if nothing yet today)."""
    first_at: float | None
    """The earliest attempt's ``at`` (None with no attempts)."""
    last_at: float | None
    skipped: int = 0
    """Questions skipped, or left unanswered when a mock's time ran out: practice, but not answers, so
    they are left out of ``attempts``, the accuracy and the times (they do count for the streak)."""
    top_slip: tuple[str, int] | None = None
    """Your most frequent slip family (its words) and how often it was recorded (the app's Stats: s drills
    it); None when no slip was recorded or it was not read."""
    unfinished_mocks: int = 0
    """Mocks that started and never finished (the app crashed or was killed while one ran)."""
    parts: tuple[PartStats, ...] = ()
    """The parts of the chains answered, by topic then part number (questions of one part are left out)."""
    longest_streak_days: int = 0
    """The most consecutive local days with an attempt, ever (the current streak included)."""
    heatmap: tuple[DayStats, ...] = ()
    """Every local day from the Monday ``HEATMAP_WEEKS - 1`` weeks before this week's to today, oldest
    first (answers only, as ``days``); `heatmap_grid` lays them out in weeks."""
    by_difficulty: tuple[DifficultyStats, ...] = ()
    """Accuracy per difficulty (easy, medium, hard, then others by name), for the templates the caller's
    ``difficulty_of`` knows; difficulties without attempts are left out."""
    leeches: tuple[Leech, ...] = ()
    """Templates suspended from study as leeches (the caller adds them from the cards: ``leeches``)."""
    mocks: tuple[PastMock, ...] = ()
    """Past mocks, newest first (the caller adds them: ``past_mocks``)."""


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


def weekday(day: int) -> int:
    """The weekday of a day number, Monday 0 to Sunday 6.

    >>> weekday(0), weekday(19_723)  # 1970-01-01 was a Thursday, 2024-01-01 a Monday
    (3, 0)
    """
    return (day + 3) % 7


def calendar_days(
    per_day: Mapping[int, tuple[int, int]], today: int, weeks: int = HEATMAP_WEEKS
) -> tuple[DayStats, ...]:
    """The heatmap's days: from the Monday ``weeks - 1`` weeks before today's week to today, oldest first.

    Args:
        per_day: local day number -> (attempts, right); days missing have none.
        today: today's local day number.
        weeks: how many week columns (>= 1).

    Returns:
        ``7 * (weeks - 1) + weekday(today) + 1`` DayStats.

    >>> cells = calendar_days({19_723: (3, 2)}, 19_724, weeks=1)  # Monday 2024-01-01, today Tuesday
    >>> [(c.day, c.attempts, c.right) for c in cells]
    [('2024-01-01', 3, 2), ('2024-01-02', 0, 0)]
    """
    if weeks < 1:
        raise ValueError(f"weeks must be >= 1, not {weeks}")
    first = today - weekday(today) - 7 * (weeks - 1)
    return tuple(DayStats(day_text(d), *per_day.get(d, (0, 0))) for d in range(first, today + 1))


def heatmap_grid(cells: Iterable[DayStats]) -> list[list[DayStats | None]]:
    """Days laid out as GitHub does: 7 rows (Monday first), one column per week, oldest week first.

    Args:
        cells: consecutive days, oldest first (as ``Stats.heatmap``).

    Returns:
        7 lists of equal length; a place before the first day or after the last is None.

    >>> grid = heatmap_grid(calendar_days({}, 19_724, weeks=2))  # today: Tuesday 2024-01-02
    >>> len(grid), len(grid[0]), grid[0][1].day, grid[1][1].day, grid[2][1]
    (7, 2, '2024-01-01', '2024-01-02', None)
    """
    rows: list[list[DayStats | None]] = [[] for _ in range(7)]
    place = 0
    for cell in cells:
        if not place:  # the first day: its weekday's row, the rows above it start empty
            place = weekday(date.fromisoformat(cell.day).toordinal() - _EPOCH_ORDINAL)
            for row in rows[:place]:
                row.append(None)
        rows[place % 7].append(cell)
        place += 1
    width = max(len(row) for row in rows)
    for row in rows:
        row.extend([None] * (width - len(row)))
    return rows


def longest_run(days: Iterable[int]) -> int:
    """The length of the longest run of consecutive day numbers.

    >>> longest_run([5, 1, 2, 3, 7, 8]), longest_run([])
    (3, 0)
    """
    best = run = 0
    previous: int | None = None
    for d in sorted(set(days)):
        run = run + 1 if previous is not None and d == previous + 1 else 1
        best = max(best, run)
        previous = d
    return best


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
    difficulty_of: Mapping[str, str] | None = None,
    heatmap_weeks: int = HEATMAP_WEEKS,
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
        difficulty_of: template id -> difficulty (the caller reads it from the bank); attempts at templates
            it does not know are left out of ``by_difficulty``. None: no ``by_difficulty``.
        heatmap_weeks: how many weeks ``Stats.heatmap`` covers.

    Returns:
        A Stats.

    >>> from quizzer.session.records import Attempt
    >>> a = Attempt("t", 1, {}, "3", 3, 3, "", "exact", 0.0, None, 30.0, 0, topic="x", minutes=1.0, at=10.0)
    >>> wrong = a.replace(verdict="wrong", seconds=50.0)
    >>> s = compute_stats([a, wrong, a.replace(verdict="skipped", seconds=2.0)], now=86_400.0 + 5, days=2)
    >>> s.attempts, s.right, s.accuracy, s.skipped, s.current_streak_days, s.longest_streak_days
    (2, 1, 0.5, 1, 1, 1)
    >>> s.topics[0].median_seconds, s.topics[0].median_expected_seconds, s.topics[0].skipped
    (40.0, 60.0, 1)
    >>> [(d.day, d.attempts) for d in s.days]
    [('1970-01-01', 2), ('1970-01-02', 0)]
    """
    if days < 0:
        raise ValueError(f"days must be >= 0, not {days}")
    tally = _Tally(utc_offset_seconds, difficulty_of or {})
    for a in attempts:
        tally.add(a)
    today = local_day(now, utc_offset_seconds)
    window = range(today - days + 1, today + 1)
    return Stats(
        attempts=tally.total,
        right=tally.right,
        accuracy=tally.right / tally.total if tally.total else 0.0,
        topics=tally.topics(),
        mistakes=tally.top_mistakes(),
        days=tuple(DayStats(day_text(d), *tally.per_day.get(d, (0, 0))) for d in window),
        current_streak_days=current_run(tally.practised, today),
        first_at=tally.first_at,
        last_at=tally.last_at,
        skipped=tally.skipped,
        unfinished_mocks=sum(1 for m in sessions if m.mode == "mock" and m.finished is None),
        parts=tuple(
            PartStats(topic, part, n, r, r / n if n else 0.0, skipped)
            for (topic, part), (n, r, skipped) in sorted(tally.per_part.items())
        ),
        longest_streak_days=longest_run(tally.practised),
        heatmap=calendar_days({d: (n, r) for d, (n, r) in tally.per_day.items()}, today, heatmap_weeks),
        by_difficulty=tuple(
            DifficultyStats(name, n, r, r / n if n else 0.0, skipped)
            for name, (n, r, skipped) in sorted(tally.per_difficulty.items(), key=_difficulty_key)
        ),
    )


class _Tally:
    """Every count ``compute_stats`` reads, made in one pass over the attempts (``add`` each)."""

    def __init__(self, utc_offset_seconds: int, difficulty_of: Mapping[str, str]) -> None:
        self.offset, self.difficulty_of = utc_offset_seconds, difficulty_of
        self.total = self.right = self.skipped = 0
        self.first_at: float | None = None
        self.last_at: float | None = None
        self.per_topic: dict[str, list[Any]] = {}  # topic -> [attempts, right, seconds, expected seconds]
        self.skipped_in: dict[str, int] = {}
        self.mistakes: dict[tuple[str, str], list[Any]] = {}  # (name, direction) -> [count, ids, title]
        self.per_day: dict[int, list[int]] = {}  # local day -> [attempts, right]
        self.practised: set[int] = set()  # local days with any attempt, skips included (the streak)
        self.per_part: dict[tuple[str, int], list[int]] = {}  # (topic, part) -> [attempts, right, skipped]
        self.per_difficulty: dict[str, list[int]] = {}  # difficulty -> [attempts, right, skipped]

    def add(self, a: Attempt) -> None:
        """Count one attempt: a skip (or time-out) only where skips are counted, an answer everywhere."""
        self.practised.add(local_day(a.at, self.offset))
        unanswered = a.verdict in UNANSWERED
        if (difficulty := self.difficulty_of.get(a.template_id)) is not None:
            _count(self.per_difficulty.setdefault(difficulty, [0, 0, 0]), a, unanswered)
        if a.part is not None:
            _count(self.per_part.setdefault((a.topic, a.part), [0, 0, 0]), a, unanswered)
        if unanswered:
            self.skipped += 1
            self.skipped_in[a.topic] = self.skipped_in.get(a.topic, 0) + 1
            return
        is_right = a.verdict in RIGHT
        self.total += 1
        self.right += is_right
        if self.first_at is None or a.at < self.first_at:
            self.first_at = a.at
        if self.last_at is None or a.at > self.last_at:
            self.last_at = a.at
        topic = self.per_topic.get(a.topic)
        if topic is None:
            topic = self.per_topic[a.topic] = [0, 0, [], []]
        topic[0] += 1
        topic[1] += is_right
        topic[2].append(a.seconds)
        if a.minutes > 0:
            topic[3].append(a.minutes * 60.0)
        if a.mistake:
            key = _mistake_key(a.mistake, a.mistake_title)
            mistake = self.mistakes.get(key)
            if mistake is None:
                mistake = self.mistakes[key] = [0, set(), ""]
            mistake[0] += 1
            mistake[1].add(a.template_id)
            mistake[2] = a.mistake_title or mistake[2]
        day = self.per_day.get(d := local_day(a.at, self.offset))
        if day is None:
            day = self.per_day[d] = [0, 0]
        day[0] += 1
        day[1] += is_right

    def topics(self) -> tuple[TopicStats, ...]:
        """Each topic with an answer, weakest first (lowest accuracy, then most answers, then by name)."""
        topics = [
            TopicStats(
                name,
                n,
                r,
                r / n,
                _median(seconds),
                _median(expected) if expected else None,
                self.skipped_in.get(name, 0),
            )
            for name, (n, r, seconds, expected) in self.per_topic.items()
        ]
        return tuple(sorted(topics, key=lambda t: (t.accuracy, -t.attempts, t.topic)))

    def top_mistakes(self) -> tuple[MistakeCount, ...]:
        """The TOP_MISTAKES mistakes made most often (ties by name), each with its templates and title."""
        top = sorted(self.mistakes.items(), key=lambda item: (-item[1][0], item[0]))[:TOP_MISTAKES]
        return tuple(
            MistakeCount(name, n, tuple(sorted(ids)), title or title_from_name(name))
            for (name, _), (n, ids, title) in top
        )


def _mistake_key(name: str, title: str | None) -> tuple[str, str]:
    """How Stats tells mistakes apart: a built-in slip by its name and title, since one name covers both
    directions of a family ("GiB read as GB" and "GB read as GiB" are both gb-vs-gib); a template's mistake
    by its name alone, under the latest title it was recorded with."""
    return (name, title or "") if family_of(name) is not None else (name, "")


def _count(tally: list[int], a: Attempt, unanswered: bool) -> None:
    """Add ``a`` to an [attempts, right, skipped] tally."""
    if unanswered:
        tally[2] += 1
    else:
        tally[0] += 1
        tally[1] += a.verdict in RIGHT


def current_run(practised: set[int], today: int) -> int:
    """The days in a row practised up to today (or up to yesterday, when today is not practised yet).

    >>> current_run({8, 9, 10}, 10), current_run({8, 9}, 10), current_run({7, 9}, 10), current_run(set(), 10)
    (3, 2, 1, 0)
    """
    streak = 0
    d = today if today in practised else today - 1
    while d in practised:
        streak += 1
        d -= 1
    return streak


def _difficulty_key(item: tuple[str, Any]) -> tuple[int, str]:
    name = item[0]
    return (DIFFICULTY_ORDER.index(name) if name in DIFFICULTY_ORDER else len(DIFFICULTY_ORDER), name)


def difficulties(bank: Any, template_ids: Iterable[str]) -> dict[str, str]:
    """Template id -> difficulty as written in the bank, for the ids it knows (``bank.peek``: only the
    files of those templates are parsed, nothing validated): the ``difficulty_of`` of compute_stats."""
    return _written(bank, template_ids, "difficulty")


def titles(bank: Any, template_ids: Iterable[str]) -> dict[str, str]:
    """Template id -> title as written in the bank, for the ids it knows (as ``difficulties``): what
    Stats names leeches by."""
    return _written(bank, template_ids, "title")


def _written(bank: Any, template_ids: Iterable[str], field: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for template_id in set(template_ids):
        raw = bank.peek(template_id)
        if raw is not None and isinstance(value := raw.get(field), str):
            out[template_id] = value
    return out


def stats_json(stats: Stats) -> dict[str, Any]:
    """Stats as JSON-ready dicts and lists.

    Args:
        stats: what compute_stats returned.

    Returns:
        The fields of Stats, with topics, mistakes, days, parts, heatmap, by_difficulty, leeches and mocks
        as lists of dicts (template_ids a list).

    >>> s = compute_stats([], now=0.0, days=1)
    >>> stats_json(s)["days"], stats_json(s)["topics"], stats_json(s)["first_at"]
    ([{'day': '1970-01-01', 'attempts': 0, 'right': 0}], [], None)
    """
    out = stats.as_dict()
    out["topics"] = [t.as_dict() for t in stats.topics]
    out["mistakes"] = [{**m.as_dict(), "template_ids": list(m.template_ids)} for m in stats.mistakes]
    out["days"] = [d.as_dict() for d in stats.days]
    out["parts"] = [p.as_dict() for p in stats.parts]
    out["heatmap"] = [d.as_dict() for d in stats.heatmap]
    out["by_difficulty"] = [d.as_dict() for d in stats.by_difficulty]
    out["leeches"] = [x.as_dict() for x in stats.leeches]
    out["mocks"] = [m.as_dict() for m in stats.mocks]
    return out


__all__ = [
    "DayStats",
    "DifficultyStats",
    "MistakeCount",
    "PartStats",
    "Stats",
    "TopicStats",
    "calendar_days",
    "compute_stats",
    "day_text",
    "difficulties",
    "heatmap_grid",
    "local_day",
    "longest_run",
    "stats_json",
    "titles",
    "weekday",
]
