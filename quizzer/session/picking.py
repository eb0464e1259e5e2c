"""pick_instances: a seeded set of distinct questions for a mock, validating templates as they are drawn."""

from __future__ import annotations

import random

from quizzer.bank.errors import TemplateError
from quizzer.bank.loader import Bank
from quizzer.bank.render import Instance, generate


def pick_instances(
    bank: Bank, *, count: int, seed: int, topic: str | None = None, difficulty: str | None = None
) -> list[Instance]:
    """``count`` questions from distinct templates that match (repeating templates only when there are
    fewer than ``count``), each with its own seed; the same seed gives the same questions.

    Raises ValueError when no template matches.
    """
    rng = random.Random(seed)
    candidates = bank.scanned_ids()
    rng.shuffle(candidates)
    chosen = []
    for template_id in candidates:
        raw = bank.peek(template_id)
        if raw is None or (topic is not None and raw.get("topic") != topic):
            continue
        if difficulty is not None and raw.get("difficulty") != difficulty:
            continue
        try:
            chosen.append(bank.get(template_id))
        except TemplateError:
            continue
        if len(chosen) == count:
            break
    if not chosen:
        raise ValueError("no template matches these filters")
    instances = []
    for i in range(count):
        try:
            instances.append(generate(chosen[i % len(chosen)], rng.randrange(1_000_000)))
        except TemplateError:  # this template cannot make an instance: the mock has one question fewer
            continue
    if not instances:
        raise ValueError("no template matches these filters")
    return instances
