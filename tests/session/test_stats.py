"""compute_stats: accuracy, medians, mistakes, local days, streaks (hand-built attempts), and invariants."""

from __future__ import annotations

import json
import time
from datetime import date, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quizzer.session.records import VERDICTS, Attempt
from quizzer.session.stats import DayStats, compute_stats, difficulties, heatmap_grid, stats_json

DAY = 86_400
#: 2024-03-10 00:00:00 UTC.
MIDNIGHT = 1_710_028_800.0
#: "now": 2024-03-10 12:00 UTC.
NOW = MIDNIGHT + 12 * 3600


def attempt(
    verdict: str = "exact",
    *,
    topic: str = "params",
    template_id: str = "t1",
    seconds: float = 60.0,
    minutes: float = 1.0,
    at: float = NOW - 60,
    mistake: str | None = None,
) -> Attempt:
    return Attempt(
        template_id=template_id,
        seed=1,
        variables={"a": 2},
        answer="" if verdict in ("skipped", "timed-out") else "4",
        value=None if verdict in ("skipped", "timed-out") else 4,
        expected=4,
        unit="",
        verdict=verdict,
        rel_error=None,
        mistake=mistake,
        seconds=seconds,
        hints=0,
        mode="drill",
        at=at,
        session="s",
        topic=topic,
        minutes=minutes,
    )


def test_empty_history() -> None:
    s = compute_stats([], now=NOW, days=3)
    assert (s.attempts, s.right, s.accuracy, s.current_streak_days) == (0, 0, 0.0, 0)
    assert s.topics == ()
    assert s.mistakes == ()
    assert (s.first_at, s.last_at) == (None, None)
    assert [(d.day, d.attempts, d.right) for d in s.days] == [
        ("2024-03-08", 0, 0),
        ("2024-03-09", 0, 0),
        ("2024-03-10", 0, 0),
    ]


def test_skips_and_timeouts_are_counted_apart_not_as_answers() -> None:
    s = compute_stats(
        [attempt("exact"), attempt("correct"), attempt("close"), attempt("skipped"), attempt("timed-out")],
        now=NOW,
    )
    assert (s.attempts, s.right, s.skipped) == (3, 2, 2)
    assert s.accuracy == pytest.approx(2 / 3)  # nine skips must not turn 5 of 11 into "5 of 20"


def test_topics_accuracy_medians_and_order() -> None:
    history = [
        # kv: 1 of 4 right; times 30, 90, 120, 600 -> median 105; expected 2, 2, 3 min (one unknown) -> 120
        attempt("exact", topic="kv", seconds=30, minutes=2),
        attempt("wrong", topic="kv", seconds=90, minutes=2),
        attempt("wrong", topic="kv", seconds=600, minutes=3),
        attempt("wrong", topic="kv", seconds=120, minutes=0),
        attempt("skipped", topic="kv", seconds=2, minutes=3),  # a skip: not in the times or the accuracy
        # flops: 1 of 2 right
        attempt("exact", topic="flops", seconds=10, minutes=1),
        attempt("wrong", topic="flops", seconds=20, minutes=1),
        # memory: 1 of 4 right (same accuracy as kv, same attempts): ties by name
        attempt("exact", topic="memory", seconds=5, minutes=0.5),
        attempt("wrong", topic="memory", seconds=5, minutes=0.5),
        attempt("wrong", topic="memory", seconds=5, minutes=0.5),
        attempt("wrong", topic="memory", seconds=5, minutes=0.5),
        # params: all right, most attempts
        *[attempt("correct", topic="params", seconds=40, minutes=1) for _ in range(5)],
        # mlp: 1 of 8 right -> below 25%
        attempt("exact", topic="mlp", seconds=1, minutes=1),
        *[attempt("wrong", topic="mlp", seconds=1, minutes=1) for _ in range(7)],
    ]
    s = compute_stats(history, now=NOW)
    assert [(t.topic, t.attempts, t.right) for t in s.topics] == [
        ("mlp", 8, 1),
        ("kv", 4, 1),
        ("memory", 4, 1),
        ("flops", 2, 1),
        ("params", 5, 5),
    ]
    kv = s.topics[1]
    assert kv.accuracy == 0.25
    assert kv.median_seconds == 105.0
    assert kv.median_expected_seconds == 120.0
    assert kv.skipped == 1
    assert s.topics[2].median_expected_seconds == 30.0
    assert s.topics[3].median_seconds == 15.0


def test_expected_time_unknown_when_no_attempt_recorded_minutes() -> None:
    s = compute_stats([attempt(minutes=0), attempt(minutes=0)], now=NOW)
    assert s.topics[0].median_expected_seconds is None


def test_more_attempts_first_among_equal_accuracy() -> None:
    s = compute_stats(
        [attempt("wrong", topic="a"), *[attempt("wrong", topic="b") for _ in range(3)]],
        now=NOW,
    )
    assert [t.topic for t in s.topics] == ["b", "a"]


def test_mistakes_most_frequent_first_top_ten() -> None:
    history = [
        attempt("wrong", mistake="forgot-bias", template_id="t2"),
        attempt("wrong", mistake="bits-for-bytes", template_id="t9"),
        attempt("close", mistake="bits-for-bytes", template_id="t1"),
        attempt("wrong", mistake="bits-for-bytes", template_id="t9"),
        attempt("wrong", mistake="forgot-bias", template_id="t3"),
        attempt("wrong", mistake="off-by-layers", template_id="t1"),
        attempt("wrong"),  # no named mistake
        *[attempt("wrong", mistake=f"z-rare-{i:02d}") for i in range(12)],
    ]
    s = compute_stats(history, now=NOW)
    assert len(s.mistakes) == 10
    assert [(m.name, m.count, m.template_ids) for m in s.mistakes[:3]] == [
        ("bits-for-bytes", 3, ("t1", "t9")),
        ("forgot-bias", 2, ("t2", "t3")),
        ("off-by-layers", 1, ("t1",)),
    ]
    # ties at one occurrence: by name, so the first seven rare ones make the cut
    assert [m.name for m in s.mistakes[3:]] == [f"z-rare-{i:02d}" for i in range(7)]


def test_days_window_includes_empty_days_oldest_first() -> None:
    history = [
        attempt("exact", at=MIDNIGHT + 100),  # 2024-03-10
        attempt("wrong", at=MIDNIGHT + 200),  # 2024-03-10
        attempt("exact", at=MIDNIGHT - 2 * DAY + 5),  # 2024-03-08
        attempt("exact", at=MIDNIGHT - 10 * DAY),  # 2024-02-29, outside a 4-day window
    ]
    s = compute_stats(history, now=NOW, days=4)
    assert [(d.day, d.attempts, d.right) for d in s.days] == [
        ("2024-03-07", 0, 0),
        ("2024-03-08", 1, 1),
        ("2024-03-09", 0, 0),
        ("2024-03-10", 2, 1),
    ]
    assert s.attempts == 4  # the window limits the days only
    assert (s.first_at, s.last_at) == (MIDNIGHT - 10 * DAY, MIDNIGHT + 200)


def test_utc_offset_moves_an_attempt_to_another_local_day() -> None:
    late = attempt(at=MIDNIGHT - 1800)  # 2024-03-09 23:30 UTC
    utc = compute_stats([late], now=NOW, days=2)
    assert [d.attempts for d in utc.days] == [1, 0]
    # UTC+1: 2024-03-10 00:30 local
    east = compute_stats([late], now=NOW, utc_offset_seconds=3600, days=2)
    assert [(d.day, d.attempts) for d in east.days] == [("2024-03-09", 0), ("2024-03-10", 1)]
    # UTC-13 (now is 2024-03-09 23:00 local): the attempt falls on 2024-03-09 10:30 local, "today"
    west = compute_stats([late], now=NOW, utc_offset_seconds=-13 * 3600, days=2)
    assert [(d.day, d.attempts) for d in west.days] == [("2024-03-08", 0), ("2024-03-09", 1)]


def test_utc_offset_matches_time_gmtime() -> None:
    # an independent oracle for the local day: time.gmtime of the shifted instant
    for at in (MIDNIGHT - 1, MIDNIGHT, MIDNIGHT + 3 * 3600 + 7):
        for offset in (-5 * 3600, 0, 5 * 3600 + 1800):
            s = compute_stats([attempt(at=at)], now=at, utc_offset_seconds=offset, days=1)
            assert s.days[0].day == time.strftime("%Y-%m-%d", time.gmtime(at + offset))
            assert s.days[0].attempts == 1


def test_streak_counts_consecutive_days_up_to_today() -> None:
    history = [attempt(at=NOW - k * DAY) for k in (0, 1, 2, 4, 5)]  # a gap three days ago
    assert compute_stats(history, now=NOW).current_streak_days == 3


def test_streak_still_counts_when_nothing_yet_today() -> None:
    history = [attempt(at=NOW - k * DAY) for k in (1, 2)]
    assert compute_stats(history, now=NOW).current_streak_days == 2
    # several attempts on a day count once
    assert compute_stats([*history, *history], now=NOW).current_streak_days == 2


def test_streak_broken_when_nothing_yesterday_or_today() -> None:
    history = [attempt(at=NOW - k * DAY) for k in (2, 3, 4)]
    assert compute_stats(history, now=NOW).current_streak_days == 0


def test_streak_uses_local_days() -> None:
    # 23:30 UTC yesterday and 00:30 UTC today are the same day at UTC+2 -> a streak of 1, and 2 at UTC
    history = [attempt(at=MIDNIGHT - 1800), attempt(at=MIDNIGHT + 1800)]
    assert compute_stats(history, now=MIDNIGHT + 3600).current_streak_days == 2
    assert compute_stats(history, now=MIDNIGHT + 3600, utc_offset_seconds=7200).current_streak_days == 1


def test_negative_days_is_an_error() -> None:
    with pytest.raises(ValueError, match="days"):
        compute_stats([], now=NOW, days=-1)


def test_stats_json_is_plain_data() -> None:
    s = compute_stats([attempt("wrong", mistake="m", at=MIDNIGHT + 5)], now=NOW, days=2)
    data = json.loads(json.dumps(stats_json(s)))
    assert data["attempts"] == 1
    assert data["right"] == 0
    assert data["accuracy"] == 0.0
    assert data["current_streak_days"] == 1
    assert data["first_at"] == data["last_at"] == MIDNIGHT + 5
    assert data["topics"] == [
        {
            "topic": "params",
            "attempts": 1,
            "right": 0,
            "accuracy": 0.0,
            "median_seconds": 60.0,
            "median_expected_seconds": 60.0,
            "skipped": 0,
        }
    ]
    assert data["mistakes"] == [{"name": "m", "count": 1, "template_ids": ["t1"], "title": "M"}]
    assert data["days"] == [
        {"day": "2024-03-09", "attempts": 0, "right": 0},
        {"day": "2024-03-10", "attempts": 1, "right": 0},
    ]


def test_ten_thousand_attempts_are_all_counted() -> None:
    history = [
        attempt(
            VERDICTS[i % len(VERDICTS)],
            topic=f"topic-{i % 12}",
            template_id=f"t{i % 60}",
            seconds=float(i % 300),
            minutes=float(i % 4),
            at=NOW - (i % 90) * DAY - i,
            mistake=f"m{i % 25}" if i % 3 else None,
        )
        for i in range(10_000)
    ]
    s = compute_stats(history, now=NOW, days=30)  # its speed is a `make bench` row, not a timed test
    unanswered = sum(VERDICTS[i % len(VERDICTS)] in ("skipped", "timed-out") for i in range(10_000))
    assert (s.attempts, s.skipped) == (10_000 - unanswered, unanswered)


attempts_strategy = st.lists(
    st.builds(
        attempt,
        st.sampled_from(VERDICTS),
        topic=st.sampled_from(["a", "b", "c", ""]),
        template_id=st.sampled_from(["t1", "t2"]),
        seconds=st.floats(0, 10_000),
        minutes=st.sampled_from([0.0, 0.5, 1.0, 3.0]),
        at=st.floats(NOW - 40 * DAY, NOW + DAY),
        mistake=st.sampled_from([None, "x", "y"]),
    ),
    max_size=60,
)


@settings(max_examples=200)
@given(
    history=attempts_strategy,
    offset=st.integers(-14 * 3600, 14 * 3600),
    days=st.integers(0, 45),
)
def test_counts_are_consistent(history: list[Attempt], offset: int, days: int) -> None:
    s = compute_stats(history, now=NOW, utc_offset_seconds=offset, days=days)
    answers = [a for a in history if a.verdict not in ("skipped", "timed-out")]
    assert (s.attempts, s.skipped) == (len(answers), len(history) - len(answers))
    assert 0 <= s.right <= s.attempts
    assert 0.0 <= s.accuracy <= 1.0
    assert sum(t.attempts for t in s.topics) == s.attempts
    assert sum(t.right for t in s.topics) == s.right
    assert all(0.0 <= t.accuracy <= 1.0 and t.right <= t.attempts for t in s.topics)
    assert len(s.days) == days
    today = int((NOW + offset) // DAY)
    in_window = [a for a in answers if today - days < (a.at + offset) // DAY <= today]
    assert sum(d.attempts for d in s.days) == len(in_window)
    assert sum(d.right for d in s.days) == sum(a.right for a in in_window)
    assert [d.day for d in s.days] == sorted(d.day for d in s.days)
    active = {int((a.at + offset) // DAY) for a in history}
    start = today if today in active else today - 1
    streak_days = set(range(start - s.current_streak_days + 1, start + 1))
    assert streak_days <= active
    assert start - s.current_streak_days not in active
    counts = [m.count for m in s.mistakes]
    assert counts == sorted(counts, reverse=True)
    assert sum(counts) <= sum(a.mistake is not None for a in answers)
    accuracies = [t.accuracy for t in s.topics]
    assert accuracies == sorted(accuracies)


def test_chains_are_reported_part_by_part() -> None:
    """Two kv-cache chains of 3 parts and one of 2 params parts: 'part 2 of kv-cache chains: 1 of 2 right'."""
    rows = [
        attempt("exact", topic="kv-cache").replace(part=1),
        attempt("wrong", topic="kv-cache").replace(part=2),
        attempt("skipped", topic="kv-cache").replace(part=3),
        attempt("wrong", topic="kv-cache").replace(part=1),
        attempt("consistent", topic="kv-cache").replace(part=2, carried={"1": 3}),
        attempt("correct", topic="kv-cache").replace(part=3),
        attempt("exact", topic="params"),  # one part: not in the chains table
    ]
    s = compute_stats(rows, now=NOW)
    assert [(p.topic, p.part, p.attempts, p.right, p.skipped) for p in s.parts] == [
        ("kv-cache", 1, 2, 1, 0),
        ("kv-cache", 2, 2, 1, 0),
        ("kv-cache", 3, 1, 1, 1),
    ]
    assert [p.accuracy for p in s.parts] == [0.5, 0.5, 1.0]
    assert stats_json(s)["parts"][1] == {
        "topic": "kv-cache",
        "part": 2,
        "attempts": 2,
        "right": 1,
        "accuracy": 0.5,
        "skipped": 0,
    }
    from quizzer.commands.stats import stats_text

    assert "part 2 of kv-cache chains: 50% right (1/2)" in stats_text(s)
    assert "part 3 of kv-cache chains: 100% right (1/1, 1 skipped)" in stats_text(s)


# --- longest streak, heatmap, per difficulty ------------------------------------------------------------


def test_current_streak_broken_by_one_empty_day() -> None:
    # practised today and yesterday, nothing two days ago, then four days before that
    history = [attempt(at=NOW - k * DAY) for k in (0, 1, 3, 4, 5, 6)]
    s = compute_stats(history, now=NOW)
    assert (s.current_streak_days, s.longest_streak_days) == (2, 4)


def test_longest_streak_in_the_past_and_skips_count() -> None:
    # five days in a row a month ago (one of them only a skip), and today alone
    past = [attempt(at=NOW - (30 + k) * DAY) for k in (0, 1, 3, 4)] + [attempt("skipped", at=NOW - 32 * DAY)]
    s = compute_stats([*past, attempt(at=NOW)], now=NOW)
    assert (s.current_streak_days, s.longest_streak_days) == (1, 5)
    assert compute_stats([], now=NOW).longest_streak_days == 0


def test_heatmap_covers_26_weeks_monday_first_ending_today() -> None:
    s = compute_stats([], now=NOW)  # NOW is Sunday 2024-03-10
    first, last = s.heatmap[0].day, s.heatmap[-1].day
    assert last == "2024-03-10"
    assert date.fromisoformat(first).weekday() == 0  # a Monday
    assert date.fromisoformat(last) - date.fromisoformat(first) == timedelta(weeks=26, days=-1)
    grid = heatmap_grid(s.heatmap)
    assert len(grid) == 7
    assert {len(row) for row in grid} == {26}
    assert grid[0][0] is not None
    assert grid[0][0].day == first
    assert grid[6][25] is not None
    assert grid[6][25].day == "2024-03-10"


def test_heatmap_cell_for_a_given_day() -> None:
    day = NOW - 9 * DAY  # Friday 2024-03-01
    history = [attempt(at=day), attempt("wrong", at=day + 60), attempt("skipped", at=day + 120)]
    s = compute_stats([*history, attempt(at=NOW)], now=NOW)
    cells = {c.day: (c.attempts, c.right) for c in s.heatmap}
    assert cells["2024-03-01"] == (2, 1)  # answers only, as `days`
    assert cells["2024-03-02"] == (0, 0)
    grid = heatmap_grid(s.heatmap)
    # Friday is row 4; 2024-03-01 is in the week before the last column
    cell = grid[4][24]
    assert cell is not None
    assert (cell.day, cell.attempts, cell.right) == ("2024-03-01", 2, 1)


def test_heatmap_ends_midweek_with_empty_places() -> None:
    wednesday = NOW - 4 * DAY  # 2024-03-06
    s = compute_stats([attempt(at=wednesday)], now=wednesday)
    assert s.heatmap[-1].day == "2024-03-06"
    assert len(s.heatmap) == 25 * 7 + 3
    grid = heatmap_grid(s.heatmap)
    assert [row[-1] is None for row in grid] == [False, False, False, True, True, True, True]
    last = grid[2][-1]
    assert last is not None
    assert last.attempts == 1


def test_heatmap_uses_local_days() -> None:
    late = attempt(at=MIDNIGHT - 1800)  # Saturday 2024-03-09 23:30 UTC, Sunday 00:30 at UTC+1
    utc = {c.day: c.attempts for c in compute_stats([late], now=NOW).heatmap}
    east = {c.day: c.attempts for c in compute_stats([late], now=NOW, utc_offset_seconds=3600).heatmap}
    assert (utc["2024-03-09"], utc["2024-03-10"]) == (1, 0)
    assert (east["2024-03-09"], east["2024-03-10"]) == (0, 1)


def test_heatmap_grid_of_a_start_midweek() -> None:
    cells = [DayStats(f"2024-03-{d:02d}", d, 0) for d in range(6, 13)]  # Wednesday to Tuesday
    grid = heatmap_grid(cells)
    assert [[c.day[-2:] if c else None for c in row] for row in grid] == [
        [None, "11"],
        [None, "12"],
        ["06", None],
        ["07", None],
        ["08", None],
        ["09", None],
        ["10", None],
    ]


def test_accuracy_per_difficulty_from_the_callers_mapping() -> None:
    history = [
        attempt("exact", template_id="e1"),
        attempt("wrong", template_id="e1"),
        attempt("correct", template_id="e2"),
        attempt("skipped", template_id="h1"),
        attempt("exact", template_id="h1"),
        attempt("close", template_id="h1"),
        attempt("exact", template_id="gone"),  # no longer in the bank: left out
    ]
    difficulty_of = {"e1": "easy", "e2": "easy", "h1": "hard", "m1": "medium"}
    s = compute_stats(history, now=NOW, difficulty_of=difficulty_of)
    assert [(d.difficulty, d.attempts, d.right, d.skipped) for d in s.by_difficulty] == [
        ("easy", 3, 2, 0),
        ("hard", 2, 1, 1),
    ]
    assert s.by_difficulty[0].accuracy == pytest.approx(2 / 3)
    assert s.by_difficulty[1].accuracy == pytest.approx(1 / 2)
    assert compute_stats(history, now=NOW).by_difficulty == ()


def test_difficulties_are_listed_easy_medium_hard() -> None:
    history = [attempt(template_id=t) for t in ("h", "x", "m", "e")]
    mapping = {"h": "hard", "x": "expert", "m": "medium", "e": "easy"}
    s = compute_stats(history, now=NOW, difficulty_of=mapping)
    assert [d.difficulty for d in s.by_difficulty] == ["easy", "medium", "hard", "expert"]


def test_difficulties_reads_the_bank_for_the_ids_asked() -> None:
    class FakeBank:
        def __init__(self) -> None:
            self.peeked: list[str] = []

        def peek(self, template_id: str) -> dict[str, object] | None:
            self.peeked.append(template_id)
            return {"a": {"difficulty": "easy"}, "b": {"difficulty": 3}}.get(template_id)

    bank = FakeBank()
    assert difficulties(bank, ["a", "b", "c", "a"]) == {"a": "easy"}
    assert sorted(bank.peeked) == ["a", "b", "c"]


def test_stats_json_carries_heatmap_and_difficulty() -> None:
    s = compute_stats(
        [attempt("exact", at=MIDNIGHT + 5, template_id="e")], now=NOW, difficulty_of={"e": "easy"}
    )
    data = json.loads(json.dumps(stats_json(s)))
    assert data["heatmap"][-1] == {"day": "2024-03-10", "attempts": 1, "right": 1}
    assert len(data["heatmap"]) == 26 * 7
    assert data["by_difficulty"] == [
        {"difficulty": "easy", "attempts": 1, "right": 1, "accuracy": 1.0, "skipped": 0}
    ]
    assert (data["current_streak_days"], data["longest_streak_days"]) == (1, 1)


def test_a_built_in_slip_keeps_each_direction_s_title() -> None:
    def slip(title: str, at: float, template_id: str = "t1") -> Attempt:
        return attempt("wrong", mistake="gb-vs-gib", at=at, template_id=template_id).replace(
            mistake_title=title
        )

    s = compute_stats(
        [
            slip("GiB read as GB", NOW - 300),
            slip("GB read as GiB", NOW - 200),
            slip("GiB read as GB", NOW - 100, "t2"),
        ],
        now=NOW,
    )
    assert [(m.name, m.title, m.count, m.template_ids) for m in s.mistakes] == [
        ("gb-vs-gib", "GiB read as GB", 2, ("t1", "t2")),
        ("gb-vs-gib", "GB read as GiB", 1, ("t1",)),
    ]


def test_mistakes_carry_their_latest_human_title() -> None:
    old = attempt("wrong", mistake="untied-head", at=NOW - 200).replace(mistake_title="Head left out")
    new = attempt("wrong", mistake="untied-head", at=NOW - 100).replace(mistake_title="Untied head left out")
    s = compute_stats([old, new, attempt("wrong", mistake="no-title")], now=NOW)
    assert [(m.name, m.title, m.count) for m in s.mistakes] == [
        ("untied-head", "Untied head left out", 2),
        ("no-title", "No title", 1),
    ]
