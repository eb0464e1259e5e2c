"""A draw's derived variables are evaluated when first read (``Pending``): a constraint guards the ones
after it, and a lazy instance evaluates only what the question shows until it is completed (an
estimate's mistakes, which its question does not read, included)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from quizzer.bank.errors import TemplateError
from quizzer.bank.expr.expression import Budget
from quizzer.bank.generate.draw import draw, n_layers_in
from quizzer.bank.generate.pending import Pending
from quizzer.bank.generate.render import generate
from quizzer.bank.loader import load_bank
from tests.builtin_bank import builtin_bank

BANK = builtin_bank()  # validated once per test process, shared

GUARDED = """
[[template]]
id = "guarded"
title = "A derived variable only a kept draw can evaluate"
topic = "testing"
difficulty = "easy"
minutes = 1
kind = "exact"
prompt = "What is {inverse} times {x}?"
explanation = "It is one."
tldr = "One."
answer = { expr = "inverse * x", unit = "count" }
variables = { x = { choices = [0, 1] }, inverse = { expr = "1 / x" }, z = { choices = [1, 2] } }
constraints = ["x > 0 and z > 0"]
"""

SHOWN_LATER = """
[[template]]
id = "shown-later"
title = "A derived variable only the explanation reads"
topic = "testing"
difficulty = "easy"
minutes = 1
kind = "exact"
prompt = "How many heads are there when there are {heads} heads?"
explanation = "Per head: {per_head}."
tldr = "Count them."
answer = { expr = "heads", unit = "count" }

[template.variables]
heads = { range = [3, 3] }
zero = { expr = "heads - 3" }
per_head = { expr = "heads / zero" }
"""


def _template(tmp_path: Path, text: str):  # type: ignore[no-untyped-def]
    (tmp_path / "t.toml").write_text(text)
    (template,) = load_bank([str(tmp_path)]).templates()
    return template


def test_a_rejected_draw_never_evaluates_what_its_constraint_guards(tmp_path: Path) -> None:
    """``inverse`` divides by ``x``, drawn 0 half the time: the constraint rejects those draws before it
    is read (it is read by no constraint), so every seed poses the question."""
    template = _template(tmp_path, GUARDED)
    zero_first = 0
    for seed in range(1, 21):
        zero_first += random.Random(f"guarded#{seed}").choice([0, 1]) == 0
        instance = generate(template, seed)
        assert instance.value == 1
        assert instance.variables["x"] == 1
        assert list(instance.variables) == ["x", "inverse", "z"]
    assert zero_first  # some seed drew x = 0 first: an eager draw would have divided by it


def test_a_lazy_instance_evaluates_what_it_does_not_show_on_completion(tmp_path: Path) -> None:
    template = _template(tmp_path, SHOWN_LATER)
    lazy = generate(template, 1, lazy=True)
    assert lazy.value == 3
    assert "3 heads" in lazy.prompt
    with pytest.raises(TemplateError) as failed:
        lazy.complete()
    assert failed.value.field == "variables.per_head.expr"
    assert "division by zero" in failed.value.message
    with pytest.raises(TemplateError) as eager:
        generate(template, 1)
    assert str(eager.value) == str(failed.value)


def test_reading_every_name_evaluates_the_rest_in_the_eager_order() -> None:
    for template in BANK.templates()[:40]:
        seed_rng = random.Random(f"{template.id}#3")
        env, _ = draw(template, seed_rng, {}, Budget(), lazy=True)
        eager, _ = draw(template, random.Random(f"{template.id}#3"), {}, Budget())
        assert isinstance(env, Pending)
        assert type(eager) is dict
        assert n_layers_in(env) == n_layers_in(eager), template.id
        assert all(env.get(name) == value for name, value in eager.items()), template.id
        assert all(name in env for name in eager), template.id
        assert list(env.settled().items()) == list(eager.items()), template.id
        assert list(env.items()) != [], template.id
        assert dict(env) == eager, template.id


def test_a_lazy_draw_leaves_unread_variables_unevaluated() -> None:
    template = BANK.get("walkthrough-dense-gqa")
    env, _ = draw(template, random.Random("walkthrough-dense-gqa#1"), {}, Budget(), lazy=True)
    assert isinstance(env, Pending)
    derived = [v.name for v in template.main.variables if v.expr is not None]
    assert env.later  # some are read by no constraint
    assert set(env.later) <= set(derived)
    name = next(iter(env.later))
    value = env[name]
    assert name not in env.later
    assert dict.__getitem__(env, name) == value


ESTIMATE = """
[[template]]
id = "estimate-broken-mistake"
title = "An estimate whose mistake cannot be evaluated"
topic = "testing"
difficulty = "easy"
minutes = 1
kind = "estimate"
prompt = "Roughly how many heads are there when there are {heads} heads?"
explanation = "Count them."
tldr = "Count them."
answer = { expr = "heads", unit = "count" }

[template.variables]
heads = { range = [3, 3] }
zero = { expr = "heads - 3" }

[[template.mistakes]]
name = "divided-by-nothing"
answer = "heads / zero"
feedback = "Nothing to divide by."
"""


def test_an_estimates_mistakes_are_not_evaluated_before_its_question_is_shown(tmp_path: Path) -> None:
    """An estimate asks for no figures, and the figures are all a question shown reads of its mistakes:
    they are evaluated when the rest is made (and fail then, as the eager instance does)."""
    template = _template(tmp_path, ESTIMATE)
    assert template.main.tolerance.kind == "factor"
    lazy = generate(template, 1, lazy=True)
    assert lazy.value == 3
    assert "estimate" in lazy.tolerance_text or "factor" in lazy.tolerance_text
    with pytest.raises(TemplateError) as failed:
        lazy.complete()
    assert failed.value.field == "mistakes[0].answer"
    with pytest.raises(TemplateError) as eager:
        generate(template, 1)
    assert str(eager.value) == str(failed.value)
