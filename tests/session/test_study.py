"""StudySession: due cards before new ones, the daily limit, ratings, overrides, skips, determinism."""

from __future__ import annotations

from pathlib import Path

import pytest

from quizzer.bank.loader import Bank, load_bank
from quizzer.session.records import Attempt, CardState
from quizzer.session.srs import Scheduler
from quizzer.session.study import StudySession

DATA = Path(__file__).resolve().parent.parent / "data" / "good"
WALL = 1_700_000_000.0  # epoch seconds
MINUTE, DAY = 60.0, 86_400.0


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def pack(tmp_path: Path, *, bad: bool = False) -> Bank:
    """mini-product plus mini-other (the same template under another id), and optionally an invalid one."""
    mini = (DATA / "mini.toml").read_text()
    other = mini.replace('id = "mini-product"', 'id = "mini-other"')
    text = mini + "\n" + other
    if bad:
        text += "\n" + (DATA.parent / "bad" / "wrong_type.toml").read_text()
    (tmp_path / "pack.toml").write_text(text)
    return load_bank([str(tmp_path)])


def real_bank() -> Bank:
    from quizzer.paths import question_paths

    return load_bank(question_paths())


class Run:
    """A session with fake clocks that keeps what it reports."""

    def __init__(
        self,
        bank: Bank,
        cards: dict[str, CardState] | None = None,
        *,
        ids: list[str] | None = None,
        seed: int = 1,
        new_per_day: int = 10,
        new_today: int = 0,
        leech_lapses: int = 8,
    ) -> None:
        self.clock, self.wall = Clock(100.0), Clock(WALL)
        self.attempts: list[Attempt] = []
        self.reviews: list[CardState] = []
        self.removed: list[str] = []
        self.s = StudySession(
            bank,
            cards or {},
            template_ids=ids if ids is not None else bank.scanned_ids(),
            seed=seed,
            clock=self.clock,
            wall=self.wall,
            new_per_day=new_per_day,
            new_today=new_today,
            session_id="study-1",
            on_attempt=self.attempts.append,
            on_review=self.reviews.append,
            on_remove=self.removed.append,
            leech_lapses=leech_lapses,
        )


def right_answer(s: StudySession) -> str:
    assert s.instance is not None
    return str(s.instance.value)


def wrong_answer(s: StudySession) -> str:
    assert s.instance is not None
    return str(s.instance.value * 1000)


def skip_through(s: StudySession, limit: int = 50) -> list[str]:
    """Skip every question until there is none (at most ``limit``); the templates shown."""
    shown = []
    while s.instance is not None:
        assert len(shown) < limit, "the session never ran out of questions"
        shown.append(s.instance.template_id)
        s.skip()
        s.next()
    return shown


def reviewed_at(template_id: str, at: float, rating: str = "good") -> CardState:
    return Scheduler().review(None, template_id, rating, at)


def test_new_templates_respect_the_daily_limit() -> None:
    run = Run(real_bank(), new_per_day=5, new_today=2)
    s = run.s
    assert (s.new_count, s.due_count) == (3, 0)
    shown = skip_through(s)
    assert len(shown) == 3
    assert len(set(shown)) == 3
    assert [r.template_id for r in run.reviews] == shown
    assert all(r.introduced == WALL for r in run.reviews)
    assert (s.new_count, s.reviewed) == (0, 3)
    assert Run(real_bank(), new_per_day=5, new_today=5).s.instance is None
    assert Run(real_bank(), new_per_day=5, new_today=9).s.new_count == 0


def test_new_count_is_limited_by_the_templates_never_studied(tmp_path: Path) -> None:
    bank = pack(tmp_path)
    assert Run(bank).s.new_count == 2
    studied = {"mini-other": reviewed_at("mini-other", WALL - 60)}
    assert Run(bank, studied).s.new_count == 1


def test_due_cards_come_before_new_ones() -> None:
    bank = real_bank()
    ids = bank.scanned_ids()
    cards = {
        ids[0]: reviewed_at(ids[0], WALL - 3 * DAY),
        ids[1]: reviewed_at(ids[1], WALL - 1 * DAY),
        ids[2]: reviewed_at(ids[2], WALL - 2 * DAY),
        ids[3]: reviewed_at(ids[3], WALL - MINUTE, "again"),  # due exactly now: fsrs's first step is a minute
        ids[4]: reviewed_at(ids[4], WALL),  # due in ten minutes
        ids[5]: reviewed_at(ids[5], WALL - 9 * DAY),  # due, but not a candidate
    }
    assert cards[ids[3]].due == WALL
    candidates = [t for t in ids if t != ids[5]]
    run = Run(bank, cards, ids=candidates, new_per_day=2)
    s = run.s
    assert (s.due_count, s.new_count) == (4, 2)
    shown = skip_through(s)
    assert shown[:4] == [ids[0], ids[2], ids[1], ids[3]]
    assert len(shown) == 6
    assert not set(shown[4:]) & set(cards)
    assert [r.introduced for r in run.reviews[4:]] == [WALL, WALL]
    assert run.reviews[0].introduced == WALL - 3 * DAY
    assert (s.due_count, s.new_count) == (0, 0)


def test_a_card_rated_again_comes_back_with_a_fresh_seed(tmp_path: Path) -> None:
    run = Run(pack(tmp_path), ids=["mini-product"])
    s = run.s
    seeds = []
    for _ in range(4):
        assert s.instance is not None
        assert s.instance.template_id == "mini-product"
        seeds.append(s.instance.seed)
        s.answer(wrong_answer(s))
        assert s.proposed == "again"
        assert s.next() is None  # due in a minute: not yet
        assert s.due_count == 0
        assert run.reviews[-1].due == run.wall.now + MINUTE
        run.wall.now += MINUTE
        assert s.due_count == 1
        s.next()
    assert len(set(seeds)) == len(seeds)
    assert len(run.attempts) == 4
    assert [a.seed for a in run.attempts] == seeds


@pytest.mark.parametrize(
    ("seconds", "right", "hints", "rating"),
    [
        (20.0, True, 0, "easy"),  # the template expects a minute
        (30.0, True, 0, "easy"),
        (60.0, True, 0, "good"),
        (90.0, True, 0, "good"),
        (120.0, True, 0, "hard"),
        (5.0, True, 1, "hard"),
        (5.0, False, 0, "again"),
    ],
)
def test_the_proposed_rating_follows_the_mapping(
    tmp_path: Path, seconds: float, right: bool, hints: int, rating: str
) -> None:
    run = Run(pack(tmp_path))
    s = run.s
    for _ in range(hints):
        assert s.hint() is not None
    run.clock.now += seconds
    verdict = s.answer(right_answer(s) if right else wrong_answer(s))
    assert verdict.kind == ("exact" if right else "wrong")
    assert s.verdict is verdict
    assert s.proposed == s.rating == rating
    assert s.instance is not None
    attempt = run.attempts[-1]
    assert (attempt.seconds, attempt.hints, attempt.mode, attempt.at) == (seconds, hints, "study", WALL)
    assert (attempt.session, attempt.topic, attempt.minutes) == ("study-1", "testing", 1.0)
    assert (attempt.template_id, attempt.seed) == (s.instance.template_id, s.instance.seed)
    s.next()
    assert (s.reviewed, s.right) == (1, int(right))


def test_override_changes_what_next_commits(tmp_path: Path) -> None:
    run = Run(pack(tmp_path))
    s = run.s
    with pytest.raises(ValueError, match="grade or skip"):
        s.override("good")
    assert s.instance is not None
    template_id = s.instance.template_id
    run.clock.now += 5
    s.answer(right_answer(s))
    assert s.proposed == "easy"
    with pytest.raises(ValueError, match="unknown rating"):
        s.override("meh")
    s.override("again")
    assert (s.proposed, s.rating) == ("easy", "again")
    s.next()
    committed = run.reviews[-1]
    assert committed.template_id == template_id
    assert committed.due == Scheduler().review(None, template_id, "again", WALL).due == WALL + MINUTE
    assert committed.due != Scheduler().review(None, template_id, "easy", WALL).due
    assert s.cards[template_id] == committed
    assert (s.reviewed, s.right) == (1, 1)  # the answer was right, whatever the rating


def test_skip_records_a_skipped_attempt_rated_again(tmp_path: Path) -> None:
    run = Run(pack(tmp_path))
    s = run.s
    run.clock.now += 7
    s.skip()
    attempt = run.attempts[-1]
    assert (attempt.verdict, attempt.answer, attempt.value, attempt.seconds) == ("skipped", "", None, 7.0)
    assert attempt.mode == "study"
    assert (s.verdict, s.proposed, s.rating) == (None, "again", "again")
    s.skip()
    s.answer(right_answer(s))  # a skip is final, like a grade
    assert len(run.attempts) == 1
    s.next()
    assert run.reviews[-1].due == WALL + MINUTE
    assert (s.reviewed, s.right) == (1, 0)


def test_unread_answers_grade_nothing_and_next_skips(tmp_path: Path) -> None:
    run = Run(pack(tmp_path))
    s = run.s
    assert s.preview("lots").startswith("✗ ")
    assert s.answer("lots").kind == "unparsed"
    assert (s.verdict, s.proposed, run.attempts) == (None, None, [])
    s.next()  # moving on from an ungraded question skips it
    assert [a.verdict for a in run.attempts] == ["skipped"]
    assert run.reviews[-1].due == WALL + MINUTE


def test_nothing_to_study(tmp_path: Path) -> None:
    bank = pack(tmp_path)
    cards = {t: reviewed_at(t, WALL - 5 * MINUTE) for t in ("mini-product", "mini-other")}  # due in 5 min
    run = Run(bank, cards, new_per_day=3, new_today=3)
    s = run.s
    assert s.instance is None
    assert (s.due_count, s.new_count) == (0, 0)
    assert s.next() is None
    assert (s.hint(), s.preview("1"), s.revealed) == (None, "", ())
    s.skip()
    with pytest.raises(ValueError, match="nothing to study"):
        s.answer("1")
    assert (run.attempts, run.reviews) == ([], [])
    run.wall.now += 5 * MINUTE  # both fall due; the tie goes by id
    assert s.due_count == 2
    instance = s.next()
    assert instance is not None
    assert instance.template_id == "mini-other"


def test_invalid_and_unknown_ids_are_skipped(tmp_path: Path) -> None:
    run = Run(pack(tmp_path, bad=True), ids=["nope", "wrong-type", "mini-product", "wrong-type"])
    s = run.s
    shown = skip_through(s)
    assert shown == ["mini-product"]
    assert s.new_count == 0


def test_finish_commits_a_graded_question(tmp_path: Path) -> None:
    run = Run(pack(tmp_path))
    s = run.s
    s.finish()  # ungraded: nothing to commit
    assert run.reviews == []
    run = Run(pack(tmp_path))
    s = run.s
    s.answer(right_answer(s))
    s.finish()
    assert len(run.reviews) == 1
    assert s.instance is None


def session_trace(seed: int) -> tuple[list[tuple[str, int, str | None]], list[CardState]]:
    run = Run(real_bank(), seed=seed, new_per_day=4)
    s = run.s
    trace = []
    for i in range(10):
        if s.instance is None:
            run.wall.now += MINUTE
            s.next()
            continue
        run.clock.now += 20 * (i + 1)
        run.wall.now += 40
        s.answer(right_answer(s) if i % 3 else wrong_answer(s))
        s.skip()  # when the answer did not read
        trace.append((s.instance.template_id, s.instance.seed, s.rating))
        s.next()
    return trace, run.reviews


def test_same_seed_and_clocks_give_the_same_session() -> None:
    first = session_trace(7)
    assert first == session_trace(7)
    assert first != session_trace(8)
    trace, reviews = first
    assert len(trace) >= 6
    assert len({t for t, _, _ in trace}) <= 4  # the daily limit of new templates
    assert len({t for t, _, _ in trace}) < len(trace)  # some came back (rated again)...
    assert len({seed for _, seed, _ in trace}) == len(trace)  # ...each time with a fresh seed
    assert len(reviews) == len(trace)


# --- undo, the summary, the reason and the review duration -----------------------------------------------


def test_undo_restores_the_card_exactly_and_keeps_the_attempts(tmp_path: Path) -> None:
    before = reviewed_at("mini-product", WALL - 30 * DAY)  # long due
    run = Run(pack(tmp_path), {"mini-product": before}, ids=["mini-product"])
    s = run.s
    assert not s.can_undo
    assert s.undo() is False
    shown = s.instance
    assert shown is not None
    run.clock.now += 5
    s.answer(right_answer(s))
    assert s.proposed == "easy"
    s.override("good")
    run.wall.now += 7
    assert s.next() is None
    committed = s.cards["mini-product"]
    assert committed.due > WALL + DAY
    assert (s.reviewed, s.right) == (1, 1)
    assert s.can_undo
    run.wall.now += 100
    assert s.undo() is True
    assert s.cards["mini-product"] == before  # card json, due date, introduced: exactly
    assert s.cards["mini-product"].card_json == before.card_json
    assert run.reviews == [committed, before]  # written back through on_review
    assert s.instance is shown
    assert (s.done, s.proposed, s.rating) == (True, "easy", "good")
    assert (s.reviewed, s.right) == (0, 0)
    assert not s.can_undo  # one review was committed, one undone
    s.override("again")
    s.next()
    redone = run.reviews[-1]
    assert redone == Scheduler().review(before, "mini-product", "again", run.wall.now, seconds=5.0)
    assert len(run.attempts) == 1  # the attempt is kept, never made twice
    assert (s.reviewed, s.right) == (1, 1)


def test_undo_of_a_new_card_makes_it_new_again(tmp_path: Path) -> None:
    run = Run(pack(tmp_path), ids=["mini-product"], new_per_day=1)
    s = run.s
    assert s.new_count == 1
    s.skip()
    s.next()
    assert (s.new_count, s.introduced, s.instance) == (0, 1, None)
    assert s.undo()
    assert "mini-product" not in s.cards
    assert (s.new_count, s.introduced, s.reviewed) == (1, 0, 0)
    assert run.reviews == [run.reviews[0]]  # nothing to write back: the card is removed instead
    assert run.removed == ["mini-product"]  # the store drops it: a restart sees the template new
    s.next()
    assert run.reviews[-1].introduced == WALL
    assert (s.new_count, s.introduced) == (0, 1)


def test_undo_waits_while_the_next_question_is_answered(tmp_path: Path) -> None:
    run = Run(pack(tmp_path))
    s = run.s
    s.answer(right_answer(s))
    s.next()
    second = s.instance
    assert second is not None
    assert s.can_undo  # the next question is shown, not started: it is put back
    s.answer(wrong_answer(s))
    assert not s.can_undo
    assert s.undo() is False
    assert s.instance is second
    s.next()
    assert s.can_undo
    s.finish()
    assert not s.can_undo  # a session left is over


def test_the_reason_follows_the_proposal(tmp_path: Path) -> None:
    run = Run(pack(tmp_path))
    s = run.s
    assert s.reason == ""
    assert s.hint() is not None
    s.answer(right_answer(s))
    assert (s.proposed, s.reason) == ("hard", "hard: right, but 1 hint")
    s.next()
    assert s.reason == ""
    s.skip()
    assert s.reason == "again: skipped"


def test_intervals_preview_the_current_card_without_changing_it(tmp_path: Path) -> None:
    before = reviewed_at("mini-product", WALL - 30 * DAY)
    run = Run(pack(tmp_path), {"mini-product": before}, ids=["mini-product"])
    s = run.s
    intervals = s.intervals()
    assert intervals == {r: Scheduler().review(before, "mini-product", r, WALL).due - WALL for r in intervals}
    assert list(intervals) == ["again", "hard", "good", "easy"]
    assert s.cards["mini-product"] == before
    assert run.reviews == []
    s.skip()
    s.next()
    assert s.intervals() == {}  # no question


def test_the_seconds_taken_are_the_review_duration(tmp_path: Path) -> None:
    before = reviewed_at("mini-product", WALL - 30 * DAY)
    run = Run(pack(tmp_path), {"mini-product": before}, ids=["mini-product"])
    s = run.s
    seen: list[float | None] = []

    class Spy(Scheduler):
        def review(self, state, template_id, rating, now, *, seconds=None):  # type: ignore[no-untyped-def]
            seen.append(seconds)
            return super().review(state, template_id, rating, now, seconds=seconds)

    s._scheduler = Spy()
    run.clock.now += 42
    s.answer(right_answer(s))
    s.next()
    assert seen == [42.0]


def test_the_summary_counts_this_session(tmp_path: Path) -> None:
    from quizzer.session.study import study_summary

    run = Run(pack(tmp_path))
    s = run.s
    assert s.summary() == study_summary(0, 0, 0, [])
    assert s.summary().retention is None
    assert s.summary().next_due is None
    s.answer(right_answer(s))
    s.next()
    s.answer(wrong_answer(s))
    s.next()
    summary = s.summary()
    assert (summary.reviewed, summary.right, summary.new, summary.retention) == (2, 1, 2, 0.5)
    assert summary.next_due == WALL + MINUTE  # the one rated again comes back in a minute
    assert study_summary(3, 0, 0, [5.0, 2.0, 9.0]).next_due == 2.0
    assert study_summary(4, 3, 1, []).retention == 0.75
