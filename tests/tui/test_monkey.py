"""Monkey tests: random keys and pastes on every screen raise nothing; the app keeps working.

The default run gives every screen 20 keys (about 2 s each); ``make test-slow`` (and CI) gives each 300 with
the seeds that found the bugs so far, about 25 s a screen.
"""

from __future__ import annotations

import random

import pytest
from snapshot_app import drill_app, make_app
from textual import events

from quizzer.tui.options import MockOptions, StudyOptions
from quizzer.tui.screens.help import HelpModal

#: Every key a user might hit, except the ones that quit (ctrl+q, and ctrl+p, whose palette offers Quit).
KEYS = [
    *"abcdefghijklmnoprstuvwxyz0123456789.,~%$*/ -_=+^",
    "enter",
    "escape",
    "tab",
    "shift+tab",
    "up",
    "down",
    "left",
    "right",
    "pageup",
    "pagedown",
    "home",
    "end",
    "backspace",
    "delete",
    "space",
    "f1",
    "question_mark",
    "slash",
    "ctrl+a",
    "ctrl+e",
    "ctrl+k",
    "ctrl+u",
]
PASTES = [
    "16.4M",
    "1.6384e7 params",
    "15.6 GiB",
    "∞",
    "",
    "é" * 50,
    "32000*512",
    "[red]x[/red]",
    "\x00\x1b[31m",
    "1" * 400,
    "~≈about 7B",
    "NaN",
    "-5",
    "1e999999",
]


async def monkey(pilot, rng: random.Random, count: int) -> None:  # type: ignore[no-untyped-def]
    for _ in range(count):
        if rng.random() < 0.1:
            target = pilot.app.focused or pilot.app.screen
            target.post_message(events.Paste(rng.choice(PASTES)))
        else:
            await pilot.press(rng.choice(KEYS))
    await pilot.pause()


SCREENS = ["home", "drill", "browse", "help", "mock", "study", "stats", "interview"]


@pytest.mark.parametrize("start", SCREENS)
async def test_random_keys_and_pastes(start: str) -> None:
    await run_monkey(start, random.Random(f"{start}-quick"), 20)


@pytest.mark.slow
@pytest.mark.parametrize("start", SCREENS)
async def test_many_random_keys_and_pastes(start: str) -> None:
    await run_monkey(start, random.Random(f"{start}-2"), 300)  # seed 2 found the integer-input backtracking


async def run_monkey(start: str, rng: random.Random, count: int) -> None:
    """Open ``start``, press ``count`` random keys and pastes, then check the app still answers."""
    if start == "drill":
        app = drill_app()
    elif start == "mock":
        app = make_app(mock=MockOptions(count=4, minutes=30, seed=1))
    elif start == "study":
        app = make_app(study=StudyOptions(new_per_day=5, seed=1))
    else:
        app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        if start == "browse":
            await pilot.press("b")
        elif start == "help":
            await pilot.press("f1")
        elif start == "stats":
            await pilot.press("t")
        elif start == "interview":
            await pilot.press("v")
        await pilot.pause()
        await monkey(pilot, rng, count)
        assert app.is_running
        # still responsive: the help opens and closes on request
        while isinstance(app.screen, HelpModal):
            await pilot.press("escape")
            await pilot.pause()
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpModal)
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, HelpModal)
