"""The app never dies of a resize (issue 23): every screen, a drop-down or the palette open, shrunk to a
few cells and back. On main, Home's difficulty drop-down open at 20x8 ended the app (a ValueError inside
Textual's option wrapping at zero width)."""

from __future__ import annotations

import pytest
from snapshot_app import make_app
from test_home_progress import seeded_store, settled
from textual.widgets import Select

from quizzer.tui.options import DrillOptions, MockOptions, StudyOptions

SIZES = [(20, 8), (10, 4), (3, 2), (1, 1), (100, 30)]


async def open_select(app, pilot, widget_id: str) -> None:  # type: ignore[no-untyped-def]
    select = app.screen.query_one(widget_id, Select)
    select.focus()
    await pilot.press("enter")
    await pilot.pause()
    assert select.expanded


async def show_feedback(app, pilot) -> None:  # type: ignore[no-untyped-def]
    await pilot.press(*"12345", "enter")
    await pilot.pause()


async def open_palette(app, pilot) -> None:  # type: ignore[no-untyped-def]
    await pilot.press("ctrl+p")
    await pilot.pause()


async def nothing(app, pilot) -> None:  # type: ignore[no-untyped-def]
    return None


CASES = {
    "home, difficulty drop-down open": ({}, lambda a, p: open_select(a, p, "#difficulty-filter")),
    "home, topic drop-down open": ({}, lambda a, p: open_select(a, p, "#topic-filter")),
    "home, palette open": ({}, open_palette),
    "drill, question": ({"drill": DrillOptions(template_id="mini-product", seed=3)}, nothing),
    "drill, feedback": ({"drill": DrillOptions(template_id="mini-product", seed=3)}, show_feedback),
    "mock": ({"mock": MockOptions(count=2, minutes=4, seed=5)}, nothing),
    "study": ({"study": StudyOptions(new_per_day=2, seed=3)}, nothing),
    "stats": ({}, lambda a, p: a.action_stats()),
    "browse": ({}, lambda a, p: a.action_browse()),
    "help": ({}, lambda a, p: a.action_help()),
}


#: The cases ``make test`` runs: the one that ended the app, and a question; ``make test-slow`` (and CI) runs
#: every other screen.
QUICK = ("home, difficulty drop-down open", "drill, feedback")


@pytest.mark.parametrize(
    "case", [c if c in QUICK else pytest.param(c, marks=pytest.mark.slow) for c in CASES]
)
async def test_shrinking_to_a_few_cells_and_back_never_ends_the_app(case: str) -> None:
    start, prepare = CASES[case]
    app = make_app(store=seeded_store(), **start)
    async with app.run_test(size=(100, 30)) as pilot:
        await settled(app, pilot)
        result = prepare(app, pilot)
        if result is not None:
            await result
        await settled(app, pilot)
        screen = app.screen
        for size in SIZES:
            await pilot.resize_terminal(*size)
            await pilot.pause()
            await pilot.pause()
            assert app.is_running, f"the app ended at {size}"
        assert app.screen is screen
