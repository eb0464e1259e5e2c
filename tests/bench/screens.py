"""Key to the frame where the question's prompt is painted, for each screen change a user waits on."""

from __future__ import annotations

import asyncio
import json
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the bench's modules are imported inside functions: pytest collects these files too
    from timed_keys import Bench

#: Rounds of every row (the medians are over these; "next question" has two a round).
ROUNDS = 15
#: Budget of every row, median ms from the key to the prompt painted.
BUDGET_MS = 150.0
#: Budget of the way back to Home (its intro painted), as before.
HOME_BUDGET_MS = 100.0
#: The terminal of the measurement.
SIZE = (100, 30)
ROWS = (
    "Home → Drill",
    "next question (n)",
    "next part of a chain (enter)",
    "mock start → first question (enter)",
    "Home → Study",
    "Home → Cram",
    "Home → Stats, 10,000 attempts",
    "Browse: search → preview",
    "Drill → Home",
)


def prompt_of(instance: Any) -> str:
    """What the frame of ``instance``'s question must show: the start of its prompt."""
    from frames import needle

    from quizzer.tui.widgets.teaching import question_markdown

    return needle(question_markdown(instance))


class Rounds:
    """One round of each row, from Home back to Home (the rows interleave: a slow patch weighs on all)."""

    def __init__(self, bench: Bench, bank: Any) -> None:
        from screen_data import browse_queries, chain_template

        self.bench, self.bank = bench, bank
        self.queries = browse_queries(bank, seed=1)
        self.chain_id = chain_template(bank)
        #: When each mock's clock started, in ms after the frame of its first prompt (negative: before).
        self.clock_lag: list[float] = []

    async def home(self) -> None:
        """Back to Home (escape leaves an answer box or a screen; q leaves a drill, study or Browse)."""
        from quizzer.tui.screens.home import HomeScreen

        bench = self.bench
        for _ in range(5):
            if bench.screen(HomeScreen):
                break
            await bench.keys("escape")
            if not bench.screen(HomeScreen):
                await bench.keys("q")
        await bench.until(lambda: bench.screen(HomeScreen), "Home")

    def drill_prompt(self, mode: str = "drill", after: object = None) -> Callable[[], str | None]:
        """The prompt of the drill's question once a drill of ``mode`` asks one other than ``after``."""
        from quizzer.tui.screens.drill import DrillScreen

        def target() -> str | None:
            drill = self.bench.screen(DrillScreen)
            if drill is None or drill.session.mode != mode or drill.session.instance is after:
                return None
            return prompt_of(drill.session.instance)

        return target

    async def drill(self) -> None:
        """Home → Drill, two next questions, Drill → Home."""
        from frames import needle

        from quizzer.tui.screens.drill import DrillScreen
        from quizzer.tui.screens.home import INTRO, HomeScreen

        bench = self.bench
        await bench.timed("Home → Drill", "d", self.drill_prompt())
        for _ in range(2):
            await bench.keys("escape")  # out of the answer box: n is a key, not typed
            asked = bench.screen(DrillScreen).session.instance
            await bench.timed("next question (n)", "n", self.drill_prompt(after=asked))
        await bench.keys("escape")
        home = needle(INTRO)
        await bench.timed("Drill → Home", "q", lambda: home if bench.screen(HomeScreen) else None)

    async def chain(self, seed: int) -> None:
        """A chain's first part answered: enter to its second part's prompt."""
        from frames import needle

        from quizzer.tui.messages import StartMode
        from quizzer.tui.screens.drill import DrillScreen
        from quizzer.tui.widgets.teaching import part_markdown

        bench = self.bench
        bench.app.post_message(StartMode("drill", template_id=self.chain_id, seed=seed))
        drill = await bench.until(lambda: bench.screen(DrillScreen), "the chain's drill")
        await bench.until(lambda: drill.panel.answer_box.ready, "the chain's first part")
        instance = drill.session.instance
        await bench.keys(*str(instance.value))
        part_2 = needle(part_markdown(instance, 2))
        await bench.timed(
            "next part of a chain (enter)",
            "enter",
            lambda: part_2 if drill.session.turn.number == 2 else None,
        )
        await self.home()

    async def mock(self) -> None:
        """Enter on the mock's start screen to its first question's prompt; then submitted, unanswered."""
        from quizzer.session.mock import MockExam
        from quizzer.tui.screens.mock import MockScreen
        from quizzer.tui.screens.mock_start import MockStartScreen

        bench = self.bench
        await bench.keys("m")
        await bench.until(lambda: bench.screen(MockStartScreen), "the mock's start")
        calls: list[float] = []
        started = MockExam.start

        def start(exam: MockExam, *args: Any, **kwargs: Any) -> Any:
            calls.append(time.perf_counter())
            return started(exam, *args, **kwargs)

        MockExam.start = start  # type: ignore[method-assign]
        try:
            painted = await bench.timed(
                "mock start → first question (enter)",
                "enter",
                lambda: (mock := bench.screen(MockScreen)) and prompt_of(mock.exam.instances[0]),
            )
        finally:
            MockExam.start = started  # type: ignore[method-assign]
        if calls and painted is not None:
            self.clock_lag.append((calls[0] - painted) * 1000)
        await bench.keys("ctrl+s")
        await bench.keys("ctrl+s")  # the second submits: its report opens
        await self.home()

    async def study_and_cram(self) -> None:
        from quizzer.tui.screens.study import StudyScreen

        bench = self.bench

        def studied() -> str | None:
            study = bench.screen(StudyScreen)
            return prompt_of(study.session.instance) if study and study.session.turn else None

        await bench.timed("Home → Study", "s", studied)
        await self.home()
        await bench.timed("Home → Cram", "c", self.drill_prompt(mode="cram"))
        await self.home()

    async def stats(self) -> None:
        """To Stats filled: its summary line, which replaces "Reading the history…"."""
        from quizzer.tui.screens.stats import StatsScreen

        bench = self.bench

        def summary() -> str | None:
            screen = bench.screen(StatsScreen)
            stats = screen.stats if screen is not None else None
            return f"{stats.right} of {stats.attempts} right" if stats is not None else None

        await bench.timed("Home → Stats, 10,000 attempts", "t", summary)
        await self.home()

    async def browse(self, number: int) -> None:
        """A search typed but its last character: that key to the preview of the template it finds."""
        from quizzer.bank.generate.render import generate
        from quizzer.tui.screens.browse import BrowseScreen

        bench = self.bench
        await bench.keys("b")
        browse = await bench.until(lambda: bench.screen(BrowseScreen), "Browse")
        query, template = self.queries[number % len(self.queries)]
        await bench.keys(*query[:-1])
        await bench.timed(
            "Browse: search → preview",
            query[-1],
            lambda: browse.selected is template and prompt_of(generate(template, browse.seed)),
        )
        await self.home()

    async def run(self, rounds: int) -> None:
        for number in range(rounds):
            await self.drill()
            await self.chain(seed=number + 1)
            await self.mock()
            await self.study_and_cram()
            await self.stats()
            await self.browse(number)


def screen_times(tmp: Path) -> tuple[dict[str, list[float]], dict[str, int], list[float]]:
    """Every row's times (ms), its ambiguous rounds, and when each mock clock started after its prompt's
    frame: quizzer's app over the built-in bank and a history of 10,000 attempts, headless at 100×30."""
    from frames import Frames
    from screen_data import history_db
    from timed_keys import Bench

    from quizzer.bank.loader import load_bank
    from quizzer.config import Settings
    from quizzer.paths import question_paths
    from quizzer.store.history import HistoryStore
    from quizzer.tui.app import QuizzerApp
    from quizzer.tui.screens.home import HomeScreen

    db = tmp / "screens.sqlite3"
    history_db(db, load_bank(question_paths()))
    store = HistoryStore.open(str(db))
    seeds = random.Random(1)
    app = QuizzerApp(
        question_paths(), store=store, settings=Settings(), seed_source=lambda: seeds.randrange(2**24)
    )
    done: list[Any] = []

    async def run() -> None:
        with Frames(*SIZE) as frames:
            async with app.run_test(size=SIZE) as pilot:
                bench = Bench(app, pilot, frames)
                await bench.until(lambda: app.bank is not None and bench.screen(HomeScreen), "Home")
                await bench.settle()
                rounds = Rounds(bench, app.bank)
                await rounds.run(ROUNDS)
                done.extend((bench, rounds))

    try:
        asyncio.run(run())
    finally:
        store.close()
    bench, rounds = done
    return bench.times, bench.ambiguous, rounds.clock_lag


def screen_rows(tmp: Path) -> tuple[list[str], int]:
    """The rows as printed (median, budget, ok or OVER) and how many are over. Measured in a process of
    their own: the bench's own heap (the bank checked, the calculators' memos) would slow the app's
    garbage collections, which a user's app does not have."""
    done = subprocess.run([sys.executable, __file__, str(tmp)], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"bench: the screen rows failed:\n{done.stderr}")
    measured = json.loads(done.stdout.splitlines()[-1])
    times, ambiguous, lag = measured["times"], measured["ambiguous"], measured["lag"]
    rows, over = [], 0
    for row in ROWS:
        budget = HOME_BUDGET_MS if row == "Drill → Home" else BUDGET_MS
        values = times.get(row, [])
        if not values:  # every round ambiguous: a bench bug, not a pass
            over += 1
            rows.append(f"  {row:<64} not measured: the text was on screen before every key  OVER")
            continue
        median = statistics.median(values)
        left_out = f", {ambiguous[row]} left out" if ambiguous.get(row) else ""
        label = f"{row} (median of {len(values)}{left_out})"
        over += median > budget
        verdict = "ok" if median <= budget else "OVER"
        rows.append(f"  {label:<64} {median:6.1f} ms (budget <= {budget:.0f})  {verdict}")
    if lag:
        label = "  the mock's clock starts after its first prompt's frame, median"
        rows.append(f"{label:<66} {statistics.median(lag):6.1f} ms")
    return rows, over


if __name__ == "__main__":
    times, ambiguous, lag = screen_times(Path(sys.argv[1]))
    print(json.dumps({"times": times, "ambiguous": ambiguous, "lag": lag}))
