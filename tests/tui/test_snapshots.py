"""Snapshot tests (pytest-textual-snapshot): one per screen and the key states. Review before updating."""

from __future__ import annotations

from snapshot_app import drill_app, make_app
from textual.widgets import Input

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
