"""`quizzer drill` exits non-zero when the app crashed, and 0 when it was quit."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

import pytest
from textual.app import App

from quizzer.cli import main
from quizzer.tui.app import QuizzerApp
from quizzer.tui.screens.drill import DrillScreen


def _headless(keys: list[str]) -> Any:
    """QuizzerApp.run as the terminal would run it, but headless, pressing ``keys`` once mounted."""

    def run(self: QuizzerApp, **kwargs: Any) -> None:
        async def press(pilot: Any) -> None:
            await pilot.pause()
            await pilot.press(*keys)

        App.run(self, headless=True, auto_pilot=press)

    return run


def test_a_crash_exits_non_zero(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    def broken(self: DrillScreen, **kwargs: bool) -> None:
        raise RuntimeError("planted")

    monkeypatch.setattr(DrillScreen, "show_question", broken)
    monkeypatch.setattr(QuizzerApp, "run", _headless([]))
    status = main(
        ["drill", "--template", "embedding-table-params", "--seed", "1", "--db", str(tmp_path / "h")]
    )
    assert status == 1


def test_quitting_exits_zero(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(QuizzerApp, "run", _headless(["ctrl+q"]))
    status = main(
        ["drill", "--template", "embedding-table-params", "--seed", "1", "--db", str(tmp_path / "h")]
    )
    assert status == 0


def test_the_collector_is_off_until_the_paint_and_on_after(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """`quizzer drill` starts with the cyclic garbage collector off (it cost 15-30 ms before the paint); the
    app turns it on once the question is painted, and the command whatever happens."""
    seen: list[bool] = []
    show = DrillScreen.show_question

    def shown(self: DrillScreen, **kwargs: bool) -> None:
        seen.append(gc.isenabled())  # the question about to be painted
        show(self, **kwargs)

    async def look(pilot: Any) -> None:
        await pilot.pause()
        await pilot.pause()
        seen.append(gc.isenabled())  # painted
        await pilot.press("ctrl+q")

    monkeypatch.setattr(DrillScreen, "show_question", shown)
    monkeypatch.setattr(
        QuizzerApp, "run", lambda self, **kwargs: App.run(self, headless=True, auto_pilot=look)
    )
    args = ["drill", "--template", "embedding-table-params", "--seed", "1", "--db", str(tmp_path / "h")]
    assert main(args) == 0
    assert seen == [False, True]
    assert gc.isenabled()
    assert main(["drill", "--template", "no-such-template", "--db", str(tmp_path / "h")]) != 0
    assert gc.isenabled()
