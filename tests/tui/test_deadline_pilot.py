"""Pilot tests: Home shows the plan toward an interview date (days left, today's load, what to drop), and
study asks today's planned reviews first."""

from __future__ import annotations

from snapshot_app import PACK, FakeClock, FakeWall

from quizzer.config import Settings
from quizzer.store.history import HistoryStore
from quizzer.tui.app import QuizzerApp, StudyOptions
from quizzer.tui.screens.home import HomeScreen
from quizzer.tui.screens.study import StudyScreen

SIZE = (100, 30)


def _app(minutes: float, study: StudyOptions | None = None) -> QuizzerApp:
    settings = Settings(interview_date="2026-06-10", daily_minutes=minutes)  # the wall is 28 May 2026
    return QuizzerApp(
        [str(PACK)],
        clock=FakeClock(),
        wall=FakeWall(),
        seed_source=lambda: 7,
        store=HistoryStore.memory(),
        settings=settings,
        study=study,
    )


async def _home_text(app: QuizzerApp, pilot) -> str:  # type: ignore[no-untyped-def]
    for _ in range(200):
        await pilot.pause(0.05)
        if isinstance(app.screen, HomeScreen) and "Interview" in str(
            app.screen.query_one("#study-due").render()
        ):
            return str(app.screen.query_one("#study-due").render())
    raise AssertionError("no plan on Home")


async def test_home_shows_days_left_and_a_plan_that_fits() -> None:
    app = _app(60)
    async with app.run_test(size=SIZE) as pilot:
        text = await _home_text(app, pilot)
        assert "Interview 2026-06-10: 13 days left: today 2 reviews" in text
        assert "the plan fits" in text


async def test_home_says_what_to_drop_over_budget() -> None:
    app = _app(1)
    async with app.run_test(size=SIZE) as pilot:
        text = await _home_text(app, pilot)
        assert "13 days left" in text
        assert "over budget by" in text
        assert "drop " in text


async def test_study_toward_the_date_asks_the_planned_reviews_first() -> None:
    app = _app(60, study=StudyOptions(new_per_day=0, until="2026-06-10"))
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(200):
            await pilot.pause(0.05)
            if isinstance(app.screen, StudyScreen):
                break
        assert isinstance(app.screen, StudyScreen)
        session = app.screen.session
        assert session.instance is not None  # a planned new template, though the daily limit is 0


async def test_home_i_sets_the_date_saves_it_and_clears_it(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from keys import type_keys

    from quizzer.config import load_settings
    from quizzer.tui.screens.date_pick import DateModal

    config = tmp_path / "config.toml"
    app = QuizzerApp(
        [str(PACK)],
        clock=FakeClock(),
        wall=FakeWall(),
        seed_source=lambda: 7,
        store=HistoryStore.memory(),
        config_path=str(config),
    )
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(100):
            await pilot.pause(0.05)
            if isinstance(app.screen, HomeScreen):
                break
        await pilot.press("i")
        for _ in range(100):
            await pilot.pause(0.05)
            if isinstance(app.screen, DateModal):
                break
        await type_keys(pilot, *"2026-06-10")
        await pilot.press("enter")
        text = await _home_text(app, pilot)
        assert "Interview 2026-06-10: 13 days left" in text
        assert load_settings(str(config)).interview_date == "2026-06-10"
        await pilot.press("i")
        for _ in range(100):
            await pilot.pause(0.05)
            if isinstance(app.screen, DateModal):
                break
        await pilot.press("enter")  # empty: plain FSRS again
        await pilot.pause(0.3)
        assert load_settings(str(config)).interview_date is None
