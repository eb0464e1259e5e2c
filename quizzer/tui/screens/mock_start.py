"""MockStartScreen: a mock's count, minutes, topic and drawn set before its clock starts."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Button, Header, Input, Label, Static

from quizzer.bank.generate.render import Instance
from quizzer.core.record import Record
from quizzer.core.words import counted
from quizzer.tui.options import MockOptions
from quizzer.tui.widgets.key_footer import KeyFooter
from quizzer.tui.widgets.lines import line, plain

#: Draws a mock's questions for (count, minutes); raises ValueError with a sentence to show.
Draw = Callable[[int, float], list[Instance]]


class MockPlan(Record):
    """What the start screen confirms: the questions and the minutes of the clock."""

    instances: tuple[Instance, ...]
    minutes: float


def minutes_text(value: float) -> str:
    """ "20" or "7.5" (minutes, as typed).

    >>> minutes_text(20.0), minutes_text(7.5)
    ('20', '7.5')
    """
    return f"{value:g}"


#: The largest mock the start screen draws: more questions or minutes than an interview has is a typo.
MAX_COUNT, MAX_MINUTES = 100, 600


def field_problem(count: str, minutes: str) -> str | None:
    """Why the count or minutes typed cannot start a mock, in a sentence; None when both read.

    >>> field_problem("8", "20") is None, field_problem("8", "0")
    (True, 'type the minutes: a number above 0, at most 600')
    >>> field_problem("", "20")
    'type how many questions: a whole number from 1 to 100'
    """
    try:
        n = int(count)
    except ValueError:
        n = 0
    if not 1 <= n <= MAX_COUNT:
        return f"type how many questions: a whole number from 1 to {MAX_COUNT}"
    try:
        m = float(minutes)
    except ValueError:
        m = 0.0
    if not (math.isfinite(m) and 0 < m <= MAX_MINUTES):
        return f"type the minutes: a number above 0, at most {MAX_MINUTES}"
    return None


class MockStartScreen(Screen[MockPlan | None]):
    """Count, minutes and topic of a mock, with the drawn set and its expected total; enter starts it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="mock-start-back"),
        Binding("ctrl+s", "start", "Start", id="mock-start-start", priority=True),
    ]

    def __init__(
        self,
        draw: Draw,
        *,
        count: int,
        minutes: float,
        topic: str | None = None,
        fixed: bool = False,
    ) -> None:
        super().__init__()
        #: Draws the set (the same seed every time: changing the count or minutes redraws).
        self.draw = draw
        self.count, self.minutes, self.topic = count, minutes, topic
        #: The set is given (a replayed set file): count and minutes are not changed here.
        self.fixed = fixed
        #: The drawn set; None when the draw cannot fit (``problem`` says why).
        self.instances: list[Instance] | None = None
        self.problem = ""

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="mock-start"):
            yield Static(
                plain("Mock interview: the clock starts when you press enter."), id="mock-start-title"
            )
            with Horizontal(id="mock-start-form"):
                yield Label("questions", classes="mock-start-label")
                yield Input(str(self.count), type="integer", id="mock-start-count", disabled=self.fixed)
                yield Label("minutes", classes="mock-start-label")
                yield Input(
                    minutes_text(self.minutes), type="number", id="mock-start-minutes", disabled=self.fixed
                )
                yield Label(f"topic: {self.topic or 'any'}", classes="mock-start-label", markup=False)
            yield Static(id="mock-start-total")
            yield Static(id="mock-start-list")
            yield Button("Start", id="mock-start-go", variant="primary")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.redraw()
        if not self.fixed:
            self.query_one("#mock-start-count", Input).focus()

    def redraw(self) -> None:
        """Draw the set for the count and minutes shown, and show it (or why it cannot be drawn)."""
        try:
            self.instances, self.problem = self.draw(self.count, self.minutes), ""
        except ValueError as exc:
            self.instances, self.problem = None, str(exc)
        self.show_draw()

    def show_draw(self) -> None:
        """The drawn set and its expected total, or why there is none (Start is then disabled)."""
        total = self.query_one("#mock-start-total", Static)
        listing = self.query_one("#mock-start-list", Static)
        self.query_one("#mock-start-go", Button).disabled = self.instances is None
        if self.instances is None:
            total.update(plain(f"✗ {self.problem}"))
            listing.update("")
            return
        expected = sum(i.minutes for i in self.instances)
        total.update(
            line(
                f"{counted(len(self.instances), 'question')} · {counted(self.minutes, 'minute')} · "
                f"expected total {minutes_text(expected)} min",
            )
        )
        parts: list[str | tuple[str, str]] = []
        for n, instance in enumerate(self.instances, 1):
            parts += ["\n" if n > 1 else "", f"{n:>2}. {instance.title}  "]
            parts.append((f"~{minutes_text(instance.minutes)} min · {instance.topic}", "dim"))
        listing.update(line(*parts))

    @on(Input.Changed)
    def change(self, event: Input.Changed) -> None:
        """A new count or minutes: redraw; a field that is empty or out of range shows why, and nothing
        can start until it is put right (the last draw is not kept behind it)."""
        count = self.query_one("#mock-start-count", Input).value
        minutes = self.query_one("#mock-start-minutes", Input).value
        problem = field_problem(count, minutes)
        if problem is not None:
            self.instances, self.problem = None, problem
            self.show_draw()
            return
        self.count, self.minutes = int(count), float(minutes)
        self.redraw()

    @on(Input.Submitted)
    @on(Button.Pressed, "#mock-start-go")
    def action_start(self) -> None:
        """Start the mock with the set shown (nothing to start when it cannot be drawn)."""
        if self.instances is None:
            self.notify(self.problem, title="No mock to start", severity="warning", markup=False)
            return
        self.dismiss(MockPlan(tuple(self.instances), self.minutes))

    def action_back(self) -> None:
        self.dismiss(None)


class MockStart(MockOptions):
    """A mock opened on its start screen (``quizzer mock``): with ``instances``, a replayed set; with
    ``save_set``, the file the set is written to when it starts."""

    instances: tuple[Instance, ...] = ()
    save_set: str | None = None
