"""The practice loop loses nothing: skips, a timed-out mock's typed text, leaving a running mock, Browse's
instance, keys during a screen change, and the TUI logic that moved out of the screens (Home's counts,
local days, the study filter, fresh cards)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator

import pytest
from rich.console import Console
from snapshot_app import WALL, FakeWall, drill_app, make_app
from textual import events
from textual.widgets import Input, Static

from quizzer.session.records import CardState
from quizzer.store.history import HistoryStore
from quizzer.tui.clock import local_midnight
from quizzer.tui.options import MockOptions, StudyOptions
from quizzer.tui.screens.browse import BrowseScreen
from quizzer.tui.screens.confirm import ConfirmModal
from quizzer.tui.screens.drill import DrillScreen
from quizzer.tui.screens.home import HomeScreen
from quizzer.tui.screens.mock import MockScreen
from quizzer.tui.screens.stats import StatsScreen
from quizzer.tui.screens.study import StudyScreen
from quizzer.tui.widgets.answer_input import AnswerInput

SIZE = (100, 32)


def shown(app, selector: str) -> str:  # type: ignore[no-untyped-def]
    return str(app.screen.query_one(selector, Static).render())


@pytest.fixture
def tz_tokyo() -> Iterator[None]:
    """The process in UTC+9 (no daylight saving): local days differ from UTC days."""
    before = os.environ.get("TZ")
    os.environ["TZ"] = "Asia/Tokyo"
    time.tzset()
    yield
    if before is None:
        del os.environ["TZ"]
    else:
        os.environ["TZ"] = before
    time.tzset()


async def test_a_drill_skip_shows_the_explanation_and_is_stored_as_a_skip() -> None:
    store = HistoryStore.memory()
    app = make_app(store=store)
    app._start = None
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(app.screen, DrillScreen)
        await pilot.press("escape", "s")
        await pilot.pause()
        assert app.screen.query_one(".feedback").display  # the worked explanation, as after a wrong answer
        assert "Skipped" in shown(app, ".verdict")
        assert "0/0 right · 1 skipped" in shown(app, ".question-side")
        app.writer.drain()
        assert [a.verdict for a in store.attempts()] == ["skipped"]


async def test_stats_counts_skips_apart() -> None:
    store = HistoryStore.memory()
    app = drill_app(store=store)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        session = app.screen.session  # type: ignore[attr-defined]
        await pilot.press(*str(session.instance.value), "enter")
        await pilot.press("n", "escape", "s")
        await pilot.pause()
        app.action_stats()
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, StatsScreen)
        console = Console(width=100, record=True)
        console.print(app.screen.query_one("#stats", Static).content)
        text = console.export_text()
        assert "1 of 1 right" in text  # the skip is no wrong answer
        assert "1 skipped" in text


async def test_ctrl_q_in_a_running_mock_asks_and_records_the_answered_questions() -> None:
    store = HistoryStore.memory()
    app = make_app(mock=MockOptions(count=3, minutes=10, seed=5), store=store)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MockScreen)
        right = screen.exam.instances[0].value
        await pilot.press(*str(right), "enter")
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmModal)  # asked first: nothing is lost by a stray ctrl+q
        await pilot.press("n")
        await pilot.pause()
        assert app.screen is screen
        assert app.is_running
        await pilot.press("ctrl+q")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
    app.writer.drain()
    assert [a.verdict for a in store.attempts()] == ["exact", "skipped", "skipped"]


async def test_up_from_the_first_question_wraps_to_the_last() -> None:
    app = make_app(mock=MockOptions(count=3, minutes=10, seed=5))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        exam = app.screen.exam  # type: ignore[attr-defined]
        await pilot.press("up")
        await pilot.pause()
        assert exam.current == 2
        await pilot.press("down")
        await pilot.pause()
        assert exam.current == 0


async def test_browse_drill_opens_the_previewed_instance() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("b")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, BrowseScreen)
        await pilot.press("slash", *"embedding", "enter", "down")
        await pilot.pause()
        assert screen.selected is not None
        screen.query_one("#seed-input", Input).value = "2"
        await pilot.pause()
        previewed = f"{screen.selected.id}#2"
        assert previewed in str(screen.query_one("#preview-meta", Static).render())
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(app.screen, DrillScreen)
        assert app.screen.session.instance.id == previewed  # the same instance, not another seed
        assert app.screen.instance_id == previewed


async def test_keys_sent_while_a_screen_opens_do_not_land_in_its_answer_box() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        home = app.screen
        assert isinstance(home, HomeScreen)
        # "n" and "7" are typed while the drill opens, before its question is painted (a fast typist's
        # keys), and read by the answer box only after: they are dropped by when they were typed
        typed = [events.Key(key, key) for key in ("n", "7")]
        assert await app.start_drill()
        await pilot.pause()
        box = app.screen.query_one(AnswerInput)
        assert box.ready  # the question is painted: the box takes keys typed from now on
        for key in typed:
            box.post_message(key)
        await pilot.pause()
        await pilot.pause()
        assert isinstance(app.screen, DrillScreen)
        assert app.screen.query_one(AnswerInput).value == ""


async def test_home_counts_what_is_due_and_new_from_the_history() -> None:
    store = HistoryStore.memory()
    store.put_card(CardState("mini-product", "{}", introduced=WALL - 100, due=WALL - 10))  # due, new today
    app = make_app(store=store)
    app.new_per_day = 2
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        line = shown(app, "#study-due")
        assert "1 due" in line
        assert "1 new left today (limit 2)" in line  # one of the two was introduced today


async def test_studying_again_reads_the_cards_written_since(tz_tokyo: None) -> None:
    store, wall = HistoryStore.memory(), FakeWall()
    put_card = store.put_card

    def slow_put_card(card: CardState) -> None:  # a slow disk: the writer thread lags behind the screen
        time.sleep(1.0)
        put_card(card)

    store.put_card = slow_put_card  # type: ignore[method-assign]
    app = make_app(study=StudyOptions(new_per_day=1, seed=3), store=store, wall=wall)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, StudyScreen)
        await pilot.press("escape", "s", "n")  # skip (rated again), commit; the day's one new is used
        await pilot.pause()
        assert screen.session.instance is None
        await pilot.press("q")
        await pilot.pause()
        assert await app.start_study(StudyOptions(new_per_day=1))
        await pilot.pause()
        again = app.screen
        assert isinstance(again, StudyScreen)
        assert again.session.new_count == 0  # the card written a moment ago is read: no new left today


async def test_a_study_over_one_topic_draws_only_that_topic() -> None:
    app = make_app(study=StudyOptions(topic="embeddings", new_per_day=5, seed=1))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        session = app.screen.session  # type: ignore[attr-defined]
        assert session.instance is not None
        assert session.instance.topic == "embeddings"
        assert session.new_count == 1  # the pack has one embeddings template


def test_local_midnight_is_the_start_of_the_local_day(tz_tokyo: None) -> None:
    # 2026-05-28 20:26:40 UTC is 2026-05-29 05:26:40 in Tokyo: its midnight is 2026-05-28 15:00 UTC
    assert local_midnight(WALL) == WALL - (5 * 3600 + 26 * 60 + 40)


async def test_stats_days_are_local_days(tz_tokyo: None) -> None:
    from quizzer.session.records import Attempt

    store = HistoryStore.memory()
    at = WALL - 6 * 3600  # 14:26 UTC on 28 May, 23:26 in Tokyo: a Thursday in both
    store.record(Attempt("mini-product", 1, {}, "4", 4, 4, "count", "exact", 0.0, None, 5.0, 0, at=at))
    late = WALL - 20 * 60  # 20:06 UTC on 28 May, 05:06 on 29 May in Tokyo
    store.record(Attempt("mini-product", 2, {}, "4", 4, 4, "count", "exact", 0.0, None, 5.0, 0, at=late))
    app = make_app(store=store)
    stats = app.reader.stats()
    today = stats.days[-1]
    assert (today.day, today.attempts) == ("2026-05-29", 1)  # Tokyo's day, not UTC's 28th
    assert stats.days[-2].attempts == 1
