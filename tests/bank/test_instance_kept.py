"""A whole instance is given again for a seed that drew the same numbers: what it would be made afresh."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from quizzer.bank.expr.expression import Budget
from quizzer.bank.generate.render import generate
from quizzer.bank.loader import load_bank
from quizzer.bank.read.schema import Template
from quizzer.commands.show import instance_json

HEAD = """
[[template]]
id = "{id}"
title = "Embedding table"
topic = "testing"
difficulty = "easy"
minutes = 1
kind = "exact"
prompt = "vocab {{vocab}}, d_model {{d_model}}: how many parameters does the table hold?"
explanation = "Rows times columns, plus {{extra}}."
tldr = "V × d."
answer = {{ expr = "vocab * d_model + extra", unit = "params" }}
[template.variables]
vocab = {{ choices = [32000, 50257] }}
d_model = {{ choices = [512, 512.0] }}
extra = {{ range = [0, {top}] }}
[[template.parts]]
prompt = "And with {{copies}} copies of the table?"
explanation = "{{copies}} times part 1."
answer = {{ expr = "copies * part1", unit = "params" }}
"""
#: Part 2's copies: derived from part 1's numbers (the instance follows from part 1's draw), or drawn.
DERIVED = 'copies = { expr = "extra + 2" }'
DRAWN = "copies = { range = [2, 9] }"


def _template(tmp_path: Path, template_id: str, copies: str, top: int = 3) -> Template:
    text = HEAD.format(id=template_id, top=top) + "[template.parts.variables]\n" + copies
    (tmp_path / "q.toml").write_text(text)
    (template,) = load_bank([str(tmp_path)]).templates()
    return template


def _shown(instance: object) -> str:
    """What `show --json` prints of an instance: every field, and each number's type (2 against 2.0)."""
    return json.dumps(instance_json(instance), sort_keys=True)  # type: ignore[arg-type]


def test_a_seed_that_drew_the_same_numbers_is_given_the_kept_instance_as_made_afresh(tmp_path: Path) -> None:
    template = _template(tmp_path, "kept-instance", DERIVED)
    first: dict[tuple[object, ...], object] = {}
    kept = 0
    for seed in range(60):
        instance = generate(template, seed)
        drawn = tuple((v, type(v)) for v in (instance.variables[n] for n in ("vocab", "d_model", "extra")))
        if drawn in first:
            kept += instance.parts is first[drawn]  # given again: the same parts, not made anew
        else:
            first[drawn] = instance.parts
        assert instance.id == f"kept-instance#{seed}"
        assert instance.seed == seed
        # a budget of the caller's own: made afresh, never from memory
        assert _shown(instance) == _shown(generate(template, seed, budget=Budget()))
    assert len(first) == 16  # 2 vocabs × 2 types of d_model × 4 extras: 512 and 512.0 kept apart
    assert kept == 60 - 16  # every repeat given again


@pytest.mark.parametrize(
    ("copies", "top"),
    [(DRAWN, 3), (DERIVED, 16)],  # a later part draws; part 1 can draw 2 × 2 × 17 = 68 sets, over 64
    ids=["later-part-draws", "many-draws"],
)
def test_a_template_whose_draw_does_not_tell_or_seldom_repeats_is_made_afresh_for_every_seed(
    tmp_path: Path, copies: str, top: int
) -> None:
    template = _template(tmp_path, f"kept-{top}", copies, top)
    drawn = set()
    parts: list[object] = []  # kept alive: an id is not reused
    for seed in range(40):
        instance = generate(template, seed)
        drawn.add(repr((instance.variables, instance.parts[1].variables)))
        parts.append(instance.parts)
        assert _shown(instance) == _shown(generate(template, seed, budget=Budget()))
    assert len(drawn) < 40  # some seeds drew the same numbers
    assert len({id(p) for p in parts}) == 40  # none given again: part 1's draw does not tell part 2's


def test_own_numbers_and_a_lazy_instance_are_made_afresh(tmp_path: Path) -> None:
    template = _template(tmp_path, "kept-own", DERIVED)
    whole = [generate(template, seed) for seed in range(20)]
    for seed in range(20, 40):
        lazy = generate(template, seed, lazy=True)
        assert not lazy.is_complete  # never a kept whole instance
        given = generate(template, seed, {"extra": 1})
        assert given.variables["extra"] == 1
        assert all(given.parts is not made.parts for made in whole)
