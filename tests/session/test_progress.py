"""Progress from the history: per template and topic, the weakest topic, the placement and the path."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from quizzer.bank.loader import load_bank
from quizzer.paths import question_paths
from quizzer.session.progress import (
    TemplateProgress,
    TopicProgress,
    placement_ids,
    suggested_path,
    template_progress,
    time_ratio,
    topic_progress,
    weakest_topic,
    with_answer,
)
from quizzer.session.records import VERDICTS, Attempt


def attempt(template_id: str, verdict: str) -> Attempt:
    return Attempt(template_id, 1, {}, "1", 1, 1, "", verdict, None, None, 5.0, 0)


def test_accuracy_counts_answers_only_and_mastery_the_last_answer_of_each_template() -> None:
    history = [
        attempt("a1", "wrong"),
        attempt("a1", "exact"),  # a1 mastered: its last answer is right
        attempt("a2", "correct"),
        attempt("a2", "close"),  # a2 not: its last is close
        attempt("a2", "skipped"),  # no answer
        attempt("b1", "timed-out"),  # no answer
        attempt("b1", "consistent"),
        attempt("elsewhere", "exact"),  # not in the bank any more
    ]
    topics = {"a1": "alpha", "a2": "alpha", "a3": "alpha", "b1": "beta", "c1": "gamma"}
    alpha, beta, gamma = topic_progress(history, topics)
    assert (alpha.topic, alpha.templates, alpha.answered, alpha.right, alpha.mastered) == (
        "alpha",
        3,
        4,
        2,
        1,
    )
    assert alpha.accuracy == 0.5
    assert abs(alpha.mastery - 1 / 3) < 1e-9
    assert (beta.answered, beta.right, beta.mastered, beta.mastery) == (1, 1, 1, 1.0)
    assert (gamma.answered, gamma.accuracy, gamma.mastery) == (0, None, 0.0)


def test_recent_accuracy_is_over_the_last_five_answers() -> None:
    history = [attempt("a", "exact")] * 5 + [attempt("a", "wrong")] * 4
    progress = template_progress(history)["a"]
    assert (progress.answered, progress.right) == (9, 5)
    assert progress.recent_accuracy == 0.2  # 1 right among the last 5


def test_the_weakest_topic_needs_three_answers() -> None:
    few = TopicProgress("few", 2, answered=2, right=0)
    weak = TopicProgress("weak", 2, answered=4, right=1)
    strong = TopicProgress("strong", 2, answered=3, right=3)
    assert weakest_topic([few, strong, weak]) == weak
    assert weakest_topic([few]) is None
    assert weakest_topic([]) is None


def test_the_placement_goes_easy_to_hard_over_eight_main_topics_and_is_reproducible() -> None:
    bank = load_bank(question_paths())
    templates = bank.templates()
    for seed in range(10):
        ids = placement_ids(templates, seed=seed)
        assert ids == placement_ids(templates, seed=seed)
        picked = [bank.get(t) for t in ids]
        assert len(ids) == 8
        assert len({t.topic for t in picked}) == 8
        ranks = [("easy", "medium", "hard").index(t.difficulty) for t in picked]
        assert ranks == sorted(ranks)
        assert picked[0].difficulty == "easy"
        assert picked[-1].difficulty == "hard"
    assert len({tuple(placement_ids(templates, seed=s)) for s in range(10)}) > 1


def test_the_suggested_path_puts_the_weakest_first_and_the_unanswered_last() -> None:
    progress = [
        TopicProgress("right", 1, 1, 1, 1),
        TopicProgress("untried", 1),
        TopicProgress("wrong", 1, 1, 0, 0),
        TopicProgress("half", 2, 2, 1, 1),
    ]
    assert suggested_path(progress) == ["wrong", "half", "right", "untried"]


@given(
    st.lists(
        st.tuples(st.sampled_from("ab"), st.sampled_from(VERDICTS), st.sampled_from([0.0, 0.5, 1.0, 2.0])),
        max_size=30,
    )
)
@example([("a", "wrong", m) for m in (0.5, 1.0, 2.0, 0.0, 0.5, 1.0, 2.0, 4.0)])  # over RECENT_ANSWERS timed
def test_template_progress_is_with_answer_folded_over_the_answers(drawn) -> None:  # type: ignore[no-untyped-def]
    history = [
        Attempt(t, 1, {}, "1", 1, 1, "", verdict, None, None, 30.0 + len(t), 0, minutes=minutes)
        for t, verdict, minutes in drawn
    ]
    folded: dict[str, TemplateProgress] = {}
    for a in history:
        if a.verdict not in ("skipped", "timed-out"):
            t = a.template_id
            folded[t] = with_answer(folded.get(t), t, a.right, time_ratio(a))
    progress = template_progress(history)
    assert progress == folded
    assert list(progress) == list(folded)
