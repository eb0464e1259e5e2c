"""QuizzerApp: holds the services (bank, seed, clock) and opens Home, or a drill straight away."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import ClassVar

from textual import on, work
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import Screen

from quizzer.bank.loader import Bank, load_bank
from quizzer.session.drill import DrillSession
from quizzer.tui.messages import BankLoaded
from quizzer.tui.screens.browse import BrowseScreen
from quizzer.tui.screens.drill import DrillScreen
from quizzer.tui.screens.help import HelpModal
from quizzer.tui.screens.home import HomeScreen


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
        clock: Callable[[], float] = time.monotonic,
        seed_source: Callable[[], int] | None = None,
        bank: Bank | None = None,
    ) -> None:
        super().__init__()
        self.question_paths = question_paths
        self.drill_options = drill
        self.clock = clock
        self.bank: Bank | None = bank
        self._seed_source = seed_source or (lambda: int.from_bytes(__import__("os").urandom(3), "big"))

    def on_mount(self) -> None:
        self.push_screen(HomeScreen())
        if self.bank is None:
            self.load_bank()
        else:
            self.post_message(BankLoaded(self.bank))

    @work(thread=True, exclusive=True, exit_on_error=False, group="bank")
    def load_bank(self) -> None:
        """Parse and validate every template off the UI thread."""
        bank = load_bank(self.question_paths)
        bank.templates()
        self.post_message(BankLoaded(bank))

    @on(BankLoaded)
    def bank_loaded(self, event: BankLoaded) -> None:
        self.bank = event.bank
        for screen in self.screen_stack:
            screen.post_message(BankLoaded(event.bank))
        options, self.drill_options = self.drill_options, None
        if options is not None:
            self.start_drill(options.topic, options.difficulty, options.template_id, options.seed)

    def new_seed(self) -> int:
        return self._seed_source()

    def start_drill(
        self,
        topic: str | None = None,
        difficulty: str | None = None,
        template_id: str | None = None,
        seed: int | None = None,
    ) -> None:
        """Open a drill over the templates that match (a fresh seed unless one is given)."""
        if self.bank is None:
            self.notify("The question bank is still loading.", severity="warning")
            return
        try:
            session = DrillSession(
                self.bank,
                seed=self.new_seed() if seed is None else seed,
                clock=self.clock,
                topic=topic,
                difficulty=difficulty,
                template_id=template_id,
            )
        except (ValueError, KeyError):
            self.notify("No template matches these filters.", severity="warning")
            return
        self.push_screen(DrillScreen(session))

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpModal):
            self.push_screen(HelpModal())

    def action_browse(self) -> None:
        if self.bank is None:
            self.notify("The question bank is still loading.", severity="warning")
            return
        self.push_screen(BrowseScreen(self.bank, self.new_seed()))

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:  # type: ignore[type-arg]
        yield SystemCommand("Drill", "Start a drill over every template", self.start_drill)
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
