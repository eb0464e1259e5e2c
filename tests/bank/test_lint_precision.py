"""The precision lint (#25): a part's answer recomputed from the numbers as printed must stay in its band.

Each pack here is solved by hand in its docstring: the values printed, the answer from them, the band.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from quizzer.bank.check.precision_printed import read_back
from quizzer.bank.check.registry import chosen
from quizzer.bank.check.run import check_template
from quizzer.bank.errors import TemplateError
from quizzer.bank.loader import load_bank

HEAD = """
[[template]]
id = "{tid}"
title = "Precision fixture"
topic = "fixtures"
difficulty = "easy"
minutes = 2
kind = "exact"
explanation = "{{derivation}}"
tldr = "{{answer}}."
"""


def _findings(tmp_path: Path, body: str, tid: str = "prec") -> tuple[str, list[TemplateError]]:
    path = tmp_path / "pack.toml"
    path.write_text(HEAD.format(tid=tid) + body, encoding="utf-8")
    bank = load_bank([str(path)])
    assert bank.problems() == []
    problems, count = check_template(bank.get(tid), range(3), lints=chosen(only=("precision",)))
    assert count == 3
    return str(path), problems


#: The replicated rest of a model, from its total printed one way or another: total 2,234,567,890,
#: routed 1,000,000,000 (printed exactly), rest = total - routed = 1,234,567,890. Printed as "2.23B" the
#: total gives a rest of 1,230,000,000: 0.37% off.
REST = """
prompt = "A model holds {{total{style}}} parameters, {{routed:count}} in routed experts.{extra} How many not?"
conventions = [{convention}]
[template.variables]
total = {{ choices = [2234567890] }}
routed = {{ choices = [1000000000] }}
rest = {{ expr = "total - routed" }}
{variables}
[template.answer]
expr = "rest"
unit = "params"
tolerance = {{ rel = {rel} }}
"""


def _rest(
    style: str = ":si", rel: float = 0.001, extra: str = "", convention: str = "", variables: str = ""
) -> str:
    return REST.format(style=style, rel=rel, extra=extra, convention=convention, variables=variables)


def test_a_value_printed_too_roughly_for_the_band_is_named_at_its_placeholder(tmp_path: Path) -> None:
    path, problems = _findings(tmp_path, _rest())
    (problem,) = problems
    assert (problem.path, problem.template_id, problem.field) == (path, "prec", "prompt")
    assert problem.message.startswith("seed 0: the answer from the numbers as printed is 1,230,000,000")
    assert "{total:si} prints 2.23B for 2,234,567,890" in problem.message
    assert "outside the band of 0.1%" in problem.message
    assert "{total:count}" in problem.message  # the fix: print it exactly


def test_the_same_rounding_inside_a_wider_band_is_no_finding(tmp_path: Path) -> None:
    assert _findings(tmp_path, _rest(rel=0.01))[1] == []  # 0.37% off, band 1%


def test_a_value_printed_exactly_is_no_finding(tmp_path: Path) -> None:
    assert _findings(tmp_path, _rest(style=":count"))[1] == []


def test_a_value_printed_exactly_elsewhere_counts_at_its_most_precise(tmp_path: Path) -> None:
    """The prompt rounds the total; a convention gives it to the parameter: the student has it exactly."""
    clean = _rest(convention='"The checkpoint index lists {total:count} parameters."')
    assert _findings(tmp_path, clean)[1] == []


def test_a_derived_value_the_prompt_prints_exactly_is_read_not_recomputed(tmp_path: Path) -> None:
    """The rest itself is printed exactly: the rounded total no longer reaches the answer."""
    clean = _rest(extra=" The dense rest is {rest:count} parameters.")
    assert _findings(tmp_path, clean)[1] == []


def test_a_rounded_value_the_answer_does_not_use_is_no_finding(tmp_path: Path) -> None:
    body = _rest(
        style=":count", extra=" It saw {seen:si} tokens.", variables="seen = { choices = [1234567] }"
    )
    assert _findings(tmp_path, body)[1] == []


#: a = 3,004,000,000 prints "3B", b = 1,996,000,000 prints "2B"; a - b = 1,008,000,000. Each alone moves
#: the answer to 1,004,000,000 (0.40% off, inside a 0.5% band); both together give 1,000,000,000 (0.79%).
COMBINED = """
prompt = "A job has {a:si} steps; {b:si} of them are done. How many are left?"
[template.variables]
a = { choices = [3004000000] }
b = { choices = [1996000000] }
[template.answer]
expr = "a - b"
unit = "count"
tolerance = { rel = 0.005 }
"""


def test_roundings_are_combined_each_inside_the_band_together_outside(tmp_path: Path) -> None:
    path, problems = _findings(tmp_path, COMBINED)
    (problem,) = problems
    assert (problem.path, problem.field) == (path, "prompt")
    assert "is 1,000,000,000" in problem.message
    assert "{a:si} prints 3B for 3,004,000,000" in problem.message
    assert "{b:si} prints 2B for 1,996,000,000" in problem.message


def test_each_rounding_alone_inside_the_band_is_clean_when_the_other_is_exact(tmp_path: Path) -> None:
    assert _findings(tmp_path, COMBINED.replace("{b:si}", "{b:count}"))[1] == []


#: Part 1 takes 1.23456 s, shown as "1.23 s". Part 2 asks how much longer than 1.2 s it took: 0.03456 s
#: truly, 0.03 s from the shown part 1 (13% off). Part 2 = twice part 1 is 2.46 s from it (0.37% off).
CHAIN = """
prompt = "A job runs {{work:count}} s of work. How long does it take?"
[template.variables]
work = {{ choices = [1.23456], unit = "s" }}
base = {{ choices = [1.2], unit = "s" }}
[template.answer]
expr = "work"
unit = "s"

[[template.parts]]
prompt = "{prompt}"
explanation = "{{derivation}}"
answer = {{ expr = "{expr}", unit = "s" }}
"""


def test_an_earlier_answer_shown_rounded_is_named_in_the_part_that_prints_it(tmp_path: Path) -> None:
    body = CHAIN.format(prompt="It took {part1}. How much longer than {base} is that?", expr="part1 - base")
    path, problems = _findings(tmp_path, body)
    (problem,) = problems
    assert (problem.path, problem.template_id, problem.field) == (path, "prec", "parts[0].prompt")
    assert problem.message.startswith("seed 0: part 2's answer from the numbers as printed is 30 ms")
    assert "{part1} prints 1.23 s for 1.23456" in problem.message


def test_an_earlier_answer_no_prompt_prints_is_read_as_it_was_shown(tmp_path: Path) -> None:
    body = CHAIN.format(prompt="How much longer than {base} did the job take?", expr="part1 - base")
    path, problems = _findings(tmp_path, body)
    (problem,) = problems
    assert (problem.path, problem.field) == (path, "parts[0].answer.expr")
    assert "part 1's answer is shown as 1.23 s (it is 1.23456)" in problem.message


def test_an_earlier_answer_whose_rounding_stays_in_the_band_is_clean(tmp_path: Path) -> None:
    body = CHAIN.format(prompt="It took {part1}. How long do two such jobs take?", expr="2 * part1")
    assert _findings(tmp_path, body)[1] == []


@pytest.mark.parametrize(
    ("text", "value", "unit", "expected"),
    [
        ("108B", 107_769_861_120, None, 108_000_000_000),
        ("15.6 GiB", 16_777_216_000, None, 15.6 * 2**30),
        ("0.0368%", 0.0003676, None, 0.000368),
        ("2.1 ms", 0.0021003, None, 0.0021),
        ("44 days", 3.8e6, None, 44 * 86400),
        ("312 TFLOP/s", 312e12, None, 312e12),
        ("15.4 GMACs", 15_377_539_072, "MACs", 15_400_000_000),
        ("a 1/8 share", 8, None, 8),
    ],
)
def test_a_printed_number_is_read_back_in_its_own_scale(
    text: str, value: float, unit: str | None, expected: float
) -> None:
    got = read_back(text, value, unit)
    assert got == pytest.approx(expected, rel=1e-12)


def test_a_text_that_shows_no_number_near_the_value_reads_as_nothing() -> None:
    assert read_back("the whole", 1) is None
    assert read_back("15 GMACs", 15e9) is None  # no unit to read the scale with


#: 110.2 tokens/s, printed "110 tokens/s" (a number that reads as exact); the answer, 2 seconds of
#: streaming, is 220.4 tokens (220 from the printed rate: 0.18% off, inside the band) and its derivation
#: shows 110.2.
RATE = """
prompt = "An endpoint streams {{rate{style}}}{unit}. How many tokens does it stream in 2 seconds?"
[template.variables]
rate = {{ choices = [110.2], unit = "tokens/s" }}
[template.answer]
expr = "rate * 2"
unit = "tokens"
"""


def test_a_rounded_value_printed_as_if_exact_that_the_derivation_shows_is_found(tmp_path: Path) -> None:
    path, problems = _findings(tmp_path, RATE.format(style="", unit=""))
    (problem,) = problems
    assert (problem.path, problem.template_id, problem.field) == (path, "prec", "prompt")
    assert problem.message.startswith("seed 0: {rate} prints 110 tokens/s, a number that reads as exact")
    assert "for 110.2, which the derivation shows" in problem.message
    assert "{rate:count} prints 110.2" in problem.message


def test_a_value_printed_with_its_figures_is_clean(tmp_path: Path) -> None:
    assert _findings(tmp_path, RATE.format(style=":count", unit=" tokens/s"))[1] == []


def test_a_value_printed_with_a_scale_reads_as_rounded(tmp_path: Path) -> None:
    """ "1.1k tokens/s" for 1,102: a scaled figure is read as rounded, as the student reads it."""
    body = RATE.format(style=":si", unit=" tokens/s").replace("110.2", "1102")
    assert _findings(tmp_path, body)[1] == []


def test_a_rounded_value_the_derivation_never_shows_is_clean(tmp_path: Path) -> None:
    """The rate reaches the answer through a derived variable: the derivation shows 220.4, never 110.2."""
    body = RATE.format(style="", unit="").replace('expr = "rate * 2"', 'expr = "streamed"')
    body = body.replace("[template.answer]", 'streamed = { expr = "rate * 2" }\n[template.answer]')
    assert _findings(tmp_path, body)[1] == []


def test_a_whole_number_answer_across_its_edge_asks_to_move_the_draw(tmp_path: Path) -> None:
    """Part 1 is 1.2004 s, shown "1.2 s"; part 2 asks for the fewest 100 ms slices: ⌈12.004⌉ = 13, but
    ⌈12.0⌉ = 12 from what was shown."""
    body = CHAIN.replace("1.23456", "1.2004").format(
        prompt="How many 100 ms slices cover the job?", expr="ceil(part1 / 0.1)"
    )
    body = body.replace(
        'expr = "ceil(part1 / 0.1)", unit = "s"', 'expr = "ceil(part1 / 0.1)", unit = "count"'
    )
    path, problems = _findings(tmp_path, body)
    (problem,) = problems
    assert (problem.path, problem.field) == (path, "parts[0].answer.expr")
    assert "part 2's answer from the numbers as printed is 12, " in problem.message
    assert "rounded to a whole number and the printed figures land across the edge" in problem.message
