"""The pack author's round trip: `pack new`, `check`, then `quizzer drill --questions PACK` through the real
command line into the app (driven by Pilot): the pack's question is posed, graded right, and its mistake
named; the attempts reach the history."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

import pytest
from textual.widgets import DataTable, Static

from quizzer.cli import main
from quizzer.store.history import HistoryStore
from quizzer.tui.app import QuizzerApp
from quizzer.tui.screens.drill import DrillScreen
from quizzer.tui.screens.home import HomeScreen
from tests.cli_run import run_cli

pytestmark = pytest.mark.usefixtures("validated_once")

TEMPLATE = "round-trip-weights-memory"


async def answer(pilot, text: str) -> None:  # type: ignore[no-untyped-def]
    await pilot.press(*text)
    await pilot.press("enter")
    await pilot.pause()


def run_app(monkeypatch: pytest.MonkeyPatch, drive) -> list[QuizzerApp]:  # type: ignore[no-untyped-def]
    """Make ``QuizzerApp.run`` drive the app under Pilot: the command line builds it as for a terminal."""
    apps: list[QuizzerApp] = []

    def run(self: QuizzerApp) -> None:
        apps.append(self)

        async def go() -> None:
            async with self.run_test(size=(100, 32)) as pilot:
                await pilot.pause()
                await drive(self, pilot)

        asyncio.run(go())

    monkeypatch.setattr(QuizzerApp, "run", run)
    monkeypatch.setenv("TERM", "xterm-256color")  # TERM=dumb would run `plain` instead
    return apps


def test_pack_new_check_then_drill_with_questions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert run_cli("pack", "new", "round-trip", "--dir", str(tmp_path)).returncode == 0
    pack = tmp_path / "round-trip"
    checked = run_cli("check", str(pack), "--seeds", "50", "--jobs", "1")
    assert checked.returncode == 0, checked.stdout
    seen: dict[str, object] = {}

    async def drive(app: QuizzerApp, pilot) -> None:  # type: ignore[no-untyped-def]
        screen = app.screen
        assert isinstance(screen, DrillScreen)
        session = screen.session
        first = session.instance
        assert first.template_id == TEMPLATE
        prompt = screen.query_one(".question-prompt").source  # type: ignore[attr-defined]
        assert f"{first.variables['billions']}B parameters" in prompt
        assert str(first.variables["dtype"]) in prompt
        await answer(pilot, f"{first.value / 2**30:.6g}")  # in GiB, the display unit
        assert session.attempts[0].verdict in ("exact", "correct")
        await pilot.press("n")
        await pilot.pause()
        second = session.instance
        assert second.template_id == TEMPLATE
        await answer(pilot, f"{8 * second.value} bytes")  # the slip the template names
        assert session.attempts[1].verdict == "wrong"
        assert session.attempts[1].mistake == "bits-for-bytes"
        seen["values"] = (first.value, second.value)

    run_app(monkeypatch, drive)
    db = tmp_path / "history.sqlite3"
    code = main(["drill", "--questions", str(pack), "--template", TEMPLATE, "--seed", "3", "--db", str(db)])
    assert code == 0
    assert "values" in seen  # the drive ran to its end
    store = HistoryStore.open(str(db))
    try:
        attempts = store.attempts()
    finally:
        store.close()
    assert [(a.template_id, a.verdict, a.mistake) for a in attempts][-2:] == [
        (TEMPLATE, attempts[-2].verdict, None),
        (TEMPLATE, "wrong", "bits-for-bytes"),
    ]
    assert attempts[-2].verdict in ("exact", "correct")


def test_the_app_shows_a_config_pack_and_its_problems_on_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """config.toml's packs reach the app opened on Home (`quizzer` with no verb): the pack's topic is in the
    table, and the missing folder and the shadowing copy are among the problems Home lists."""
    from quizzer.commands import tui

    assert run_cli("pack", "new", "home-pack", "--dir", str(tmp_path)).returncode == 0
    shadow = tmp_path / "shadow"
    shadow.mkdir()
    mini = (Path(__file__).resolve().parent.parent / "data" / "good" / "mini.toml").read_text(
        encoding="utf-8"
    )
    (shadow / "s.toml").write_text(mini.replace("mini-product", "embedding-table-params"), encoding="utf-8")
    config = tmp_path / "config.toml"
    config.write_text('packs = ["home-pack", "gone", "shadow"]\n', encoding="utf-8")
    monkeypatch.setenv("QUIZZER_CONFIG", str(config))
    monkeypatch.setenv("QUIZZER_DB", str(tmp_path / "history.sqlite3"))
    seen: dict[str, str] = {}

    async def drive(app: QuizzerApp, pilot) -> None:  # type: ignore[no-untyped-def]
        assert isinstance(app.screen, HomeScreen)
        await app.workers.wait_for_complete()
        await pilot.pause()
        table = app.screen.query_one("#topic-table", DataTable)
        seen["topics"] = " ".join(str(key.value) for key in table.rows)
        seen["problems"] = str(app.screen.query_one("#bank-problems", Static).render())

    run_app(monkeypatch, drive)
    assert tui.run(argparse.Namespace(verb="tui", questions=[]), argparse.ArgumentParser()) == 0
    assert "home-pack" in seen["topics"].split()
    problems = seen["problems"]
    assert "2 problems in the question packs" in problems
    assert f"{tmp_path / 'gone'}: no such folder: the packs of {config} name it; skipped" in problems
    assert f"{shadow / 's.toml'}: template 'embedding-table-params': field 'id': already used by" in problems


@pytest.mark.parametrize("argv", [["drill", "--template", "embedding-table-params", "--seed", "1"], []])
def test_the_app_looks_for_installed_packs_once_and_a_drill_of_one_template_off_the_ui_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, argv: list[str]
) -> None:
    """The app's banks (the UI thread's, the worker's, the history reader's) share one look for installed
    packs. A drill of one built-in template paints without it (the launch is budgeted): the worker that
    loads the whole bank looks. Home's due count reads every id on mount, so it looks then."""
    import threading

    from quizzer.commands import pack_sources, tui

    calls: list[bool] = []
    real = pack_sources.installed

    def watched(search_path=None):  # type: ignore[no-untyped-def]
        calls.append(threading.current_thread() is threading.main_thread())
        return real(search_path)

    monkeypatch.setattr(pack_sources, "installed", watched)
    monkeypatch.setenv("QUIZZER_DB", str(tmp_path / "history.sqlite3"))

    async def drive(app: QuizzerApp, pilot) -> None:  # type: ignore[no-untyped-def]
        await app.workers.wait_for_complete()
        while app.bank is None:
            await pilot.pause(0.05)
        assert "embedding-table-params" in app.bank.ids()

    run_app(monkeypatch, drive)
    if argv:
        assert main(argv) == 0
        assert calls == [False]  # once, in a worker
    else:
        assert tui.run(argparse.Namespace(verb="tui", questions=[]), argparse.ArgumentParser()) == 0
        assert len(calls) == 1
