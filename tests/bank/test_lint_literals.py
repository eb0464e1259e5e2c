"""The literals lint (#25): a number written out by hand in a teaching text is a finding, named by field.

Each pack plants one hand-written number in one field; its clean variant writes the same sentence with a
placeholder, a true constant or a name, or declares the number in numbers_ok.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from quizzer.bank.check.literals_scan import scan, value_of
from quizzer.bank.check.registry import chosen
from quizzer.bank.check.run import check_template
from quizzer.bank.errors import TemplateError
from quizzer.bank.loader import load_bank

PACK = """
[[template]]
id = "lit"
title = "Literals fixture"
topic = "fixtures"
difficulty = "easy"
minutes = 2
kind = "exact"
prompt = "A {{hbm}} GPU (80 GB on the spec sheet) holds {{n:count}} parameters in bf16. How many bytes?"
conventions = ["An 80 GB card holds 80 × 10^9 bytes."]
explanation = {explanation}
tldr = "{{n:count}} × 2 bytes = {{answer}}."
memory_aid = "{memory_aid}"
{numbers_ok}
[template.variables]
n = {{ choices = [7000000000, 13000000000] }}
hbm = {{ choices = [80000000000], unit = "bytes" }}
[template.answer]
expr = "2 * n"
unit = "bytes"

[[template.mistakes]]
name = "fp32"
answer = "4 * n"
feedback = "{feedback}"

[[template.parts]]
prompt = "How many such copies fit in {{hbm}}?"
explanation = "{{derivation}}"
tldr = "{part_tldr}"
answer = {{ expr = "hbm // part1", unit = "count" }}

[[template.follow_ups]]
question = "Which tokens does the T5 paper count?"
answer = "{follow_up}"
"""

CLEAN = {
    "explanation": '"Each weight takes 2 bytes in bf16 (4 in fp32), so a {n:si} model needs {answer}.\\n\\n'
    '{derivation}"',
    "memory_aid": "Two bytes a weight: 2 FLOPs a multiply-add, ÷ 3,600 s an hour, 2^30 bytes a GiB.",
    "feedback": "4 bytes per parameter is fp32; bf16 takes 2 bytes.",
    "part_tldr": "{hbm} ÷ {part1} = {answer}.",
    "follow_up": "The inputs: {n:sci} weights would read them all; GPT-2, Llama 2 70B, an H100 80GB and "
    "8-bit weights are names.",
    "numbers_ok": "",
}


def _findings(tmp_path: Path, **fields: str) -> tuple[str, list[TemplateError]]:
    path = tmp_path / "pack.toml"
    path.write_text(PACK.format(**{**CLEAN, **fields}), encoding="utf-8")
    bank = load_bank([str(path)])
    assert bank.problems() == []
    problems, count = check_template(bank.get("lit"), range(3), lints=chosen(only=("literals",)))
    assert count == 3
    return str(path), problems


def _one(tmp_path: Path, field: str, **fields: str) -> str:
    """The one finding the planted fields give: its file, template and field checked; its message."""
    path, problems = _findings(tmp_path, **fields)
    assert [(p.path, p.template_id, p.field) for p in problems] == [(path, "lit", field)]
    return problems[0].message


def test_the_clean_pack_has_no_finding(tmp_path: Path) -> None:
    """Placeholders, true constants (2 bytes, 4 in fp32, 2 FLOPs, ÷ 3,600 s, 2^30), names (GPT-2, Llama 2
    70B, H100 80GB, 8-bit) and the numbers of the prompt and conventions are no literals."""
    assert _findings(tmp_path)[1] == []


def test_a_follow_up_computing_tokens_by_hand_is_named(tmp_path: Path) -> None:
    """The issue's encdec example: 2^11 × 512 × 10^6 written out, and 1.07 × 10^12 (it is 1.05 × 10^12)."""
    message = _one(
        tmp_path,
        "follow_ups[0].answer",
        follow_up="2^11 sequences of 512 tokens for a million steps is 1.07 × 10^12 input tokens.",
    )
    assert "'1.07 × 10^12' (in scientific notation)" in message
    assert "'2^11' (with the unit 'sequences')" in message
    assert "'512' (with the unit 'tokens')" in message
    assert "placeholder or a computed variable" in message
    assert "numbers_ok" in message


def test_a_size_with_a_unit_in_a_later_parts_tldr_is_named_under_its_part(tmp_path: Path) -> None:
    message = _one(tmp_path, "parts[0].tldr", part_tldr="80 GB ÷ {part1} = {answer}.")
    assert message.startswith("writes out '80' (with the unit 'GB')")


def test_a_model_size_written_as_a_scale_is_named_but_not_in_a_models_name(tmp_path: Path) -> None:
    message = _one(
        tmp_path,
        "explanation",
        explanation='"A 70B model needs 140 GB; Llama 2 70B is a name.\\n\\n{derivation}"',
    )
    assert "'70B' (with the scale 'B')" in message
    assert "'140' (with the unit 'GB')" in message
    assert message.count("70B") == 1


def test_a_number_next_to_an_operator_in_a_mistakes_feedback_is_named(tmp_path: Path) -> None:
    message = _one(tmp_path, "mistakes[0].feedback", feedback="That is 4 × 7 = 28 GB: fp32, not bf16.")
    assert "'7' (next to '×')" in message
    assert "'28' (with the unit 'GB')" in message
    assert "'4'" not in message  # 4 bytes per fp32 value: a true constant


def test_a_constant_with_a_unit_it_does_not_count_is_named(tmp_path: Path) -> None:
    """2 is a constant as bytes per bf16 value, not as a size in GiB."""
    message = _one(tmp_path, "memory_aid", memory_aid="Two bytes a weight: a 1B model is 2 GiB.")
    assert "'1B' (with the scale 'B')" in message
    assert "'2' (with the unit 'GiB')" in message


def test_a_conditional_text_part_is_named_by_its_index(tmp_path: Path) -> None:
    explanation = '[{ text = "{derivation}" }, { text = "Here 2.5 × more.", when = "n > 1" }]'
    message = _one(tmp_path, "explanation[1]", explanation=explanation)
    assert message.startswith("writes out '2.5' (next to '×')")


def test_a_number_declared_in_numbers_ok_is_no_finding(tmp_path: Path) -> None:
    ok = 'numbers_ok = [{ number = "1.4T", why = "Chinchilla\'s published token count" }]'
    assert _findings(tmp_path, memory_aid="Chinchilla ate 1.4T tokens.", numbers_ok=ok)[1] == []
    assert "1.4T" in _one(tmp_path, "memory_aid", memory_aid="Chinchilla ate 1.4T tokens.")


def test_a_numbers_ok_entry_no_text_writes_is_named(tmp_path: Path) -> None:
    ok = 'numbers_ok = [{ number = "2017", why = "the year of the paper" }]'
    message = _one(tmp_path, "numbers_ok[0].number", numbers_ok=ok)
    assert message.startswith("'2017' is written out in no teaching text")


@pytest.mark.parametrize(
    ("text", "literals"),
    [
        ("2,048 × 512 = 1,048,576 sequences", ["2,048", "512", "1,048,576"]),
        ("about 1.2 ms a step, 40% of peak, $2 an hour", ["1.2", "40", "$2"]),
        ("a 7-billion-parameter model on 512-token prompts", ["7-billion", "512"]),
        ("D ≈ 20·N and C = 120·N²", ["20", "120"]),
        ("5.9e23 FLOPs; 10⁶ steps; 3.2× the data; √(C/40)", ["5.9e23", "10⁶", "3.2×", "40"]),
        ("{n} × 3 + 2 FLOPs, 16 bytes per parameter, 8 bits, 1,024 × 2^20, 100%, 86,400 s", []),
        ("a GiB is 7.4% more than a GB, and 7.4 GB is a size", ["7.4"]),
        ("2 bytes/param in bf16 against 16 bytes/param, not 18 bytes/param", ["18"]),
        ("$2 per 1M tokens, $/1M, 2s ÷ (1 + s), but 1M steps and 30s", ["$2", "1M", "30"]),
        ("1.07 × 10^12 inputs, 2^11 of them, 10^9 alone", ["1.07 × 10^12", "2^11"]),
        ("GPT-2, Llama-3-8B, gpt-oss-120b, A100-80GB, H100, fp8, e4m3, T5 v1.1, ViT-L/14", []),
        ("Mixtral 8x7B, Qwen2.5 7B, Llama 3.1 405B, the 3rd layer, n-1 = {k}", []),
    ],
)
def test_the_scan_tells_literals_from_names_and_constants(text: str, literals: list[str]) -> None:
    assert [literal.written for literal in scan(text)] == literals


def test_n_minus_one_is_a_subtraction_and_a_name_hyphen_is_not() -> None:
    """ "(n-7)" subtracts a hand-written 7; "GPT-7" names a model."""
    assert [x.written for x in scan("(n-7) and GPT-7")] == ["7"]


@pytest.mark.parametrize(
    ("written", "value"),
    [
        ("2,048", Fraction(2048)),
        ("2^30", Fraction(1073741824)),
        ("1.07 × 10^12", Fraction(1070000000000)),
        ("5.9e23", Fraction(59) * 10**22),
        ("10⁶", Fraction(1000000)),
        ("0.25", Fraction(1, 4)),
    ],
)
def test_a_number_is_read_as_written(written: str, value: Fraction) -> None:
    assert value_of(written) == value
