"""A lazy instance (``generate(..., lazy=True)``): what a drill shows first is made at once, the rest on
first need, and the rest equals the eager instance's; a rest that cannot be made fails when it is asked
for, with the eager instance's error, every time it is asked for."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from quizzer.bank.errors import TemplateError
from quizzer.bank.generate import render
from quizzer.bank.generate.render import generate
from quizzer.bank.loader import load_bank
from tests.builtin_bank import builtin_bank

UNMADE = Path(__file__).resolve().parents[1] / "data" / "lazy"
BANK = builtin_bank()  # validated once per test process, shared


def _shown(instance):  # type: ignore[no-untyped-def]
    """What the drill screen reads to paint a question (meta line, prompt, conventions)."""
    return (
        instance.id,
        instance.title,
        instance.topic,
        instance.difficulty,
        instance.minutes,
        instance.part_count,
        instance.prompt,
        instance.conventions,
        instance.value,
        instance.display,
        instance.tolerance_text,
        instance.warnings,
        instance.references,
    )


@pytest.mark.parametrize("template", BANK.templates(), ids=lambda t: t.id)
def test_a_lazy_instance_shows_the_same_question_and_completes_to_the_eager_one(template) -> None:  # type: ignore[no-untyped-def]
    for seed in (1, 2):
        eager = generate(template, seed)
        lazy = generate(template, seed, lazy=True)
        assert _shown(lazy) == _shown(eager)
        assert not lazy.is_complete
        assert not lazy.main.is_complete
        assert lazy.complete() == eager  # every field, every part
        assert lazy.is_complete
        assert lazy.main is lazy.parts[0]


def test_its_rest_fails_when_asked_for_with_the_eager_error_every_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    (template,) = load_bank([str(UNMADE)]).templates()
    made = []
    rest = render._Renderer.rest
    monkeypatch.setattr(render._Renderer, "rest", lambda self, chosen: made.append(1) or rest(self, chosen))
    with pytest.raises(TemplateError) as eager:
        generate(template, 1)
    lazy = generate(template, 1, lazy=True)
    assert "heads" in lazy.prompt
    assert lazy.value == 3
    for read in (lambda: lazy.explanation, lambda: lazy.parts, lazy.complete):
        with pytest.raises(TemplateError) as later:
            read()
        assert str(later.value) == str(eager.value)
        assert later.value.field == "explanation"
    assert not lazy.is_complete
    assert len(made) == 2  # once for the eager instance, once for the lazy one: a failure is kept


def test_the_bank_keeps_a_rest_that_failed_as_a_problem() -> None:
    bank = load_bank([str(UNMADE)])
    instance = bank.generate("unmade-rest", 1, lazy=True)
    assert list(bank.problems()) == []
    with pytest.raises(TemplateError):
        bank.completed(instance)
    assert [p.field for p in bank.problems()] == ["explanation"]


def test_two_threads_completing_it_make_it_once() -> None:
    template = BANK.get("walkthrough-dense-gqa")
    eager = generate(template, 7)
    for _ in range(20):
        lazy = generate(template, 7, lazy=True)
        start, results = threading.Barrier(2), []

        def complete(lazy=lazy, start=start, results=results) -> None:  # type: ignore[no-untyped-def]
            start.wait()
            results.append(lazy.complete().parts)

        threads = [threading.Thread(target=complete) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert results[0] is results[1]  # the same tuple: made once
        assert lazy == eager
