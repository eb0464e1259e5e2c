"""QuizzerApp: holds the services (bank, seed, clock) and opens Home, or a drill straight away."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import ClassVar

from textual import on, work
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widget import AwaitMount

from quizzer.bank.errors import TemplateError
from quizzer.bank.loader import Bank, load_bank
from quizzer.session.drill import DrillSession
from quizzer.tui.messages import BankLoaded
from quizzer.tui.screens.drill import DrillScreen

# Home, Browse and Help are imported when first shown: `quizzer drill` paints its question without
# loading their widgets (DataTable, Select, OptionList...), which is a good part of its start-up time.


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
        #: The whole bank, validated (in a worker): what Home, Browse and the palette list. None until then.
        self.bank: Bank | None = bank
        #: The bank drills draw from on the UI thread. It validates a template when a drill first draws it,
        #: so a drill starts before the worker is done; the worker never touches it (Bank is not locked).
        self._drill_bank: Bank | None = bank
        self._seed_source = seed_source or (lambda: int.from_bytes(__import__("os").urandom(3), "big"))

    async def on_mount(self) -> None:
        options, self.drill_options = self.drill_options, None
        drill = None
        if options is not None:
            drill = self.start_drill(options.topic, options.difficulty, options.template_id, options.seed)
        if drill is None:
            self.go_home()
        if self.bank is not None:
            self.post_message(BankLoaded(self.bank))
        elif drill is None:
            self.load_bank()
        else:
            # After the question is painted (it is what you are waiting for): the worker's thread would
            # compete with the first paint for the interpreter.
            await drill
            self.call_after_refresh(self.load_bank)

    @work(thread=True, exclusive=True, exit_on_error=False, group="bank")
    def load_bank(self) -> None:
        """Parse and validate every template off the UI thread (a bank of its own: Bank is not locked)."""
        bank = load_bank(self.question_paths)
        bank.templates()
        self.post_message(BankLoaded(bank))

    @on(BankLoaded)
    def bank_loaded(self, event: BankLoaded) -> None:
        self.bank = event.bank
        for screen in self.screen_stack:
            screen.post_message(BankLoaded(event.bank))

    def new_seed(self) -> int:
        return self._seed_source()

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
        if self._drill_bank is None:
            self._drill_bank = load_bank(self.question_paths)  # reads the files' ids; parses nothing yet
        try:
            session = DrillSession(
                self._drill_bank,
                seed=self.new_seed() if seed is None else seed,
                clock=self.clock,
                topic=topic,
                difficulty=difficulty,
                template_id=template_id,
            )
        except KeyError:
            self.notify(f"No template has the id {template_id!r}.", severity="warning")
            return None
        except TemplateError as exc:
            self.notify(f"{exc}", title="This template is invalid", severity="error")
            return None
        except ValueError:
            self.notify("No template matches these filters.", severity="warning")
            return None
        return self.push_screen(DrillScreen(session))

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
