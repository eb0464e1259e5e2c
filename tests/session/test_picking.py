"""fit_instances: a mock's draw fits its time budget (±20%) over many seeds, or says why it cannot."""

from __future__ import annotations

from functools import cache

import pytest

from quizzer.bank.loader import Bank, load_bank
from quizzer.session.picking import fit_instances


@cache
def real_bank() -> Bank:
    from quizzer.paths import question_paths

    bank = load_bank(question_paths())
    bank.templates()
    return bank


def reachable_sums(minutes: list[int], count: int) -> set[int]:
    """Every total of ``count`` distinct items of ``minutes`` (a subset-sum table, not the code tested)."""
    table: list[set[int]] = [set() for _ in range(count + 1)]
    table[0].add(0)
    for m in minutes:
        for k in range(count, 0, -1):
            table[k] |= {s + m for s in table[k - 1]}
    return table[count]


def feasible(bank: Bank, count: int, minutes: float, topic: str | None = None) -> bool:
    values = [int(t.minutes) for t in bank.templates() if topic is None or t.topic == topic]
    return any(0.8 * minutes <= s <= 1.2 * minutes for s in reachable_sums(values, count))


@pytest.mark.parametrize(("count", "minutes"), [(8, 20), (8, 40), (5, 12), (3, 30), (10, 60), (4, 9)])
def test_the_draw_fits_the_budget_over_many_seeds(count: int, minutes: float) -> None:
    bank = real_bank()
    assert feasible(bank, count, minutes)
    for seed in range(40):
        instances = fit_instances(bank, count=count, minutes=minutes, seed=seed)
        assert len(instances) == count
        assert len({i.template_id for i in instances}) == count  # distinct templates
        total = sum(i.minutes for i in instances)
        assert 0.8 * minutes <= total <= 1.2 * minutes, (seed, total)


def test_a_topic_draw_fits_or_says_why() -> None:
    bank = real_bank()
    for topic in sorted({t.topic for t in bank.templates()}):
        for seed in range(5):
            if not feasible(bank, 3, 12, topic):
                with pytest.raises(ValueError, match=r"^no 3 questions"):
                    fit_instances(bank, count=3, minutes=12, seed=seed, topic=topic)
                continue
            instances = fit_instances(bank, count=3, minutes=12, seed=seed, topic=topic)
            assert {i.topic for i in instances} == {topic}
            assert 9.6 <= sum(i.minutes for i in instances) <= 14.4


def test_the_same_seed_gives_the_same_questions() -> None:
    bank = real_bank()
    first = [i.id for i in fit_instances(bank, count=8, minutes=20, seed=3)]
    assert first == [i.id for i in fit_instances(bank, count=8, minutes=20, seed=3)]
    others = {tuple(i.id for i in fit_instances(bank, count=8, minutes=20, seed=s)) for s in range(10)}
    assert len(others) == 10  # seeds differ: draws differ


def test_an_impossible_budget_names_the_shortest_set() -> None:
    bank = real_bank()
    shortest = sum(sorted(int(t.minutes) for t in bank.templates())[:8])
    with pytest.raises(ValueError, match=r"^no ") as caught:
        fit_instances(bank, count=8, minutes=5, seed=1)
    assert str(caught.value) == f"no 8 questions fit 5 minutes: the shortest 8 take {shortest}"


def test_a_budget_too_long_names_the_longest_set() -> None:
    bank = real_bank()
    longest = sum(sorted(int(t.minutes) for t in bank.templates())[-3:])
    with pytest.raises(ValueError, match=r"^no ") as caught:
        fit_instances(bank, count=3, minutes=200, seed=1)
    assert str(caught.value) == f"no 3 questions fill 200 minutes: the longest 3 take {longest}"


def test_no_matching_template() -> None:
    with pytest.raises(ValueError, match="no template matches"):
        fit_instances(real_bank(), count=3, minutes=10, seed=1, topic="no-such-topic")
