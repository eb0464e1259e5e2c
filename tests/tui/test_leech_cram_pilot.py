"""Pilot tests: cram never changes a card; Stats' leeches (drill them, return them to study) and past mocks
(listed, their reports reopened); a placement drill left midway is resumed from Home."""

from __future__ import annotations

import re

from snapshot_app import WALL, make_app
from test_home_progress import real_app, seeded_store, settled, skip_all_parts, skip_through
from test_study_pilot import box_ready
from textual.widgets import DataTable, Static

from quizzer.session.records import CardState
from quizzer.session.srs import Scheduler
from quizzer.store.history import HistoryStore
from quizzer.tui.options import CramOptions, MockOptions
from quizzer.tui.screens.drill import DrillScreen
from quizzer.tui.screens.home import HomeScreen
from quizzer.tui.screens.mock_report import MockReportScreen
from quizzer.tui.screens.past_mocks import PastMocksScreen
from quizzer.tui.screens.stats import StatsScreen

SIZE = (100, 32)
DAY = 86_400.0


def with_cards(store: HistoryStore) -> list[CardState]:
    """A card for each template of the TUI pack: one reviewed long ago, one suspended as a leech."""
    scheduler = Scheduler()
    cards = [
        scheduler.review(None, "embedding-table-params", "good", WALL - 90 * DAY),
        scheduler.review(None, "mini-product", "again", WALL - DAY).replace(lapses=8, suspended=WALL - 60),
    ]
    for card in cards:
        store.put_card(card)
    return sorted(store.cards(), key=lambda c: c.template_id)


def rendered(screen: StatsScreen) -> list[str]:
    """The Stats content as plain lines, 100 columns wide."""
    import io

    from rich.console import Console

    console = Console(width=100, record=True, color_system=None, file=io.StringIO())
    console.print(screen.query_one("#stats", Static).content)
    return [line.rstrip() for line in console.export_text().splitlines()]


async def answer(pilot, session, right: bool) -> None:  # type: ignore[no-untyped-def]
    value = session.instance.value
    await pilot.press(*str(value if right else value * 7), "enter")
    await pilot.pause()


async def test_cram_asks_the_weakest_first_records_cram_attempts_and_never_changes_a_card() -> None:
    store = seeded_store()
    before = with_cards(store)
    app = make_app(store=store)
    async with app.run_test(size=SIZE) as pilot:
        await settled(app, pilot)
        await pilot.press("c")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, DrillScreen)
        session = screen.session
        assert session.mode == "cram"
        # embeddings: 1 right of its last 4 answers (and recall low after 90 days); mini: 3 of 3
        assert session.plan == ("embedding-table-params", "mini-product")
        assert session.instance.template_id == "embedding-table-params"
        await answer(pilot, session, right=False)
        await pilot.press("n")
        await pilot.pause()
        await answer(pilot, session, right=True)
        assert "cram · 1/2 right" in str(screen.query_one(".question-side", Static).render())
        await pilot.press("escape", "q")
        await pilot.pause()
    cram = [a for a in store.attempts() if a.mode == "cram"]
    assert [(a.template_id, a.right) for a in cram] == [
        ("embedding-table-params", False),
        ("mini-product", True),
    ]
    assert sorted(store.cards(), key=lambda c: c.template_id) == before  # not one field moved


async def test_cram_orders_its_drill_by_the_progress_its_own_read_made() -> None:
    app = make_app(store=seeded_store())
    async with app.run_test(size=SIZE) as pilot:
        await settled(app, pilot)
        reads: list[str] = []
        app.reader.template_progress = lambda: reads.append("again") or {}  # type: ignore[method-assign]
        await pilot.press("c")
        await pilot.pause()
        assert isinstance(app.screen, DrillScreen)
        assert app.screen.session.plan == ("embedding-table-params", "mini-product")
        assert reads == []  # the history was read once, by the ranking


async def test_cram_with_nothing_answered_says_so_and_stays_home() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(app, pilot)
        await pilot.press("c")
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)
        assert any("Nothing to cram yet" in n.message for n in app._notifications)


async def test_the_cram_verb_opens_cram_over_count_templates() -> None:
    store = seeded_store()
    app = make_app(store=store)
    app._start = CramOptions(count=1)  # what `quizzer cram --count 1` passes
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, DrillScreen)
        assert app.screen.session.plan == ("embedding-table-params",)


async def test_stats_lists_leeches_drills_them_and_returns_them_to_study() -> None:
    store = seeded_store()
    with_cards(store)
    app = make_app(store=store)
    async with app.run_test(size=SIZE) as pilot:
        await settled(app, pilot)
        await pilot.press("t")
        await settled(app, pilot)
        screen = app.screen
        assert isinstance(screen, StatsScreen)
        assert screen.stats is not None
        assert [(x.template_id, x.lapses) for x in screen.stats.leeches] == [("mini-product", 8)]
        assert screen.check_action("drill_leeches", ())
        assert screen.check_action("return_leeches", ())
        assert not screen.check_action("past_mocks", ())  # no mock in this history
        lines = rendered(screen)
        title = lines.index("Leeches, suspended from study")
        assert lines[title + 1].split() == ["template", "lapses", "since"]
        assert lines[title + 2].startswith("  A product ")  # its title, not its id
        assert lines[title + 2].split()[-4] == "8"
        assert re.fullmatch(r"\d\d [A-Z][a-z]{2} 2026", " ".join(lines[title + 2].split()[-3:]))
        assert lines[title + 3].strip() == "l drills them · u returns them to study"
        await pilot.press("l")
        await pilot.pause()
        drill = app.screen
        assert isinstance(drill, DrillScreen)
        assert drill.session.instance.template_id == "mini-product"
        assert drill.session.next().template_id == "mini-product"  # only the leeches
        await pilot.press("escape", "q")
        await settled(app, pilot)
        assert app.screen is screen
        await pilot.press("u")
        await settled(app, pilot)
        assert store.card("mini-product").suspended is None
        assert store.card("mini-product").lapses == 8  # its history kept
        assert screen.stats.leeches == ()
        assert not screen.check_action("drill_leeches", ())


async def test_a_past_mock_is_listed_and_its_report_reopened() -> None:
    store = HistoryStore.memory()
    app = make_app(mock=MockOptions(count=2, minutes=10, seed=3), store=store)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        exam = app.screen.exam
        await pilot.press(*str(exam.instances[0].value), "enter")
        await pilot.pause()
        await pilot.press("ctrl+s")  # one question unanswered: a warning first, then the report
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause()
        report = exam.report
        assert report is not None
        await pilot.press("q")
        await settled(app, pilot)
        await pilot.press("t")
        await settled(app, pilot)
        stats = app.screen
        assert isinstance(stats, StatsScreen)
        assert [(m.right, m.questions) for m in stats.stats.mocks] == [(report.score, 2)]
        await pilot.press("p")
        await settled(app, pilot)
        listing = app.screen
        assert isinstance(listing, PastMocksScreen)
        assert listing.query_one(DataTable).row_count == 1
        await pilot.press("enter")
        await settled(app, pilot)
        reopened = app.screen
        assert isinstance(reopened, MockReportScreen)
        assert (reopened.report.score, reopened.report.total) == (report.score, report.total)
        assert [r.attempt.answer for r in reopened.report.results] == [
            r.attempt.answer for r in report.results
        ]
        await pilot.press("q")
        await pilot.pause()
        assert app.screen is listing


async def test_a_placement_left_midway_is_resumed_from_home() -> None:
    store = HistoryStore.memory()
    app = real_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settled(app, pilot)
        await pilot.press("g")
        await pilot.pause()
        session = app.screen.session
        plan = session.plan
        await skip_all_parts(pilot, session)  # the first on screen, the next two through the session
        for _ in range(2):
            session.next()
            skip_through(session)
        session.next()
        await pilot.press("escape", "q")
        await settled(app, pilot)
        guide = str(app.screen.query_one("#home-guide", Static).render())
        assert "3 of 8 done" in guide
        first_session = session.session_id
    again = real_app(store)  # the next run: the same history
    async with again.run_test(size=SIZE) as pilot:
        await settled(again, pilot)
        assert "3 of 8 done" in str(again.screen.query_one("#home-guide", Static).render())
        await pilot.press("g")
        await pilot.pause()
        resumed = again.screen.session
        assert resumed.plan == plan[3:]
        assert resumed.session_id == first_session
        for _ in range(4):
            skip_through(resumed)
            resumed.next()
        again.screen.show_question()  # the last on screen: its skip completes the placement
        await pilot.pause()
        await skip_all_parts(pilot, resumed)
        assert again.suggested_path is not None
        await pilot.press("escape", "q")
        await settled(again, pilot)
        assert "Suggested path" in str(again.screen.query_one("#home-guide", Static).render())


async def test_study_says_when_a_template_becomes_a_leech_and_stops_asking_it() -> None:
    from snapshot_app import PACK, FakeClock, FakeWall

    from quizzer.bank.loader import load_bank
    from quizzer.config import Settings
    from quizzer.tui.app import QuizzerApp, StudyOptions
    from quizzer.tui.screens.study import StudyScreen

    bank = load_bank([str(PACK)])
    bank.templates()
    store = HistoryStore.memory()
    app = QuizzerApp(
        [str(PACK)],
        study=StudyOptions(new_per_day=1, seed=5),
        clock=FakeClock(),
        wall=FakeWall(),
        seed_source=lambda: 5,
        bank=bank,
        store=store,
        settings=Settings(leech_lapses=1),  # the first "again" makes a leech
    )
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, StudyScreen)
        studied = screen.session.instance.template_id
        await answer(pilot, screen.session, right=False)
        await pilot.press("escape", "n")
        await settled(app, pilot)
        [note] = [n for n in app._notifications if n.title == "Leech"]
        title = screen.session.title(studied)
        assert note.message.startswith(f"{title} failed 1 time in study: it is a leech")
        card = store.card(studied)
        assert card is not None
        assert (card.lapses, card.suspended) == (1, WALL)
        assert screen.session.instance is None  # the only new template of the day, and now suspended


async def test_undoing_a_chain_review_shows_every_part_again() -> None:
    from quizzer.session.study import StudySession
    from quizzer.tui.screens.study import StudyScreen

    store = HistoryStore.memory()
    app = real_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settled(app, pilot)
        session = StudySession(
            app.questions_bank(),
            {},
            template_ids=["walkthrough-gemma3-sliding"],
            seed=3,
            clock=app.clock,
            wall=app.wall,
            new_per_day=5,
            new_today=0,
        )
        await app.open(StudyScreen(session))
        await pilot.pause()
        screen = app.screen
        parts = session.instance.part_count
        assert parts >= 3
        for _ in range(parts):
            await box_ready(pilot)  # the part's box has the focus: escape leaves it, then s skips
            await pilot.press("escape", "s")
            await pilot.pause()
        assert session.done
        chain = screen.panel.query(".chain-verdict")
        assert len(chain) == parts
        await pilot.press("n")
        await pilot.pause()
        assert session.instance is None  # the only template, due again in a minute: nothing to study now
        await pilot.press("u")
        await pilot.pause()
        assert session.done  # back, rated, to rate again
        assert len(screen.panel.query(".chain-verdict")) == parts  # every part's outcome, not the last alone
        assert len(screen.panel.query(".chain-prompt")) == parts - 1
