"""What the screen rows run on: a history of 10,000 attempts, Browse searches, a chain of three parts."""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any


def history_db(path: Path, bank: Any, count: int = 10_000) -> None:
    """A history of ``count`` attempts at the bank's own templates over 60 days, every verdict and some
    named mistakes (cram and Stats read them), written through the store as the app writes them."""
    from quizzer.session.records import VERDICTS, Attempt
    from quizzer.store.history import HistoryStore

    templates, now = bank.templates(), time.time()
    store = HistoryStore.open(str(path))
    try:
        for i in range(count):
            template = templates[i * 7 % len(templates)]
            slipped = i % 13 == 0
            store.record(
                Attempt(
                    template_id=template.id,
                    seed=i,
                    variables={},
                    answer="16.4M",
                    value=16_400_000,
                    expected=16_384_000,
                    unit="params",
                    verdict="wrong" if slipped else VERDICTS[i % 6],
                    rel_error=0.001,
                    mistake="counted-the-head-twice" if slipped else None,
                    mistake_title="Counted the head twice" if slipped else None,
                    seconds=30.0 + i % 90,
                    hints=i % 2,
                    mode="drill",
                    at=now - 86_400 * 60 * (count - i) / count,
                    session=f"s{i // 20}",
                    topic=template.topic,
                    minutes=template.minutes,
                )
            )
    finally:
        store.close()


def browse_queries(bank: Any, seed: int) -> list[tuple[str, Any]]:
    """(query, template) pairs: typing the query's last character moves Browse's preview to the template
    (the query's first match is it; the first match of the query less that character is another)."""
    from quizzer.tui.screens.browse import matches

    ordered = sorted(bank.templates(), key=lambda t: (t.topic, t.difficulty, t.id))

    def first(query: str) -> Any:
        return next((t for t in ordered if matches(t, query)), None)

    pairs = []
    for template in random.Random(seed).sample(ordered, len(ordered)):
        for length in range(3, len(template.id) + 1):
            query = template.id[:length]
            if first(query) is template and first(query[:-1]) is not template:
                pairs.append((query, template))
                break
    return pairs


def chain_template(bank: Any) -> str:
    """The first template (by id) whose questions have three parts or more."""
    from quizzer.bank.generate.render import generate

    for template in sorted(bank.templates(), key=lambda t: t.id):
        if generate(template, 1).part_count >= 3:
            return str(template.id)
    raise SystemExit("bench: no built-in template is a chain of three parts")
