"""Pilot tests of the study modes: a whole mock (submitted and timed out), a study session, Stats."""

from __future__ import annotations

import io

from snapshot_app import FakeClock, FakeWall, make_app
from textual.widgets import Static

from quizzer.store.history import HistoryStore
from quizzer.tui.options import MockOptions, StudyOptions
from quizzer.tui.screens.home import HomeScreen
from quizzer.tui.screens.mock import MockScreen
from quizzer.tui.screens.mock_report import MockReportScreen
from quizzer.tui.screens.stats import StatsScreen
from quizzer.tui.screens.study import StudyScreen
from quizzer.tui.widgets.answer_input import AnswerInput

SIZE = (100, 32)


def static_text(app, selector: str) -> str:  # type: ignore[no-untyped-def]
    return str(app.screen.query_one(selector, Static).render())


def rendered_text(app, selector: str) -> str:  # type: ignore[no-untyped-def]
    """What a Static holding rich renderables shows, as plain text."""
    from rich.console import Console

    console = Console(width=100, record=True, color_system=None, file=io.StringIO())
    console.print(app.screen.query_one(selector, Static).content)
    return console.export_text()


def report_text(app) -> str:  # type: ignore[no-untyped-def]
    """The report's Markdown source (the Static holds a CachedRenderable of rich's Markdown)."""
    return app.screen.query_one("#report-body Static", Static).content.renderable.markup


async def test_a_whole_mock_submitted() -> None:
    clock, store = FakeClock(), HistoryStore.memory()
    app = make_app(mock=MockOptions(count=3, minutes=10, seed=5), clock=clock, store=store)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MockScreen)
        exam = screen.exam
        assert "10:00 left" in static_text(app, ".question-side")
        right = exam.instances[0].value
        clock.now += 30
        await pilot.press(*str(right), "enter")  # saved, and the next question comes up
        await pilot.pause()
        assert exam.current == 1
        assert exam.answers[0] == str(right)
        assert "1●" in static_text(app, ".question-strip")
        await pilot.press(*"banana", "enter")  # unreadable: refused with the reason, nothing saved
        await pilot.pause()
        assert exam.answers[1] == ""
        assert static_text(app, ".reading").startswith("✗")
        app.writer.drain()  # the history is written off the UI thread
        assert store.count() == 0  # no feedback and nothing graded before the end
        await pilot.press("up")  # back to question 1: its answer is still there, and can be revised
        await pilot.pause()
        assert exam.current == 0
        assert app.screen.query_one(AnswerInput).value == str(right)
        clock.now += 90
        await pilot.press("ctrl+s")  # two questions unanswered: a warning first
        await pilot.pause()
        assert isinstance(app.screen, MockScreen)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, MockReportScreen)
        text = report_text(app)
        assert "# 1 of 3 right" in text
        assert "Unanswered" in text
        app.writer.drain()  # the history is written off the UI thread
        attempts = store.attempts()
        assert [a.verdict for a in attempts] == ["exact", "skipped", "skipped"]
        assert {a.mode for a in attempts} == {"mock"}
        assert attempts[0].seconds == 120  # question 1 was current for 30 s, then for 90 s more
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)


async def test_a_mock_that_runs_out_of_time() -> None:
    clock, wall, store = FakeClock(), FakeWall(), HistoryStore.memory()
    app = make_app(mock=MockOptions(count=2, minutes=1, seed=5), clock=clock, wall=wall, store=store)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MockScreen)
        await pilot.press(*str(screen.exam.instances[0].value))  # typed, not saved with enter
        wall.now -= 3600  # the system clock jumps back an hour: the mock's time does not move
        screen.tick()
        assert screen.exam.remaining() == 60
        clock.now += 45
        screen.tick()
        await pilot.pause()
        assert "0:15 left" in static_text(app, ".question-side")
        clock.now += 16
        screen.tick()
        await pilot.pause()
        assert isinstance(app.screen, MockReportScreen)
        assert "time ran out" in report_text(app)
        app.writer.drain()  # the history is written off the UI thread
        # the answer typed but never saved is kept when the time runs out: graded, not lost
        assert [a.verdict for a in store.attempts()] == ["exact", "timed-out"]
        assert store.attempts()[0].answer == str(screen.exam.instances[0].value)


async def test_a_whole_study_session() -> None:
    clock, wall, store = FakeClock(), FakeWall(), HistoryStore.memory()
    app = make_app(study=StudyOptions(new_per_day=2, seed=3), clock=clock, wall=wall, store=store)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, StudyScreen)
        session = screen.session
        assert "2 new left today" in static_text(app, ".question-side")
        first = session.instance
        assert first is not None
        clock.now += 5  # far faster than the expected minutes: proposed easy
        await pilot.press(*str(first.value), "enter")
        await pilot.pause()
        assert session.proposed == "easy"
        assert "easy: right in 5 s of 1 min" in static_text(app, ".extra")
        await pilot.press("2")  # the user overrides it: hard
        await pilot.pause()
        assert session.rating == "hard"
        assert "you chose hard" in static_text(app, ".extra")
        await pilot.press("n")
        await pilot.pause()
        app.writer.drain()  # the history is written off the UI thread
        (card,) = store.cards()
        assert card.template_id == first.template_id
        assert card.due > wall.now  # reviewed: scheduled later
        second = session.instance
        assert second is not None
        assert second.template_id != first.template_id  # the second new template (the limit is 2)
        await pilot.press("escape", "s")  # skip: rated again
        await pilot.pause()
        assert session.rating == "again"
        await pilot.press("n")
        await pilot.pause()
        assert session.instance is None  # nothing due yet, and no new template left today
        assert "Nothing to study" in app.screen.query_one(".question-prompt").source  # type: ignore[attr-defined]
        app.writer.drain()  # the history is written off the UI thread
        assert [a.mode for a in store.attempts()] == ["study", "study"]
        app.writer.drain()  # the history is written off the UI thread
        assert [a.verdict for a in store.attempts()] == ["exact", "skipped"]
        wall.now += 24 * 3600  # the next day: both are due again (or sooner), and 2 new would be allowed
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)
        assert "2 due" in static_text(app, "#study-due")


async def test_stats_screen_from_home() -> None:
    store = HistoryStore.memory()
    app = make_app(drill=None, store=store)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("t")
        await pilot.pause()
        assert isinstance(app.screen, StatsScreen)
        assert "No attempts yet" in rendered_text(app, "#stats")
        await pilot.press("escape", "d")  # a drill: one right answer, one wrong
        await pilot.pause()
        session = app.screen.session  # type: ignore[attr-defined]
        await pilot.press(*str(session.instance.value), "enter")
        await pilot.pause()
        await pilot.press("n")
        await pilot.pause()
        await pilot.press(*"1", "enter")
        await pilot.pause()
        app.writer.drain()  # the history is written off the UI thread
        assert store.count() == 2
        await pilot.press("q", "t")
        await pilot.pause()
        text = rendered_text(app, "#stats")
        assert "1 of 2 right" in text
        assert "practised 1 day in a row" in text


async def test_drill_attempts_are_committed_as_graded() -> None:
    store = HistoryStore.memory()
    from quizzer.tui.options import DrillOptions

    app = make_app(drill=DrillOptions(template_id="embedding-table-params", seed=7), store=store)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press(*str(2 * app.screen.session.instance.value), "enter")  # type: ignore[attr-defined]
        await pilot.pause()
        app.writer.drain()  # the history is written off the UI thread
        (attempt,) = store.attempts()
        assert attempt.mode == "drill"
        assert attempt.verdict == "wrong"
        assert attempt.topic == "embeddings"
        assert attempt.at == FakeWall().now
