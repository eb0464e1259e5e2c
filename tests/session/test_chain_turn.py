"""A chain's turn (part by part: hints, time, skips, carried credit), its study rating, and a chain in a mock
(parts locked as they are answered, the last revisable, every part graded at the end)."""

from __future__ import annotations

from pathlib import Path

import pytest

from quizzer.bank.loader import load_bank
from quizzer.session.mock import MockExam
from quizzer.session.srs import rating_for, rating_for_parts
from quizzer.session.turn import Turn

CHAINS = Path(__file__).resolve().parent.parent / "data" / "chains"


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="module")
def bank():  # type: ignore[no-untyped-def]
    return load_bank([str(CHAINS)])


def arithmetic(bank, seed: int = 3):  # type: ignore[no-untyped-def]
    """chain-arithmetic: GPUs = racks × per_rack, jobs = GPUs × jobs_per_gpu, per queue = jobs / queues."""
    instance = bank.generate("chain-arithmetic", seed)
    v = instance.variables
    gpus = v["racks"] * v["per_rack"]
    jobs = gpus * v["jobs_per_gpu"]
    return instance, (gpus, jobs, jobs / v["queues"])


def test_a_turn_asks_the_parts_in_order_and_records_each(bank) -> None:  # type: ignore[no-untyped-def]
    instance, (gpus, jobs, per_queue) = arithmetic(bank)
    clock, made = Clock(), []
    turn = Turn(
        instance,
        clock=clock,
        wall=lambda: 0.0,
        mode="drill",
        on_attempt=made.append,
        template=bank.get("chain-arithmetic"),
    )
    assert (turn.number, turn.part_count, turn.done) == (1, 3, False)
    clock.now += 10
    assert turn.answer(str(gpus)).kind == "exact"
    assert (turn.number, turn.question.value) == (2, jobs)
    assert turn.hint() is not None
    assert turn.hints == 1
    clock.now += 5
    assert turn.answer("nonsense ab").kind == "unparsed"  # nothing recorded
    assert turn.answer(str(jobs)).kind == "exact"
    assert turn.hints == 0
    clock.now += 1
    turn.skip()
    assert turn.done
    assert turn.skipped
    assert [(a.part, a.verdict, a.seconds, a.hints) for a in made] == [
        (1, "exact", 10.0, 0),
        (2, "exact", 5.0, 1),
        (3, "skipped", 1.0, 0),
    ]
    assert [a.expected for a in made] == [gpus, jobs, per_queue]
    assert [a.minutes for a in made] == [1.0, 1.0, 1.0]  # the template's 3 minutes, shared by its parts
    assert turn.skip() is None
    assert turn.skip_rest() == ()


def test_a_wrong_earlier_part_carries_only_with_the_template(bank) -> None:  # type: ignore[no-untyped-def]
    instance, (gpus, _, _) = arithmetic(bank)
    jobs_from_wrong = 2 * gpus * instance.variables["jobs_per_gpu"]
    for template, expected in ((bank.get("chain-arithmetic"), "consistent"), (None, "wrong")):
        turn = Turn(instance, clock=Clock(), wall=lambda: 0.0, mode="drill", template=template)
        assert turn.answer(str(2 * gpus)).kind == "wrong"
        assert turn.answer(str(jobs_from_wrong)).kind == expected
        assert turn.attempt is not None
        assert turn.attempt.carried == ({"1": 2 * gpus} if template is not None else None)


def test_skip_rest_skips_every_open_part(bank) -> None:  # type: ignore[no-untyped-def]
    instance, (gpus, _, _) = arithmetic(bank)
    turn = Turn(instance, clock=Clock(), wall=lambda: 0.0, mode="study")
    turn.answer(str(gpus))
    assert [a.part for a in turn.skip_rest()] == [2, 3]
    assert [a.verdict for a in turn.attempts] == ["exact", "skipped", "skipped"]


def test_a_question_of_one_part_records_no_part_number(bank) -> None:  # type: ignore[no-untyped-def]
    one = load_bank([str(CHAINS.parent / "tui")])
    instance = one.generate(one.ids()[0], 1)
    assert instance.part_count == 1
    turn = Turn(instance, clock=Clock(), wall=lambda: 0.0, mode="drill")
    turn.skip()
    assert turn.done
    assert turn.attempt is not None
    assert turn.attempt.part is None


@pytest.mark.parametrize(
    ("verdicts", "seconds", "hints", "rating"),
    [
        (("exact", "correct", "consistent"), 30.0, 0, "easy"),  # 3 minutes expected: within half
        (("exact", "correct", "correct"), 200.0, 0, "good"),
        (("exact", "correct", "correct"), 300.0, 0, "hard"),  # slower than 1.5 × 180 s
        (("exact", "correct", "correct"), 30.0, 1, "hard"),
        (("exact", "wrong", "correct"), 30.0, 0, "hard"),  # one later part missed
        (("exact", "skipped", "close"), 30.0, 0, "hard"),
        (("exact", "wrong", "skipped"), 30.0, 0, "again"),  # more than half failed
        (("wrong", "consistent", "consistent"), 30.0, 0, "again"),  # part 1 wrong
        (("skipped", "exact", "exact"), 30.0, 0, "again"),
        (("exact", "imprecise"), 30.0, 0, "hard"),
        (("exact", "wrong"), 30.0, 0, "hard"),  # one of two: not more than half
    ],
)
def test_the_study_rating_of_a_chain(verdicts, seconds, hints, rating) -> None:  # type: ignore[no-untyped-def]
    assert rating_for_parts(verdicts, seconds, 3.0, hints) == rating


@pytest.mark.parametrize(
    "verdict", ["exact", "correct", "consistent", "close", "imprecise", "wrong", "skipped"]
)
@pytest.mark.parametrize("seconds", [10.0, 100.0, 500.0])
def test_one_part_rates_as_before(verdict: str, seconds: float) -> None:
    """For one part the mapping is the table of rating_for, written out here by hand."""
    table = {"wrong": "again", "skipped": "again", "close": "hard", "imprecise": "hard"}
    by_time = "easy" if seconds <= 60 else "good" if seconds <= 180 else "hard"
    assert rating_for_parts((verdict,), seconds, 2.0, 0) == table.get(verdict, by_time)
    assert rating_for(verdict, seconds, 2.0, 0) == table.get(verdict, by_time)


def test_rating_refuses_what_has_no_rating() -> None:
    with pytest.raises(ValueError, match="no verdicts"):
        rating_for_parts((), 1.0, 1.0, 0)
    with pytest.raises(ValueError, match="no rating for the verdict 'unparsed'"):
        rating_for_parts(("exact", "unparsed"), 1.0, 1.0, 0)


def test_a_mock_chain_locks_each_part_and_grades_all_at_the_end(bank) -> None:  # type: ignore[no-untyped-def]
    instance, (gpus, jobs, per_queue) = arithmetic(bank)
    clock, made = Clock(), []
    mock = MockExam(
        [instance],
        total_seconds=600,
        clock=clock,
        on_attempt=made.append,
        templates=lambda _id: bank.get("chain-arithmetic"),
    )
    assert mock.part_on(0) == 1
    clock.now += 20
    assert mock.answer(str(2 * gpus)) is None  # wrong, and locked: part 2 is asked
    assert mock.part_on(0) == 2
    assert mock.answers == [""]
    assert mock.answered() == 0
    assert mock.answer("") is None
    assert mock.part_answers(0)[0] == str(2 * gpus)
    clock.now += 30
    assert mock.answer(str(2 * jobs)) is None
    assert mock.part_on(0) == 3
    assert mock.answer("1") is None
    assert mock.answer(repr(2 * per_queue)) is None
    assert mock.part_on(0) == 3
    assert mock.answered() == 1
    clock.now += 5
    report = mock.finish()
    assert [(a.part, a.verdict) for a in made] == [(1, "wrong"), (2, "consistent"), (3, "consistent")]
    assert [a.seconds for a in made] == [20.0, 30.0, 5.0]
    assert (report.score, report.answered, report.parts_right, report.parts_total) == (0, 1, 2, 3)
    assert made[2].carried == {"1": 2 * gpus, "2": 2 * jobs}
    assert report.results[0].parts[0].verdict is not None


def test_a_mock_chain_left_mid_way_grades_the_draft_of_the_part_asked(bank) -> None:  # type: ignore[no-untyped-def]
    instance, (gpus, jobs, _) = arithmetic(bank)
    mock = MockExam([instance], total_seconds=60, clock=Clock(), templates=lambda _id: None)
    mock.answer(str(gpus))
    mock.draft(str(jobs))  # typed, never saved
    report = mock.finish()
    assert [a.verdict for a in report.results[0].attempts] == ["exact", "exact", "skipped"]
    assert report.results[0].attempts[1].answer == str(jobs)


def test_a_right_but_rounded_earlier_answer_carries_into_a_whole_count() -> None:
    """Blind read: part 4 answered 6.05 GiB (right: 0.37% off 6.0725 GiB), part 5 floors the free memory
    over it. ⌊free ÷ 6.05 GiB⌋ is 81 where the exact cache gives 80.95 → 80: 81 was graded "you rounded
    up". It is consistent with the student's own right part 4; the true value still grades exact."""
    from quizzer.bank.loader import load_bank
    from quizzer.session.chain import grade_part

    bank = load_bank(["questions"])
    template = bank.get("hybrid-qwen3-next-walkthrough")
    instance = bank.generate("hybrid-qwen3-next-walkthrough", 7)
    assert instance.parts[4].value == 80
    rounded = 6.05 * 2**30
    earlier = {1: instance.parts[0].value, 2: instance.parts[1].value, 3: instance.parts[2].value, 4: rounded}
    graded = grade_part(template, instance, 5, "81", earlier)
    assert graded.verdict.kind == "consistent", graded.verdict.message
    assert graded.carried == {"4": rounded}
    assert grade_part(template, instance, 5, "80", earlier).verdict.kind == "exact"
    assert grade_part(template, instance, 5, "82", earlier).verdict.kind not in (
        "exact",
        "correct",
        "consistent",
    )
