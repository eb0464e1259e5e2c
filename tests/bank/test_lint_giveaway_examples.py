"""The giveaway lint's readings on the built-in bank: issue 25's examples read as the answers they give
away, the `show --no-answer` view of its instances holds none, a hint prints the steps it adds up."""

from __future__ import annotations

import pytest

from quizzer.bank.check.giveaway_texts import step_inputs
from quizzer.bank.generate.common_mistakes import Reader, shown_numbers
from quizzer.bank.generate.giveaway_numbers import computations
from quizzer.commands.show import part_question_text, question_text
from quizzer.core.trace import Step
from tests.builtin_bank import builtin_instance


def _reads(text: str, instance_id: str, number: int) -> str | None:
    """How the first number of ``text`` that would grade right as part ``number`` of the built-in
    instance grades (the lint's reading), or None."""
    template_id, seed = instance_id.split("#")
    read = Reader(builtin_instance(template_id, int(seed)).parts[number - 1], strict=True)
    return next((found for c in computations(text) if (found := read(c))), None)


@pytest.mark.parametrize(
    ("instance_id", "number", "text"),
    [
        ("roofline-host-link-offload#846634", 2, "the time from host memory is 64× the time from HBM"),
        ("scaling-chinchilla-fitted-optimum#1", 2, "it puts 92.5 tokens per parameter"),
        ("scaling-chinchilla-fitted-optimum#1", 3, "the fitted exponent a = 0.4565"),
        ("vit-forward-flops#281", 1, "so the forward pass is 2 × 15,377,539,072 = …"),
        ("vit-forward-flops#281", 1, "That is the MAC count, 15,377,539,072 MACs"),
        ("training-memory-8bit-adam#6538", 3, "25% is what remains (2 of 8 bytes)"),
        ("vit-patch-count#1", 1, "The patches tile a square grid, 28 × 28, so square it."),
    ],
)
def test_the_issues_examples_read_as_the_answers_they_give_away(
    instance_id: str, number: int, text: str
) -> None:
    """Issue 25's examples, as the texts wrote them, read against the instances' true answers."""
    assert _reads(text, instance_id, number) in ("exact", "correct", "complement")


@pytest.mark.parametrize(
    "instance_id",
    [
        "vit-forward-flops#281",
        "walkthrough-dense-gqa#8178",
        "training-memory-8bit-adam#6538",
        "vit-patch-count#1",
    ],
)
def test_the_no_answer_view_of_the_issues_instances_holds_no_answer(instance_id: str) -> None:
    """`quizzer show ID#SEED --no-answer` as printed: no number but a given reads as any part's answer."""
    template_id, seed = instance_id.split("#")
    instance = builtin_instance(template_id, int(seed))
    shown = [question_text(instance)]
    shown += [part_question_text(instance, part, masked=True) for part in instance.later_parts]
    givens = shown_numbers(instance)
    for part in instance.parts:
        read = Reader(part, givens[part.number - 1], strict=True)
        found = [text[c.start : c.end] for text in shown for c in computations(text) if read(c)]
        assert found == [], (instance_id, part.number)


def test_a_hint_shows_the_values_of_the_steps_it_adds_up() -> None:
    """hint_steps gives a step whose value grades right as its formula alone, but the next step prints
    that value among its numbers (non-embedding-params#0: "All layers" is 85,054,464 of 85,056,000)."""
    layers = Step("All layers", "L × one layer", "12 × 7,087,872", 85_054_464, "params")
    total = Step("Total", "layers + norm", "85,054,464 + 1,536", 85_056_000, "params")
    answer = Step("Answer", "total", "85,056,000", 85_056_000, "params")
    assert step_inputs(total, (layers, total, answer)) == [layers]
    assert step_inputs(layers, (layers, total, answer)) == []
