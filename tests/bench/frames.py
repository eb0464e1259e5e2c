"""A shadow terminal fed with every frame App._display writes: when did a text first show on screen?"""

from __future__ import annotations

import time
from collections import deque
from typing import Any

from rich.cells import cell_len
from textual._compositor import ChopsUpdate, LayoutUpdate
from textual.app import App


class Frames:
    """Records each frame the app writes (a time stamp and the update, nothing else while the app runs) and
    replays them, later and in order, onto a grid of characters: the screen a terminal would show.

    Only the stamp and a list append run inside the app's frame; the replay and the text search run when
    the bench asks (``replay_until``, ``first_showing``), so their cost is never inside a measured interval.
    """

    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self._rows = [[" "] * width for _ in range(height)]
        self._frames: deque[tuple[float, Any]] = deque()  # written, not replayed yet
        self._display = App._display

    def __enter__(self) -> Frames:
        display, frames = self._display, self._frames

        def recorded(app: App[Any], screen: Any, renderable: Any) -> None:
            display(app, screen, renderable)
            if renderable is not None and not app._batch_count:  # what _display writes to a terminal
                frames.append((time.perf_counter(), renderable))

        App._display = recorded  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        App._display = self._display  # type: ignore[method-assign]

    def text(self) -> str:
        """The screen as replayed so far, a line per row."""
        return "\n".join("".join(row) for row in self._rows)

    def shows(self, needle: str) -> bool:
        """Whether a row of the screen, as replayed so far, holds ``needle``."""
        return any(needle in "".join(row) for row in self._rows)

    def replay_until(self, since: float) -> None:
        """Replay the frames written before ``since`` (the screen as it was when a key was sent)."""
        frames = self._frames
        while frames and frames[0][0] < since:
            self._apply(frames.popleft()[1])

    def first_showing(self, needle: str) -> float | None:
        """Replay frame by frame: the time stamp of the first that leaves ``needle`` on a row of the screen;
        None if no frame written so far does (ask again later: the frames are kept)."""
        frames = self._frames
        while frames:
            stamp, update = frames.popleft()
            self._apply(update)
            if self.shows(needle):
                return stamp
        return None

    def drain(self) -> None:
        """Replay every frame written so far."""
        while self._frames:
            self._apply(self._frames.popleft()[1])

    def _apply(self, update: Any) -> None:
        if isinstance(update, LayoutUpdate):
            x = update.region.x
            for y, line in enumerate(update.strips, update.region.y):
                self._put(y, x, "".join(strip.text for strip in line))
        elif isinstance(update, ChopsUpdate):
            for y, x1, x2 in update.spans:
                for (x, strip), end in zip(update.chops[y].items(), update.chop_ends[y], strict=False):
                    if strip is None or x >= x2 or end <= x1:
                        continue
                    start = max(x, x1)
                    self._put(y, start, strip.crop(start - x, min(end, x2) - x).text)

    def _put(self, y: int, x: int, text: str) -> None:
        if not 0 <= y < self.height:
            return
        row = self._rows[y]
        for char in text:
            if x >= self.width:
                return
            row[x] = char
            if not char.isascii() and cell_len(char) == 2 and x + 1 < self.width:
                x += 1
                row[x] = ""  # the right half of a wide character
            x += 1


#: How much of a prompt's first line a row must show: enough to tell two questions apart, short enough to
#: fit on one row of the narrowest pane that shows a prompt (Browse's preview).
NEEDLE_CHARS = 30


def needle(markdown: str, chars: int = NEEDLE_CHARS) -> str:
    """The first ``chars`` characters of ``markdown``'s first paragraph as a terminal shows it (emphasis and
    code marks gone, line breaks as spaces). A row wide enough for them holds them whole: text wraps
    between words.

    >>> needle("You train a decoder with **n_layers = 32** layers")
    'You train a decoder with n_lay'
    """
    from markdown_it import MarkdownIt

    words: list[str] = []
    for token in MarkdownIt("gfm-like").parse(markdown):
        if token.type != "inline":
            continue
        for child in token.children or []:
            if child.type in ("text", "code_inline"):
                words.append(child.content)
            elif child.type in ("softbreak", "hardbreak"):
                words.append(" ")
        break
    return " ".join("".join(words).split())[:chars].rstrip()
