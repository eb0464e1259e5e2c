"""Progress per template and per topic from the history: accuracy, mastery, the weakest topic."""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from quizzer.bank.read.schema import DIFFICULTIES
from quizzer.core.record import Record
from quizzer.session.records import RIGHT, Attempt, SessionMark

if TYPE_CHECKING:
    from quizzer.bank.read.schema import Template

#: Verdicts that are not answers (a skip, a mock question left when its time ran out).
UNANSWERED = frozenset({"skipped", "timed-out"})
#: Answers a topic needs before it can be named the weakest.
WEAKEST_MIN_ANSWERS = 3
#: The last answers of a template its recent accuracy is taken over.
RECENT_ANSWERS = 5


class TemplateProgress(Record):
    """One template's answers in the history (skips and time-outs are not answers)."""

    template_id: str
    answered: int = 0
    right: int = 0
    recent: tuple[bool, ...] = ()
    """Its last answers (at most RECENT_ANSWERS), oldest first: True for a right one."""
    times: tuple[float, ...] = ()
    """Its last answers' times against the template's expected minutes (2.0: twice as long), oldest first."""

    @property
    def slowness(self) -> float | None:
        """The median of its recent times against expected; None when no answer was timed."""
        if not self.times:
            return None
        ordered = sorted(self.times)
        middle = len(ordered) // 2
        return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2

    @property
    def last_right(self) -> bool:
        """Its last answer was right (False when it was never answered)."""
        return bool(self.recent) and self.recent[-1]

    @property
    def recent_accuracy(self) -> float | None:
        """Right among its last answers; None when it was never answered."""
        return sum(self.recent) / len(self.recent) if self.recent else None


class TopicProgress(Record):
    """One topic: its templates, its answers, and how many of its templates were last answered right."""

    topic: str
    templates: int
    answered: int = 0
    right: int = 0
    mastered: int = 0
    """Templates of the topic whose last answer was right."""

    @property
    def accuracy(self) -> float | None:
        """right / answered; None when nothing was answered."""
        return self.right / self.answered if self.answered else None

    @property
    def mastery(self) -> float:
        """The share of the topic's templates whose last answer was right, in [0, 1]."""
        return self.mastered / self.templates if self.templates else 0.0


def template_progress(attempts: Iterable[Attempt]) -> dict[str, TemplateProgress]:
    """Each answered template's progress, from ``attempts`` in the order they were made.

    >>> from quizzer.session.records import Attempt
    >>> def at(t, verdict): return Attempt(t, 1, {}, "", None, 1, "", verdict, None, None, 1.0, 0)
    >>> p = template_progress([at("a", "wrong"), at("a", "exact"), at("b", "skipped")])
    >>> p["a"].answered, p["a"].right, p["a"].last_right, p["a"].recent_accuracy, "b" in p
    (2, 1, True, 0.5, False)
    """
    tallies: dict[str, tuple[list[bool], list[float]]] = {}  # id -> (right or not, time ratios), in order
    for attempt in attempts:
        if attempt.verdict not in UNANSWERED:
            tally = tallies.get(attempt.template_id)
            if tally is None:
                tally = tallies[attempt.template_id] = ([], [])
            tally[0].append(attempt.verdict in RIGHT)
            if (ratio := time_ratio(attempt)) is not None:
                tally[1].append(ratio)
    # As folding ``with_answer`` over each template's answers, one record per template, not per answer.
    return {
        t: TemplateProgress(
            t, len(rights), sum(rights), tuple(rights[-RECENT_ANSWERS:]), tuple(times[-RECENT_ANSWERS:])
        )
        for t, (rights, times) in tallies.items()
    }


def time_ratio(attempt: Attempt) -> float | None:
    """The attempt's time against its template's expected minutes (None when they were not recorded)."""
    return attempt.seconds / (60 * attempt.minutes) if attempt.minutes > 0 else None


def with_answer(
    progress: TemplateProgress | None, template_id: str, right: bool, time_ratio: float | None = None
) -> TemplateProgress:
    """``progress`` (None: never answered) after one more answer, right or not, taking ``time_ratio`` of
    the expected minutes (None: not timed).

    >>> with_answer(with_answer(None, "a", False), "a", True)
    TemplateProgress(template_id='a', answered=2, right=1, recent=(False, True), times=())
    >>> with_answer(with_answer(None, "a", True, 3.0), "a", True, 1.0).slowness
    2.0
    """
    before = progress or TemplateProgress(template_id)
    times = before.times if time_ratio is None else (*before.times, time_ratio)[-RECENT_ANSWERS:]
    return TemplateProgress(
        template_id,
        before.answered + 1,
        before.right + right,
        (*before.recent, right)[-RECENT_ANSWERS:],
        times,
    )


def topic_progress(attempts: Iterable[Attempt], topics: Mapping[str, str]) -> list[TopicProgress]:
    """Each topic of the bank (``topics``: template id -> topic), sorted by name: its template count,
    right / answered over the history of its templates, and its templates last answered right.
    Attempts at templates no longer in the bank are left out.

    >>> from quizzer.session.records import Attempt
    >>> def at(t, verdict): return Attempt(t, 1, {}, "", None, 1, "", verdict, None, None, 1.0, 0)
    >>> history = [at("a", "exact"), at("b", "wrong"), at("b", "skipped"), at("gone", "exact")]
    >>> [(p.topic, p.templates, p.answered, p.right, p.mastered)
    ...  for p in topic_progress(history, {"a": "x", "b": "x", "c": "y"})]
    [('x', 2, 2, 1, 1), ('y', 1, 0, 0, 0)]
    """
    per_template = template_progress(attempts)
    tallies: dict[str, list[int]] = {}  # topic -> [templates, answered, right, mastered]
    for template_id, topic in topics.items():
        tally = tallies.setdefault(topic, [0, 0, 0, 0])
        tally[0] += 1
        progress = per_template.get(template_id)
        if progress is not None:
            tally[1] += progress.answered
            tally[2] += progress.right
            tally[3] += progress.last_right
    return [TopicProgress(topic, *tallies[topic]) for topic in sorted(tallies)]


def weakest_topic(
    progress: Iterable[TopicProgress], min_answers: int = WEAKEST_MIN_ANSWERS
) -> TopicProgress | None:
    """The topic of lowest accuracy among those with at least ``min_answers`` answers (the first by name
    on a tie); None when no topic has that many.

    >>> weakest_topic([TopicProgress("a", 1, 4, 1), TopicProgress("b", 1, 2, 0), TopicProgress("c", 1, 3, 2)])
    TopicProgress(topic='a', templates=1, answered=4, right=1, mastered=0)
    """
    candidates = [p for p in progress if p.answered >= min_answers]
    return min(candidates, key=lambda p: (p.right / p.answered, p.topic), default=None)


#: Questions in the placement drill of a first run.
PLACEMENT_QUESTIONS = 8


def placement_ids(templates: Iterable[Template], *, seed: int, count: int = PLACEMENT_QUESTIONS) -> list[str]:
    """A first run's placement: one template from each of ``count`` main topics (those with the most
    templates), easy to hard: the first third of the questions easy, the next medium, the last hard (each
    slot takes a topic, in a seeded order, that has its difficulty, else the nearest one). The same seed,
    the same list.

    >>> from quizzer.core.record import Record
    >>> class T(Record):
    ...     id: str
    ...     topic: str
    ...     difficulty: str
    >>> ts = [T(f"{t}-{d}", t, d) for t in "abc" for d in ("easy", "medium", "hard")]
    >>> [t.split("-")[1] for t in placement_ids(ts, seed=1, count=3)]
    ['easy', 'medium', 'hard']
    >>> placement_ids(ts, seed=4, count=3) == placement_ids(ts, seed=4, count=3)
    True
    """
    rng = random.Random(seed)
    by_topic: dict[str, list[Template]] = {}
    for template in templates:
        by_topic.setdefault(template.topic, []).append(template)
    remaining = sorted(by_topic, key=lambda topic: (-len(by_topic[topic]), topic))[:count]
    rng.shuffle(remaining)
    rank = {d: n for n, d in enumerate(DIFFICULTIES)}
    picks: list[tuple[int, str]] = []
    for slot in range(len(remaining)):
        target = slot * len(DIFFICULTIES) // len(remaining)

        def distance(template: Template, target: int = target) -> int:
            return abs(rank[template.difficulty] - target)

        # the topic that has a template nearest this slot's difficulty (the first in the shuffled order)
        topic = min(remaining, key=lambda topic: min(distance(t) for t in by_topic[topic]))
        remaining.remove(topic)
        nearest = min(distance(t) for t in by_topic[topic])
        fits = sorted((t for t in by_topic[topic] if distance(t) == nearest), key=lambda t: t.id)
        chosen = rng.choice(fits)
        picks.append((rank[chosen.difficulty], chosen.id))
    return [template_id for _, template_id in sorted(picks, key=lambda p: p[0])]


def suggested_path(progress: Iterable[TopicProgress]) -> list[str]:
    """The topics to study in order: the answered ones by accuracy, lowest first (then fewer mastered,
    then by name), then those not answered yet.

    >>> suggested_path([TopicProgress("a", 2, 1, 1, 1), TopicProgress("b", 1, 1, 0), TopicProgress("c", 3)])
    ['b', 'a', 'c']
    """
    return [
        p.topic
        for p in sorted(
            progress,
            key=lambda p: (p.answered == 0, p.right / p.answered if p.answered else 0.0, p.mastery, p.topic),
        )
    ]


#: The session mode of a placement drill's mark in the history.
PLACEMENT = "placement"


class Guide(Record):
    """Where the guided start stands: no placement yet, one to resume, or the path a finished one suggests."""

    session: str | None = None
    """The latest placement drill's session (None: none was started)."""
    plan: tuple[str, ...] = ()
    """Its templates, in order."""
    remaining: tuple[str, ...] = ()
    """Its templates not answered or skipped yet, in order (empty once it is done)."""
    path: tuple[str, ...] = ()
    """Once it is done: the topics of its templates, weakest first over the whole history."""

    @property
    def resumable(self) -> bool:
        """A placement was started and left before its last question."""
        return bool(self.remaining)


def placement_guide(
    sessions: Iterable[SessionMark], attempts: Iterable[Attempt], topics: Mapping[str, str]
) -> Guide:
    """The guided start from the history: the latest placement drill's mark (``sessions``), which of its
    templates its session has attempts at, and, once every one has, the suggested path over their topics
    (``topics``: template id -> topic) from every attempt at them.

    >>> from quizzer.session.records import Attempt, SessionMark
    >>> mark = SessionMark("p1", PLACEMENT, 0.0, 2, plan=("a", "b"))
    >>> def at(t, verdict):
    ...     return Attempt(t, 1, {}, "", None, 1, "", verdict, None, None, 1.0, 0, session="p1")
    >>> placement_guide([mark], [at("a", "wrong")], {"a": "x", "b": "y"}).remaining
    ('b',)
    >>> placement_guide([mark], [at("a", "wrong"), at("b", "exact")], {"a": "x", "b": "y"}).path
    ('x', 'y')
    """
    marks = [m for m in sessions if m.mode == PLACEMENT and m.plan]
    if not marks:
        return Guide()
    mark = max(marks, key=lambda m: m.started)
    history = list(attempts)
    done = {a.template_id for a in history if a.session == mark.session}
    remaining = tuple(t for t in mark.plan if t not in done)
    if remaining:
        return Guide(mark.session, mark.plan, remaining)
    mine = {t: topics[t] for t in mark.plan if t in topics}
    return Guide(mark.session, mark.plan, (), tuple(suggested_path(topic_progress(history, mine))))
