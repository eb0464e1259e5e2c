"""Apps for the TUI tests: a frozen question pack, a fixed seed, a fake clock, the bank loaded up front."""

from __future__ import annotations

from pathlib import Path

from quizzer.bank.loader import load_bank
from quizzer.tui.app import DrillOptions, QuizzerApp

PACK = Path(__file__).resolve().parent.parent / "data" / "tui"
SEED = 7
#: --set values that make the embedding question the seed question: 32,000 × 512, tied.
EMBEDDING_ANSWER = 32000 * 512


class FakeClock:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def make_app(*, drill: DrillOptions | None = None, clock: FakeClock | None = None) -> QuizzerApp:
    bank = load_bank([str(PACK)])
    bank.templates()
    return QuizzerApp(
        [str(PACK)], drill=drill, clock=clock or FakeClock(), seed_source=lambda: SEED, bank=bank
    )


def drill_app(template_id: str = "embedding-table-params", clock: FakeClock | None = None) -> QuizzerApp:
    return make_app(drill=DrillOptions(template_id=template_id, seed=SEED), clock=clock)
