"""The check shows a lint a repeat (a seed that drew the same numbers as an earlier one) only if it counts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from quizzer.bank.check.base import Lint
from quizzer.bank.check.registry import LINTS
from quizzer.bank.check.run import check_template
from quizzer.bank.errors import TemplateError
from quizzer.bank.generate.instance import Instance
from quizzer.bank.generate.render import generate, instances
from quizzer.bank.loader import load_bank

#: Two GPU counts and two copy counts: four instances, so 40 seeds repeat each many times.
TEMPLATE = """
[[template]]
id = "rep"
title = "Repeats fixture"
topic = "fixtures"
difficulty = "easy"
minutes = 2
kind = "exact"
prompt = "A model of {weights:bytes} is sharded over {gpus} GPUs. How many bytes does each hold?"
explanation = "{derivation}"
tldr = "{answer}."
[template.variables]
weights = { choices = [16000000000], unit = "bytes" }
gpus = { choices = [2, 4] }
[template.answer]
expr = "weights / gpus"
unit = "bytes"

[[template.parts]]
prompt = "Each GPU holds {part1}. It keeps {copies} copies of it. How many bytes is that?"
explanation = "{derivation}"
answer = { expr = "part1 * copies", unit = "bytes" }
[template.parts.variables]
copies = { choices = [2, 3] }
"""


class Seen(Lint):
    """Reports each answer pair it sees, with its first seed (as every lint reports a finding)."""

    name = "seen"
    visited: list[int]

    def visit(self, instance: Instance, seed: int) -> None:
        type(self).visited.append(seed)
        answers = "/".join(str(part.value) for part in instance.parts)
        self.report(None, "answer.expr", answers, f"seed {seed}: answers {answers}")


class Counting(Seen):
    """The same, told to see repeats (as a lint that counts instances is)."""

    name = "counting"
    sees_repeats = True


def _template(tmp_path: Path) -> object:
    (tmp_path / "rep.toml").write_text(TEMPLATE, encoding="utf-8")
    bank = load_bank([str(tmp_path)])
    assert bank.problems() == []
    return bank.get("rep")


def test_a_repeat_is_shown_only_to_a_lint_that_counts(tmp_path: Path) -> None:
    template = _template(tmp_path)
    Seen.visited, Counting.visited = [], []
    found, count = check_template(template, range(40), lints=(Seen,))  # type: ignore[arg-type]
    counted, count_again = check_template(template, range(40), lints=(Counting,))  # type: ignore[arg-type]
    assert count == count_again == 40  # every seed is generated either way
    assert Counting.visited == list(range(40))
    assert len(Seen.visited) == 4  # one seed of each of the four draws
    assert len(set(Seen.visited)) == 4
    assert Seen.visited == sorted(Seen.visited)
    # what the lint finds is the same, each finding with the same first seed
    assert [p.message for p in found] == [p.message for p in counted]
    assert len(found) == 4


def test_the_lints_that_count_instances_see_repeats() -> None:
    counting = {lint.name for lint in LINTS if lint.sees_repeats}
    assert counting == {"slips", "slip-pairs"}


def _templates() -> list[object]:
    """Templates of the built-in bank whose later parts draw nothing (a repeat is told before rendering)
    and some whose later parts draw (told after)."""
    from tests.builtin_bank import builtin_bank

    bank = builtin_bank()
    ids = ["embedding-table-params", "activation-checkpoint-memory", "training-time"]
    drawing = [
        t.id
        for t in bank.templates()
        if any(v.expr is None for spec in t.parts[1:] for v in spec.variables)  # type: ignore[attr-defined]
    ]
    return [bank.get(i) for i in [*ids, *drawing[:3]]]


@pytest.mark.parametrize("template", _templates(), ids=lambda t: t.id)  # type: ignore[attr-defined]
def test_instances_are_generates_and_a_repeat_is_an_earlier_one(template: Any) -> None:
    seeds = range(60)
    made = list(instances(template, seeds))
    assert [seed for seed, _, _ in made] == list(seeds)
    earlier: dict[str, Instance] = {}
    for seed, instance, repeat in made:
        assert instance == generate(template, seed)  # every field, the id and seed too
        numbers = repr([part.variables for part in instance.parts])
        assert repeat == (numbers in earlier)
        if repeat:
            assert instance.replace(id="x", seed=0) == earlier[numbers].replace(id="x", seed=0)
        earlier.setdefault(numbers, instance)
    assert any(repeat for _, _, repeat in made)  # 60 seeds repeat some draw of each of these


def test_a_failing_seed_is_named_and_the_seeds_before_it_are_made(tmp_path: Path) -> None:
    text = TEMPLATE.replace('expr = "weights / gpus"', 'expr = "weights / (gpus - 2)"')
    (tmp_path / "rep.toml").write_text(text, encoding="utf-8")
    template = load_bank([str(tmp_path)]).get("rep")
    made = []
    with pytest.raises(TemplateError) as failed:
        made.extend(seed for seed, _, _ in instances(template, range(40)))
    bad = next(seed for seed in range(40) if _fails(template, seed))
    assert failed.value.message.startswith(f"seed {bad}: ")
    assert made == list(range(bad))


def _fails(template: Any, seed: int) -> bool:
    try:
        generate(template, seed)
    except TemplateError:
        return True
    return False
