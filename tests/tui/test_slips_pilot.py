"""Pilot tests: Stats names your top slip and s drills it; Home's e and o drill your slips, your slowest."""

from __future__ import annotations

from snapshot_app import FakeClock, FakeWall

from quizzer.paths import questions_dir
from quizzer.session.records import Attempt
from quizzer.session.slips import families_of
from quizzer.store.history import HistoryStore
from quizzer.tui.app import QuizzerApp
from quizzer.tui.screens.drill import DrillScreen
from quizzer.tui.screens.home import HomeScreen
from quizzer.tui.screens.stats import StatsScreen
from quizzer.tui.widgets.answer_input import AnswerInput

SIZE = (100, 30)


def _store() -> HistoryStore:
    """Three GB-for-GiB slips and one KV-heads slip; one template answered slowly, one quickly."""
    store = HistoryStore.memory()
    wall = FakeWall().now - 3600
    for i in range(3):
        store.record(
            Attempt(
                "kv-cache-bytes",
                i,
                {},
                "1",
                1,
                2,
                "bytes",
                "wrong",
                0.07,
                "gb-vs-gib",
                600,
                0,
                at=wall,
                minutes=4,
            )
        )
    store.record(
        Attempt(
            "gqa-attention-params",
            1,
            {},
            "1",
            1,
            2,
            "params",
            "wrong",
            3.0,
            "heads-for-kv-heads",
            60,
            0,
            at=wall,
            minutes=3,
        )
    )
    store.record(
        Attempt(
            "embedding-table-params",
            1,
            {},
            "1",
            1,
            1,
            "params",
            "exact",
            0.0,
            None,
            30,
            0,
            at=wall,
            minutes=2,
        )
    )
    return store


def _app(store: HistoryStore) -> QuizzerApp:
    return QuizzerApp(
        [questions_dir()], clock=FakeClock(), wall=FakeWall(), seed_source=lambda: 7, store=store
    )


async def _until(pilot, done) -> None:  # type: ignore[no-untyped-def]
    for _ in range(600):
        await pilot.pause(0.05)
        if done():
            return
    raise AssertionError("timed out")


async def test_stats_names_the_top_slip_and_s_drills_it() -> None:
    app = _app(_store())
    async with app.run_test(size=SIZE) as pilot:
        await _until(pilot, lambda: isinstance(app.screen, HomeScreen))
        await pilot.press("t")
        await _until(pilot, lambda: isinstance(app.screen, StatsScreen) and app.screen.stats is not None)
        stats = app.screen.stats
        assert stats.top_slip == ("GB for GiB, or bytes for a prefixed unit", 3)
        await pilot.press("s")
        await _until(pilot, lambda: isinstance(app.focused, AnswerInput))
        session = app.screen.session
        assert isinstance(app.screen, DrillScreen)
        for _ in range(5):  # every question builds in one of the two families
            assert families_of(session.instance) & {"gb-gib", "kv-heads"}
            session.skip()


async def test_home_o_drills_the_slowest_first() -> None:
    app = _app(_store())
    async with app.run_test(size=SIZE) as pilot:
        await _until(pilot, lambda: isinstance(app.screen, HomeScreen))
        await pilot.press("o")
        await _until(pilot, lambda: isinstance(app.focused, AnswerInput))
        assert app.screen.session.order == "slowest"
        assert app.screen.session.instance.template_id == "kv-cache-bytes"  # 600 s of 4 minutes: 2.5×


async def test_home_e_without_a_slip_says_so_and_stays() -> None:
    app = _app(HistoryStore.memory())
    async with app.run_test(size=SIZE) as pilot:
        await _until(pilot, lambda: isinstance(app.screen, HomeScreen))
        await pilot.press("e")
        await _until(pilot, lambda: any("No slip recorded yet" in str(n.message) for n in app._notifications))
        assert isinstance(app.screen, HomeScreen)
        await pilot.pause(0.2)
