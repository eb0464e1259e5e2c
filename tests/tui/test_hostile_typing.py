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


@pytest.mark.parametrize(  # the drill's box in make test; the others' in make test-slow (and CI)
    "start", ["drill", *(pytest.param(s, marks=pytest.mark.slow) for s in ("mock", "study", "browse"))]
)
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


#: An escape sequence that clears the screen and one that sets the clipboard (OSC 52), as a crafted side
#: file can put them in the history.
HOSTILE_HISTORY = "\x1b[2J\x1b]52;c;cHduZWQ=\x07\x9b31m"


def _no_control(text: str) -> bool:
    return not any(c in text for c in ("\x1b", "\x07", "\x9b"))


async def test_history_text_reaches_the_screen_escaped() -> None:
    """A mistake title, a topic and an answer holding escape sequences are shown as ``\\x1b``, in Stats and
    in a past mock's report, never as raw control characters (Textual passes ESC and C1 through)."""
    import io

    from rich.console import Console
    from snapshot_app import WALL

    from quizzer.session.records import Attempt, SessionMark
    from quizzer.store.history import HistoryStore
    from quizzer.tui.screens.mock_report import MockReportScreen, report_markdown
    from quizzer.tui.screens.past_mocks import PastMocksScreen
    from quizzer.tui.screens.stats import StatsScreen

    store = HistoryStore.memory()
    app = make_app(store=store)
    q = app.questions_bank().generate("mini-product", 3)
    store.mark_session(SessionMark("m1", "mock", WALL - 600, 1, minutes=10, finished=WALL - 60))
    store.record(
        Attempt(
            q.template_id, q.seed, q.variables, f"{q.value}{HOSTILE_HISTORY}", q.value, q.value, "count",
            "wrong", 0.5, "m", 30.0, 0, mode="mock", at=WALL - 120, session="m1",
            topic=f"testing{HOSTILE_HISTORY}", minutes=1, mistake_title=f"Slip{HOSTILE_HISTORY}",
        )
    )  # fmt: skip
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.pause()
        app.action_stats()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, StatsScreen)
        console = Console(width=100, record=True, color_system=None, file=io.StringIO())
        console.print(app.screen.query_one("#stats", Static).content)
        text = console.export_text()
        assert "Slip\\x1b[2J" in text  # the mistake's title, its escape shown
        assert _no_control(text)
        app.action_past_mocks()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, PastMocksScreen)
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, MockReportScreen)
        assert not app.screen.note  # the question is in it
        report = report_markdown(app.screen.report)
        assert f"{q.value}\\x1b" in report.replace("\\\\", "\\")  # the answer, its escape shown
        assert _no_control(report)


async def test_a_paste_lands_once_and_without_its_escape_sequences() -> None:
    """On main every paste landed twice ('12' gave '1212': Input's own handler pasted it again)."""
    app = drill_app()
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.pause()
        await pilot.pause()
        box = app.screen.query_one("AnswerInput", Input)
        box.post_message(events.Paste(f"12{HOSTILE_HISTORY}"))
        await pilot.pause()
        assert box.value == "12[2J]52;c;cHduZWQ=31m"
