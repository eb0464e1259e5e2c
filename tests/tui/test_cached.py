"""CachedRenderable draws exactly what it wraps, rendering it once per width."""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import Markdown
from rich.segment import Segment

from quizzer.tui.widgets.cached import CachedRenderable

SOURCE = "### Answer\n\n| Step | Formula |\n|---|---|\n| a | b × c |\n\n**TL;DR** a long line " * 3


class Counting:
    def __init__(self) -> None:
        self.renders = 0

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        self.renders += 1
        yield from console.render(Markdown(SOURCE), options)


def lines(renderable: object, width: int) -> list[str]:
    console = Console(width=width, record=True, color_system=None)
    console.print(renderable)
    return console.export_text().splitlines()


def test_same_output_as_the_wrapped_renderable() -> None:
    for width in (30, 60, 100):
        assert lines(CachedRenderable(Markdown(SOURCE)), width) == lines(Markdown(SOURCE), width)


def test_rendered_once_per_width_and_warmed_ahead() -> None:
    inner = Counting()
    cached = CachedRenderable(inner)
    console = Console(width=80)
    cached.warm(console, console.options, {50, 48, 0})
    assert inner.renders == 2  # a zero width (not laid out yet) is skipped
    first = list(console.render(cached, console.options.update_width(50)))
    again = list(console.render(cached, console.options.update_width(50)))
    assert inner.renders == 2
    assert first == again
    assert all(isinstance(s, Segment) for s in first)
    list(console.render(cached, console.options.update_width(70)))
    assert inner.renders == 3
