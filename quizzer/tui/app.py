"""QuizzerApp: holds the services (bank, history, seed, clocks) and opens Home, or a mode straight away."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widget import AwaitMount

from quizzer.bank.errors import TemplateError
from quizzer.bank.loader import Bank, load_bank
from quizzer.config import Settings
from quizzer.session.drill import DrillSession
from quizzer.tui.messages import BankLoaded
from quizzer.tui.screens.drill import DrillScreen

if TYPE_CHECKING:
    from quizzer.store.history import HistoryStore

# Home, Browse and Help are imported when first shown: `quizzer drill` paints its question without
# loading their widgets (DataTable, Select, OptionList...), which is a good part of its start-up time.


#: How long a history fault stays on screen: until it is dismissed (a click) or resolved, in practice.
HISTORY_FAULT_SECONDS = 24 * 3600


class DrillOptions:
    """What `quizzer drill` asks for: filters and a seed (None: a fresh random seed)."""

    def __init__(
        self,
        topic: str | None = None,
        difficulty: str | None = None,
        template_id: str | None = None,
        seed: int | None = None,
    ) -> None:
        self.topic, self.difficulty, self.template_id, self.seed = topic, difficulty, template_id, seed


class MockOptions:
    """What `quizzer mock` asks for: how many questions, how many minutes, a topic and a seed."""

    def __init__(
        self, count: int = 8, minutes: float = 20, topic: str | None = None, seed: int | None = None
    ) -> None:
        self.count, self.minutes, self.topic, self.seed = count, minutes, topic, seed


class StudyOptions:
    """What `quizzer study` asks for: a topic, the daily limit of new templates, a seed."""

    def __init__(self, topic: str | None = None, new_per_day: int = 10, seed: int | None = None) -> None:
        self.topic, self.new_per_day, self.seed = topic, new_per_day, seed


class QuizzerApp(App[None]):
    """Practice ML-systems sizing questions."""

    CSS_PATH = "quizzer.tcss"
    TITLE = "quizzer"
    SUB_TITLE = "ML-systems sizing practice"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", "Quit", id="quit", priority=True),
        Binding("f1", "help", "Help", show=False, id="help"),
    ]

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
    ) -> None:
        super().__init__()
        self.question_paths = question_paths
        self.drill_options = drill
        self.start_options: MockOptions | StudyOptions | None = mock or study
        self.clock = clock
        #: Seconds since the epoch: stamps attempts and schedules reviews (never used to time a mock).
        self.wall = wall
        if store is None:
            from quizzer.store.history import HistoryStore

            store = HistoryStore.memory()
        #: Where every graded attempt is committed as it is graded.
        self.store: HistoryStore = store
        #: The user's defaults (config.toml): the mock's size, the daily limit of new templates.
        self.settings = settings or Settings()
        #: The daily limit of new templates in a study session (Home's Study button uses it too).
        self.new_per_day = study.new_per_day if study is not None else self.settings.new_per_day
        #: The whole bank, validated (in a worker): what Home, Browse and the palette list. None until then.
        self.bank: Bank | None = bank
        #: The bank drills draw from on the UI thread. It validates a template when a drill first draws it,
        #: so a drill starts before the worker is done; the worker never touches it (Bank is not locked).
        self._drill_bank: Bank | None = bank
        self._seed_source = seed_source or (lambda: int.from_bytes(__import__("os").urandom(3), "big"))

    async def on_mount(self) -> None:
        for severity, message in self.store.notices:  # what opening the history found, before we listened
            self.history_notice(severity, message)
        self.store.on_notice = self.history_notice
        options, self.drill_options = self.drill_options, None
        start, self.start_options = self.start_options, None
        opened = None
        if options is not None:
            opened = self.start_drill(options.topic, options.difficulty, options.template_id, options.seed)
        elif isinstance(start, MockOptions):
            opened = self.start_mock(start)
        elif isinstance(start, StudyOptions):
            opened = self.start_study(start)
        if opened is None:
            self.go_home()
        if self.bank is not None:
            self.post_message(BankLoaded(self.bank))
        elif opened is None:
            self.load_bank()
        else:
            # After the question is painted (it is what you are waiting for): the worker's thread would
            # compete with the first paint for the interpreter.
            await opened
            self.call_after_refresh(self.load_bank)

    @work(thread=True, exclusive=True, exit_on_error=False, group="bank")
    def load_bank(self) -> None:
        """Parse and validate every template off the UI thread (a bank of its own: Bank is not locked).

        A failure the loader did not turn into a named problem still ends the loading: Home shows it.
        """
        try:
            bank = load_bank(self.question_paths)
            bank.templates()
        except Exception as exc:  # the last guard: Home must say what went wrong, never spin
            bank = Bank()
            bank.file_problems.append(
                TemplateError(", ".join(self.question_paths), None, None, f"could not be loaded: {exc!r}")
            )
        self.post_message(BankLoaded(bank))

    @on(BankLoaded)
    def bank_loaded(self, event: BankLoaded) -> None:
        self.bank = event.bank
        for screen in self.screen_stack:
            screen.post_message(BankLoaded(event.bank))

    def history_notice(self, severity: str, message: str) -> None:
        """Say at once what happened to the history; a fault stays on screen until dismissed (thread-safe)."""
        timeout = 10 if severity == "information" else HISTORY_FAULT_SECONDS
        self.notify(message, title="History", severity=severity, timeout=timeout, markup=False)  # type: ignore[arg-type]

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

    def go_home(self) -> None:
        """Show Home: pop back to it, or put it first when the app opened straight into a drill."""
        from quizzer.tui.screens.home import HomeScreen

        if any(isinstance(screen, HomeScreen) for screen in self.screen_stack):
            while not isinstance(self.screen, HomeScreen):
                self.pop_screen()
        elif len(self.screen_stack) > 1:
            self.switch_screen(HomeScreen())
        else:
            self.push_screen(HomeScreen())

    def back(self) -> None:
        """Leave the current screen: to the one below it, or to Home when nothing is below."""
        if len(self.screen_stack) > 2:
            self.pop_screen()
        else:
            self.go_home()

    def start_drill(
        self,
        topic: str | None = None,
        difficulty: str | None = None,
        template_id: str | None = None,
        seed: int | None = None,
    ) -> AwaitMount | None:
        """Open a drill over the templates that match (a fresh seed unless one is given); None if none do."""
        try:
            session = DrillSession(
                self.questions_bank(),
                seed=self.new_seed() if seed is None else seed,
                clock=self.clock,
                topic=topic,
                difficulty=difficulty,
                template_id=template_id,
                wall=self.wall,
                session_id=self.new_session_id("drill"),
                on_attempt=self.store.record,
            )
        except KeyError:
            self.notify(f"No template has the id {template_id!r}.", severity="warning", markup=False)
            return None
        except TemplateError as exc:
            self.notify(f"{exc}", title="This template is invalid", severity="error", markup=False)
            return None
        except ValueError:
            self.notify("No template matches these filters.", severity="warning")
            return None
        return self.push_screen(DrillScreen(session))

    def start_mock(self, options: MockOptions | None = None) -> AwaitMount | None:
        """Open a timed mock interview; None (with a notice) if no template matches."""
        from quizzer.session.mock import MockExam
        from quizzer.session.picking import pick_instances
        from quizzer.tui.screens.mock import MockScreen

        options = options or MockOptions(self.settings.mock_count, self.settings.mock_minutes)
        try:
            instances = pick_instances(
                self.questions_bank(),
                count=options.count,
                seed=self.new_seed() if options.seed is None else options.seed,
                topic=options.topic,
            )
        except ValueError:
            self.notify("No template matches these filters.", severity="warning")
            return None
        exam = MockExam(
            instances,
            total_seconds=options.minutes * 60,
            clock=self.clock,
            wall=self.wall,
            session_id=self.new_session_id("mock"),
            on_attempt=self.store.record,
        )
        return self.push_screen(MockScreen(exam))

    def start_study(self, options: StudyOptions | None = None) -> AwaitMount | None:
        """Open a spaced-repetition study session over the templates (a topic's, if given)."""
        from quizzer.tui.screens.study import StudyScreen

        options = options or StudyOptions(new_per_day=self.new_per_day)
        session = self.study_session(options)
        return self.push_screen(StudyScreen(session))

    def study_session(self, options: StudyOptions):  # type: ignore[no-untyped-def]
        """A StudySession over the history's cards (what Home counts as due and new)."""
        from quizzer.session.srs import introduced_since
        from quizzer.session.study import StudySession

        bank = self.questions_bank()
        template_ids = bank.scanned_ids()
        if options.topic is not None:
            template_ids = [t for t in template_ids if (bank.peek(t) or {}).get("topic") == options.topic]
        cards = {c.template_id: c for c in self.store.cards()}
        return StudySession(
            bank,
            cards,
            template_ids=template_ids,
            seed=self.new_seed() if options.seed is None else options.seed,
            clock=self.clock,
            wall=self.wall,
            new_per_day=options.new_per_day,
            new_today=introduced_since(cards.values(), local_midnight(self.wall())),
            session_id=self.new_session_id("study"),
            on_attempt=self.store.record,
            on_review=self.store.put_card,
        )

    def action_stats(self) -> None:
        from quizzer.tui.screens.stats import StatsScreen

        self.push_screen(StatsScreen())

    def action_help(self) -> None:
        from quizzer.tui.screens.help import HelpModal

        if not isinstance(self.screen, HelpModal):
            self.push_screen(HelpModal())

    def action_browse(self) -> None:
        if self.bank is None:
            self.notify("The question bank is still loading.", severity="warning")
            return
        from quizzer.tui.screens.browse import BrowseScreen

        self.push_screen(BrowseScreen(self.bank, self.new_seed()))

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:  # type: ignore[type-arg]
        yield SystemCommand("Drill", "Start a drill over every template", self.start_drill)
        yield SystemCommand("Mock interview", "Timed questions, graded at the end", self.start_mock)
        yield SystemCommand("Study", "Spaced repetition: what is due, then new templates", self.start_study)
        yield SystemCommand("Stats", "Accuracy per topic, mistakes, trend and streak", self.action_stats)
        yield SystemCommand("Browse", "Browse the templates by topic and preview one", self.action_browse)
        yield SystemCommand("Help", "Keys and how answers are read", self.action_help)
        if self.bank is not None:
            for topic in sorted({t.topic for t in self.bank.templates()}):
                yield SystemCommand(
                    f"Drill {topic}",
                    f"A drill over the {topic} templates",
                    lambda topic=topic: self.start_drill(topic=topic),
                    discover=False,
                )
        yield from super().get_system_commands(screen)


def local_midnight(now: float) -> float:
    """The epoch seconds of the start of the local day that holds ``now`` (the daily limit resets then)."""
    day = time.localtime(now)
    return time.mktime((day.tm_year, day.tm_mon, day.tm_mday, 0, 0, 0, 0, 0, -1))
