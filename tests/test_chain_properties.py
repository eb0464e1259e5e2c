"""Properties of every chain (a template with parts) in questions/ and tests/data/chains/, over arbitrary
seeds: each part's answer grades right, a carried wrong answer grades consistent, a trivial one earns
nothing, an empty answer is never right, and each part's explanation ends on its answer.

The chains are collected when this module is imported, so a part added to a pack is tested at once.
"""

from __future__ import annotations

from collections import Counter
from functools import cache
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from quizzer.bank.expr.text import display_scale
from quizzer.bank.generate.prompt_numbers import prompt_numbers
from quizzer.bank.generate.render import Instance, generate, recompute_part
from quizzer.bank.loader import Bank, load_bank
from quizzer.bank.read.schema import Template
from quizzer.core.trace import num
from quizzer.grading.carry import trivial
from quizzer.grading.grade import is_within
from quizzer.paths import questions_dir
from quizzer.session.chain import Question, carried_answers, grade_part, part_of
from tests.builtin_bank import builtin_bank
from tests.test_question_bank import shown_forms, written

#: Every chain five ways over arbitrary seeds (about a minute): in `make test-slow`, which CI runs; the
#: default run keeps the chain Pilot, turn, CLI and check tests.
pytestmark = pytest.mark.slow

CHAINS = Path(__file__).resolve().parent / "data" / "chains"
SOURCES = {"questions": Path(questions_dir()), "chains": CHAINS}
RIGHT = {"exact", "correct"}
#: Right, or right against the user's own earlier answers.
CREDITED = RIGHT | {"consistent"}
#: How far a wrong part-1 answer is from the truth, tried in turn from a drawn start until one is neither
#: inside the tolerance nor trivial (a factor tolerance needs the farther ones).
FACTORS = (1.7, 0.6, 2.5, 0.4, 4.0, 0.25, 10.0, 0.1, 30.0, 0.04)


def examples(count: int) -> settings:
    """``count`` examples per chain and test: modest, as every chain is tested five ways (the suite stays
    fast); derandomized, so that "every part that uses part 1 reached the verdict" never rests on luck."""
    return settings(max_examples=count, derandomize=True, deadline=None)


seeds = st.integers(min_value=0, max_value=2**32)


@cache
def banks() -> dict[str, Bank]:
    """The built-in bank (tests/builtin_bank.py: loaded once per process) and the example chains."""
    return {"questions": builtin_bank(), "chains": load_bank([str(SOURCES["chains"])])}


def chain_keys() -> list[str]:
    """The keys ("questions:<id>", "chains:<id>") of every template with parts that loads."""
    return [f"{name}:{t.id}" for name, bank in banks().items() for t in bank.templates() if t.later_parts]


def chain(key: str) -> Template:
    name, _, tid = key.partition(":")
    return banks()[name].get(tid)


KEYS = chain_keys()


def test_the_chains_are_collected() -> None:
    """The example chains, and the built-in bank's (more as parts are written): none is missed."""
    assert {"chains:chain-arithmetic", "chains:chain-part-variables", "chains:chain-no-carry"} <= set(KEYS)
    assert any(key.startswith("questions:") for key in KEYS)
    assert len(KEYS) == len(set(KEYS))


def truths(instance: Instance) -> dict[int, int | float]:
    return {n: part_of(instance, n).value for n in range(1, instance.part_count + 1)}


def shown_numbers(question: Question) -> tuple[float, ...]:
    """The numbers a part's prompt prints, as the student may copy them (bare ones in its display unit)."""
    unit, display = question.unit, question.display_unit
    return prompt_numbers(question.prompt, display_scale(unit, display) if display else 1)


def uses(template: Template, number: int, k: int, *, through_parts: bool) -> bool:
    """Whether part ``number``'s answer uses ``part{k}``: directly or through the part variables, and with
    ``through_parts`` also through an earlier part's answer that uses it."""
    derived = {v.name: v.expr for p in template.later_parts for v in p.variables if v.expr is not None}
    stack, seen = list(template.parts[number - 1].answer.names), set()
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        if name == f"part{k}":
            return True
        if name in derived:
            stack.extend(derived[name].names)
        elif through_parts and name.startswith("part") and name[4:].isdigit() and int(name[4:]) >= 2:
            stack.extend(template.parts[int(name[4:]) - 1].answer.names)
    return False


def wrong_answer(question: Question, start: int) -> int | float | None:
    """A wrong answer to ``question`` an honest student could give: a factor of FACTORS from the truth
    (whole when the truth is a whole number of 10 or more), outside the tolerance and not trivial; None
    if none is."""
    true = question.value
    for factor in FACTORS[start:]:
        value: int | float = factor * true
        if isinstance(true, int) and value >= 10:
            value = round(value)
        if not is_within(value, true, question.tolerance) and not trivial(
            float(value), float(true), shown_numbers(question)
        ):
            return value
    return None


@pytest.mark.parametrize("key", KEYS)
def test_each_part_as_shown_and_exact_grades_right(key: str) -> None:
    """Every part (the main question too), the earlier ones answered right: its answer as the student reads
    it (each form of its display) and its exact value grade right, and nothing is carried."""
    template = chain(key)

    @examples(20)
    @given(seed=seeds)
    def run(seed: int) -> None:
        instance = generate(template, seed)
        true = truths(instance)
        for number in range(1, instance.part_count + 1):
            question = part_of(instance, number)
            earlier = {k: true[k] for k in range(1, number)}
            for text in [*shown_forms(question.display), written(question, question.value)]:
                graded = grade_part(template, instance, number, text, earlier)
                assert graded.verdict.kind in RIGHT, (instance.id, number, text, graded.verdict.message)
                assert graded.carried is None

    run()


def carried(instance: Instance, answers: dict[int, int | float]) -> dict[int, int | float]:
    """The answers the design carries forward: every one but the exact truth (a right answer rounded as
    typed carries too: a later whole count may move with it) that is not trivial (0, a number the part's
    prompt printed, more than a factor of 100 off)."""
    out = {}
    for k, value in answers.items():
        question = part_of(instance, k)
        exact = value == question.value
        if not exact and not trivial(float(value), float(question.value), shown_numbers(question)):
            out[k] = value
    return out


@pytest.mark.parametrize("key", KEYS)
def test_a_carried_wrong_answer_grades_consistent_where_the_part_carries(key: str) -> None:
    """An earlier part answered wrong (not trivially): part n answered with what that answer gives (the
    chain recomputed) grades consistent, crediting the earlier answers carried, when it carries, and is
    not credited when it does not. Three ways: part 1 wrong, the parts between right ("part 1 only");
    part 1 wrong and each later part answered consistently with it ("whole chain": what a student who
    carries the slip through types; one that lands inside the truth's band is right and carries as typed);
    only the part just before wrong ("previous part only").

    Where the oracle cannot apply, the case is counted, not passed: the recomputation fails (None), or
    gives a value inside the tolerance of the truth (the part does not use that answer: then it must give
    the truth exactly). Every part that uses part 1 (or the part before it) must reach the verdict.
    """
    template = chain(key)
    reached: Counter[tuple[str, int]] = Counter()
    untestable: Counter[str] = Counter()

    def expect(instance: Instance, number: int, answers: dict[int, int | float], way: str) -> None:
        part, given = instance.parts[number - 1], carried(instance, answers)
        recomputed = recompute_part(template, instance, number, given)
        if recomputed is None:
            untestable["recompute failed"] += 1
            return
        if is_within(recomputed, part.value, part.tolerance):
            untestable["inside the band of the truth"] += 1
            if len(given) == 1 and way != "whole chain":
                (k,) = given
                if not uses(template, number, k, through_parts=False):
                    assert recomputed == part.value
            return
        graded = grade_part(template, instance, number, written(part, recomputed), answers)
        if template.parts[number - 1].carry:  # the template's flag, not the instance's copy of it
            assert graded.verdict.kind == "consistent", (instance.id, number, answers, graded.verdict.message)
            assert graded.carried == {str(k): v for k, v in given.items()}
            assert graded.verdict.expected == part.value
        else:
            assert graded.verdict.kind not in CREDITED, (instance.id, number, graded.verdict.message)
            assert graded.carried is None
        reached[(way, number)] += 1

    @examples(25)
    @given(seed=seeds, start=st.integers(0, 3))
    def run(seed: int, start: int) -> None:
        instance = generate(template, seed)
        wrong = wrong_answer(instance, start)
        assume(wrong is not None)
        assert wrong is not None
        true = truths(instance)
        answers: dict[int, int | float] = {1: wrong}
        for number in range(2, instance.part_count + 1):
            right_before = {k: true[k] for k in range(1, number)}
            expect(instance, number, {**right_before, 1: wrong}, "part 1 only")
            if number > 2:
                expect(instance, number, dict(answers), "whole chain")
                previous = wrong_answer(part_of(instance, number - 1), start)
                if previous is None:
                    untestable["no wrong answer to the previous part"] += 1
                else:
                    expect(instance, number, {**right_before, number - 1: previous}, "previous part only")
            consistent = recompute_part(template, instance, number, carried(instance, answers))
            if consistent is None:
                untestable["no consistent answer to carry on"] += 1
                break
            answers[number] = consistent

    run()
    for number in range(2, len(template.parts) + 1):
        if uses(template, number, 1, through_parts=False):
            assert reached[("part 1 only", number)] > 0, (number, reached, untestable)
        elif uses(template, number, 1, through_parts=True):
            assert reached[("whole chain", number)] > 0, (number, reached, untestable)
        if number > 2 and uses(template, number, number - 1, through_parts=False):
            assert reached[("previous part only", number)] > 0, (number, reached, untestable)


@pytest.mark.parametrize("key", KEYS)
def test_a_trivial_earlier_answer_earns_no_carried_credit(key: str) -> None:
    """0, a number the earlier part's prompt printed, or 1000 times its truth: nothing is carried, and
    the answer that trivial value would give is never "consistent"."""
    template = chain(key)

    @examples(20)
    @given(seed=seeds, data=st.data())
    def run(seed: int, data: st.DataObject) -> None:
        instance = generate(template, seed)
        true = truths(instance)
        number = data.draw(st.integers(2, instance.part_count), label="part")
        k = data.draw(st.integers(1, number - 1), label="earlier part")
        numbers = shown_numbers(part_of(instance, k))
        kind = data.draw(st.sampled_from(["zero", "far", *["printed"] * bool(numbers)]), label="kind")
        given = (
            0 if kind == "zero" else 1000 * true[k] if kind == "far" else data.draw(st.sampled_from(numbers))
        )
        earlier = {**{j: true[j] for j in range(1, number)}, k: given}
        assert carried_answers(instance, number, earlier) == {}
        part = instance.parts[number - 1]
        recomputed = recompute_part(template, instance, number, {k: given})
        text = written(part, recomputed if recomputed is not None else 3 * part.value)
        graded = grade_part(template, instance, number, text, earlier)
        assert graded.verdict.kind != "consistent", graded.verdict.message
        assert graded.carried is None

    run()


@pytest.mark.parametrize("key", KEYS)
def test_an_empty_answer_is_never_right(key: str) -> None:
    """Nothing typed (or only spaces) is never right nor consistent for any part, whatever came before:
    the earlier answers right, part 1 wrong, or part 1 skipped."""
    template = chain(key)

    @examples(10)
    @given(seed=seeds, blank=st.text(" \t\n\r\u00a0\u2003\u3000", max_size=6), start=st.integers(0, 3))
    def run(seed: int, blank: str, start: int) -> None:
        instance = generate(template, seed)
        true = truths(instance)
        wrong = wrong_answer(instance, start)
        for number in range(1, instance.part_count + 1):
            for first in (true[1], wrong, None):
                earlier = {**{k: true[k] for k in range(1, number)}, 1: first} if number > 1 else {}
                graded = grade_part(template, instance, number, blank, earlier)
                assert graded.verdict.kind not in CREDITED, (instance.id, number, repr(blank))
                assert graded.carried is None

    run()


def derivation_rows(explanation: str) -> list[str]:
    """The rows of the derivation table in ``explanation``: the table whose header is Step | Formula."""
    rows: list[str] = []
    inside = False
    for line in explanation.splitlines():
        if line.startswith("| Step | Formula |"):
            inside, rows = True, []
        elif not line.startswith("|"):
            inside = False if rows else inside
        elif inside:
            rows.append(line)
    return rows


@pytest.mark.parametrize("key", KEYS)
def test_each_part_explanation_ends_its_derivation_on_its_answer(key: str) -> None:
    """As the main explanation's table shows the answer (test_question_bank), a part's shows its own: the
    last row of its derivation is the part's answer, in its unit."""
    template = chain(key)

    @examples(15)
    @given(seed=seeds)
    def run(seed: int) -> None:
        instance = generate(template, seed)
        for part in instance.parts:
            last = part.derivation[-1]
            assert (last.value, last.unit) == (part.value, part.unit)
            rows = derivation_rows(part.explanation)  # other tables may follow it (ZeRO's four stages)
            assert rows, part.explanation
            result = rows[-1].rstrip(" |").rsplit(" | ", 1)[-1]
            assert result.split(" ")[0] == num(part.value), (instance.id, part.number, rows[-1])

    run()
