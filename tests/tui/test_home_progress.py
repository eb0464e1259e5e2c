"""Pilot tests: Home's topic table with accuracy and mastery, the weakest topic, the guided start."""

from __future__ import annotations

import pytest
from snapshot_app import WALL, make_app
from test_study_pilot import box_ready
from textual.widgets import DataTable, Static

from quizzer.cli import _parser
from quizzer.session.records import Attempt
from quizzer.store.history import HistoryStore
from quizzer.tui.app import QuizzerApp
from quizzer.tui.options import DrillOptions
from quizzer.tui.screens.drill import DrillScreen
from quizzer.tui.screens.home import HomeScreen

SIZE = (100, 32)


def attempt(template_id: str, verdict: str, i: int) -> Attempt:
    return Attempt(
        template_id=template_id,
        seed=i,
        variables={},
        answer="1",
        value=1,
        expected=1,
        unit="",
        verdict=verdict,
        rel_error=None,
        mistake=None,
        seconds=10.0,
        hints=0,
        at=WALL - 1000 + i,
    )


def seeded_store() -> HistoryStore:
    """embeddings: 1 right of 4, the last wrong; testing: 3 of 3 (and a skip, not an answer)."""
    store = HistoryStore.memory()
    verdicts = [
        ("embedding-table-params", "exact"),
        ("embedding-table-params", "wrong"),
        ("mini-product", "exact"),
        ("embedding-table-params", "close"),
        ("mini-product", "correct"),
        ("mini-product", "skipped"),
        ("mini-product", "exact"),
        ("embedding-table-params", "wrong"),
    ]
    for i, (template_id, verdict) in enumerate(verdicts):
        store.record(attempt(template_id, verdict, i))
    return store


def row(app: QuizzerApp, key: str) -> list[str]:
    table = app.screen.query_one("#topic-table", DataTable)
    return [str(cell) for cell in table.get_row(key)]


async def settled(app: QuizzerApp, pilot) -> None:  # type: ignore[no-untyped-def]
    await pilot.pause()
    await app.workers.wait_for_complete()
    await pilot.pause()


async def test_the_topic_table_shows_accuracy_mastery_and_the_weakest_topic() -> None:
    app = make_app(store=seeded_store())
    async with app.run_test(size=SIZE) as pilot:
        await settled(app, pilot)
        assert isinstance(app.screen, HomeScreen)
        embeddings, testing, total = row(app, "embeddings"), row(app, "testing"), row(app, "all")
        assert embeddings[5] == "25% (1/4)"
        assert embeddings[6] == "░" * 10 + " 0%"  # its one template was last answered wrong
        assert testing[5] == "100% (3/3)"
        assert testing[6] == "█" * 10 + " 100%"
        assert total[5] == "57% (4/7)"
        assert total[6] == "█" * 5 + "░" * 5 + " 50%"
        weakest = str(app.screen.query_one("#weakest-topic", Static).render())
        assert "Weakest topic: embeddings: 25% right (1 of 4)" in weakest


async def test_enter_on_a_row_and_w_drill_that_topic() -> None:
    app = make_app(store=seeded_store())
    async with app.run_test(size=SIZE) as pilot:
        await settled(app, pilot)
        table = app.screen.query_one("#topic-table", DataTable)
        table.focus()
        table.move_cursor(row=table.get_row_index("testing"))
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, DrillScreen)
        assert app.screen.session.topic == "testing"
        await pilot.press("escape", "escape")
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)
        await pilot.press("w")
        await pilot.pause()
        assert isinstance(app.screen, DrillScreen)
        assert app.screen.session.topic == "embeddings"


async def test_no_weakest_topic_before_three_answers() -> None:
    store = HistoryStore.memory()
    store.record(attempt("embedding-table-params", "wrong", 0))
    store.record(attempt("embedding-table-params", "wrong", 1))
    app = make_app(store=store)
    async with app.run_test(size=SIZE) as pilot:
        await settled(app, pilot)
        assert not app.screen.query_one("#weakest-topic", Static).display
        assert row(app, "embeddings")[5] == "0% (0/2)"
        await pilot.press("w")
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)


async def test_a_drill_in_weakest_order_starts_with_the_weakest_template_of_the_history() -> None:
    for seed in range(3):
        app = make_app(drill=DrillOptions(seed=seed, order="weakest"), store=seeded_store())
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            assert isinstance(app.screen, DrillScreen)
            session = app.screen.session
            assert session.order == "weakest"
            assert session.instance.template_id == "embedding-table-params"  # 25% against 100%
            assert session.next().template_id == "mini-product"


def test_the_drill_verb_takes_an_order() -> None:
    parser = _parser("drill")
    assert parser.parse_args(["drill"]).order == "random"
    assert parser.parse_args(["drill", "--order", "unseen"]).order == "unseen"
    with pytest.raises(SystemExit):
        parser.parse_args(["drill", "--order", "hardest"])


#: More skips than the longest chain of the bank has parts (the Qwen3-Next walkthrough has 6).
MAX_SKIPS = 12


async def skip_all_parts(pilot, session) -> None:  # type: ignore[no-untyped-def]
    for _ in range(MAX_SKIPS):
        if session.done:
            return
        await box_ready(pilot)  # the part's box has the focus (under load, not at once): escape leaves it
        await pilot.press("escape", "s")
        await pilot.pause()
    raise AssertionError(f"the question was not done after {MAX_SKIPS} skips")


def skip_through(session) -> None:  # type: ignore[no-untyped-def]
    """Skip every part of the session's question (as s does, without painting each outcome)."""
    for _ in range(MAX_SKIPS):
        if session.done:
            return
        session.skip()
    raise AssertionError(f"the question was not done after {MAX_SKIPS} skips")


def real_app(store: HistoryStore) -> QuizzerApp:
    """The app over the built-in bank (validated once per process, shared: the app only reads it)."""
    from quizzer.paths import questions_dir
    from tests.builtin_bank import builtin_bank

    return QuizzerApp(
        [questions_dir()], seed_source=lambda: 11, bank=builtin_bank(), store=store, wall=lambda: WALL
    )


async def test_a_first_run_offers_start_here_a_placement_easy_first_then_a_path() -> None:
    app = real_app(HistoryStore.memory())
    async with app.run_test(size=SIZE) as pilot:
        await settled(app, pilot)
        guide = app.screen.query_one("#home-guide", Static)
        assert guide.display
        assert "Start here" in str(guide.render())
        await pilot.press("g")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, DrillScreen)
        session = screen.session
        assert len(session.plan) == 8
        bank = app.questions_bank()
        asked = [session.instance.template_id]
        await skip_all_parts(pilot, session)  # a placement's answers may be skips: the first on screen
        await pilot.press("n")
        await pilot.pause()
        asked.append(session.instance.template_id)
        for _ in range(6):  # the rest through the session: what the screen shows of each is tested elsewhere
            skip_through(session)
            asked.append(session.next().template_id)
        assert asked == list(session.plan)
        templates = [bank.get(t) for t in asked]
        assert [t.difficulty for t in templates[:2]] == ["easy", "easy"]
        assert len({t.topic for t in templates}) == 8
        assert app.suggested_path is None
        screen.show_question()  # the last on screen: its skip completes the placement
        await pilot.pause()
        await skip_all_parts(pilot, session)
        assert app.suggested_path is not None
        assert sorted(app.suggested_path) == sorted(t.topic for t in templates)
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)
        await settled(app, pilot)
        assert "Suggested path, weakest first: " + " → ".join(app.suggested_path) in str(guide.render())


async def test_start_here_is_not_offered_once_there_is_a_history() -> None:
    app = make_app(store=seeded_store())
    async with app.run_test(size=SIZE) as pilot:
        await settled(app, pilot)
        assert not app.screen.query_one("#home-guide", Static).display
