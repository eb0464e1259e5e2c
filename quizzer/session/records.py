"""Attempt: one graded answer, as the history store will persist it."""

from __future__ import annotations

from typing import Any

from quizzer.core.record import Record


class Attempt(Record):
    """A graded attempt at one instance."""

    template_id: str
    seed: int
    variables: dict[str, Any]
    answer: str
    """The answer as typed ('' for a skip)."""
    value: int | float | None
    """The value read from the answer (None when skipped)."""
    expected: int | float
    unit: str
    verdict: str
    """exact | correct | close | wrong | skipped"""
    rel_error: float | None
    mistake: str | None
    seconds: float
    hints: int
    mode: str = "drill"
