"""App-wide messages: what a screen asks the app for (a mode, a screen), so no screen imports the app."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from quizzer.session.mock import MockReport


class StartMode(Message):
    """Open a mode: "drill", "mock", "study", "cram" or "interview", with its filters (None: any) and, for a
    drill, one template and a seed (the instance template#seed first), or only some templates (the
    leeches)."""

    def __init__(
        self,
        mode: str,
        *,
        topic: str | None = None,
        difficulty: str | None = None,
        template_id: str | None = None,
        seed: int | None = None,
        template_ids: tuple[str, ...] = (),
        order: str = "random",
        slips: bool = False,
    ) -> None:
        super().__init__()
        self.mode, self.topic, self.difficulty = mode, topic, difficulty
        self.template_id, self.seed, self.template_ids = template_id, seed, template_ids
        #: A drill's order (quizzer.session.drill.ORDERS) and whether it aims at your slips.
        self.order, self.slips = order, slips


class OpenScreen(Message):
    """Open a screen that is not a mode: "browse", "stats", "past-mocks" or "help"."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name


class ReturnToStudy(Message):
    """Return leeches (template ids) to study: their cards are no longer suspended."""

    def __init__(self, template_ids: tuple[str, ...]) -> None:
        super().__init__()
        self.template_ids = template_ids


class DeliverFile(Message):
    """Hand a file to the user: saved to their downloads folder in a terminal, a download in a browser."""

    def __init__(self, text: str, filename: str, what: str, mime_type: str = "text/plain") -> None:
        super().__init__()
        self.text, self.filename, self.what, self.mime_type = text, filename, what, mime_type


class ExportHistory(Message):
    """Hand the user every attempt of the history as CSV (a DeliverFile of ``quizzer export``'s CSV)."""


class OpenReport(Message):
    """A mock has finished: show its report in its place."""

    def __init__(self, report: MockReport) -> None:
        super().__init__()
        self.report = report
