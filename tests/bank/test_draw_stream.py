"""A drawn value is read from the seed's stream exactly as random.Random's choice and randint read it."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from quizzer.bank.generate.draw import _below


@given(st.integers(0, 2**32), st.lists(st.integers(), min_size=1, max_size=300), st.integers(0, 10**6))
def test_below_draws_what_choice_and_randint_draw_and_leaves_the_stream_alike(
    seed: int, seq: list[int], top: int
) -> None:
    ours, theirs = random.Random(seed), random.Random(seed)
    assert seq[_below(ours, len(seq))] == theirs.choice(seq)
    assert _below(ours, top + 1) == theirs.randint(0, top)
    assert 7 + _below(ours, top + 1) == theirs.randint(7, 7 + top)
    assert ours.getstate() == theirs.getstate()  # what the next draw reads is the same too


def test_a_later_part_that_draws_nothing_reads_no_stream() -> None:
    from quizzer.bank.generate import render
    from quizzer.bank.generate.render import generate
    from tests.builtin_bank import builtin_bank

    chains = [t for t in builtin_bank().templates() if len(t.parts) > 1]
    drawing = [t for t in chains if any(v.expr is None for spec in t.parts[1:] for v in spec.variables)]
    before = render._UNREAD.getstate()
    for template in chains:  # a part that draws reads its own stream, one that does not reads none
        generate(template, 1, lazy=True).complete()
    assert drawing
    assert len(drawing) < len(chains)
    assert render._UNREAD.getstate() == before  # the stream given those that draw nothing was never read


def test_draw_count_is_how_many_values_a_drawn_variable_takes() -> None:
    from quizzer.bank.generate.draw import draw_count, draw_value
    from tests.builtin_bank import builtin_bank

    rng, checked = random.Random(7), 0
    for template in builtin_bank().templates():
        for spec in template.parts:
            for var in spec.variables:
                if var.expr is not None or draw_count(var) > 12:
                    continue
                seen = {repr(draw_value(var, rng)) for _ in range(300)}
                distinct = len({repr(v) for v in var.spec}) if var.kind in ("choices", "preset") else None
                assert len(seen) == (distinct or draw_count(var)), (template.id, var.name)
                checked += 1
    assert checked > 50
