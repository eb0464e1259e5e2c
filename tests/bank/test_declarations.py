"""The keys a template declares with a reason (omissions_ok, numbers_ok, same_as_ok): each value valid,
each reason given, each value once; a bad one names the file, the template and the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from quizzer.bank.loader import load_bank

PACK = """
[[template]]
id = "decl"
title = "Declarations fixture"
topic = "fixtures"
difficulty = "easy"
minutes = 2
kind = "exact"
prompt = "A table of {{v}} rows × 512: how many parameters?"
explanation = "{{derivation}}"
tldr = "{{answer}}."
{top}
[template.variables]
v = {{ choices = [32000] }}
[template.answer]
expr = "v * 512"
unit = "params"

[[template.parts]]
prompt = "And twice that?"
explanation = "{{derivation}}"
answer = {{ expr = "2 * part1", unit = "params" }}
{part}
"""


def _problems(tmp_path: Path, top: str = "", part: str = "") -> list[tuple[str, str]]:
    path = tmp_path / "pack.toml"
    path.write_text(PACK.format(top=top, part=part), encoding="utf-8")
    bank = load_bank([str(path)])
    return [(p.field, p.message) for p in bank.problems() if p.template_id == "decl"]


@pytest.mark.parametrize(
    ("top", "part", "field", "words"),
    [
        ('omissions_ok = [{ step = " ", why = "x" }]', "", "omissions_ok[0].step", "must not be empty"),
        ('omissions_ok = [{ step = "v", why = "" }]', "", "omissions_ok[0].why", "the reason the omission"),
        (
            'omissions_ok = [{ step = "v", why = "a" }, { step = "v", why = "b" }]',
            "",
            "omissions_ok[1].step",
            "'v' is declared twice",
        ),
        ('numbers_ok = [{ number = "", why = "x" }]', "", "numbers_ok[0].number", "the number as the text"),
        ('numbers_ok = [{ number = "2017", why = " " }]', "", "numbers_ok[0].why", "a year, a name"),
        (
            'numbers_ok = [{ number = "2017", why = "a" }, { number = "2017", why = "b" }]',
            "",
            "numbers_ok[1].number",
            "'2017' is declared twice",
        ),
        (
            "",
            'same_as_ok = [{ part = 2, why = "x" }]',
            "parts[0].same_as_ok[0].part",
            "an earlier part (1 to 1)",
        ),
        (
            "",
            'same_as_ok = [{ part = 1, why = "a" }, { part = 1, why = "b" }]',
            "parts[0].same_as_ok[1].part",
            "part 1 is declared twice",
        ),
    ],
)
def test_a_bad_declaration_names_its_field(
    tmp_path: Path, top: str, part: str, field: str, words: str
) -> None:
    ((where, message),) = _problems(tmp_path, top, part)
    assert where == field
    assert words in message


def test_good_declarations_load(tmp_path: Path) -> None:
    top = 'numbers_ok = [{ number = "2017", why = "a year" }]'
    assert _problems(tmp_path, top, 'same_as_ok = [{ part = 1, why = "by design" }]') == []
