"""ModelPickModal: "practise on a model": a preset or a config.json path, or nothing for every question."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from quizzer.tui.widgets.lines import line, plain


class ModelPickModal(ModalScreen[str | None]):
    """Ask which model to practise on; enter dismisses with the text typed ("" for every question), escape
    with None (nothing changes)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="model-cancel"),
        Binding("f1", "app.help", "Help", show=False, id="model-help"),  # a modal stops the app's keys
    ]

    def __init__(self, current: str | None, presets: int) -> None:
        super().__init__()
        self._current, self._presets = current, presets

    def compose(self) -> ComposeResult:
        now = f"Now practising on {self._current}. " if self._current else ""
        with Vertical(id="model-pick"):
            yield Static(line(("Practise on a model", "bold")), id="model-pick-title")
            yield Static(
                plain(
                    f"{now}Every question that takes a model is asked about this one: one of the "
                    f"{self._presets} presets (quizzer count --list) or the path of a config.json. "
                    "Leave it empty for every question."
                ),
                id="model-pick-text",
            )
            yield Input(placeholder="llama-3-8b or ~/models/mine/config.json", id="model-pick-input")
            yield Static(plain("enter: practise · escape: cancel"), id="model-pick-keys")

    def on_mount(self) -> None:
        self.query_one("#model-pick-input", Input).focus()

    @on(Input.Submitted, "#model-pick-input")
    def submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip())

    def action_cancel(self) -> None:
        self.dismiss(None)


__all__ = ["ModelPickModal"]
