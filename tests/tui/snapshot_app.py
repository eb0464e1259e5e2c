"""Apps for the TUI tests: a frozen question pack, a fixed seed, a fake clock, the bank loaded up front."""

from __future__ import annotations

from pathlib import Path

from quizzer.bank.loader import load_bank
from quizzer.store.history import HistoryStore
from quizzer.tui.app import DrillOptions, MockOptions, QuizzerApp, StudyOptions

PACK = Path(__file__).resolve().parent.parent / "data" / "tui"
SEED = 7
#: --set values that make the embedding question the seed question: 32,000 × 512, tied.
EMBEDDING_ANSWER = 32000 * 512
#: The wall clock of every test app: Thursday 28 May 2026, 20:26:40 UTC.
WALL = 1_780_000_000.0


class FakeClock:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class FakeWall(FakeClock):
    """The wall clock (epoch seconds) the test moves by hand."""

    def __init__(self) -> None:
        self.now = WALL


def make_app(
    *,
    drill: DrillOptions | None = None,
    mock: MockOptions | None = None,
    study: StudyOptions | None = None,
    clock: FakeClock | None = None,
    wall: FakeClock | None = None,
    store: HistoryStore | None = None,
) -> QuizzerApp:
    bank = load_bank([str(PACK)])
    bank.templates()
    return QuizzerApp(
        [str(PACK)],
        drill=drill,
        mock=mock,
        study=study,
        clock=clock or FakeClock(),
        wall=wall or FakeWall(),
        seed_source=lambda: SEED,
        bank=bank,
        store=store or HistoryStore.memory(),
    )


def drill_app(
    template_id: str = "embedding-table-params",
    clock: FakeClock | None = None,
    store: HistoryStore | None = None,
) -> QuizzerApp:
    return make_app(drill=DrillOptions(template_id=template_id, seed=SEED), clock=clock, store=store)
