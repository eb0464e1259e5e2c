"""Turn: one question turn on a fake clock: preview, answer once, skip, hints, and the attempt it records."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from quizzer.bank.loader import load_bank
from quizzer.session.records import Attempt
from quizzer.session.turn import Turn

DATA = Path(__file__).resolve().parent.parent / "data" / "good"


class Clock:
    def __init__(self, now: float = 100.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def make(seed: int = 1, clock: Clock | None = None) -> tuple[Turn, list[Attempt], Clock]:
    clock = clock or Clock()
    recorded: list[Attempt] = []
    instance = load_bank([str(DATA)]).generate("mini-product", seed)
    turn = Turn(
        instance, clock=clock, wall=lambda: 5000.0, mode="drill", session_id="s", on_attempt=recorded.append
    )
    return turn, recorded, clock


def test_a_graded_answer_is_recorded_once_with_its_time_and_hints() -> None:
    turn, recorded, clock = make()
    assert turn.hint() is not None
    clock.now += 42.5
    verdict = turn.answer(str(turn.instance.value))
    assert verdict.kind == "exact"
    assert turn.done
    assert not turn.skipped
    assert len(recorded) == 1
    attempt = recorded[0]
    assert (attempt.verdict, attempt.seconds, attempt.hints, attempt.at, attempt.session, attempt.mode) == (
        "exact",
        42.5,
        1,
        5000.0,
        "s",
        "drill",
    )
    # the grade is final: a second answer changes nothing and records nothing
    assert turn.answer("1").kind == "exact"
    assert turn.skip() is None
    assert len(recorded) == 1
    clock.now += 100
    assert turn.seconds() == 42.5  # frozen once done


def test_an_unreadable_answer_records_nothing_and_keeps_the_turn_open() -> None:
    turn, recorded, _ = make()
    assert turn.answer("seventeen bananas").kind == "unparsed"
    assert recorded == []
    assert not turn.done
    assert turn.answer(str(turn.instance.value)).kind == "exact"


def test_a_skip_is_recorded_as_a_skip_with_no_answer() -> None:
    turn, recorded, clock = make()
    clock.now += 3
    attempt = turn.skip()
    assert attempt is not None
    assert (attempt.verdict, attempt.answer, attempt.value, attempt.seconds) == ("skipped", "", None, 3.0)
    assert turn.skipped
    assert turn.done
    assert turn.verdict is None
    assert turn.answer(str(turn.instance.value)).kind == "exact"  # read, but not recorded: skipped
    assert len(recorded) == 1


def test_hints_stop_at_the_last_and_never_once_done() -> None:
    turn, _, _ = make()
    given_hints = []
    while (hint := turn.hint()) is not None:
        given_hints.append(hint)
    assert turn.hints == len(given_hints) == len(turn.revealed)
    assert str(turn.instance.value) not in " ".join(str(h) for h in given_hints[-1:])
    other, _, _ = make()
    other.skip()
    assert other.hint() is None
    assert other.hints == 0


@given(st.text(max_size=40))
def test_preview_never_raises_and_reads_empty_as_nothing(text: str) -> None:
    turn, _, _ = make()
    shown = turn.preview(text)
    assert isinstance(shown, str)
    assert (shown == "") == (not text.strip())
