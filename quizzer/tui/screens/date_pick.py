"""DateModal: the interview date study plans toward (YYYY-MM-DD), or nothing for plain FSRS again."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from quizzer.tui.widgets.lines import line, plain


class DateModal(ModalScreen[str | None]):
    """Ask for the interview date; enter dismisses with the text typed ("" clears it), escape with None."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="date-cancel"),
        Binding("f1", "app.help", "Help", show=False, id="date-help"),  # a modal stops the app's keys
    ]

    def __init__(self, current: str | None, daily_minutes: float) -> None:
        super().__init__()
        self._current, self._minutes = current, daily_minutes

    def compose(self) -> ComposeResult:
        now = f"Now studying toward {self._current}. " if self._current else ""
        with Vertical(id="date-pick"):
            yield Static(line(("Interview date", "bold")), id="date-pick-title")
            yield Static(
                plain(
                    f"{now}Study plans your reviews for recall on that day, at most {self._minutes:g} "
                    "minutes "
                    "a day (daily_minutes in config.toml). Leave it empty to study on plain FSRS again."
                ),
                id="date-pick-text",
            )
            yield Input(placeholder="YYYY-MM-DD", max_length=10, id="date-pick-input")
            yield Static(plain("enter: save · escape: cancel"), id="date-pick-keys")

    def on_mount(self) -> None:
        self.query_one("#date-pick-input", Input).focus()

    @on(Input.Submitted, "#date-pick-input")
    def submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip())

    def action_cancel(self) -> None:
        self.dismiss(None)


__all__ = ["DateModal"]
