"""Cram's choice: the weakest templates by recent results and FSRS recall; never-seen ones left out."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from quizzer.session.cram import weakest
from quizzer.session.progress import TemplateProgress, template_progress
from quizzer.session.records import Attempt, CardState
from quizzer.session.srs import Scheduler

WALL = 1_700_000_000.0
DAY = 86_400.0


def attempt(template_id: str, verdict: str) -> Attempt:
    return Attempt(template_id, 1, {}, "", None, 1, "", verdict, None, None, 1.0, 0)


def test_wrong_recent_answers_come_first_and_unseen_templates_are_left_out() -> None:
    history = [attempt("ok", "exact")] * 3 + [attempt("bad", "wrong")] * 2 + [attempt("half", "exact")]
    history += [attempt("half", "wrong"), attempt("skipped-only", "skipped")]
    progress = template_progress(history)
    ranked = weakest(["ok", "bad", "half", "never", "skipped-only"], progress, {}, lambda c: 1.0)
    assert [w.template_id for w in ranked] == ["bad", "half", "ok"]
    assert [w.strength for w in ranked] == [0.0, 0.5, 1.0]
    assert ranked[0].recall is None


def test_a_card_forgotten_long_ago_is_weaker_than_one_just_reviewed() -> None:
    scheduler = Scheduler()
    fresh = scheduler.review(None, "fresh", "good", WALL - DAY)
    stale = scheduler.review(None, "stale", "good", WALL - 200 * DAY)
    now = WALL

    def recall(card: CardState) -> float:
        return scheduler.retrievability(card, now)

    assert 0.0 <= recall(stale) < recall(fresh) <= 1.0
    ranked = weakest(["fresh", "stale"], {}, {"fresh": fresh, "stale": stale}, recall)
    assert [w.template_id for w in ranked] == ["stale", "fresh"]
    assert ranked[0].recent_accuracy is None


def test_recall_and_accuracy_are_averaged() -> None:
    progress = {"a": TemplateProgress("a", 2, 2, (True, True))}
    card = CardState("a", "{}", 0.0, 0.0)
    [only] = weakest(["a"], progress, {"a": card}, lambda c: 0.2)
    assert only.strength == (1.0 + 0.2) / 2


@given(
    st.dictionaries(st.sampled_from("abcdefgh"), st.lists(st.booleans(), min_size=1, max_size=5), max_size=8),
    st.integers(0, 10),
)
def test_cram_takes_at_most_count_and_never_a_stronger_before_a_weaker(
    answers: dict[str, list[bool]], count: int
) -> None:
    progress = {t: TemplateProgress(t, len(r), sum(r), tuple(r)) for t, r in answers.items()}
    ranked = weakest("abcdefgh", progress, {}, lambda c: 0.0, count)
    assert len(ranked) == min(count, len(answers))
    strengths = [w.strength for w in ranked]
    assert strengths == sorted(strengths)
    left = {t for t in answers} - {w.template_id for w in ranked}
    for t in left:  # nothing left out is weaker than the last one taken
        assert sum(answers[t]) / len(answers[t]) >= (strengths[-1] if strengths else 0.0)
