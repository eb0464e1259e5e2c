"""per_template: what depends only on a template is worked out once per template object."""

from __future__ import annotations

from quizzer.bank.generate import per_template as module
from quizzer.bank.generate.derivation import template_labels, variable_labels
from quizzer.bank.generate.draw import constraint_schedule
from quizzer.bank.generate.per_template import per_template
from tests.builtin_bank import builtin_bank

BANK = builtin_bank()  # validated once per test process, shared


def test_worked_out_once_per_template_and_again_for_another() -> None:
    calls: list[str] = []
    titled = per_template(lambda t: calls.append(t.id) or t.title)
    first, other = BANK.get("embedding-table-params"), BANK.get("kv-cache-bytes")
    assert titled(first) == first.title
    assert titled(first) == first.title
    assert titled(other) == other.title
    changed = first.replace(title="Another title")  # a new template object, the same id
    assert titled(changed) == "Another title"
    assert calls == ["embedding-table-params", "kv-cache-bytes", "embedding-table-params"]


def test_it_starts_afresh_past_its_bound(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(module, "KEPT", 2)
    calls: list[str] = []
    ids = per_template(lambda t: calls.append(t.id) or t.id)
    templates = BANK.templates()[:3]
    for template in templates:
        ids(template)
    ids(templates[0])  # forgotten when the third came
    assert len(calls) == 4


def test_the_kept_answers_are_the_ones_worked_out_each_time() -> None:
    for template in BANK.templates():
        assert constraint_schedule(template) is constraint_schedule(template)
        labels = template_labels(template)
        assert labels == variable_labels(template)
        labels["mine"] = "changed"  # a copy: the next caller's is as worked out
        assert "mine" not in template_labels(template)
