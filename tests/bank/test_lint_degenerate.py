"""The degenerate lint (#25): parts with the same answer on an instance, and draws that break a `needs`."""

from __future__ import annotations

from pathlib import Path

from quizzer.bank.check.registry import chosen
from quizzer.bank.check.run import check_template
from quizzer.bank.errors import TemplateError
from quizzer.bank.loader import load_bank

#: GPUs that hold a model's weights: part 1 the bytes per GPU, part 2 the bytes once more after a
#: `factor` (1: the same answer, a degenerate draw; 2: twice it).
CHAIN = """
[[template]]
id = "deg"
title = "Degeneracy fixture"
topic = "fixtures"
difficulty = "easy"
minutes = 2
kind = "exact"
prompt = "A model of {{weights:bytes}} is sharded over {{gpus}} GPUs. How many bytes does each hold?"
explanation = "{{derivation}}"
tldr = "{{answer}}."
{needs}
[template.variables]
weights = {{ choices = [{weights}], unit = "bytes" }}
gpus = {{ choices = [{gpus}] }}
[template.answer]
expr = "weights / gpus"
unit = "bytes"

[[template.parts]]
prompt = "Each GPU holds {{part1}}. It keeps {{copies}} copies of it for restarts. How many bytes is that?"
explanation = "{{derivation}}"
answer = {{ expr = "part1 * copies", unit = "bytes"{display} }}
{part_needs}
[template.parts.variables]
copies = {{ choices = [{copies}] }}
{third}"""

#: A third part: the bytes per copy again (part 1's answer, by another road).
THIRD = """
[[template.parts]]
prompt = "The {part2} are {copies} copies. How many bytes is one copy?"
explanation = "{derivation}"
answer = { expr = "part2 / copies", unit = "bytes" }
"""


def _findings(
    tmp_path: Path,
    *,
    weights: str = "16000000000",
    gpus: str = "2, 4",
    copies: str = "2",
    needs: str = "",
    part_needs: str = "",
    display: str = "",
    third: str = "",
) -> tuple[str, list[TemplateError]]:
    path = tmp_path / "pack.toml"
    body = CHAIN.format(
        weights=weights,
        gpus=gpus,
        copies=copies,
        needs=needs,
        part_needs=part_needs,
        display=display,
        third=third,
    )
    path.write_text(body, encoding="utf-8")
    bank = load_bank([str(path)])
    assert bank.problems() == []
    problems, count = check_template(bank.get("deg"), range(5), lints=chosen(only=("degenerate",)))
    assert count == 5
    return str(path), problems


def test_a_later_part_with_the_same_answer_is_named_at_its_answer(tmp_path: Path) -> None:
    path, problems = _findings(tmp_path, copies="1")
    (problem,) = problems
    assert (problem.path, problem.template_id, problem.field) == (path, "deg", "parts[0].answer.expr")
    assert problem.message.startswith("seed 0: part 2's answer (")
    assert "lies within the band of part 1's" in problem.message
    assert "cannot tell whether to carry" in problem.message


def test_parts_just_inside_the_band_of_each_other_are_found(tmp_path: Path) -> None:
    """1.009 × part 1 is inside part 1's 1% band; 1.011 × is not."""
    assert len(_findings(tmp_path, copies="1.009")[1]) == 1
    assert _findings(tmp_path, copies="1.011")[1] == []


def test_a_part_with_the_answer_of_a_part_before_the_last_is_found(tmp_path: Path) -> None:
    path, problems = _findings(tmp_path, third=THIRD)
    (problem,) = problems
    assert (problem.path, problem.field) == (path, "parts[1].answer.expr")
    assert problem.message.startswith("seed 0: part 3's answer (")
    assert "within the band of part 1's" in problem.message


def test_parts_that_differ_are_clean(tmp_path: Path) -> None:
    assert _findings(tmp_path, copies="2")[1] == []


def test_the_same_number_in_another_display_unit_is_no_finding(tmp_path: Path) -> None:
    """Part 1 answers in bytes, part 2 (the same value) in GiB: typed, the numbers differ."""
    assert _findings(tmp_path, copies="1", display=', display = "GiB"')[1] == []


NEED = 'needs = [{ holds = "gpus > 1", why = "the prompt speaks of sharding" }]'


def test_a_draw_that_breaks_a_need_of_part_one_is_named_at_the_need(tmp_path: Path) -> None:
    path, problems = _findings(tmp_path, gpus="1", needs=NEED)
    (problem,) = problems
    assert (problem.path, problem.template_id, problem.field) == (path, "deg", "needs[0].holds")
    assert problem.message == (
        "seed 0: 'gpus > 1' is false on this draw (the prompt speaks of sharding): add a constraint that "
        "keeps it, or a `when` on the text that needs it"
    )


def test_a_need_every_draw_keeps_is_clean(tmp_path: Path) -> None:
    assert _findings(tmp_path, gpus="2, 4", needs=NEED)[1] == []


def test_a_need_is_found_on_the_first_draw_that_breaks_it(tmp_path: Path) -> None:
    """Of gpus in (1, 2) the draws differ by seed; the finding names a seed whose draw has 1 GPU."""
    from quizzer.bank.generate.render import generate

    path, problems = _findings(tmp_path, gpus="1, 2", needs=NEED)
    bank = load_bank([path])
    first = next(s for s in range(5) if generate(bank.get("deg"), s).variables["gpus"] == 1)
    (problem,) = problems
    assert problem.message.startswith(f"seed {first}: ")


def test_a_need_of_a_later_part_reads_its_own_names_and_earlier_answers(tmp_path: Path) -> None:
    """Part 2 needs its copies to add more than 4 GB: part1 × (copies − 1). With 2 GPUs part 1 is 8 GB
    and 2 copies add 8 GB; with 4 GPUs, 4 GB: that draw breaks it."""
    part_needs = (
        'needs = [{ holds = "part1 * (copies - 1) > 4 * 10**9", why = "the text says the copies are large" }]'
    )
    path, problems = _findings(tmp_path, gpus="4", part_needs=part_needs)
    (problem,) = problems
    assert (problem.path, problem.field) == (path, "parts[0].needs[0].holds")
    assert "the text says the copies are large" in problem.message
    assert _findings(tmp_path, gpus="2", part_needs=part_needs)[1] == []


def test_a_need_that_cannot_be_evaluated_says_so(tmp_path: Path) -> None:
    need = 'needs = [{ holds = "weights / (gpus - gpus) > 1", why = "a division by zero" }]'
    _, problems = _findings(tmp_path, needs=need)
    (problem,) = problems
    assert problem.field == "needs[0].holds"
    assert "cannot be evaluated" in problem.message


def test_a_part_may_declare_the_earlier_answer_it_equals_by_design(tmp_path: Path) -> None:
    """`same_as_ok` names the earlier part and why; it silences only that pair, not a third part's."""
    same = 'same_as_ok = [{ part = 1, why = "one copy is the bytes per GPU" }]'
    assert _findings(tmp_path, copies="1", part_needs=same)[1] == []
    third = THIRD.replace('unit = "bytes" }', 'unit = "bytes" }\n' + same.replace("part = 1", "part = 2"))
    (problem,) = _findings(tmp_path, third=third)[1]
    assert problem.message.startswith("seed 0: part 3's answer (")


def test_same_as_ok_must_name_an_earlier_part_and_say_why(tmp_path: Path) -> None:
    for same, field, words in (
        ('same_as_ok = [{ part = 2, why = "itself" }]', "parts[0].same_as_ok[0].part", "an earlier part"),
        ('same_as_ok = [{ part = 1, why = " " }]', "parts[0].same_as_ok[0].why", "why the two answers"),
    ):
        path = tmp_path / "pack.toml"
        path.write_text(
            CHAIN.format(weights="16", gpus="2", copies="1", needs="", part_needs=same, display="", third=""),
            encoding="utf-8",
        )
        (problem,) = load_bank([str(path)]).problems()
        assert (problem.template_id, problem.field) == ("deg", field)
        assert words in problem.message
