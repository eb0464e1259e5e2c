"""Snapshot tests (pytest-textual-snapshot): one per screen and the key states. Review before updating."""

from __future__ import annotations

import time

from snapshot_app import WALL, FakeClock, drill_app, make_app
from textual.widgets import Input, Static

from quizzer.session.records import Attempt
from quizzer.store.history import HistoryStore
from quizzer.tui.options import MockOptions, StudyOptions

SIZE = (100, 32)


async def settle(pilot) -> None:  # type: ignore[no-untyped-def]
    for widget in pilot.app.screen.query(Input):
        widget.cursor_blink = False
    await pilot.pause()


async def answer(pilot, text: str) -> None:  # type: ignore[no-untyped-def]
    await settle(pilot)
    await pilot.press(*text, "enter")
    await pilot.pause()
    await settle(pilot)


async def home_settled(pilot) -> None:  # type: ignore[no-untyped-def]
    """Home once its topic table has the history's accuracy and mastery (read in a worker: under load, one
    pause was not enough and CI caught the table before its mastery column was filled)."""
    for _ in range(3):  # a worker's result may start another (the bank's, then the topics' progress)
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
        await settle(pilot)


def test_home(snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(make_app(), terminal_size=SIZE, run_before=home_settled)


def test_question(snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(drill_app(), terminal_size=SIZE, run_before=settle)


def test_correct_feedback(snap_compare) -> None:  # type: ignore[no-untyped-def]
    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await settle(pilot)
        await answer(pilot, str(pilot.app.screen.session.instance.value))

    assert snap_compare(drill_app(), terminal_size=SIZE, run_before=run_before)


def test_wrong_feedback_with_a_mistake(snap_compare) -> None:  # type: ignore[no-untyped-def]
    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await settle(pilot)
        await answer(pilot, str(2 * pilot.app.screen.session.instance.value))

    assert snap_compare(drill_app(), terminal_size=SIZE, run_before=run_before)


def test_wrong_feedback_without_color(snap_compare, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """NO_COLOR=1 (Textual draws in monochrome): the verdict still says itself, a symbol and a word."""
    monkeypatch.setenv("NO_COLOR", "1")

    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        assert pilot.app.no_color
        await settle(pilot)
        await answer(pilot, str(2 * pilot.app.screen.session.instance.value))
        verdict = pilot.app.screen.query_one(".verdict", Static).render()
        assert str(verdict).startswith("✗ Wrong")

    assert snap_compare(drill_app(), terminal_size=SIZE, run_before=run_before)


def test_browse(snap_compare) -> None:  # type: ignore[no-untyped-def]
    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await pilot.press("b")
        await pilot.pause()
        await pilot.press("down")
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=SIZE, run_before=run_before)


def test_small_terminal_keeps_input_and_verdict(snap_compare) -> None:  # type: ignore[no-untyped-def]
    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await answer(pilot, "1")

    assert snap_compare(drill_app(), terminal_size=(60, 20), run_before=run_before)


async def test_stats_heatmap_of_a_seeded_history(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import io

    from rich.console import Console
    from textual.widgets import Static

    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    try:
        app = make_app(store=_history())
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("t")
            await pilot.app.workers.wait_for_complete()
            await pilot.pause()
            console = Console(width=100, record=True, color_system=None, file=io.StringIO())
            console.print(app.screen.query_one("#stats", Static).content)
            lines = console.export_text().splitlines()
    finally:
        monkeypatch.undo()
        time.tzset()
    assert "practised 6 days in a row · longest: 9 days in a row" in lines[0]
    # WALL is Thursday 28 May 2026: its week is the last column; Wednesday 15 April (43 days before, 4
    # answers, the most of any day) is 6 columns before it, Tuesday 14 April (1 answer) the row above and
    # Thursday 16 April (3) the row below
    wed = next(line for line in lines if line.startswith("Wed "))
    tue, thu = lines[lines.index(wed) - 1], lines[lines.index(wed) + 1]
    assert (tue[4 + 2 * 19], wed[4 + 2 * 19], thu[4 + 2 * 19]) == ("░", "█", "▓")
    assert (wed[4 + 2 * 25], thu[4 + 2 * 25]) == ("▒", "▓")  # yesterday 2 answers (and a skip), today 3
    assert len(wed.rstrip()) == 4 + 2 * 26 - 1
    assert any(line.split()[:3] == ["easy", "42", "(2"] for line in lines)  # both templates are easy


def _history() -> HistoryStore:
    """A week of attempts at the frozen pack, the same every run (times relative to the test wall clock)."""
    store = HistoryStore.memory()
    verdicts = ["exact", "wrong", "correct", "close", "exact", "skipped", "exact", "wrong"]
    for i, verdict in enumerate(verdicts * 2):
        embeddings = i % 3 != 0
        topic, template_id = (
            ("embeddings", "embedding-table-params") if embeddings else ("testing", "mini-product")
        )
        store.record(
            Attempt(
                template_id=template_id,
                seed=i,
                variables={},
                answer="" if verdict == "skipped" else "1",
                value=None if verdict == "skipped" else 1,
                expected=1,
                unit="params",
                verdict=verdict,
                rel_error=None,
                mistake="counted-the-head-twice" if verdict == "wrong" else None,
                seconds=40.0 + 10 * i,
                hints=0,
                mode="drill",
                at=WALL - 86_400 * (i % 6) - 3600,
                session="s",
                topic=topic,
                minutes=2.0 if topic == "embeddings" else 1.0,
            )
        )
    # older practice for the heatmap: 9 days in a row 40 to 48 days ago (the longest streak), 1 to 4
    # answers a day, and a day each of 100, 130 and 160 days ago
    for k, n in [*((40 + j, 1 + j % 4) for j in range(9)), (100, 2), (130, 4), (160, 1)]:
        for j in range(n):
            store.record(
                Attempt(
                    template_id="mini-product",
                    seed=1000 + 10 * k + j,
                    variables={},
                    answer="1",
                    value=1,
                    expected=1,
                    unit="params",
                    verdict="exact" if j % 2 == 0 else "wrong",
                    rel_error=None,
                    mistake=None,
                    seconds=30.0,
                    hints=0,
                    mode="drill",
                    at=WALL - 86_400 * k - 3600 * (j + 1),
                    session="old",
                    topic="testing",
                    minutes=1.0,
                )
            )
    return store


def test_mock_report(snap_compare) -> None:  # type: ignore[no-untyped-def]
    clock = FakeClock()

    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await settle(pilot)
        exam = pilot.app.screen.exam
        clock.now += 75
        await answer(pilot, str(exam.instances[0].value))
        clock.now += 50
        await answer(pilot, str(2 * exam.instances[1].value))  # the head counted twice
        await pilot.press("ctrl+s", "ctrl+s")
        await pilot.pause()

    app = make_app(mock=MockOptions(count=3, minutes=10, seed=5), clock=clock)
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_mock_start(snap_compare) -> None:  # type: ignore[no-untyped-def]
    from quizzer.tui.screens.mock_start import MockStart

    app = make_app(mock=MockStart(count=4, minutes=6, seed=5))  # `quizzer mock --count 4 --minutes 6`
    assert snap_compare(app, terminal_size=SIZE, run_before=settle)


def test_study_rating(snap_compare) -> None:  # type: ignore[no-untyped-def]
    clock = FakeClock()

    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await settle(pilot)
        clock.now += 5
        await answer(pilot, str(pilot.app.screen.session.instance.value))
        await pilot.press("3")  # good, overriding the proposed easy
        await settle(pilot)

    app = make_app(study=StudyOptions(new_per_day=2, seed=3), clock=clock)
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_stats(snap_compare, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("TZ", "UTC")  # the days shown are local days
    time.tzset()

    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await pilot.press("t")
        await settle(pilot)

    try:
        assert snap_compare(make_app(store=_history()), terminal_size=SIZE, run_before=run_before)
    finally:
        monkeypatch.undo()
        time.tzset()
