"""The interviewer's screen through a chain: part 1 wrong, graded live as it is typed; part 2 carried from it
("consistent"); saved as a set that replays and a report; nothing written to the history. And from Home."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest
from keys import type_keys
from snapshot_app import WALL, FakeClock, FakeWall
from textual.pilot import Pilot
from textual.widgets import Static

from quizzer.bank.generate.instance import Instance
from quizzer.bank.loader import Bank, load_bank
from quizzer.session.picking import parse_set
from quizzer.store.history import HistoryStore
from quizzer.tui.app import QuizzerApp
from quizzer.tui.options import InterviewOptions
from quizzer.tui.screens.home import HomeScreen
from quizzer.tui.screens.interview import InterviewScreen

CHAINS = Path(__file__).resolve().parent.parent / "data" / "chains" / "chain.toml"
TEMPLATE = "chain-part-variables"  # bytes of one sequence's cache; sequences that fit (carries); tokens/s
SEED = 7
SIZE = (100, 30)


@pytest.fixture
def pack(tmp_path: Path) -> Path:
    """A pack holding only the KV-cache chain."""
    blocks = CHAINS.read_text(encoding="utf-8").split("[[template]]")
    (chain,) = [b for b in blocks if f'id = "{TEMPLATE}"' in b]
    folder = tmp_path / "pack"
    folder.mkdir()
    (folder / "chain.toml").write_text("[[template]]" + chain, encoding="utf-8")
    return folder


def loaded(pack: Path) -> Bank:
    bank = load_bank([str(pack)])
    bank.templates()
    return bank


def app_for(
    pack: Path,
    bank: Bank,
    store: HistoryStore,
    interview: InterviewOptions | None,
    folder: Path | None = None,
) -> QuizzerApp:
    return QuizzerApp(
        [str(pack)],
        clock=FakeClock(),
        wall=FakeWall(),
        seed_source=lambda: SEED,
        bank=bank,
        store=store,
        interview=interview,
        interviews_dir=str(folder) if folder is not None else None,
    )


async def until(pilot: Pilot[None], done: Callable[[], bool]) -> None:
    """Wait for ``done`` (the machine may be loaded: up to 30 s)."""
    for _ in range(600):
        await pilot.pause(0.05)
        if done():
            return
    raise AssertionError("timed out")


def text(screen: InterviewScreen, selector: str) -> str:
    widget = screen.query_one(selector, Static)
    return str(widget.render()) if widget.display else ""


def doubled(instance: Instance) -> tuple[int, int]:
    """Part 1 doubled (a real slip, far from trivial), and part 2 worked right from it."""
    part1 = 2 * int(instance.variables["seq_len"]) * int(instance.variables["per_token"])
    return part1, int(instance.parts[1].variables["gpu_gib"]) * 2**30 // part1


def ready(app: QuizzerApp) -> bool:
    screen = app.screen
    return isinstance(screen, InterviewScreen) and screen.answer_box.has_focus and screen.answer_box.ready


async def test_an_interview_through_a_chain_with_a_carried_part(pack: Path, tmp_path: Path) -> None:
    bank, store = loaded(pack), HistoryStore.memory()
    instance = bank.generate(TEMPLATE, SEED)
    set_path, report_path = tmp_path / "saved" / "interview.set", tmp_path / "interview.md"
    options = InterviewOptions(instances=(instance,), save_set=str(set_path), report=str(report_path))
    app = app_for(pack, bank, store, options)
    part1, part2 = doubled(instance)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: ready(app))
        screen = app.screen
        assert isinstance(screen, InterviewScreen)
        assert "Expected: 2 MiB" in text(screen, "#interview-expected")  # what the interviewer reads
        assert "MB read as MiB" in text(screen, "#interview-slips")  # a built-in slip, with its value

        await type_keys(pilot, *f"{part1} bytes")  # not submitted: the verdict is live
        await until(pilot, lambda: "✗ Wrong" in text(screen, "#interview-verdict"))
        assert screen.session.answered == 0
        await pilot.press("enter")
        await until(pilot, lambda: screen.session.number == 2)
        assert "part 2 of 3" in text(screen, "#interview-where")
        assert f"Carried: from their part 1 (4 MiB): {part2:,}" in text(screen, "#interview-expected")
        assert "Recorded part 1: ✗ Wrong" in text(screen, "#interview-verdict")
        assert "GB for GiB" in text(screen, "#interview-slips")  # part 2's own mistake, with its value

        await type_keys(pilot, *str(part2))
        await until(pilot, lambda: "✓ Consistent" in text(screen, "#interview-verdict"))
        assert "Carried credit: right from their own part 1" in text(screen, "#interview-verdict")
        await pilot.press("enter")
        await until(pilot, lambda: screen.session.number == 3)
        assert screen.session.right == 1
        assert "1 of 2 parts right" in text(screen, "#interview-score")

        await pilot.press("ctrl+s")
        await until(pilot, lambda: report_path.exists())
        assert not screen.unsaved
        app.writer.drain()
        assert store.attempts() == []  # the interviewer's history is not the candidate's

    assert [i.id for i in parse_set(bank, set_path.read_text(encoding="utf-8"), str(set_path))] == [
        instance.id
    ]
    report = report_path.read_text(encoding="utf-8")
    assert f"said **{part1} bytes**: ✗ Wrong" in report
    assert f"said **{part2}**: ✓ Consistent" in report
    assert "carried credit: right from their own part 1" in report


async def test_from_home_and_back_saves_in_the_interviews_folder(pack: Path, tmp_path: Path) -> None:
    bank, folder = loaded(pack), tmp_path / "interviews"
    app = app_for(pack, bank, HistoryStore.memory(), None, folder)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, HomeScreen))
        await pilot.press("v")
        await until(pilot, lambda: ready(app))
        screen = app.screen
        assert isinstance(screen, InterviewScreen)
        assert screen.session.total == 8  # mock_count questions, drawn as a mock draws them
        await type_keys(pilot, *f"{screen.session.part.value} bytes")
        await pilot.press("enter")
        await until(pilot, lambda: screen.session.answered == 1)
        await pilot.press("escape")  # something is answered: saved on the way back
        await until(pilot, lambda: isinstance(app.screen, HomeScreen))
        await pilot.pause(0.2)  # Home's workers end before the app does
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(WALL))  # when it began, by the app's wall clock
    assert sorted(p.name for p in folder.iterdir()) == [f"{stamp}.md", f"{stamp}.set"]


async def test_quitting_saves_what_is_not_saved(pack: Path, tmp_path: Path) -> None:
    bank = loaded(pack)
    report = tmp_path / "quit.md"
    instance = bank.generate(TEMPLATE, SEED)
    options = InterviewOptions(instances=(instance,), report=str(report))
    app = app_for(pack, bank, HistoryStore.memory(), options, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: ready(app))
        screen = app.screen
        assert isinstance(screen, InterviewScreen)
        await type_keys(pilot, *f"{instance.value} bytes")
        await pilot.press("enter")
        await until(pilot, lambda: screen.session.answered == 1)
        await pilot.press("ctrl+q")
        await until(pilot, lambda: not app.is_running)
    assert f"said **{instance.value} bytes**" in report.read_text(encoding="utf-8")


async def test_a_save_that_fails_is_said_and_the_answers_stay(pack: Path, tmp_path: Path) -> None:
    bank = loaded(pack)
    instance = bank.generate(TEMPLATE, SEED)
    options = InterviewOptions(instances=(instance,), save_set=str(tmp_path / "ok.set"), report=str(tmp_path))
    app = app_for(pack, bank, HistoryStore.memory(), options)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: ready(app))
        screen = app.screen
        assert isinstance(screen, InterviewScreen)
        await type_keys(pilot, *f"{instance.value} bytes")
        await pilot.press("enter")
        await until(pilot, lambda: screen.session.answered == 1)
        await pilot.press("escape")  # the report's path is a folder: not saved, and the screen stays
        await until(pilot, lambda: any(n.title == "Interview not saved" for n in app._notifications))
        assert app.screen is screen
        assert screen.unsaved
        assert screen.session.answered == 1
        await pilot.press("escape")  # said once: a second esc leaves
        await until(pilot, lambda: isinstance(app.screen, HomeScreen))
        await pilot.pause(0.2)
