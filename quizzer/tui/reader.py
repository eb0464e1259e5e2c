"""HistoryReader: every read of the history the app shows, made in worker threads, never on the UI thread."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import attrgetter
from typing import TYPE_CHECKING

from quizzer.bank.loader import load_bank
from quizzer.bank.read.control import CONTROL, visible
from quizzer.session.records import Attempt
from quizzer.tui.clock import local_midnight, utc_offset_seconds
from quizzer.tui.writer import HistoryWriter

if TYPE_CHECKING:
    from quizzer.bank.generate.render import Instance
    from quizzer.session.bank_facts import BankFacts
    from quizzer.session.deadline import DeadlinePlan
    from quizzer.session.past_mocks import PastMock, RebuiltReport
    from quizzer.session.progress import Guide, TemplateProgress, TopicProgress
    from quizzer.session.queue import StudyStatus
    from quizzer.session.records import CardState
    from quizzer.session.stats import Stats
    from quizzer.store.history import HistoryStore


#: The text fields of an attempt a screen may show (Stats, past mocks and their reports).
_SHOWN_FIELDS = (
    "template_id",
    "answer",
    "unit",
    "verdict",
    "mode",
    "session",
    "topic",
    "mistake",
    "mistake_title",
)


def shown(attempts: list[Attempt]) -> list[Attempt]:
    """``attempts`` with every control character in their texts written as its escape (``\\x1b``): an
    imported side file may hold anything, and Textual passes ESC and C1 through to the terminal. An attempt
    without one is returned as it is (its id still finds its template)."""
    texts_of = attrgetter(*_SHOWN_FIELDS)
    every = "\n".join([t for a in attempts for t in texts_of(a) if isinstance(t, str)])  # \n: not CONTROL
    if not CONTROL.search(every):  # one search over them all: a history seldom holds one
        return list(attempts)
    out = []
    for a in attempts:
        texts = dict(zip(_SHOWN_FIELDS, texts_of(a), strict=True))
        if any(isinstance(t, str) and CONTROL.search(t) for t in texts.values()):
            a = a.replace(**{n: visible(t) for n, t in texts.items() if isinstance(t, str)})
        out.append(a)
    return out


class HistoryReader:
    """The reads behind Home (study due, progress, the guided start), Stats, past mocks, study and cram at
    their start, leeches and export. Each is called in a worker thread (the app's ``read``, or a screen's
    ``@work(thread=True)``), first waits for the writes submitted so far, and touches no bank the UI thread
    uses: what it needs of the bank comes in as plain values taken on the UI thread, or from a bank it loads
    for itself in that call.
    """

    def __init__(
        self,
        store: HistoryStore,
        writer: HistoryWriter,
        question_paths: Sequence[str],
        *,
        wall: Callable[[], float],
        new_per_day: int,
        desired_retention: float,
        interview_date: str | None = None,
        daily_minutes: float = 30.0,
    ) -> None:
        self.store = store
        self.writer = writer
        self.question_paths = question_paths  # as given: a PackPaths carries the packs its banks add later
        self.wall = wall
        self.new_per_day = new_per_day
        self.desired_retention = desired_retention
        #: The interview date studied toward (YYYY-MM-DD; None: plain FSRS) and its daily budget.
        self.interview_date, self.daily_minutes = interview_date, daily_minutes

    # --- Home ---------------------------------------------------------------------------------------------

    def study_status(self, template_ids: Sequence[str]) -> StudyStatus:
        """What a study session over ``template_ids`` would ask now, and the size of the history."""
        from quizzer.session.queue import study_status

        self.writer.drain()
        now = self.wall()
        return study_status(
            self.store.cards(),
            template_ids,
            now=now,
            midnight=local_midnight(now),
            new_per_day=self.new_per_day,
            attempts=self.store.count(),
        )

    def deadline_plan(self, template_ids: Sequence[str]) -> DeadlinePlan | None:
        """The plan toward the interview date over ``template_ids`` (None without a date): today's reviews,
        the days left, whether it fits the daily minutes."""
        if not self.interview_date:
            return None
        from datetime import datetime

        from quizzer.config import parse_date
        from quizzer.session.deadline import date_start, study_plan

        day = parse_date(self.interview_date)
        if day is None:
            return None
        self.writer.drain()
        tz = datetime.now().astimezone().tzinfo
        assert tz is not None
        return study_plan(
            load_bank(self.question_paths),
            self.store.cards(),
            template_ids,
            now=self.wall(),
            date=date_start(day, tz),
            daily_minutes=self.daily_minutes,
            desired_retention=self.desired_retention,
        )

    def progress(self, topics: dict[str, str]) -> list[TopicProgress]:
        """Each topic's accuracy and mastery; ``topics`` maps the bank's template ids to their topics."""
        from quizzer.session.progress import topic_progress

        self.writer.drain()
        return topic_progress(self.store.attempts(), topics)

    def guide(self) -> Guide:
        """Where the guided start stands: a placement to resume, or the path a finished one suggests."""
        from quizzer.session.progress import placement_guide

        self.writer.drain()
        sessions = self.store.sessions()
        guide = placement_guide(sessions, (), {})
        if guide.session is None:
            return guide
        bank = load_bank(self.question_paths)  # its own: reads the files' ids, then the plan's files
        topics: dict[str, str] = {}
        for template_id in guide.plan:
            raw = bank.peek(template_id)
            if raw is not None and isinstance(topic := raw.get("topic"), str):
                topics[template_id] = topic
        return placement_guide(sessions, self.store.attempts(), topics)

    # --- Stats, past mocks, export ---------------------------------------------------------------------

    def stats(
        self, facts: BankFacts | None = None, summary: Callable[[Stats], object] | None = None
    ) -> Stats:
        """The Stats screen's figures, its leeches and past mocks. What they need of the bank comes from
        ``facts`` (taken from the app's loaded bank on the UI thread), else from a bank loaded here (slower:
        the templates of the slips recorded are validated). ``summary`` is first given the summary line's
        figures (``summary_stats``), from a light pass, to be shown while the rest is computed."""
        from quizzer.session.leeches import leeches
        from quizzer.session.past_mocks import past_mocks
        from quizzer.session.slips import family_counts, top_slip, top_slip_of
        from quizzer.session.stats import compute_stats, difficulties, titles

        self.writer.drain()
        now = self.wall()
        read, sessions = self.store.attempts(), self.store.sessions()
        if summary is not None:
            from quizzer.session.stats_summary import summary_stats

            offset = utc_offset_seconds(now)
            summary(summary_stats(read, now=now, utc_offset_seconds=offset, sessions=sessions))
        attempts = shown(read)
        suspended = [c for c in self.store.cards() if c.suspended is not None]
        if facts is not None:
            difficulty_of, title_of = facts.difficulty_of, facts.title_of
            slip = top_slip_of(family_counts(attempts, facts.families))
        else:
            from quizzer.session.chain import template_lookup

            bank = load_bank(self.question_paths)
            title_of = titles(bank, (c.template_id for c in suspended))
            difficulty_of = difficulties(bank, (a.template_id for a in attempts))
            slip = top_slip(attempts, template_lookup(bank))
        return compute_stats(
            attempts,
            now=now,
            utc_offset_seconds=utc_offset_seconds(now),
            sessions=sessions,
            difficulty_of=difficulty_of,
        ).replace(
            leeches=tuple(leeches(suspended, lambda t: title_of.get(t, visible(t)))),
            mocks=tuple(past_mocks(attempts, sessions)),
            top_slip=slip,
        )

    def past_mocks(self) -> list[PastMock]:
        """Every finished or unfinished mock, newest first."""
        from quizzer.session.past_mocks import past_mocks

        self.writer.drain()
        return past_mocks(shown(self.store.attempts(mode="mock")), self.store.sessions())

    def past_mock_report(self, session: str) -> RebuiltReport:
        """The report of the past mock ``session``, rebuilt from the history (see ``rebuild_report``)."""
        from quizzer.bank.errors import TemplateError
        from quizzer.session.chain import template_lookup
        from quizzer.session.past_mocks import rebuild_report

        self.writer.drain()
        bank = load_bank(self.question_paths)
        mine = [a for a in shown(self.store.attempts(mode="mock")) if a.session == session]
        marks = [m for m in self.store.sessions() if m.session == session]

        from quizzer.bank.model_bank import replay
        from quizzer.core.errors import QuizzerError

        recorded = {(a.template_id, a.seed): a.variables for a in mine}

        def generate(template_id: str, seed: int) -> Instance | None:
            try:  # asked about a model (--model): again about it, its config kept in the attempt
                return replay(bank, template_id, seed, recorded.get((template_id, seed), {}))
            except (KeyError, TemplateError, QuizzerError):
                return None

        return rebuild_report(
            mine,
            generate=generate,
            template_of=template_lookup(bank),
            minutes=marks[0].minutes if marks else None,
        )

    def history_csv(self) -> str:
        """Every attempt as CSV, as `quizzer export --format csv` writes it."""
        from quizzer.store.rows import to_csv

        self.writer.drain()
        return to_csv(self.store.attempts())

    # --- what a mode reads before it starts ---------------------------------------------------------------

    def study_cards(self, new_per_day: int) -> tuple[dict[str, CardState], int]:
        """Every study card by template id, and how many new templates are left today of ``new_per_day``."""
        from quizzer.session.queue import new_left_today

        self.writer.drain()
        cards = {c.template_id: c for c in self.store.cards()}
        return cards, new_left_today(cards.values(), local_midnight(self.wall()), new_per_day)

    def slip_drill(self, template_ids: Sequence[str]) -> tuple[list[str], list[str]]:
        """(your most frequent slip families, the templates of ``template_ids`` where they can happen):
        what a slips drill asks; ([], []) when the history recorded no slip."""
        from quizzer.bank.errors import TemplateError
        from quizzer.session.chain import template_lookup
        from quizzer.session.slips import slip_counts, templates_for, top_slips

        self.writer.drain()
        bank = load_bank(self.question_paths)
        families = top_slips(slip_counts(shown(self.store.attempts()), template_lookup(bank)))
        if not families:
            return [], []

        def generate(template_id: str) -> Instance | None:
            try:
                return bank.generate(template_id, 1)
            except (KeyError, TemplateError):
                return None

        return families, templates_for(families, template_ids, generate)

    def template_progress(self) -> dict[str, TemplateProgress]:
        """Each template's answers so far (a drill ordered by weakness or by what is unseen)."""
        from quizzer.session.progress import template_progress

        self.writer.drain()
        return template_progress(self.store.attempts())

    def weakest(
        self, template_ids: Sequence[str], count: int
    ) -> tuple[list[str], dict[str, TemplateProgress]]:
        """The weakest of ``template_ids`` a cram session asks, weakest first (recent results and recall), and
        each template's progress (the drill that crams them orders by it: one read for both)."""
        from quizzer.session.cram import weakest
        from quizzer.session.progress import template_progress
        from quizzer.session.srs import Scheduler

        self.writer.drain()
        now, scheduler = self.wall(), Scheduler(desired_retention=self.desired_retention)
        progress = template_progress(self.store.attempts())
        ranked = weakest(
            template_ids,
            progress,
            {c.template_id: c for c in self.store.cards()},
            lambda card: scheduler.retrievability(card, now),
            count,
        )
        return [w.template_id for w in ranked], progress

    def suspended(self, template_ids: Sequence[str]) -> list[CardState]:
        """The cards of ``template_ids`` that are suspended leeches."""
        self.writer.drain()
        wanted = set(template_ids)
        return [c for c in self.store.cards() if c.template_id in wanted and c.suspended is not None]
