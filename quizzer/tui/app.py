"""QuizzerApp: the services (bank, history, settings, clocks); it builds sessions and opens screens."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.reactive import var
from textual.screen import Screen
from textual.widget import AwaitMount
from textual.worker import Worker, WorkerState

from quizzer.bank.errors import TemplateError
from quizzer.bank.loader import Bank, load_bank
from quizzer.config import ConfigError, Settings, check_keymap, check_theme, save_setting
from quizzer.session.drill import DrillSession
from quizzer.session.records import Attempt, CardState
from quizzer.tui.clock import local_midnight, utc_offset_seconds
from quizzer.tui.messages import OpenReport, OpenScreen, StartMode
from quizzer.tui.options import DrillOptions, MockOptions, StudyOptions
from quizzer.tui.screens.drill import DrillScreen
from quizzer.tui.writer import HistoryWriter

if TYPE_CHECKING:
    from quizzer.bank.render import Instance
    from quizzer.session.progress import TopicProgress
    from quizzer.session.queue import StudyStatus
    from quizzer.session.stats import Stats
    from quizzer.session.study import StudySession
    from quizzer.store.history import HistoryStore
    from quizzer.tui.screens.mock_start import MockPlan

# Home, Browse and Help are imported when first shown: `quizzer drill` paints its question without
# loading their widgets (DataTable, Select, OptionList...), which is a good part of its start-up time.

#: How long a history fault stays on screen: until it is dismissed (a click) or resolved, in practice.
HISTORY_FAULT_SECONDS = 24 * 3600


class QuizzerApp(App[None]):
    """Practice ML-systems sizing questions."""

    CSS_PATH = "quizzer.tcss"
    TITLE = "quizzer"
    SUB_TITLE = "ML-systems sizing practice"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", "Quit", id="quit", priority=True),
        Binding("f1", "help", "Help", show=False, id="help"),
    ]

    #: config.toml, where the theme picked in the palette is saved; None: it is not saved (tests).
    config_path: str | None = None

    #: The topics a finished placement drill suggests, weakest first (Home shows them); None before one.
    suggested_path: list[str] | None = None

    bank: var[Bank | None] = var(None, init=False)
    """The whole bank, validated in a worker: what Home, Browse and the palette list. None until then."""

    def __init__(
        self,
        question_paths: list[str],
        *,
        drill: DrillOptions | None = None,
        mock: MockOptions | None = None,
        study: StudyOptions | None = None,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
        seed_source: Callable[[], int] | None = None,
        bank: Bank | None = None,
        store: HistoryStore | None = None,
        settings: Settings | None = None,
        config_path: str | None = None,
    ) -> None:
        super().__init__()
        self.question_paths = question_paths
        self._start: DrillOptions | MockOptions | StudyOptions | None = drill or mock or study
        self.clock = clock
        #: Seconds since the epoch: stamps attempts and schedules reviews (never used to time a mock).
        self.wall = wall
        if store is None:
            from quizzer.store.history import HistoryStore

            store = HistoryStore.memory()
        #: Where every attempt and card goes (through the writer thread, in order).
        self.store: HistoryStore = store
        self.writer = HistoryWriter(on_error=self._write_failed)
        #: The user's defaults (config.toml): the mock's size, the daily limit of new templates.
        self.settings = settings or Settings()
        self._apply_settings(config_path)
        #: The daily limit of new templates in a study session (Home's Study button uses it too).
        self.new_per_day = study.new_per_day if study is not None else self.settings.new_per_day
        self._given_bank = bank
        #: The bank sessions draw from on the UI thread. It validates a template when a drill first draws it,
        #: so a drill starts before the worker is done; the worker never touches it (Bank is not locked).
        self._drill_bank: Bank | None = bank
        self._seed_source = seed_source or (lambda: int.from_bytes(os.urandom(3), "big"))

    # --- settings (config.toml) ----------------------------------------------------------------------

    def _apply_settings(self, config_path: str | None) -> None:
        """The theme and [keymap] of the settings; ConfigError for a theme or binding id that does not exist
        (raised before the app runs: the command line prints it in one line, as for any config error)."""
        where, theme, keymap = config_path or "config.toml", self.settings.theme, self.settings.keymap
        check_theme(where, theme, self.available_themes)
        if keymap:  # the screens' bindings are imported only for a keymap (a drill's start spares Home's)
            from quizzer.tui.screens.help import binding_ids

            check_keymap(where, keymap, binding_ids(self.BINDINGS))
            self.set_keymap(dict(keymap))
        if theme is not None:
            self.theme = theme
        self.config_path = config_path  # after the theme is set: setting it saves nothing

    def watch_theme(self, theme: str) -> None:
        """Save a theme picked in the palette to config.toml; a failure is one notification, the file kept."""
        if self.config_path is None:
            return
        try:
            save_setting(self.config_path, "theme", theme)
        except ConfigError as exc:
            self.notify(str(exc), title="Settings not saved", severity="error", markup=False)

    # --- start and services ---------------------------------------------------------------------------

    async def on_mount(self) -> None:
        for severity, message in self.store.notices:  # what opening the history found, before we listened
            self.history_notice(severity, message)
        self.store.on_notice = self.history_notice
        start, self._start = self._start, None
        opened = self.open_mode(start) if start is not None else None
        if opened is None:
            self.go_home()
        if self._given_bank is not None:
            self.bank = self._given_bank
        elif opened is None:
            self.load_bank()
        else:
            # After the question is painted (it is what you are waiting for): the worker's thread would
            # compete with the first paint for the interpreter.
            await opened
            self.call_after_refresh(self.load_bank)

    def on_unmount(self) -> None:
        self.writer.close()  # every attempt is in the store before the command closes it

    @work(thread=True, exclusive=True, exit_on_error=False, group="bank")
    def load_bank(self) -> Bank:
        """Parse and validate every template off the UI thread (a bank of its own: Bank is not locked)."""
        bank = load_bank(self.question_paths)
        bank.templates()
        return bank

    @on(Worker.StateChanged)
    def bank_worker(self, event: Worker.StateChanged) -> None:
        """The bank worker's end: its bank, or, if it failed, an empty bank that names the failure."""
        if event.worker.group != "bank":
            return
        if event.state == WorkerState.SUCCESS and isinstance(event.worker.result, Bank):
            self.bank = event.worker.result
        elif event.state == WorkerState.ERROR:
            failed = Bank()
            failed.file_problems.append(
                TemplateError(
                    ", ".join(self.question_paths), None, None, f"could not be loaded: {event.worker.error!r}"
                )
            )
            self.bank = failed

    def record(self, attempt: Attempt) -> None:
        """Commit an attempt to the history, off the UI thread (in the order they come)."""
        self.writer.submit(self.store.record, attempt)

    def put_card(self, state: CardState) -> None:
        """Commit a study card, off the UI thread."""
        self.writer.submit(self.store.put_card, state)

    def _write_failed(self, exc: BaseException) -> None:
        self.call_from_thread(
            self.notify, f"A history write failed: {exc!r}", title="History", severity="error", markup=False
        )

    def history_notice(self, severity: str, message: str) -> None:
        """Say at once what happened to the history; a fault stays on screen until dismissed (thread-safe)."""
        timeout = 10 if severity == "information" else HISTORY_FAULT_SECONDS
        self.notify(message, title="History", severity=severity, timeout=timeout, markup=False)  # type: ignore[arg-type]  # the store's severities are Textual's three

    def new_seed(self) -> int:
        return self._seed_source()

    def new_session_id(self, mode: str) -> str:
        """A fresh id for a drill, mock or study session (attempts are grouped by it)."""
        return f"{mode}-{os.urandom(6).hex()}"

    def questions_bank(self) -> Bank:
        """The bank sessions draw from on the UI thread (files parsed, templates validated, as drawn)."""
        if self._drill_bank is None:
            self._drill_bank = load_bank(self.question_paths)  # reads the files' ids; parses nothing yet
        return self._drill_bank

    def study_status(self) -> StudyStatus:
        """What Home says of study (reads the history: called from Home's worker)."""
        from quizzer.session.queue import study_status

        now = self.wall()
        return study_status(
            self.store.cards(),
            self.questions_bank().scanned_ids(),
            now=now,
            midnight=local_midnight(now),
            new_per_day=self.new_per_day,
            attempts=self.store.count(),
        )

    def read_progress(self, bank: Bank) -> list[TopicProgress]:
        """Each topic's accuracy and mastery over ``bank`` (reads the history: called from Home's worker)."""
        from quizzer.session.progress import topic_progress

        self.writer.drain()  # what was just answered is in
        return topic_progress(self.store.attempts(), {t.id: t.topic for t in bank.templates()})

    def read_stats(self) -> Stats:
        """The Stats screen's figures (reads the history: called from its worker)."""
        from quizzer.session.stats import compute_stats, difficulties

        self.writer.drain()  # what was just answered is in
        now = self.wall()
        attempts = self.store.attempts()
        return compute_stats(
            attempts,
            now=now,
            utc_offset_seconds=utc_offset_seconds(now),
            sessions=self.store.sessions(),
            difficulty_of=difficulties(load_bank(self.question_paths), (a.template_id for a in attempts)),
        )

    # --- screens --------------------------------------------------------------------------------------

    def go_home(self) -> None:
        """Show Home: pop back to it, or put it under the current screen when the app opened into a mode."""
        from quizzer.tui.screens.home import HomeScreen

        if any(isinstance(screen, HomeScreen) for screen in self.screen_stack):
            while not isinstance(self.screen, HomeScreen):
                self.pop_screen()
        else:
            self.push_screen(
                HomeScreen(
                    self.study_status, self.read_progress, self.start_placement, lambda: self.suggested_path
                )
            )

    def _left(self, _result: object = None) -> None:
        """A mode or screen was left: Home, if nothing is below it but the blank default screen."""
        if len(self.screen_stack) <= 1:
            self.go_home()

    def open(self, screen: Screen[None]) -> AwaitMount:
        """Push ``screen``; when it is dismissed, Home if nothing else is below."""
        return self.push_screen(screen, callback=self._left)

    def open_mode(self, options: DrillOptions | MockOptions | StudyOptions) -> AwaitMount | None:
        if isinstance(options, DrillOptions):
            return self.start_drill(options)
        if isinstance(options, MockOptions):
            return self.start_mock(options)
        return self.start_study(options)

    @on(StartMode)
    def start_mode(self, event: StartMode) -> None:
        event.stop()
        if event.mode == "drill":
            self.start_drill(DrillOptions(event.topic, event.difficulty, event.template_id, event.seed))
        elif event.mode == "mock":
            settings = self.settings
            self.start_mock(MockOptions(settings.mock_count, settings.mock_minutes, event.topic, event.seed))
        elif event.mode == "study":
            self.start_study(StudyOptions(event.topic, self.new_per_day, event.seed))

    @on(OpenReport)
    def open_report(self, event: OpenReport) -> None:
        from quizzer.tui.screens.mock_report import MockReportScreen

        self.open(MockReportScreen(event.report))

    @on(OpenScreen)
    def open_screen(self, event: OpenScreen) -> None:
        event.stop()
        {"browse": self.action_browse, "stats": self.action_stats, "help": self.action_help}[event.name]()

    def start_drill(self, options: DrillOptions | None = None) -> AwaitMount | None:
        """Open a drill over the templates that match (a fresh seed unless one is given); None if none do."""
        options = options or DrillOptions()
        session: DrillSession | None = None
        announced = False

        def recorded(attempt: Attempt) -> None:
            """Record, and when the plan is through, say so once (a placement's suggested path)."""
            nonlocal announced
            self.record(attempt)
            if session is not None and session.plan_done and not announced:
                announced = True
                self.placement_done(session)

        progress = None
        if options.order != "random":  # the history's answers per template (a short read, before the screen)
            from quizzer.session.progress import template_progress

            self.writer.drain()
            progress = template_progress(self.store.attempts())
        try:
            session = DrillSession(
                self.questions_bank(),
                seed=self.new_seed() if options.seed is None else options.seed,
                clock=self.clock,
                topic=options.topic,
                difficulty=options.difficulty,
                template_id=options.template_id,
                wall=self.wall,
                session_id=self.new_session_id("drill"),
                on_attempt=recorded if options.plan else self.record,
                order=options.order,
                progress=progress,
                plan=options.plan,
            )
        except KeyError:
            self.notify(f"No template has the id {options.template_id!r}.", severity="warning", markup=False)
            return None
        except TemplateError as exc:
            self.notify(f"{exc}", title="This template is invalid", severity="error", markup=False)
            return None
        except ValueError:
            self.notify("No template matches these filters.", severity="warning")
            return None
        return self.open(DrillScreen(session))

    def start_placement(self) -> AwaitMount | None:
        """The guided start: a placement drill of a few questions, easy to hard across the main topics."""
        from quizzer.session.progress import placement_ids

        seed = self.new_seed()
        plan = placement_ids((self.bank or self.questions_bank()).templates(), seed=seed)
        return self.start_drill(DrillOptions(seed=seed, plan=tuple(plan)))

    def placement_done(self, session: DrillSession) -> None:
        """The placement's last planned question is answered: the suggested path (Home shows it too)."""
        from quizzer.session.progress import suggested_path, topic_progress

        bank = self.questions_bank()
        topics = {t: bank.get(t).topic for t in session.plan}
        self.suggested_path = suggested_path(topic_progress(session.attempts, topics))
        self.notify(
            f"Placement done. Suggested path, weakest first: {' → '.join(self.suggested_path)}. "
            "The drill goes on; q goes back to Home.",
            title="Start here",
            timeout=30,
            markup=False,
        )

    def start_mock(self, options: MockOptions | None = None) -> AwaitMount | None:
        """Open a mock's start screen (its clock starts when the set is confirmed; a draw that cannot fit
        says why there); a plain MockOptions with a seed opens the mock at once (tests), or returns None
        with a notice if no template matches."""
        from quizzer.session.picking import fit_instances, pick_instances
        from quizzer.tui.screens.mock_start import MockStart, MockStartScreen

        options = options or MockOptions(self.settings.mock_count, self.settings.mock_minutes)
        seed = self.new_seed() if options.seed is None else options.seed
        if options.seed is not None and not isinstance(options, MockStart):
            try:
                instances = pick_instances(
                    self.questions_bank(), count=options.count, seed=seed, topic=options.topic
                )
            except ValueError:
                self.notify("No template matches these filters.", severity="warning")
                return None
            return self.open_mock(instances, options.minutes)
        given = options.instances if isinstance(options, MockStart) else ()
        save_set = options.save_set if isinstance(options, MockStart) else None
        bank, topic = self.questions_bank(), options.topic

        def draw(count: int, minutes: float) -> list[Instance]:
            if given:
                return list(given)
            return fit_instances(bank, count=count, minutes=minutes, seed=seed, topic=topic)

        def confirmed(plan: MockPlan | None) -> None:
            if plan is None:
                self._left()
                return
            if save_set is not None:
                self.save_mock_set(save_set, plan)
            self.open_mock(list(plan.instances), plan.minutes)

        count = len(given) if given else options.count
        screen = MockStartScreen(draw, count=count, minutes=options.minutes, topic=topic, fixed=bool(given))
        return self.push_screen(screen, callback=confirmed)

    def save_mock_set(self, path: str, plan: MockPlan) -> None:
        """Write the set's ``id#seed`` list to ``path`` (a failure is a notification; the mock still runs)."""
        from quizzer.session.picking import format_set

        try:
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(format_set(plan.instances, plan.minutes))
        except OSError as exc:
            self.notify(
                f"{path}: {exc.strerror or exc}", title="Set not saved", severity="error", markup=False
            )
            return
        self.notify(f"The set is saved in {path}.", title="Mock set", markup=False)

    def open_mock(self, instances: list[Instance], minutes: float) -> AwaitMount:
        """Start the clock: a MockExam over ``instances`` for ``minutes``, on its screen."""
        from quizzer.session.chain import template_lookup
        from quizzer.session.mock import MockExam
        from quizzer.tui.screens.mock import MockScreen

        exam = MockExam(
            instances,
            total_seconds=minutes * 60,
            clock=self.clock,
            wall=self.wall,
            session_id=self.new_session_id("mock"),
            on_attempt=self.record,
            on_mark=lambda mark: self.writer.submit(self.store.mark_session, mark),
            templates=template_lookup(self.questions_bank()),
        )
        return self.open(MockScreen(exam))

    def start_study(self, options: StudyOptions | None = None) -> AwaitMount:
        """Open a spaced-repetition study session over the templates (a topic's, if given)."""
        from quizzer.tui.screens.study import StudyScreen

        return self.open(
            StudyScreen(self.study_session(options or StudyOptions(new_per_day=self.new_per_day)))
        )

    def study_session(self, options: StudyOptions) -> StudySession:
        """A StudySession over the history's cards (what Home counts as due and new), scheduled at the
        settings' desired retention."""
        from quizzer.session.queue import new_left_today
        from quizzer.session.srs import Scheduler
        from quizzer.session.study import StudySession

        bank = self.questions_bank()
        template_ids = bank.matching_ids(topic=options.topic)
        self.writer.drain()  # the cards written so far are read back
        cards = {c.template_id: c for c in self.store.cards()}
        limit = new_left_today(cards.values(), local_midnight(self.wall()), options.new_per_day)
        return StudySession(
            bank,
            cards,
            template_ids=template_ids,
            seed=self.new_seed() if options.seed is None else options.seed,
            clock=self.clock,
            wall=self.wall,
            new_per_day=limit,
            new_today=0,
            scheduler=Scheduler(desired_retention=self.settings.desired_retention),
            session_id=self.new_session_id("study"),
            on_attempt=self.record,
            on_review=self.put_card,
        )

    def action_stats(self) -> None:
        from quizzer.tui.screens.stats import StatsScreen

        self.open(StatsScreen(self.read_stats))

    def action_help(self) -> None:
        from quizzer.tui.screens.help import HelpModal

        if not isinstance(self.screen, HelpModal):
            self.push_screen(HelpModal(dict(self.settings.keymap)))

    def action_browse(self) -> None:
        if self.bank is None:
            self.notify("The question bank is still loading.", severity="warning")
            return
        from quizzer.tui.screens.browse import BrowseScreen

        self.open(BrowseScreen(self.bank, self.new_seed()))

    async def action_quit(self) -> None:
        """Quit; a running mock asks first (confirmed, its answered questions are recorded)."""
        confirm = getattr(self.screen, "confirm_leave", None)
        if confirm is not None and getattr(self.screen, "running", False):
            confirm("quit")
            return
        self.exit()

    def action_copy_id(self) -> None:
        instance_id = getattr(self.screen, "instance_id", None)
        if instance_id:
            self.copy_to_clipboard(instance_id)
            self.notify(f"Copied {instance_id} (show it with `quizzer show {instance_id}`).", markup=False)

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        yield SystemCommand("Drill", "Start a drill over every template", self.start_drill)
        yield SystemCommand("Mock interview", "Timed questions, graded at the end", self.start_mock)
        yield SystemCommand("Study", "Spaced repetition: what is due, then new templates", self.start_study)
        yield SystemCommand("Stats", "Accuracy per topic, mistakes, trend and streak", self.action_stats)
        yield SystemCommand("Browse", "Browse the templates by topic and preview one", self.action_browse)
        yield SystemCommand("Help", "Keys and how answers are read", self.action_help)
        instance_id = getattr(screen, "instance_id", None)
        if instance_id:
            yield SystemCommand(
                f"Copy {instance_id}",
                "Copy the id of this question (quizzer show ID replays it)",
                self.action_copy_id,
            )
        if self.bank is not None:
            for topic in sorted({t.topic for t in self.bank.templates()}):
                yield SystemCommand(
                    f"Drill {topic}",
                    f"A drill over the {topic} templates",
                    lambda topic=topic: self.start_drill(DrillOptions(topic=topic)),
                    discover=False,
                )
        yield from super().get_system_commands(screen)
