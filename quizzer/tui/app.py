"""QuizzerApp: the app's keys, start, screens that are not modes, and command palette."""

from __future__ import annotations

import gc
from collections.abc import Awaitable, Callable, Iterable
from functools import partial
from inspect import isawaitable
from typing import ClassVar

from textual import on
from textual.app import SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import Screen

from quizzer.core.words import counted
from quizzer.tui.hangup import hung_up, watchable
from quizzer.tui.messages import OpenReport, OpenScreen, ReturnToStudy
from quizzer.tui.modes import AppModes, is_mode
from quizzer.tui.options import CramOptions, DrillOptions, MockOptions, StudyOptions
from quizzer.tui.services import HISTORY_FAULT_SECONDS

__all__ = [
    "HISTORY_FAULT_SECONDS",
    "CramOptions",
    "DrillOptions",
    "MockOptions",
    "QuizzerApp",
    "StudyOptions",
]


async def _awaited(result: object) -> None:
    """Wait for ``result`` if a command's start returned an awaitable (a screen mounting, a coroutine)."""
    if isawaitable(result):
        await result


#: Seconds between two looks at whether the terminal hung up (``quit_if_hung_up``).
HANG_UP_CHECK_S = 2.0


class QuizzerApp(AppModes):
    """Practice ML-systems sizing questions."""

    CSS_PATH = "quizzer.tcss"
    TITLE = "quizzer"
    SUB_TITLE = "ML-systems sizing practice"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", "Quit", id="quit", priority=True),
        Binding("f1", "help", "Help", show=False, id="help"),
    ]

    def on_load(self) -> None:
        """Start with the cyclic garbage collector off: it walked every object of the start-up (the modules,
        the bank, the widgets) just before the first paint, 15-30 ms of it; on again once the first screen is
        painted (open_start), or when the app ends."""
        gc.disable()

    def on_unmount(self) -> None:
        gc.enable()

    def on_mount(self) -> None:
        for severity, message in self.store.notices:  # what opening the history found, before we listened
            self.history_notice(severity, message)
        if not self.is_headless and not self.is_web and watchable():
            self.set_interval(HANG_UP_CHECK_S, self.quit_if_hung_up, name="hang-up")
        self.store.on_notice = self.history_notice
        # Once the app is mounted: Textual holds every frame until its on_mount returns, and the first frame
        # of a screen opened inside it was never written (the question came a full repaint later).
        self.call_later(self.open_start)

    async def open_start(self) -> None:
        """Open the mode the command line asked for (else Home), then load the whole bank."""
        start, self._start = self._start, None
        opened = await self.open_mode(start) if start is not None else False
        if not opened:
            self.go_home()
        self.call_after_refresh(gc.enable)  # off since on_load (and, for `quizzer drill`, commands/tui.py)
        if self._given_bank is not None:
            self.bank = self._given_bank
        elif not opened:
            self.load_bank()
        else:
            # After the question is painted (it is what you are waiting for): the worker's thread would
            # compete with the first paint for the interpreter.
            self.call_after_refresh(self.load_bank)

    @on(OpenReport)
    def open_report(self, event: OpenReport) -> None:
        from quizzer.tui.screens.mock_report import MockReportScreen

        self.open(MockReportScreen(event.report))

    @on(OpenScreen)
    def open_screen(self, event: OpenScreen) -> None:
        event.stop()
        {
            "browse": self.action_browse,
            "stats": self.action_stats,
            "help": self.action_help,
            "past-mocks": self.action_past_mocks,
            "model": self.action_practise_model,
            "interview-date": self.action_interview_date,
        }[event.name]()

    @on(ReturnToStudy)
    async def return_leeches(self, event: ReturnToStudy) -> None:
        """Return these leeches to study, their schedule kept (read in a worker, written by the writer)."""
        event.stop()
        from quizzer.session.leeches import returned_to_study

        cards = await self.read(self.reader.suspended, event.template_ids)
        if cards is None:
            return
        for card in cards:
            self.put_card(returned_to_study(card, self.wall()))
        returned = len(cards)
        self.notify(
            f"{counted(returned, 'leech')} back in study, "
            f"{'its' if returned == 1 else 'their'} schedule as it was.",
            title="Leeches",
            markup=False,
        )
        refresh = getattr(self.screen, "read_stats", None)
        if callable(refresh):
            refresh()

    def action_past_mocks(self) -> None:
        from quizzer.tui.screens.past_mocks import PastMocksScreen

        self.open(PastMocksScreen(self.reader.past_mocks, self.reader.past_mock_report))

    def action_stats(self) -> None:
        from quizzer.tui.screens.stats import StatsScreen

        self.open(StatsScreen(self.reader.stats, lambda: self.bank))

    def action_help(self) -> None:
        """Help, opened on the keys of the screen it is asked on."""
        from quizzer.tui.screens.help import HelpModal, sections_of

        if not isinstance(self.screen, HelpModal):
            self.push_screen(HelpModal(dict(self.settings.keymap), sections_of(self.screen)))

    def action_interview_date(self) -> None:
        """Ask for the interview date; saved to config.toml, Home's plan line follows."""
        from quizzer.tui.screens.date_pick import DateModal

        modal = DateModal(self.reader.interview_date, self.settings.daily_minutes)
        self.push_screen(modal, callback=self.set_interview_date)

    def set_interview_date(self, text: str | None) -> None:
        """Study toward ``text`` (YYYY-MM-DD; "" for plain FSRS again): saved, and Home shows the plan."""
        from quizzer.config import ConfigError, parse_date, save_setting

        if text is None:
            return
        if text and parse_date(text) is None:
            self.notify(
                f"{text!r} is not a date: write YYYY-MM-DD.", title="Interview date", severity="error"
            )
            return
        self.reader.interview_date = text or None
        if self.config_path is not None:
            try:
                save_setting(self.config_path, "interview_date", text)
            except ConfigError as exc:
                self.notify(str(exc), title="Settings not saved", severity="error", markup=False)
        said = f"Studying toward {text}." if text else "Studying on plain FSRS again."
        self.notify(said, title="Interview date", markup=False)
        refresh = getattr(self.screen, "show_due", None)
        if callable(refresh):
            refresh()

    def action_practise_model(self) -> None:
        """Ask for a model (a preset or a config.json) and drill the questions that take one, about it."""
        from quizzer.core.presets import preset_names
        from quizzer.tui.screens.model_pick import ModelPickModal

        current = getattr(self._drill_bank, "title", None)
        self.push_screen(ModelPickModal(current, len(preset_names())), callback=self.practise_on)

    def practise_on(self, text: str | None) -> None:
        """Build the bank posed for ``text`` off the UI thread (None: cancelled; "": every question)."""
        if text is None:
            return
        if not text:
            if getattr(self._drill_bank, "model", None):
                self._drill_bank = self.bank = None
                self.sub_title = type(self).SUB_TITLE
                self.load_bank()
                self.notify("Every question again, each on its own numbers.", title="Model", markup=False)
            return
        self.model_bank(text)

    def action_browse(self) -> None:
        if self.bank is None:
            self.notify("The question bank is still loading.", severity="warning")
            return
        from quizzer.tui.screens.browse import BrowseScreen

        self.open(BrowseScreen(self.bank, self.new_seed()))

    def quit_if_hung_up(self) -> None:
        """End the app once its terminal is gone (``hangup``): nobody can answer it, and Textual's input
        thread would read the closed terminal in a loop. Every attempt is already in the history."""
        if hung_up():
            self.exit()

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

    def action_command_palette(self) -> None:
        """The command palette (ctrl+p), whose enter runs the first match of what was typed."""
        from textual.command import CommandPalette

        from quizzer.tui.screens.palette import QuizzerPalette

        if self.use_command_palette and not isinstance(self.screen, CommandPalette):
            self.push_screen(QuizzerPalette(id="--command-palette"))

    def in_place(self, start: Callable[[], object]) -> Callable[[], Awaitable[None]]:
        """A palette command that opens a mode: it takes the place of the mode on screen (a drill, study or
        mock start; a running mock asks first), so a mode is never stacked on a mode."""

        async def run() -> None:
            current = self.screen
            if is_mode(current):
                if getattr(current, "running", False):  # a mock: leaving it submits it
                    current.confirm_leave(start)  # type: ignore[attr-defined]
                    return
                await self.pop_screen()
            await _awaited(start())
            if len(self.screen_stack) <= 1:  # the mode replaced could not be: Home, not a blank screen
                self.go_home()

        return run

    def not_twice(self, screen_name: str, start: Callable[[], object]) -> Callable[[], Awaitable[None]]:
        """A palette command that opens the screen named ``screen_name``: on that screen already, it is
        opened afresh in its place rather than on top of it."""

        async def run() -> None:
            if type(self.screen).__name__ == screen_name:
                await self.pop_screen()
            await _awaited(start())
            if len(self.screen_stack) <= 1:
                self.go_home()

        return run

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        mode, again = self.in_place, self.not_twice
        yield SystemCommand("Drill", "Start a drill over every template", mode(self.start_drill))
        yield SystemCommand("Mock interview", "Timed questions, graded at the end", mode(self.start_mock))
        yield SystemCommand(
            "Study", "Spaced repetition: what is due, then new templates", mode(self.start_study)
        )
        yield SystemCommand(
            "Interviewer",
            "Ask someone questions aloud: answers, slips and live grades",
            mode(self.start_interview),
        )
        yield SystemCommand(
            "Drill your slips",
            "The templates where your most frequent recorded slips can happen",
            mode(partial(self.start_drill, DrillOptions(slips=True))),
        )
        yield SystemCommand(
            "Drill your slowest",
            "Your slowest templates against their expected minutes first",
            mode(partial(self.start_drill, DrillOptions(order="slowest"))),
        )
        yield SystemCommand(
            "Practise on a model",
            "Every question that takes a model, about yours",
            self.action_practise_model,
        )
        yield SystemCommand(
            "Stats", "Accuracy per topic, mistakes, trend and streak", again("StatsScreen", self.action_stats)
        )
        yield SystemCommand(
            "Browse",
            "Browse the templates by topic and preview one",
            again("BrowseScreen", self.action_browse),
        )
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
                    mode(partial(self.start_drill, DrillOptions(topic=topic))),
                    discover=False,
                )
        yield from super().get_system_commands(screen)
