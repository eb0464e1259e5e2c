"""DrillSession: scoring, streaks, hints, skips, determinism (fake clock, fixed seeds)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from quizzer.bank.generate.hints import hint_steps
from quizzer.bank.loader import Bank, load_bank
from quizzer.core.units import format_sci
from quizzer.session.drill import DrillSession
from quizzer.session.progress import TemplateProgress, with_answer

DATA = Path(__file__).resolve().parent.parent / "data" / "good"


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def bank() -> Bank:
    return load_bank([str(DATA)])


def session(seed: int = 1, clock: FakeClock | None = None) -> DrillSession:
    return DrillSession(bank(), seed=seed, clock=clock or FakeClock())


def right_answer(s: DrillSession) -> str:
    return str(s.instance.value)


def test_same_seed_same_questions() -> None:
    a, b = session(5), session(5)
    assert [a.next().id for _ in range(5)] == [b.next().id for _ in range(5)]
    assert session(6).instance.id != session(5).instance.id or session(6).next().id != session(5).next().id


def test_right_answer_scores_and_times() -> None:
    clock = FakeClock()
    s = session(clock=clock)
    clock.now += 12.5
    verdict = s.answer(right_answer(s))
    assert verdict.kind == "exact"
    assert (s.answered, s.right, s.streak) == (1, 1, 1)
    assert s.attempts[0].seconds == 12.5
    assert s.attempts[0].verdict == "exact"
    assert s.done


def test_unreadable_answer_grades_nothing() -> None:
    s = session()
    verdict = s.answer("lots")
    assert verdict.kind == "unparsed"
    assert s.answered == 0
    assert not s.done
    assert s.preview("lots").startswith("✗ ")
    assert s.preview(right_answer(s)).startswith("= ")
    assert s.preview("   ") == ""


def test_a_graded_question_is_final_until_next() -> None:
    s = session()
    wrong = s.answer("1")
    assert wrong.kind == "wrong"
    assert s.answer(right_answer(s)) is wrong
    assert (s.answered, s.right, s.streak) == (1, 0, 0)
    s.repeat()
    assert s.answer(right_answer(s)).kind == "exact"
    assert (s.answered, s.right, s.streak) == (2, 1, 1)


def test_mistake_feedback_reaches_the_session() -> None:
    s = session()
    a, b = s.instance.variables["a"], s.instance.variables["b"]
    verdict = s.answer(str(a + b))
    assert verdict.mistake == "mistake-1"
    assert verdict.feedback == f"You added {a} and {b}."
    assert s.attempts[-1].mistake == "mistake-1"


def test_hints_reveal_steps_and_are_recorded() -> None:
    s = session()
    steps = s.instance.derivation
    first = s.hint()
    assert first is not None
    assert s.revealed == (first,)
    given = [first]
    while (hint := s.hint()) is not None:
        given.append(hint)
    assert s.hints == len(given) >= 1
    # the last hint never prints the final answer: the last step comes as its formula in words, no numbers
    assert steps[-1] not in given
    assert given[-1] == f"{steps[-1].label}: {steps[-1].formula}"
    s.answer(right_answer(s))
    assert s.attempts[-1].hints == len(given)
    s.next()
    assert s.hints == 0


def test_skip_records_and_breaks_the_streak() -> None:
    s = session()
    s.answer(right_answer(s))
    s.next()
    first = s.instance
    s.skip()
    assert s.attempts[-1].verdict == "skipped"
    assert s.attempts[-1].template_id == first.template_id
    assert s.streak == 0
    assert s.best_streak == 1


def test_filters() -> None:
    with pytest.raises(ValueError, match="no template matches"):
        DrillSession(bank(), seed=1, clock=FakeClock(), topic="nope")
    s = DrillSession(bank(), seed=1, clock=FakeClock(), template_id="mini-product", difficulty="easy")
    assert {s.next().template_id for _ in range(3)} == {"mini-product"}


def test_templates_are_checked_as_they_are_drawn(tmp_path: Path) -> None:
    mini = (DATA / "mini.toml").read_text()
    other = mini.replace('id = "mini-product"', 'id = "mini-other"')
    other = other.replace('topic = "testing"', 'topic = "other"')
    bad = (DATA.parent / "bad" / "wrong_type.toml").read_text()
    (tmp_path / "pack.toml").write_text(mini + "\n" + other + "\n" + bad)
    pack = load_bank([str(tmp_path)])
    s = DrillSession(pack, seed=3, clock=FakeClock(), topic="testing")
    # the invalid template (same topic) and the other topic are dropped when drawn, never shown
    assert {s.next().template_id for _ in range(20)} == {"mini-product"}
    everything = DrillSession(pack, seed=3, clock=FakeClock())
    assert {everything.next().template_id for _ in range(40)} == {"mini-product", "mini-other"}


def test_same_seed_same_questions_over_the_real_bank() -> None:
    from quizzer.paths import question_paths

    def ids(seed: int) -> list[str]:
        s = DrillSession(load_bank(question_paths()), seed=seed, clock=FakeClock(), difficulty="hard")
        return [s.instance.template_id] + [s.next().template_id for _ in range(6)]

    first = ids(11)
    assert first == ids(11)
    full = load_bank(question_paths())
    assert {full.get(t).difficulty for t in first} == {"hard"}


class DrillMachine(RuleBasedStateMachine):
    """The session against a simple model: counts, streak and 'answered <= questions shown'."""

    def __init__(self) -> None:
        super().__init__()
        self.clock = FakeClock()
        self.s = session(clock=self.clock)
        self.model_right = self.model_answered = self.model_streak = self.model_skipped = 0
        self.shown = 1

    @rule(right=st.booleans(), seconds=st.floats(0, 600))
    def answer(self, right: bool, seconds: float) -> None:
        self.clock.now += seconds
        was_done = self.s.done
        text = right_answer(self.s) if right else format_sci(self.s.instance.value * 1000, 3)
        self.s.answer(text)
        if not was_done:
            self.model_answered += 1
            self.model_right += right
            self.model_streak = self.model_streak + 1 if right else 0

    @rule()
    def skip(self) -> None:
        if not self.s.done:  # a skip is not an answer: counted apart, and it ends the streak
            self.model_skipped += 1
            self.model_streak = 0
        self.s.skip()  # the question stays, to show its explanation; next moves on

    @rule()
    def next(self) -> None:
        self.s.next()
        self.shown += 1

    @rule()
    def hint(self) -> None:
        before = self.s.hints
        step = self.s.hint()
        assert (step is None) == (self.s.done or before == len(hint_steps(self.s.instance)))

    @invariant()
    def matches_the_model(self) -> None:
        assert self.s.answered == self.model_answered
        assert self.s.skipped == self.model_skipped
        assert self.s.right == self.model_right
        assert self.s.streak == self.model_streak
        assert self.s.right <= self.s.answered <= self.shown
        assert all(a.seconds >= 0 for a in self.s.attempts)


TestDrillMachine = DrillMachine.TestCase


def test_pick_instances_distinct_reproducible_and_filtered() -> None:
    from quizzer.paths import question_paths
    from quizzer.session.picking import pick_instances

    def pick(seed: int, **filters: str) -> list[tuple[str, int]]:
        bank = load_bank(question_paths())
        return [(i.template_id, i.seed) for i in pick_instances(bank, count=8, seed=seed, **filters)]

    eight = pick(4)
    assert eight == pick(4)
    assert len({t for t, _ in eight}) == 8  # distinct templates when the bank has enough
    assert eight != pick(5)
    full = load_bank(question_paths())
    attention = pick(4, topic="attention")
    assert {full.get(t).topic for t, _ in attention} == {"attention"}
    with pytest.raises(ValueError, match="no template matches"):
        pick(4, topic="no-such-topic")


def test_pick_instances_repeats_templates_only_when_too_few() -> None:
    from quizzer.session.picking import pick_instances

    picked = pick_instances(bank(), count=3, seed=1)
    assert [i.template_id for i in picked] == ["mini-product"] * 3
    assert len({i.seed for i in picked}) == 3


def test_a_template_that_cannot_make_an_instance_is_dropped_from_the_drill_and_the_mock() -> None:
    """A template that validates but fails at generation (an infinite answer) never reaches the student."""
    from quizzer.session.picking import pick_instances

    hostile = DATA.parent / "hostile" / "non_finite.toml"
    mixed = load_bank([str(hostile), str(DATA)])
    drill = DrillSession(mixed, seed=3, clock=FakeClock(), topic="testing")
    drawn = {drill.instance.template_id} | {drill.next().template_id for _ in range(20)}
    assert "non-finite" not in drawn
    assert drawn
    picked = pick_instances(mixed, count=4, seed=3, topic="testing")
    assert picked
    assert all(i.template_id != "non-finite" for i in picked)
    assert any(p.template_id == "non-finite" for p in mixed.problems())
    with pytest.raises(ValueError, match=r"not a finite number"):
        DrillSession(load_bank([str(hostile)]), seed=3, clock=FakeClock())


# --- the drill's order (weakest, unseen, random) ---------------------------------------------------


def real_bank() -> Bank:
    from quizzer.paths import question_paths

    return load_bank(question_paths())


def answered(template_id: str, *rights: bool) -> TemplateProgress:
    progress = None
    for right in rights:
        progress = with_answer(progress, template_id, right)
    assert progress is not None
    return progress


@pytest.mark.parametrize("order", ["random", "weakest", "unseen"])
def test_no_template_twice_in_a_row_in_any_order(order: str) -> None:
    full = real_bank()
    ids = full.matching_ids(topic="kv-cache")
    assert len(ids) >= 2
    progress = {ids[0]: answered(ids[0], False, False), ids[1]: answered(ids[1], True)}
    s = DrillSession(full, seed=3, clock=FakeClock(), topic="kv-cache", order=order, progress=progress)
    drawn = [s.instance.template_id] + [s.next().template_id for _ in range(200)]
    assert all(a != b for a, b in itertools.pairwise(drawn))
    assert set(drawn) == set(ids)  # every template comes up


def test_two_templates_alternate_and_one_template_repeats() -> None:
    full = real_bank()
    two = full.matching_ids(topic="kv-cache")[:2]
    s = DrillSession(full, seed=1, clock=FakeClock(), topic="kv-cache", order="weakest")
    s._candidates = list(two)  # the drill over exactly two templates
    drawn = [s.next().template_id for _ in range(20)]
    assert all(a != b for a, b in itertools.pairwise(drawn))
    one = DrillSession(full, seed=1, clock=FakeClock(), template_id=two[0], order="unseen")
    assert {one.next().template_id for _ in range(5)} == {two[0]}


def test_unseen_first_draws_every_unseen_template_before_a_seen_one() -> None:
    full = real_bank()
    ids = full.matching_ids(topic="attention") + full.matching_ids(topic="kv-cache")
    seen = set(ids[::2])
    progress = {t: answered(t, True) for t in seen}
    for seed in range(5):
        s = DrillSession(full, seed=seed, clock=FakeClock(), order="unseen", progress=progress)
        s._candidates = list(ids)
        unseen_count = len(ids) - len(seen)
        drawn = [s.next().template_id for _ in range(unseen_count)]
        assert set(drawn) == set(ids) - seen  # every unseen one, none twice, before any seen one


def test_weakest_draws_the_lowest_recent_accuracy_first_and_the_unanswered_last() -> None:
    full = real_bank()
    ids = full.matching_ids(topic="kv-cache")
    weak, middling, strong = ids[:3]
    progress = {
        strong: answered(strong, True, True),
        weak: answered(weak, True, True, False, False, False, False),  # 1 of its last 5: 20%
        middling: answered(middling, False, True),
    }
    for seed in range(5):
        s = DrillSession(
            full, seed=seed, clock=FakeClock(), topic="kv-cache", order="weakest", progress=progress
        )
        first = s.instance.template_id
        assert first == weak
        assert [s.next().template_id for _ in range(2)] == [middling, strong]
        rest = {s.next().template_id for _ in range(len(ids) - 3)}
        assert rest == set(ids) - {weak, middling, strong}


def test_weakest_reranks_with_the_drills_own_answers() -> None:
    full = real_bank()
    t0, t1, t2, t3 = full.matching_ids(topic="kv-cache")[:4]
    progress = {
        t0: answered(t0, False),  # 0%, then right: 50%
        t1: answered(t1, False, True),  # 50%, then right: 67%
        t2: answered(t2, False, True, False),  # 33%, then wrong: 25%
        t3: answered(t3, True, True, True),  # 100%, then wrong: 75%
    }
    s = DrillSession(full, seed=2, clock=FakeClock(), topic="kv-cache", order="weakest", progress=progress)
    s._candidates = [t0, t1, t2, t3]  # the drill over these four
    assert s.instance.template_id == t0
    rights = {t0: True, t1: True, t2: False, t3: False}
    first_round = []
    for _ in range(4):
        first_round.append(s.instance.template_id)
        question = s.turn.question
        s.answer(f"{question.value} {question.unit}" if rights[s.instance.template_id] else "0.000001")
        assert s.attempts[-1].right is rights[s.instance.template_id]
        s.next()
    assert first_round == [t0, t2, t1, t3]
    second_round = [s.instance.template_id] + [s.next().template_id for _ in range(3)]
    assert second_round == [t2, t0, t1, t3]


def test_an_unknown_order_is_an_error() -> None:
    with pytest.raises(ValueError, match="unknown order 'hardest'"):
        DrillSession(bank(), seed=1, clock=FakeClock(), order="hardest")


def test_a_plan_is_asked_first_in_its_order_then_the_drill_goes_on() -> None:
    from quizzer.session.progress import placement_ids

    full = real_bank()
    plan = placement_ids(full.templates(), seed=5)
    s = DrillSession(full, seed=5, clock=FakeClock(), plan=[*plan, "no-such-template"])
    assert s.plan == tuple(plan)
    drawn = [s.instance.template_id] + [s.next().template_id for _ in range(len(plan) - 1)]
    assert drawn == plan
    after = [s.next().template_id for _ in range(20)]
    assert after[0] != plan[-1]
    assert len(set(after)) > 1
