"""The check's acceptance estimate: rarely satisfiable templates reported, and its early stop changes no
verdict (it stops once enough draws passed for the share to be at least 5%)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from quizzer.bank.check.run import MIN_ACCEPTANCE, acceptance_rate, check_template
from quizzer.bank.expr.expression import Budget
from quizzer.bank.loader import load_bank

TEMPLATE = """
[[template]]
id = "share"
title = "A constraint passed by a share of draws"
topic = "testing"
difficulty = "easy"
minutes = 1
kind = "exact"
prompt = "What is {{x}} doubled?"
explanation = "Twice {{x}}."
tldr = "Double it."
constraints = ["x <= {limit}"]
answer = {{ expr = "2 * x", unit = "count" }}
variables = {{ x = {{ range = [1, 1000] }} }}
"""


def _template(tmp_path: Path, limit: int):  # type: ignore[no-untyped-def]
    path = tmp_path / f"share{limit}.toml"
    path.write_text(TEMPLATE.format(limit=limit), encoding="utf-8")
    (template,) = load_bank([str(path)]).templates()
    return template


@pytest.mark.parametrize(("limit", "reported"), [(20, True), (40, True), (120, False), (900, False)])
def test_a_rarely_satisfiable_template_is_reported(tmp_path: Path, limit: int, reported: bool) -> None:
    problems, _ = check_template(_template(tmp_path, limit), range(3))
    rare = [p for p in problems if "rarely satisfiable" in p.message]
    assert bool(rare) == reported
    if reported:  # the share is of all 400 draws: about limit/1000
        share = float(rare[0].message.split(": ")[1].split("%")[0]) / 100
        assert abs(share - limit / 1000) < 0.03


@pytest.mark.parametrize("limit", [10, 30, 45, 50, 55, 60, 80, 300, 1000])
def test_stopping_early_never_changes_the_verdict(tmp_path: Path, limit: int) -> None:
    template = _template(tmp_path, limit)
    enough = math.ceil(MIN_ACCEPTANCE * 400)
    for seed in range(5):
        full = acceptance_rate(template, 400, seed)
        early = acceptance_rate(template, 400, seed, enough=enough)
        assert (early < MIN_ACCEPTANCE) == (full < MIN_ACCEPTANCE)
        if early < MIN_ACCEPTANCE:
            assert early == full  # it never stopped: the same 400 draws


def test_it_stops_once_enough_draws_passed(tmp_path: Path) -> None:
    template = _template(tmp_path, 1000)  # every draw passes
    whole, early = Budget(), Budget()
    assert acceptance_rate(template, 400, 0, whole) == 1.0
    assert acceptance_rate(template, 400, 0, early, enough=20) == 1.0
    assert (early.limit - early.left) * 20 == whole.limit - whole.left  # 20 draws evaluated, not 400
