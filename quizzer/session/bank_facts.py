"""BankFacts: what the history's readers need of the bank, as plain values taken from a loaded bank."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from quizzer.bank.errors import TemplateError
from quizzer.core.record import Record
from quizzer.session.slips import PartFamilies, mistake_families


class BankFacts(Record):
    """Plain dicts a worker thread reads instead of the bank (a Bank is not locked, and a fresh one would
    parse and validate the templates it is asked about): Stats' difficulties, leech titles and slips."""

    difficulty_of: Mapping[str, str]
    """Template id -> difficulty as written (every template whose table has one, valid or not)."""
    title_of: Mapping[str, str]
    """Template id -> title as written (as ``difficulty_of``)."""
    families: Mapping[str, PartFamilies]
    """Valid template id -> its ``mistake_families`` (an invalid template's mistakes are "own")."""


def bank_facts(bank: Any) -> BankFacts:
    """The facts of ``bank``, read from the tables and templates it already holds: call it on the thread
    that owns ``bank``, after every template was validated (``bank.templates()``), or it validates them.

    Args:
        bank: a loaded ``Bank``.

    Returns:
        Its BankFacts: the same values ``session.stats.difficulties``, ``titles`` and
        ``slips.mistake_families`` give for its ids.

    >>> from quizzer.bank.loader import Bank
    >>> bank_facts(Bank())
    BankFacts(difficulty_of={}, title_of={}, families={})
    """
    difficulty_of: dict[str, str] = {}
    title_of: dict[str, str] = {}
    ids = bank.ids()
    for template_id in ids:
        raw = bank.peek(template_id)
        if raw is None:
            continue
        if isinstance(difficulty := raw.get("difficulty"), str):
            difficulty_of[template_id] = difficulty
        if isinstance(title := raw.get("title"), str):
            title_of[template_id] = title
    families: dict[str, PartFamilies] = {}
    for template_id in ids:
        try:  # as ``chain.template_lookup``: an invalid template is None there, missing here
            families[template_id] = mistake_families(bank.get(template_id))
        except (KeyError, TemplateError):
            continue
    return BankFacts(difficulty_of, title_of, families)


__all__ = ["BankFacts", "bank_facts"]
