"""MockExam's moves (fake clocks): where enter goes next, what ↑↓ and ctrl+s keep, drafts tied to their
part, and a countdown that starts when the first question is on screen."""

from __future__ import annotations

from pathlib import Path

import pytest

from quizzer.bank.generate.render import Instance
from quizzer.bank.loader import load_bank
from quizzer.session.mock import MockExam
from quizzer.session.records import Attempt

DATA = Path(__file__).resolve().parent.parent / "data"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def minis(*seeds: int) -> list[Instance]:
    bank = load_bank([str(DATA / "good")])
    return [bank.generate("mini-product", s) for s in seeds]


def chain(seed: int = 3) -> tuple[Instance, tuple[int, int]]:
    """chain-arithmetic: part 1 GPUs = racks × per_rack, part 2 jobs = GPUs × jobs_per_gpu."""
    instance = load_bank([str(DATA / "chains")]).generate("chain-arithmetic", seed)
    v = instance.variables
    gpus = v["racks"] * v["per_rack"]
    return instance, (gpus, gpus * v["jobs_per_gpu"])


def exam(instances: list[Instance], **kwargs: object) -> tuple[MockExam, Clock, list[Attempt]]:
    clock, made = Clock(), []
    mock = MockExam(instances, total_seconds=600, clock=clock, on_attempt=made.append, **kwargs)  # type: ignore[arg-type]
    return mock, clock, made


# --- where enter goes -------------------------------------------------------------------------------------


def test_enter_moves_to_the_next_question_without_an_answer_after_this_one() -> None:
    qs = minis(1, 2, 3, 4)
    mock, _, _ = exam(qs)
    mock.go(2)
    saved = mock.save(str(qs[2].value))
    assert (saved.problem, saved.moved, saved.all_answered) == (None, True, False)
    assert mock.current == 3  # the next one, not the first unanswered (0)


def test_enter_skips_answered_questions_and_wraps_to_the_first_unanswered() -> None:
    qs = minis(1, 2, 3, 4)
    mock, _, _ = exam(qs)
    mock.go(3)
    mock.save(str(qs[3].value))  # the last: wraps to the first without an answer
    assert mock.current == 0
    mock.go(2)
    mock.save("5")
    assert mock.current == 0  # 3 is answered, so it wraps again
    mock.save("7")
    assert mock.current == 1  # 2 and 3 answered: 1 is next


def test_enter_on_the_last_unanswered_stays_and_says_all_are_answered() -> None:
    qs = minis(1, 2)
    mock, _, _ = exam(qs)
    assert mock.save("3").moved
    saved = mock.save("4")
    assert (saved.moved, saved.all_answered) == (False, True)
    assert mock.current == 1
    assert mock.next_unanswered() is None


def test_enter_with_an_unreadable_answer_stays_and_says_why() -> None:
    qs = minis(1, 2)
    mock, _, _ = exam(qs)
    saved = mock.save("lots")
    assert saved.problem
    assert not saved.moved
    assert mock.current == 0
    assert mock.box_text(0) == "lots"  # what was typed is not lost


def test_enter_on_a_blank_box_moves_on_to_the_next_question_without_an_answer() -> None:
    qs = minis(1, 2, 3)
    mock, _, _ = exam(qs)
    mock.go(1)
    mock.save("9")
    mock.go(0)
    saved = mock.save("")
    assert saved.moved
    assert mock.current == 2


# --- chains: a locked part's text never reaches another part ------------------------------------------


def test_enter_in_a_chain_locks_the_part_and_asks_the_next_with_an_empty_box() -> None:
    instance, (gpus, _) = chain()
    mock, _, _ = exam([instance, *minis(1)])
    saved = mock.save(str(gpus))
    assert saved.moved
    assert (mock.current, mock.part_on(0)) == (0, 2)  # the same question, its next part
    assert mock.box_text(0) == ""


@pytest.mark.parametrize("leave", ["submit", "move", "draft"])
def test_leaving_the_box_never_locks_a_chain_part(leave: str) -> None:
    """ctrl+s, ↑↓ and the screen's tick keep the text as part 1's, still open: never part 2's answer."""
    instance, (gpus, _) = chain()
    mock, _, made = exam([instance, *minis(1)])
    if leave == "submit":
        mock.keep(str(gpus))
    elif leave == "move":
        mock.move(1, str(gpus))
        mock.move(-1, "")  # back from the other question (its box empty)
    else:
        mock.draft(str(gpus))
    assert mock.part_on(0) == 1
    assert mock.current == 0
    assert mock.box_text(0) == str(gpus)  # the box shows part 1's text again, still part 1's
    mock.finish()
    chain_attempts = [a for a in made if a.template_id == instance.template_id]
    assert [(a.part, a.answer) for a in chain_attempts] == [(1, str(gpus)), (2, ""), (3, "")]


def test_text_typed_for_a_part_is_not_the_next_parts_draft() -> None:
    instance, (gpus, _) = chain()
    mock, _, made = exam([instance])
    mock.draft("486")  # typed for part 1...
    assert mock.answer(str(gpus)) is None  # ...then part 1 saved with enter: part 2 asked
    assert mock.box_text(0) == ""
    mock.finish()
    assert [(a.part, a.answer, a.verdict) for a in made] == [
        (1, str(gpus), "exact"),
        (2, "", "skipped"),
        (3, "", "skipped"),
    ]


def test_the_last_part_of_a_chain_is_saved_when_the_box_is_left() -> None:
    instance, (gpus, jobs) = chain()
    mock, _, _ = exam([instance, *minis(1)])
    mock.save(str(gpus))
    mock.save(str(jobs))
    assert mock.part_on(0) == 3
    mock.move(1, "12")
    assert mock.part_answers(0)[2] == "12"  # the last part stays revisable: saved, not locked
    assert mock.current == 1


# --- the countdown starts when the first question is on screen ---------------------------------------


def test_with_start_false_the_countdown_waits_for_start() -> None:
    mock, clock, _ = exam(minis(1, 2), start=False)
    clock.now += 2  # building and painting the first question
    assert not mock.started
    assert mock.remaining() == 600
    assert mock.seconds_on(0) == 0
    assert not mock.tick()
    mock.start()
    clock.now += 30
    mock.start()  # a later paint changes nothing
    assert mock.remaining() == 570
    assert mock.seconds_on(0) == 30


def test_an_action_before_the_start_starts_the_countdown() -> None:
    qs = minis(1, 2)
    mock, clock, made = exam(qs, start=False)
    clock.now += 5
    mock.save(str(qs[0].value))
    assert mock.started
    clock.now += 10
    assert mock.remaining() == 590
    mock.finish()
    assert [a.seconds for a in made] == [0, 10]
