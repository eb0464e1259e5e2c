"""draw's loop without own numbers (the hot one, inlined) against its general loop."""

from __future__ import annotations

import random

from quizzer.bank.expr.expression import Budget
from quizzer.bank.generate.draw import draw
from tests.builtin_bank import builtin_bank

BANK = builtin_bank()  # validated once per test process, shared


def test_the_plain_draw_is_the_general_one_without_own_numbers() -> None:
    """draw's loop for no own numbers (inlined) makes the env, in the same order, and leaves the stream
    where the general loop does (given a name no variable has, the general loop runs with nothing fixed);
    it charges no more (a rejected draw's derived variables that no constraint reads are left unevaluated,
    tests/bank/test_draw_pending.py), and as much where no draw is rejected (no constraints)."""
    unconstrained = 0
    for template in BANK.templates():
        for seed in range(3):
            plain_rng, general_rng = (
                random.Random(f"{template.id}#{seed}"),
                random.Random(f"{template.id}#{seed}"),
            )
            plain_budget, general_budget = Budget(), Budget()
            plain, _ = draw(template, plain_rng, {}, plain_budget)
            general, _ = draw(template, general_rng, {"no_such_variable": 1}, general_budget)
            assert list(plain.items()) == list(general.items()), template.id
            assert plain_rng.getstate() == general_rng.getstate(), template.id
            assert plain_budget.left >= general_budget.left, template.id
            if not template.main.constraints:
                unconstrained += 1
                assert plain_budget.left == general_budget.left, template.id
    assert unconstrained  # the equal charges were compared
