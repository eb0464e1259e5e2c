"""CachedRenderable: a rich renderable rendered once per width, so revealing it costs no rendering."""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.measure import Measurement
from rich.segment import Segment


class CachedRenderable:
    """Wrap ``renderable`` and keep its segments per width.

    Textual renders a Static's content twice when it appears (once to measure its height, once to draw
    it), and rich's Markdown is slow to render. Wrapped, both reuse one render, and ``warm`` can do it
    ahead, while the user is still reading the question. The cache is keyed on the width alone: the
    other console options are the app's own and do not change between renders.
    """

    def __init__(self, renderable: RenderableType) -> None:
        self.renderable = renderable
        self._segments: dict[int, list[Segment]] = {}

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        segments = self._segments.get(options.max_width)
        if segments is None:
            segments = self._segments[options.max_width] = list(console.render(self.renderable, options))
        return segments

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement.get(console, options, self.renderable)

    def warm(self, console: Console, options: ConsoleOptions, widths: set[int]) -> None:
        """Render now at each of ``widths`` (those the renderable may be shown at)."""
        for width in widths:
            if width > 0:
                list(self.__rich_console__(console, options.update_width(width)))
