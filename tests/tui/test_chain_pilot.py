"""A three-part chain in the drill, a study session and a mock: answered right, wrong then consistent, and
skipped; what each part stores in the history (part number, verdict, the earlier answers carried)."""

from __future__ import annotations

from pathlib import Path

import pytest
from keys import type_keys
from rich.console import Console
from snapshot_app import FakeClock, FakeWall
from textual.widgets import Static

from quizzer.bank.loader import load_bank
from quizzer.store.history import HistoryStore
from quizzer.tui.app import DrillOptions, MockOptions, QuizzerApp, StudyOptions
from quizzer.tui.screens.drill import DrillScreen
from quizzer.tui.screens.mock import MockScreen
from quizzer.tui.screens.mock_report import MockReportScreen
from quizzer.tui.screens.study import StudyScreen

CHAINS = Path(__file__).resolve().parent.parent / "data" / "chains" / "chain.toml"
TEMPLATE = "chain-part-variables"
SEED = 7
SIZE = (100, 30)


@pytest.fixture
def pack(tmp_path: Path) -> Path:
    """A pack holding only the KV-cache chain (three parts: bytes, sequences that fit, throughput)."""
    blocks = CHAINS.read_text(encoding="utf-8").split("[[template]]")
    (chain,) = [b for b in blocks if f'id = "{TEMPLATE}"' in b]
    (tmp_path / "chain.toml").write_text("[[template]]" + chain, encoding="utf-8")
    return tmp_path


def app_for(pack: Path, store: HistoryStore, **start: object) -> QuizzerApp:
    bank = load_bank([str(pack)])
    bank.templates()
    return QuizzerApp(
        [str(pack)],
        clock=FakeClock(),
        wall=FakeWall(),
        seed_source=lambda: SEED,
        bank=bank,
        store=store,
        **start,  # type: ignore[arg-type]
    )


def truths(variables: dict[str, object]) -> tuple[int, int, int]:
    """The three answers worked out by hand from the drawn numbers: bytes of one sequence's cache, whole
    sequences in the free GiB, tokens/s of all of them."""
    part1 = int(variables["seq_len"]) * int(variables["per_token"])  # type: ignore[call-overload]
    part2 = int(variables["gpu_gib"]) * 2**30 // part1  # type: ignore[call-overload]
    return part1, part2, part2 * int(variables["tok_s"])  # type: ignore[call-overload]


def wrong_then_consistent(variables: dict[str, object]) -> tuple[int, int, int]:
    """Part 1 doubled (a real slip, far from trivial), then parts 2 and 3 worked right from it."""
    part1 = 2 * int(variables["seq_len"]) * int(variables["per_token"])  # type: ignore[call-overload]
    part2 = int(variables["gpu_gib"]) * 2**30 // part1  # type: ignore[call-overload]
    return part1, part2, part2 * int(variables["tok_s"])  # type: ignore[call-overload]


async def type_answer(pilot, app, value: int, number: int) -> None:  # type: ignore[no-untyped-def]
    """Type ``value`` as part ``number``'s answer (part 1 in bytes: a bare number there means MiB)."""
    app.screen.query_one("AnswerInput").focus()
    await type_keys(pilot, *(f"{value} bytes" if number == 1 else str(value)))
    await pilot.press("enter")
    await pilot.pause()


def drawn(app: QuizzerApp) -> dict[str, object]:
    """The instance's variables with every part's own (what the history stores for the last part)."""
    instance = app.screen.panel.instance  # type: ignore[attr-defined]
    merged = dict(instance.variables)
    for part in instance.later_parts:
        merged.update(part.variables)
    return merged


def stored(store: HistoryStore, app: QuizzerApp) -> list[tuple[int | None, str, dict[str, object] | None]]:
    app.writer.drain()
    return [(a.part, a.verdict, a.carried) for a in store.attempts()]


@pytest.mark.parametrize("how", ["right", "consistent", "skipped"])
async def test_a_drill_chain_is_graded_part_by_part(pack: Path, how: str) -> None:
    store = HistoryStore.memory()
    app = app_for(pack, store, drill=DrillOptions(template_id=TEMPLATE, seed=SEED))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, DrillScreen)
        variables = drawn(app)
        answers = truths(variables) if how == "right" else wrong_then_consistent(variables)
        for number, answer in enumerate(answers, 1):
            assert f"part {number} of 3" in str(app.screen.query_one(".reading", Static).render())
            if how == "skipped":
                await pilot.press("escape", "s")
                await pilot.pause()
            else:
                await type_answer(pilot, app, answer, number)
            outcomes = app.screen.query(".chain-verdict")
            assert len(outcomes) == number  # every earlier part's verdict stays in the body
            if number < 3:  # the next part is asked below, with the true earlier value in its prompt
                assert not app.screen.query_one(".feedback").display
                assert app.screen.query_one("AnswerInput").has_focus
        assert app.screen.query_one(".feedback").display  # the worked explanation of the whole, at the end
        rows = stored(store, app)
    part1 = truths(variables)[0]
    if how == "right":
        assert [(p, v, c) for p, v, c in rows] == [(1, "exact", None), (2, "exact", None), (3, "exact", None)]
    elif how == "consistent":
        assert rows[0][:2] == (1, "wrong")
        assert rows[1] == (2, "consistent", {"1": 2 * part1})
        assert rows[2][:2] == (3, "consistent")
        assert rows[2][2] is not None
        assert set(rows[2][2]) == {"1", "2"}
    else:
        assert rows == [(1, "skipped", None), (2, "skipped", None), (3, "skipped", None)]


async def test_the_parts_of_a_drill_chain_store_their_own_expected_values(pack: Path) -> None:
    store = HistoryStore.memory()
    app = app_for(pack, store, drill=DrillOptions(template_id=TEMPLATE, seed=SEED))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        variables = drawn(app)
        for number, answer in enumerate(truths(variables), 1):
            await type_answer(pilot, app, answer, number)
        app.writer.drain()
        attempts = store.attempts()
    assert [a.expected for a in attempts] == list(truths(variables))
    assert [a.unit for a in attempts] == ["bytes", "count", "tokens/s"]
    assert attempts[2].variables["tok_s"] == variables["tok_s"]


@pytest.mark.parametrize("how", ["right", "consistent", "skipped"])
async def test_study_rates_the_chain_from_all_its_parts(pack: Path, how: str) -> None:
    store = HistoryStore.memory()
    app = app_for(pack, store, study=StudyOptions(seed=SEED))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, StudyScreen)
        session = app.screen.session
        variables = drawn(app)
        answers = truths(variables) if how == "right" else wrong_then_consistent(variables)
        for number, answer in enumerate(answers, 1):
            assert session.proposed is None  # no rating before every part is done
            assert not app.screen.query_one(".extra").display
            if how == "skipped":
                await pilot.press("escape", "s")
                await pilot.pause()
            else:
                await type_answer(pilot, app, answer, number)
            assert len(app.screen.query(".chain-verdict")) == number
        extra = str(app.screen.query_one(".extra", Static).render())
        # right fast: easy; part 1 wrong or skipped: again (the mapping of rating_for_parts)
        assert session.proposed == ("easy" if how == "right" else "again")
        assert session.reason in extra
        assert session.reason.startswith(f"{session.proposed}: ")
        if how != "right":
            assert session.reason == f"again: part 1 {'wrong' if how == 'consistent' else 'skipped'}"
        await pilot.press("n")
        await pilot.pause()
        rows = stored(store, app)
        cards = store.cards()
    assert [p for p, _, _ in rows] == [1, 2, 3]
    assert [v for _, v, _ in rows] == {
        "right": ["exact", "exact", "exact"],
        "consistent": ["wrong", "consistent", "consistent"],
        "skipped": ["skipped", "skipped", "skipped"],
    }[how]
    assert [c.template_id for c in cards] == [TEMPLATE]  # one review for the whole chain


@pytest.mark.parametrize("how", ["right", "consistent", "skipped"])
async def test_a_mock_chain_is_one_question_graded_per_part(pack: Path, how: str) -> None:
    store = HistoryStore.memory()
    app = app_for(pack, store, mock=MockOptions(count=1, minutes=10, seed=SEED))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, MockScreen)
        variables = drawn(app)
        answers = truths(variables) if how == "right" else wrong_then_consistent(variables)
        if how != "skipped":
            for number, answer in enumerate(answers, 1):
                # the parts answered so far are listed, locked; the next is asked in the same box
                assert len(app.screen.query(".chain-outcome")) == number - 1
                assert app.screen.exam.part_on(0) == number
                await type_answer(pilot, app, answer, number)
        await pilot.press("ctrl+s")
        await pilot.pause()
        if how == "skipped":  # unanswered: the first ctrl+s only warns
            await pilot.press("ctrl+s")
            await pilot.pause()
        assert isinstance(app.screen, MockReportScreen)
        report = app.screen.report
        text = str(app.screen.query_one("#report-body Static", Static).render())
        rows = stored(store, app)
    assert report.total == 1
    assert report.parts_total == 3
    assert report.score == (1 if how == "right" else 0)
    assert report.parts_right == {"right": 3, "consistent": 2, "skipped": 0}[how]
    assert [p for p, _, _ in rows] == [1, 2, 3]
    assert [v for _, v, _ in rows] == {
        "right": ["exact", "exact", "exact"],
        "consistent": ["wrong", "consistent", "consistent"],
        "skipped": ["skipped", "skipped", "skipped"],
    }[how]
    assert "Part 3" in text or report.parts_total == 3
    if how == "consistent":
        assert rows[1][2] == {"1": 2 * truths(variables)[0]}


async def test_stats_shows_the_chain_part_by_part(pack: Path) -> None:
    store = HistoryStore.memory()
    app = app_for(pack, store, drill=DrillOptions(template_id=TEMPLATE, seed=SEED))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        for number, answer in enumerate(wrong_then_consistent(drawn(app)), 1):
            await type_answer(pilot, app, answer, number)
        app.writer.drain()
        app.action_stats()
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        console = Console(width=100, record=True)
        console.print(app.screen.query_one("#stats", Static).content)
        text = console.export_text()
    assert "Chains, part by part" in text
    lines = [line.split() for line in text.splitlines() if line.strip().startswith(("1 ", "2 ", "3 "))]
    assert [(row[0], row[-1]) for row in lines[-3:]] == [("1", "0%"), ("2", "100%"), ("3", "100%")]
