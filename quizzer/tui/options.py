"""What a mode is opened with: filters, sizes and seeds (a seed of None: a fresh random one)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from quizzer.core.record import Record

if TYPE_CHECKING:
    from quizzer.bank.generate.instance import Instance


class DrillOptions(Record):
    """A drill: filters, one template, a seed (with a template: the first question is template#seed), and
    the order templates are drawn in (one of quizzer.session.drill.ORDERS)."""

    topic: str | None = None
    difficulty: str | None = None
    template_id: str | None = None
    seed: int | None = None
    order: str = "random"
    plan: tuple[str, ...] = ()
    """Templates asked first, in this order (the placement drill of a first run)."""
    only: tuple[str, ...] = ()
    """Only these templates (a cram session's weakest, the leeches); empty: all that match."""
    mode: str = "drill"
    """What the attempts record: "drill", or "cram" (the weakest, the schedule untouched)."""
    session_id: str | None = None
    """The session the attempts join (a placement drill resumed); None: a new one."""
    placement: bool = False
    """The plan is the guided start's placement: once through it, its mark is finished and a path shown."""
    slips: bool = False
    """Only the templates where your most frequent recorded slip families can happen (read at the start)."""


class CramOptions(Record):
    """A cram session: the ``count`` weakest templates (of a topic), the schedule untouched."""

    topic: str | None = None
    count: int = 10
    seed: int | None = None


class MockOptions(Record):
    """A mock interview: how many questions, how many minutes, a topic and a seed."""

    count: int = 8
    minutes: float = 20
    topic: str | None = None
    seed: int | None = None


class StudyOptions(Record):
    """A study session: a topic, the daily limit of new templates, a seed."""

    topic: str | None = None
    new_per_day: int = 10
    seed: int | None = None
    until: str | None = None
    """An interview date, YYYY-MM-DD (study --until): today's planned reviews toward it come first."""


class InterviewOptions(Record):
    """An interviewer's session: ``count`` questions (of a topic) drawn as a mock draws them, or the
    questions given (``instances``: ID#SEED on the command line, a set file); where the set and the report
    are written (None: the interviews folder beside the history, named by the time the interview began)."""

    count: int = 8
    topic: str | None = None
    seed: int | None = None
    instances: tuple[Instance, ...] = ()
    save_set: str | None = None
    report: str | None = None
