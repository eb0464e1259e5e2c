"""A drill draws its questions lazily (its prompt painted first, the rest made right after): a question
whose rest cannot be made is said to be so, and another is asked (its template left out), or, for the
drill's only template, Home comes back; nothing of it is graded or recorded."""

from __future__ import annotations

from pathlib import Path

from snapshot_app import PACK, FakeClock

from quizzer.store.history import HistoryStore
from quizzer.tui.app import QuizzerApp
from quizzer.tui.options import DrillOptions
from quizzer.tui.screens.drill import DrillScreen
from quizzer.tui.screens.home import HomeScreen

UNMADE = Path(__file__).resolve().parents[1] / "data" / "lazy"


def _messages(app: QuizzerApp) -> list[str]:
    return [f"{n.title}: {n.message}" for n in app._notifications]


async def test_a_question_that_cannot_be_made_whole_gives_way_to_another() -> None:
    store = HistoryStore.memory()
    drill = DrillOptions(seed=3, plan=("unmade-rest",))
    app = QuizzerApp([str(PACK), str(UNMADE)], drill=drill, clock=FakeClock(), store=store)
    async with app.run_test(size=(100, 30)) as pilot:
        for _ in range(20):
            await pilot.pause()
        screen = app.screen
        assert isinstance(screen, DrillScreen)
        assert screen.session.instance.template_id != "unmade-rest"  # another question is asked
        assert screen.session.instance.is_complete
        assert "unmade-rest" not in screen.session._candidates
        (said,) = [m for m in _messages(app) if "could not be made" in m]
        assert "here is another" in said
        assert "field 'explanation'" in said
        assert "ordinal" in said
        assert screen.session.attempts == []
    assert store.attempts() == []


async def test_the_only_template_of_a_drill_that_cannot_be_made_whole_returns_home() -> None:
    app = QuizzerApp([str(UNMADE)], drill=DrillOptions(template_id="unmade-rest", seed=1), clock=FakeClock())
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(20):
            await pilot.pause()
        assert isinstance(app.screen, HomeScreen)
        (said,) = [m for m in _messages(app) if "could not be made" in m]
        assert "here is another" not in said
        assert "field 'explanation'" in said
