"""QuizzerPalette: Textual's command palette, where enter runs the first match of what was typed."""

from __future__ import annotations

import asyncio

from textual import on
from textual.command import CommandList, CommandPalette
from textual.widgets import Input
from textual.worker import WorkerError

#: The longest enter waits for the matches of what was typed (the palette searches in a worker).
MATCH_WAIT_SECONDS = 1.0


class QuizzerPalette(CommandPalette):
    """The command palette: enter pressed right after typing runs the first match of the text typed.

    Textual's palette searches in a worker as you type; an enter that comes before the search is through
    acts on the list shown, the matches of an earlier text or none, so it did nothing (or ran a stale
    match). Here enter first waits for the search, then the first match is highlighted and Textual's own
    handler runs it. This leans on the palette's private search group and list (textual is pinned to 8.2).
    """

    @on(Input.Submitted)
    async def matched_first(self, event: Input.Submitted) -> None:
        """Let the search of the text typed finish, and highlight its first match (Textual's own handler,
        called after this one, runs the highlighted command)."""
        searches = [
            worker
            for worker in self.workers
            if worker.node is self and worker.group == self._GATHER_COMMANDS_GROUP and not worker.is_finished
        ]
        for worker in searches:
            try:
                await asyncio.wait_for(worker.wait(), MATCH_WAIT_SECONDS)
            except (WorkerError, TimeoutError):  # cancelled by more typing, or slow: as Textual would
                return
        commands = self.query_one(CommandList)
        if searches and commands.option_count and commands.highlighted is None:
            commands.highlighted = 0
