"""Cram: the weakest templates by recent results and FSRS recall, practised without touching the schedule."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from quizzer.core.record import Record
from quizzer.session.progress import TemplateProgress
from quizzer.session.records import CardState

#: Templates a cram session goes through (`quizzer cram --count`).
CRAM_COUNT = 10


class Weakness(Record):
    """Why a template is crammed: its strength, the mean of what is known of it (recent accuracy, recall)."""

    template_id: str
    strength: float
    """In [0, 1]: the mean of ``recent_accuracy`` and ``recall`` where known; lowest is crammed first."""
    recent_accuracy: float | None
    """Right among its last answers (None: never answered)."""
    recall: float | None
    """FSRS's probability of recall now (None: never studied)."""


def weakest(
    template_ids: Iterable[str],
    progress: Mapping[str, TemplateProgress],
    cards: Mapping[str, CardState],
    recall: Callable[[CardState], float],
    count: int = CRAM_COUNT,
) -> list[Weakness]:
    """The ``count`` weakest of ``template_ids`` that were answered or studied, weakest first (ties by id).

    ``progress`` is each template's answers (``template_progress``); ``recall`` gives a card's probability
    of recall now (``Scheduler.retrievability``). A template neither answered nor studied is not weak, only
    new: cram leaves it out (a drill's "unseen" order finds those).

    >>> from quizzer.session.progress import TemplateProgress
    >>> progress = {"a": TemplateProgress("a", 4, 3, (True, False, True, True)),
    ...             "b": TemplateProgress("b", 2, 0, (False, False))}
    >>> cards = {"a": CardState("a", "{}", 0.0, 0.0), "c": CardState("c", "{}", 0.0, 0.0)}
    >>> [(w.template_id, w.strength) for w in weakest("abcd", progress, cards, lambda c: 0.5)]
    [('b', 0.0), ('c', 0.5), ('a', 0.625)]
    """
    out = []
    for template_id in dict.fromkeys(template_ids):
        answered = progress.get(template_id)
        accuracy = answered.recent_accuracy if answered is not None else None
        card = cards.get(template_id)
        chance = recall(card) if card is not None else None
        known = [x for x in (accuracy, chance) if x is not None]
        if known:
            out.append(Weakness(template_id, sum(known) / len(known), accuracy, chance))
    out.sort(key=lambda w: (w.strength, w.template_id))
    return out[: max(count, 0)]
