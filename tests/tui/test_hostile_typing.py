"""Hostile text typed or pasted into every input of every screen: never read as markup, never ends the app."""

from __future__ import annotations

import pytest
from keys import type_keys
from snapshot_app import drill_app, make_app
from textual import events
from textual.widgets import Input, Static

from quizzer.tui.options import MockOptions, StudyOptions

#: What the reliability run typed: markup openers and closers, a Kelvin sign, control characters, emoji,
#: combining marks, backslashes and a long paste.
TYPED = [
    "[/",
    "[a=",
    "[b]x[/b]",
    "[/red]",
    "[@click=app.quit]x[/]",
    "\\[",
    "5 \u212aFLOPs",  # the Kelvin sign, which case-folds to k
    "\x00\x07\x1b[31m",
    "🚀 7B",
    "e\u0301\u0301\u0301 GB",
    "1e-999^999",
    "$" * 40 + "5",
]
#: Pasted at once: a 100 KB answer with a bracket in it.
PASTE = "3*" * 25_000 + "[/" + "1" * 50_000


def _inputs(app) -> list[Input]:  # type: ignore[no-untyped-def]
    return [w for w in app.screen.query(Input) if w.display and not w.disabled]


async def _type_everywhere(app, pilot) -> int:  # type: ignore[no-untyped-def]
    """Type every hostile text into every enabled input, then paste the long one; how many inputs."""
    seen = 0
    for box in _inputs(app):
        seen += 1
        for text in TYPED:
            box.focus()
            box.value = ""
            await type_keys(pilot, *[c if c.isprintable() and c != " " else "space" for c in text[:3]])
            box.insert_text_at_cursor(text)  # the whole text, control characters included
            await pilot.pause()
            assert app.is_running, text
        box.value = ""
        box.post_message(events.Paste(PASTE))
        await pilot.pause()
        assert app.is_running
        assert len(box.value) <= max(box.max_length or 0, 0) or not box.max_length
    return seen


@pytest.mark.parametrize("start", ["drill", "mock", "study", "browse"])
async def test_hostile_text_in_every_answer_box(start: str) -> None:
    if start == "drill":
        app = drill_app()
    elif start == "mock":
        app = make_app(mock=MockOptions(count=2, minutes=30, seed=1))
    elif start == "study":
        app = make_app(study=StudyOptions(new_per_day=5, seed=1))
    else:
        app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        if start == "browse":
            await pilot.press("b")
            await pilot.pause()
        seen = await _type_everywhere(app, pilot)
        assert seen >= 1
        # Enter on a hostile answer: graded (or refused) with the text shown as typed, never as markup
        for box in _inputs(app):
            box.focus()
            box.value = "[b]x[/b]"
            await pilot.press("enter")
            await pilot.pause()
            assert app.is_running
        shown = " ".join(str(w.render()) for w in app.screen.query(Static) if w.display)
        if start != "browse":
            assert "[b]x[/b]" in shown, "the answer is quoted as typed"
