"""The check shows a lint a repeat (a seed that drew the same numbers as an earlier one) only if it counts."""

from __future__ import annotations

from pathlib import Path

from quizzer.bank.check.base import Lint
from quizzer.bank.check.registry import LINTS
from quizzer.bank.check.run import check_template
from quizzer.bank.generate.instance import Instance
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
    assert len(set(Seen.visited)) == 4 and Seen.visited == sorted(Seen.visited)
    # what the lint finds is the same, each finding with the same first seed
    assert [p.message for p in found] == [p.message for p in counted]
    assert len(found) == 4


def test_the_lints_that_count_instances_see_repeats() -> None:
    counting = {lint.name for lint in LINTS if lint.sees_repeats}
    assert counting == {"slips", "slip-pairs"}
