"""Drills aimed at you (#28): your most frequent slip families and the templates where they can happen;
your slowest templates against their expected minutes first."""

from __future__ import annotations

from collections import Counter

from quizzer.bank.errors import TemplateError
from quizzer.session.chain import template_lookup
from quizzer.session.drill import DrillSession
from quizzer.session.progress import template_progress, with_answer
from quizzer.session.records import Attempt
from quizzer.session.slips import families_of, slip_counts, slip_family, templates_for, top_slips
from tests.builtin_bank import builtin_bank


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def attempt(
    template_id: str, verdict: str, mistake: str | None = None, seconds: float = 60, minutes: float = 2
):
    """An attempt at ``template_id#1`` (its mistake matched, ``seconds`` spent on ``minutes`` expected)."""
    return Attempt(template_id, 1, {}, "x", 1, 1, "", verdict, 1.0, mistake, seconds, 0, minutes=minutes)


def test_a_built_in_slip_has_its_family_and_a_templates_own_mistake_its_declared_one() -> None:
    lookup = template_lookup(builtin_bank())
    assert slip_family(attempt("kv-cache-bytes", "wrong", "gb-vs-gib"), lookup("kv-cache-bytes")) == "gb-gib"
    assert slip_family(attempt("kv-cache-bytes", "wrong", "fp32-for-bf16"), None) == "dtype"
    template = builtin_bank().get("kv-cache-bytes")
    own = next(m for m in template.main.mistakes if m.family not in (None, "own"))
    assert slip_family(attempt("kv-cache-bytes", "wrong", own.name), template) == own.family
    assert slip_family(attempt("kv-cache-bytes", "exact"), template) is None


def test_the_most_frequent_families_first_and_own_mistakes_left_out() -> None:
    lookup = template_lookup(builtin_bank())
    attempts = [attempt("kv-cache-bytes", "wrong", "gb-vs-gib")] * 3 + [
        attempt("kv-cache-bytes", "wrong", "heads-for-kv-heads"),
        attempt("kv-cache-bytes", "wrong", "a-mistake-no-template-has"),  # a template's own: "own"
    ]
    counts = slip_counts(attempts, lookup)
    assert counts == Counter({"gb-gib": 3, "kv-heads": 1})
    assert top_slips(counts) == ["gb-gib", "kv-heads"]
    assert top_slips(Counter()) == []


def test_a_slips_drill_takes_templates_never_answered_where_the_family_is_built_in() -> None:
    bank = builtin_bank()

    def generate(template_id: str):  # type: ignore[no-untyped-def]
        try:
            return bank.generate(template_id, 1)
        except (KeyError, TemplateError):
            return None

    ids = bank.ids()
    chosen = templates_for(["kv-heads"], ids, generate)
    assert "preset-kv-bytes-per-token" in chosen  # a real model's cache: query heads for KV heads
    assert "embedding-table-params" not in chosen  # no heads at all
    assert all("kv-heads" in families_of(bank.generate(t, 1)) for t in chosen)
    assert set(templates_for(["gb-gib", "kv-heads"], ids, generate)) >= set(chosen)


def test_slowness_is_the_median_time_against_expected() -> None:
    attempts = [
        attempt("a", "exact", seconds=360, minutes=2),  # 3×
        attempt("a", "wrong", seconds=60, minutes=2),  # 0.5×
        attempt("a", "exact", seconds=120, minutes=2),  # 1×
        attempt("b", "skipped", seconds=999, minutes=2),  # a skip is no answer
    ]
    progress = template_progress(attempts)
    assert progress["a"].slowness == 1.0
    assert "b" not in progress


def test_slowest_draws_the_slowest_against_expected_first_and_the_untimed_last() -> None:
    full = builtin_bank()
    ids = full.matching_ids(topic="kv-cache")
    slow, middling, quick = ids[:3]

    def timed(template_id: str, *ratios: float):  # type: ignore[no-untyped-def]
        progress = None
        for ratio in ratios:
            progress = with_answer(progress, template_id, True, ratio)
        return progress

    progress = {
        quick: timed(quick, 0.5, 0.6),
        slow: timed(slow, 2.5, 3.0, 1.0),
        middling: timed(middling, 1.2),
    }
    for seed in range(4):
        s = DrillSession(
            full, seed=seed, clock=FakeClock(), topic="kv-cache", order="slowest", progress=progress
        )
        assert s.instance.template_id == slow
        assert [s.next().template_id for _ in range(2)] == [middling, quick]
        rest = {s.next().template_id for _ in range(len(ids) - 3)}
        assert rest == set(ids) - {slow, middling, quick}


def test_counting_slips_reads_a_template_only_for_its_own_mistakes() -> None:
    """Reading a template validates it (Stats over a long history waited on every one): an attempt with
    no slip, or a built-in one, is counted without it."""
    read: list[str] = []
    template = builtin_bank().get("kv-cache-bytes")
    own = next(m for m in template.main.mistakes if m.family not in (None, "own"))

    def lookup(template_id: str):  # type: ignore[no-untyped-def]
        read.append(template_id)
        return template

    attempts = [attempt("kv-cache-bytes", "exact"), attempt("gpt-total-params", "wrong", "gb-vs-gib")] * 5
    assert slip_counts(attempts, lookup) == Counter({"gb-gib": 5})
    assert read == []
    assert slip_counts([attempt("kv-cache-bytes", "wrong", own.name)], lookup) == Counter({own.family: 1})
    assert read == ["kv-cache-bytes"]
