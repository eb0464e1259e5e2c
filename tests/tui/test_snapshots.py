"""Snapshot tests (pytest-textual-snapshot): one per screen and the key states. Review before updating."""

from __future__ import annotations

import time

from snapshot_app import WALL, FakeClock, drill_app, make_app
from textual.widgets import Input

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


def test_home(snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(make_app(), terminal_size=SIZE, run_before=settle)


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
