"""AnswerInput: the answer box holds what the parser reads, no more; a longer paste is cut, with a notice."""

from __future__ import annotations

from textual import events
from textual._time import get_time  # the clock of a Key's time (the minor version is pinned)
from textual.widgets import Input

from quizzer.bank.read.control import CONTROL
from quizzer.grading import parse

#: The actions a one-line box inherits from Textual's scrolling, which only hide the keys they are bound to.
_NOT_SCROLLED = frozenset({"scroll_up", "scroll_down", "page_up", "page_down", "page_left", "page_right"})


class AnswerInput(Input):
    """An Input that holds at most the parser's maximum answer length, and takes no key typed before its
    question was on screen (a key pressed while a screen opens must not become an answer)."""

    def __init__(self, *, placeholder: str = "", id: str | None = None) -> None:  # Textual's name
        # select_on_focus off: a digit typed outside the box jumps in and must extend the answer, not replace
        # it (a backspace after it deleted the whole answer)
        super().__init__(
            placeholder=placeholder, id=id, max_length=parse.MAX_ANSWER_LENGTH, select_on_focus=False
        )
        self.ready = False
        """Whether keys are typed in: set by the question panel once the question is painted."""
        self.since = 0.0
        """When it became ready, on Textual's clock (a Key's ``time``): a key made before then is dropped
        even if it is read after (it was typed before the question was on screen)."""

    def arm(self) -> None:
        """A new question: drop keys until it has been painted (the panel sets ``ready`` then)."""
        self.ready = False

    def take_keys(self) -> None:
        """The question is on screen: keys typed from now on are typed in."""
        self.ready, self.since = True, get_time()

    async def _on_key(self, event: events.Key) -> None:
        if not self.ready or event.time < self.since:
            event.stop()
            event.prevent_default()
            return
        await super()._on_key(event)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The scrolling a one-line box inherits is off: ↑↓ and PgUp/PgDn reach the panel and the screen
        (a mock's other questions, the question's scrolling), and the footer shows their keys."""
        if action in _NOT_SCROLLED:
            return False
        return super().check_action(action, parameters)

    def _on_paste(self, event: events.Paste) -> None:
        """Paste the first line, cut to what still fits (Input would refuse the whole paste silently)."""
        event.stop()
        event.prevent_default()  # Input's own paste handler would paste it a second time
        if not event.text:
            return
        line = event.text.splitlines()[0] if event.text.splitlines() else ""
        line = CONTROL.sub("", line)  # an escape sequence pasted in is no part of an answer, nor shown
        start, end = sorted(self.selection)
        limit = self.max_length or parse.MAX_ANSWER_LENGTH  # always set here: see __init__
        room = limit - (len(self.value) - (end - start))
        if len(line) > room:
            self.notify(
                f"An answer is at most {limit} characters: the paste was cut to {max(room, 0)}.",
                severity="warning",
                markup=False,
            )
            line = line[: max(room, 0)]
        if line:
            self.replace(line, start, end)
