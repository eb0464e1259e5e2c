"""Past mocks from the history: a line per mock, and its report rebuilt from the attempts it recorded."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from quizzer.core.record import Record
from quizzer.session.records import RIGHT, Attempt, SessionMark

if TYPE_CHECKING:
    from quizzer.bank.generate.render import Instance
    from quizzer.bank.read.schema import Template
    from quizzer.grading.grade import Verdict
    from quizzer.session.mock import MockReport

# The list is read by `quizzer stats`; rebuilding a report (grading) imports the mock and the grader.

#: Verdicts of a question not answered (left blank, or the time ran out).
_UNANSWERED = frozenset({"skipped", "timed-out"})


class PastMock(Record):
    """One finished mock in the history: when, its score and how long it took."""

    session: str
    started: float
    """Epoch seconds: its session mark's start, else its first attempt's."""
    questions: int
    right: int
    """Questions with every part right."""
    answered: int
    seconds_used: float
    timed_out: bool
    minutes: float | None = None
    """Its time limit, when the history has it (mocks recorded since version 5 of the schema)."""


def question_groups(attempts: Iterable[Attempt]) -> list[list[Attempt]]:
    """A mock's attempts, in the order recorded, grouped by question: a chain's parts 1, 2, ... together.

    >>> from quizzer.session.records import Attempt
    >>> a = Attempt("t", 1, {}, "", None, 1, "", "exact", None, None, 1.0, 0, mode="mock")
    >>> [[x.part for x in g] for g in question_groups([a, a.replace(part=1), a.replace(part=2), a])]
    [[None], [1, 2], [None]]
    """
    groups: list[list[Attempt]] = []
    for attempt in attempts:
        first = attempt.part is None or attempt.part == 1 or not groups
        if not first and (groups[-1][0].template_id, groups[-1][0].seed) != (
            attempt.template_id,
            attempt.seed,
        ):
            first = True
        if first:
            groups.append([attempt])
        else:
            groups[-1].append(attempt)
    return groups


def past_mocks(attempts: Iterable[Attempt], sessions: Iterable[SessionMark] = ()) -> list[PastMock]:
    """Every mock with recorded attempts, newest first (a mock records its attempts when it is submitted,
    so one left unfinished has none and is not listed)."""
    marks = {m.session: m for m in sessions if m.mode == "mock"}
    by_session: dict[str, list[Attempt]] = {}
    for attempt in attempts:
        if attempt.mode == "mock":
            by_session.setdefault(attempt.session, []).append(attempt)
    out = []
    for session, recorded in by_session.items():
        groups = question_groups(recorded)
        mark = marks.get(session)
        out.append(
            PastMock(
                session,
                mark.started if mark is not None else min(a.at for a in recorded),
                len(groups),
                sum(all(a.verdict in RIGHT for a in g) for g in groups),
                sum(g[0].verdict not in _UNANSWERED for g in groups),
                sum(a.seconds for a in recorded),
                any(a.verdict == "timed-out" for a in recorded),
                mark.minutes if mark is not None else None,
            )
        )
    out.sort(key=lambda m: (-m.started, m.session))
    return out


class RebuiltReport(Record):
    """A past mock's report and the questions it had to leave out (their template is gone, or changed so
    that the same seed no longer gives the question that was asked)."""

    report: MockReport
    left_out: int


def rebuild_report(
    attempts: Sequence[Attempt],
    *,
    generate: Callable[[str, int], Instance | None],
    template_of: Callable[[str], Template | None],
    minutes: float | None = None,
) -> RebuiltReport:
    """The report of a past mock from its ``attempts`` (one session's, in the order recorded): each
    question is generated again from its ``id#seed`` and its answers graded again for their reading and
    feedback; the verdicts, answers and times shown are the ones recorded. A regrade that disagrees with
    the recorded verdict (the grader changed since) shows the recorded verdict without feedback."""
    from quizzer.session.chain import grade_part
    from quizzer.session.mock import MockResult, PartOutcome, build_report

    results: list[MockResult] = []
    left_out = 0
    for group in question_groups(attempts):
        first = group[0]
        instance = generate(first.template_id, first.seed)
        if instance is None or instance.value != first.expected or instance.part_count < len(group):
            left_out += 1
            continue
        template = template_of(first.template_id) if instance.part_count > 1 else None
        earlier: dict[int, int | float | None] = {}
        outcomes: list[PartOutcome] = []
        for number, attempt in enumerate(group, 1):
            verdict: Verdict | None = None
            if attempt.answer and attempt.verdict not in _UNANSWERED:
                graded = grade_part(template, instance, number, attempt.answer, earlier).verdict
                verdict = graded if graded.kind == attempt.verdict else None
            earlier[number] = attempt.value
            outcomes.append(PartOutcome(number, attempt, verdict))
        results.append(
            MockResult(
                len(results),
                instance,
                outcomes[0].attempt,
                outcomes[0].verdict,
                instance.minutes * 60.0,
                tuple(outcomes[1:]),
            )
        )
    report = build_report(
        tuple(results),
        total=len(results),
        seconds_used=sum(a.seconds for a in attempts),
        timed_out=any(a.verdict == "timed-out" for a in attempts),
        total_seconds=(minutes or 0.0) * 60.0,
    )
    return RebuiltReport(report, left_out)
