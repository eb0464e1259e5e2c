"""ConfirmModal: a yes/no question that dismisses with True (yes) or False (no, or escape)."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from quizzer.tui.widgets.lines import line, plain


class ConfirmModal(ModalScreen[bool]):
    """Ask ``title`` with ``text``; y/enter on yes, n/escape say no."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes", id="confirm-yes"),
        Binding("n", "answer(False)", "No", id="confirm-no"),
        Binding("escape", "answer(False)", "No", show=False, id="confirm-escape"),
    ]

    def __init__(self, title: str, text: str, *, yes: str = "Yes", no: str = "No") -> None:
        super().__init__()
        self._title, self._text, self._yes, self._no = title, text, yes, no

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm"):
            yield Static(line((self._title, "bold")), id="confirm-title")
            yield Static(plain(self._text), id="confirm-text")
            with Horizontal(id="confirm-buttons"):
                yield Button(f"{self._yes} (y)", id="confirm-yes-button", variant="warning")
                yield Button(f"{self._no} (n)", id="confirm-no-button", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#confirm-no-button", Button).focus()  # the safe answer is the default

    @on(Button.Pressed)
    def pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "confirm-yes-button")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
