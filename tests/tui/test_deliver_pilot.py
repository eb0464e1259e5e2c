"""Pilot tests: files the app hands the user (the history as CSV from Stats, a mock's set from its report)
go through Textual's deliver_text, saved to the downloads folder in a terminal (a download when served);
a drill's references open through open_url."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from snapshot_app import make_app
from test_home_progress import seeded_store, settled

from quizzer.bank.loader import load_bank
from quizzer.session.picking import parse_set
from quizzer.store.rows import COLUMNS
from quizzer.tui.options import DrillOptions, MockOptions
from quizzer.tui.screens.drill import DrillScreen
from quizzer.tui.screens.mock_report import MockReportScreen
from quizzer.tui.screens.stats import StatsScreen

SIZE = (100, 32)


async def wait_for_file(app, pilot, folder: Path) -> list[Path]:  # type: ignore[no-untyped-def]
    for _ in range(100):  # the delivery runs in a thread, then posts DeliveryComplete
        await pilot.pause(0.02)
        files = sorted(folder.iterdir())
        if files and any(n.title == "Saved" for n in app._notifications):
            return files
    raise AssertionError(f"nothing delivered to {folder}")


async def test_stats_exports_the_history_as_csv_through_deliver_text(tmp_path: Path) -> None:
    store = seeded_store()
    app = make_app(store=store)
    app.save_directory = str(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settled(app, pilot)
        await pilot.press("t")
        await settled(app, pilot)
        assert isinstance(app.screen, StatsScreen)
        await pilot.press("x")
        [saved] = await wait_for_file(app, pilot, tmp_path)
        [note] = [n for n in app._notifications if n.title == "Saved"]
        assert note.message == f"The history is saved to {saved}."
    assert saved.name.startswith("quizzer-history-")
    assert saved.suffix == ".csv"
    rows = list(csv.reader(io.StringIO(saved.read_text(encoding="utf-8"))))
    assert tuple(rows[0]) == COLUMNS
    assert [(r[0], r[COLUMNS.index("verdict")]) for r in rows[1:]] == [
        (a.template_id, a.verdict) for a in store.attempts()
    ]


async def test_a_mock_report_saves_its_set_and_the_set_replays_the_same_questions(tmp_path: Path) -> None:
    app = make_app(mock=MockOptions(count=2, minutes=10, seed=3))
    app.save_directory = str(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        exam = app.screen.exam
        await pilot.press("ctrl+s")
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, MockReportScreen)
        await pilot.press("s")
        [saved] = await wait_for_file(app, pilot, tmp_path)
        asked = [i.id for i in exam.instances]
    assert saved.name.startswith("quizzer-mock-")
    text = saved.read_text(encoding="utf-8")
    assert text.splitlines()[0].startswith("# quizzer mock set: 2 questions, 10 minutes; replay with")
    bank = load_bank([str(Path(__file__).resolve().parent.parent / "data" / "tui")])
    assert [i.id for i in parse_set(bank, text, str(saved))] == asked


async def test_a_failed_delivery_is_one_notification(tmp_path: Path) -> None:
    app = make_app(store=seeded_store())
    target = tmp_path / "not-a-folder"
    target.write_text("a file where the folder should be")
    app.save_directory = str(target)
    async with app.run_test(size=SIZE) as pilot:
        await settled(app, pilot)
        await pilot.press("t")
        await settled(app, pilot)
        await pilot.press("x")
        for _ in range(100):
            await pilot.pause(0.02)
            if any(n.title == "Not saved" for n in app._notifications):
                break
        [note] = [n for n in app._notifications if n.title == "Not saved"]
        assert note.message.startswith("The history could not be saved: ")


async def test_o_opens_the_references_through_open_url_once_the_answer_is_shown() -> None:
    app = make_app(drill=DrillOptions(template_id="embedding-table-params", seed=7))
    opened: list[str] = []
    app.open_url = lambda url, *, new_tab=True: opened.append(url)  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, DrillScreen)
        references = screen.session.instance.references
        assert references, "the TUI pack's embedding template lists references"
        await pilot.press("escape", "o")  # before the answer: not yet
        await pilot.pause()
        assert opened == []
        await pilot.press("s")  # skip: the answer and its references are shown
        await pilot.pause()
        await pilot.press("o")
        await pilot.pause()
        assert opened == [url for _, url in references]
