"""The study screen: the rating row's intervals and reason, undo, the end-of-session summary, the footer."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console
from snapshot_app import WALL, FakeClock, FakeWall, make_app
from textual.widgets import Static

from quizzer.config import ConfigError, Settings, load_settings
from quizzer.session.srs import Scheduler, preview_intervals, short_interval
from quizzer.store.history import HistoryStore
from quizzer.tui.options import StudyOptions
from quizzer.tui.screens.home import HomeScreen
from quizzer.tui.screens.study import StudyScreen

SIZE = (120, 32)
DAY = 86_400.0


def text_of(app, selector: str) -> str:  # type: ignore[no-untyped-def]
    console = Console(width=200, record=True)
    console.print(app.screen.query_one(selector, Static).render())
    return console.export_text()


def prompt_text(app) -> str:  # type: ignore[no-untyped-def]
    from quizzer.tui.widgets.prompt import QuestionPrompt

    return app.screen.query_one(".question-prompt", QuestionPrompt).source


async def box_ready(pilot) -> None:  # type: ignore[no-untyped-def]
    """Wait until the question is painted and its answer box takes keys (keys before that are dropped, on
    purpose: under load one pause is not always enough)."""
    box = pilot.app.screen.panel.answer_box
    for _ in range(200):
        if box.ready and box.has_focus:
            return
        await pilot.pause(0.01)
    raise AssertionError("the answer box never became ready")


async def answer_right(pilot, clock: FakeClock, seconds: float = 5) -> None:  # type: ignore[no-untyped-def]
    await box_ready(pilot)
    clock.now += seconds
    await pilot.press(*str(pilot.app.screen.session.instance.value), "enter")
    await pilot.pause()


def footer_actions(app) -> set[str]:  # type: ignore[no-untyped-def]
    """The study screen's actions the footer offers (shown and enabled)."""
    screen = app.screen
    return {
        b.binding.action
        for b in screen.active_bindings.values()
        if b.node is screen and b.binding.show and b.enabled
    }


async def test_the_rating_row_shows_each_ratings_next_interval() -> None:
    clock = FakeClock()
    app = make_app(study=StudyOptions(new_per_day=2, seed=3), clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, StudyScreen)
        template_id = screen.session.instance.template_id
        await answer_right(pilot, clock)
        row = text_of(app, ".extra")
        expected = preview_intervals(None, template_id, WALL)  # a new card, at the app's wall clock
        for key, rating in enumerate(("again", "hard", "good", "easy"), 1):
            assert f"{key} {rating} {short_interval(expected[rating])}" in row
        assert "1 again 1m" in row  # fsrs's first learning step is one minute
        assert "easy: right in 5 s of" in row  # the reason, led by the proposed rating
        await pilot.press("3")
        await pilot.pause()
        assert "you chose good; proposed easy: right in 5 s of" in text_of(app, ".extra")


async def test_u_undoes_the_last_rating_and_the_store_gets_the_card_back() -> None:
    store, clock, wall = HistoryStore.memory(), FakeClock(), FakeWall()
    before = Scheduler().review(None, "mini-product", "good", WALL - 30 * DAY)  # long due
    store.put_card(before)
    app = make_app(study=StudyOptions(new_per_day=0, seed=3), clock=clock, wall=wall, store=store)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, StudyScreen)
        assert screen.session.instance.template_id == "mini-product"
        shown = screen.session.instance.id
        assert "undo" not in footer_actions(app)  # nothing committed yet
        await answer_right(pilot, clock)
        await pilot.press("n")
        await pilot.pause()
        app.writer.drain()
        assert store.card("mini-product") != before
        assert screen.session.instance is None  # nothing else due
        assert "undo" in footer_actions(app)
        await pilot.press("u")
        await pilot.pause()
        app.writer.drain()
        assert store.card("mini-product") == before  # exactly: card json and due date
        assert screen.session.instance.id == shown  # the same question, rated, to rate again
        assert "1 again" in text_of(app, ".extra")
        assert screen.session.reviewed == 0
        await pilot.press("1", "n")
        await pilot.pause()
        app.writer.drain()
        again = store.card("mini-product")
        assert again is not None
        assert again.due == Scheduler().review(before, "mini-product", "again", WALL, seconds=5).due
        assert len(store.attempts()) == 1  # the attempt is kept, once


async def test_leaving_shows_the_summary_then_q_goes_home() -> None:
    clock = FakeClock()
    app = make_app(study=StudyOptions(new_per_day=2, seed=3), clock=clock)
    app._start = None
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert await app.start_study(StudyOptions(new_per_day=2, seed=3))
        await pilot.pause()
        await answer_right(pilot, clock)
        await pilot.press("n")
        await pilot.pause()
        await box_ready(pilot)
        await pilot.press("escape", "s", "q")  # the second is skipped, committed when leaving
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, StudyScreen)
        summary = prompt_text(app)
        assert "Session done" in summary
        assert "**2** reviewed, **1** right, **2** new" in summary
        assert "retention this session: **50%**" in summary
        assert "next review due" in summary
        assert footer_actions(app) & {"next", "hint", "skip", "undo"} == set()
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)


async def test_nothing_more_due_shows_the_summary_and_offers_no_next_hint_skip() -> None:
    clock = FakeClock()
    app = make_app(study=StudyOptions(new_per_day=1, seed=3), clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("escape")  # out of the answer box: single keys are the screen's
        await pilot.pause()
        assert {"next", "hint", "skip"} <= footer_actions(app)
        await pilot.press("tab")
        await pilot.pause()
        await answer_right(pilot, clock)
        await pilot.press("n")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, StudyScreen)
        assert screen.session.instance is None
        text = prompt_text(app)
        assert "Nothing to study right now" in text
        assert "**1** reviewed, **1** right, **1** new" in text
        assert "retention this session: **100%**" in text
        assert footer_actions(app) & {"next", "hint", "skip", "rate"} == set()


async def test_an_empty_study_offers_only_back_and_help() -> None:
    app = make_app(study=StudyOptions(new_per_day=0, seed=3))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.screen.session.instance is None  # type: ignore[attr-defined]
        assert footer_actions(app) == {"back", "app.help"}


# --- desired_retention: config.toml to the study's scheduler ---------------------------------------------


def test_desired_retention_is_read_and_checked(tmp_path: Path) -> None:
    assert Settings().desired_retention == 0.9
    path = tmp_path / "config.toml"
    for value, read in (("0.85", 0.85), ("0.7", 0.7), ("0.99", 0.99)):
        path.write_text(f"desired_retention = {value}\n")
        assert load_settings(str(path)).desired_retention == read
    for value in ("0.69", "0.995", "1", "true", '"0.9"'):
        path.write_text(f"desired_retention = {value}\n")
        with pytest.raises(
            ConfigError, match=r"config.toml: desired_retention must be a number from 0.7 to 0.99"
        ):
            load_settings(str(path))


async def test_the_study_session_schedules_at_the_desired_retention() -> None:
    before = Scheduler().review(None, "mini-product", "good", WALL - 30 * DAY)
    before = Scheduler().review(before, "mini-product", "good", before.due)

    async def row(retention: float | None) -> tuple[str, dict[str, float]]:
        store, clock = HistoryStore.memory(), FakeClock()
        store.put_card(before)
        app = make_app(study=StudyOptions(new_per_day=0, seed=3), clock=clock, store=store)
        if retention is not None:
            app.settings = Settings(desired_retention=retention)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await answer_right(pilot, clock)
            return text_of(app, ".extra"), app.screen.session.intervals()  # type: ignore[attr-defined]

    low_row, low = await row(0.75)
    default_row, default = await row(None)
    assert low == preview_intervals(before, "mini-product", WALL, Scheduler(desired_retention=0.75))
    assert default == preview_intervals(before, "mini-product", WALL)
    assert low["good"] > default["good"]
    assert f"3 good {short_interval(low['good'])}" in low_row
    assert f"3 good {short_interval(default['good'])}" in default_row


async def test_u_from_the_next_question_brings_the_last_one_back() -> None:
    store, clock = HistoryStore.memory(), FakeClock()
    app = make_app(study=StudyOptions(new_per_day=2, seed=3), clock=clock, store=store)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, StudyScreen)
        first = screen.session.instance.id
        await answer_right(pilot, clock)
        await pilot.press("n")
        await pilot.pause()
        second = screen.session.instance.id
        assert second != first
        await pilot.press("u")  # typed into the answer box: not an undo
        await pilot.pause()
        assert screen.session.instance.id == second
        await pilot.press("backspace", "escape", "u")
        await pilot.pause()
        assert screen.session.instance.id == first
        assert "easy: right in 5 s of" in text_of(app, ".extra")
        await pilot.press("n")
        await pilot.pause()
        assert screen.session.instance.id.split("#")[0] == second.split("#")[0]  # drawn again
        app.writer.drain()
        assert len(store.cards()) == 1
        assert len(store.attempts()) == 1
