"""InterviewSession: live grades kept nowhere, answers recorded part by part, carried credit on a chain, what
the interviewer sees (band, slips), the report and the set file that replays the questions."""

from __future__ import annotations

from pathlib import Path

import pytest

from quizzer.bank.loader import Bank, load_bank
from quizzer.session.chain import template_lookup
from quizzer.session.interview import InterviewSession, report_markdown
from quizzer.session.picking import parse_set

CHAINS = Path(__file__).resolve().parent.parent / "data" / "chains"
CHAIN = (
    "chain-part-variables"  # bytes of one sequence's cache, then sequences that fit (carries), then tokens/s
)


@pytest.fixture(scope="module")
def bank() -> Bank:
    return load_bank([str(CHAINS)])


def interview(bank: Bank, *refs: tuple[str, int]) -> InterviewSession:
    return InterviewSession([bank.generate(t, s) for t, s in refs], templates=template_lookup(bank))


def doubled(session: InterviewSession) -> tuple[int, int]:
    """Part 1 doubled (a real slip, far from trivial) and part 2 worked right from it."""
    v = session.instance.variables
    part1 = 2 * int(v["seq_len"]) * int(v["per_token"])
    part2 = int(session.instance.parts[1].variables["gpu_gib"]) * 2**30 // part1
    return part1, part2


def test_preview_grades_without_recording(bank: Bank) -> None:
    session = interview(bank, (CHAIN, 7))
    value = session.part.value
    graded = session.preview(f"{value} bytes")
    assert graded is not None
    assert graded.verdict.kind == "exact"
    assert session.preview("   ") is None
    assert (session.current, session.number, session.answered) == (0, 1, 0)
    assert session.answers == [[]]


def test_record_moves_part_by_part_then_to_the_next_question(bank: Bank) -> None:
    session = interview(bank, (CHAIN, 7), ("chain-arithmetic", 3))
    first = session.instance
    assert session.record("bananas") is not None  # unreadable: graded ("unparsed"), nothing kept
    assert session.number == 1
    assert session.record("") is None
    for number, part in enumerate(first.parts, 1):
        assert session.number == number
        answer = f"{part.value} bytes" if number == 1 else str(part.value)
        assert session.record(answer).verdict.kind == "exact"  # type: ignore[union-attr]
    assert (session.current, session.number, session.instance.template_id) == (1, 1, "chain-arithmetic")
    assert session.next_question() == 3  # all three parts left unanswered
    assert session.done
    assert session.preview("12") is None
    assert (session.answered, session.right) == (3, 3)
    assert [a.kind for a in session.answers[1]] == ["skipped"] * 3


def test_a_part_carries_the_candidates_wrong_earlier_answer(bank: Bank) -> None:
    session = interview(bank, (CHAIN, 7))
    part1, part2 = doubled(session)
    assert session.record(f"{part1} bytes").verdict.kind == "wrong"  # type: ignore[union-attr]
    sheet = session.sheet()
    assert sheet.number == 2
    assert sheet.carried is not None
    assert f": {part2:,}" in sheet.carried  # what this part is from their part 1
    live = session.preview(str(part2))
    assert live is not None
    assert live.verdict.kind == "consistent"
    assert live.carried == {"1": part1}
    assert session.answered == 1  # the preview kept nothing
    recorded = session.record(str(part2))
    assert recorded is not None
    assert recorded.verdict.kind == "consistent"
    assert session.answers[0][1].carried
    assert session.right == 1


def test_without_templates_nothing_carries(bank: Bank) -> None:
    session = InterviewSession([bank.generate(CHAIN, 7)])
    part1, part2 = doubled(session)
    session.record(f"{part1} bytes")
    assert session.sheet().carried is None
    assert session.preview(str(part2)).verdict.kind == "wrong"  # type: ignore[union-attr]


def test_the_sheet_shows_the_expected_value_its_band_and_the_slips(bank: Bank) -> None:
    session = interview(bank, (CHAIN, 7))
    session.record(f"{session.part.value} bytes")
    sheet = session.sheet()
    part = session.part
    assert (sheet.prompt, sheet.expected) == (part.prompt, part.display)
    assert "(±1%)" in sheet.band
    titles = [row.title for row in sheet.slips]
    assert titles[0] == "GB for GiB"  # the template's own mistake first
    assert titles[1:] == ["1000× off", "1000× off"]  # then the built-in slips that fit
    own = sheet.slips[0]
    assert own.family == "own"
    assert own.shown.startswith(f"{int(own.value):,}")


def test_the_report_has_each_answer_its_verdict_and_the_carried_credit(bank: Bank) -> None:
    session = interview(bank, (CHAIN, 7), ("chain-arithmetic", 3))
    part1, part2 = doubled(session)
    session.record(f"{part1} bytes")
    session.record(str(part2))
    session.next_question()  # part 3 left
    report = report_markdown(session, {"wrong": "✗ Wrong", "consistent": "✓ Consistent"})
    assert report.startswith("# Interview: 1 of 2 parts answered right")
    assert f"said **{part1} bytes**: ✗ Wrong" in report
    assert f"said **{part2}**: ✓ Consistent" in report
    assert "carried credit: right from their own part 1" in report
    assert "**Part 3**: no answer (expected" in report
    assert "## 2. " in report
    assert "Not reached." in report


def test_the_set_replays_to_the_same_questions(bank: Bank) -> None:
    session = interview(bank, (CHAIN, 7), ("chain-arithmetic", 3))
    replayed = parse_set(bank, session.set_text(), "interview.set")
    assert [i.id for i in replayed] == [i.id for i in session.instances]


def test_an_interview_needs_a_question() -> None:
    with pytest.raises(ValueError, match="at least one question"):
        InterviewSession([])


def test_the_diagnosis_of_a_typed_product_is_in_the_report_once() -> None:
    """The issue's product on kv-cache-bytes#1 (32 layers): the report says the 30 is n_layers, once."""
    from quizzer.core.markdown import md_escape
    from tests.builtin_bank import builtin_bank

    built_in = builtin_bank()
    session = InterviewSession([built_in.generate("kv-cache-bytes", 1)], templates=template_lookup(built_in))
    graded = session.record("2*30*16*256*4*8192*8 bytes")
    assert graded is not None
    assert graded.verdict.diagnosis == ("Your 30 is n_layers: here it is 32.",)
    assert report_markdown(session).count(md_escape("Your 30 is n_layers: here it is 32.")) == 1
