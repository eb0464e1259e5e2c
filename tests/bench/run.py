"""`make bench`: speed as ratios against a baseline measured in the same run (never a timed test)."""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

BIN = Path(sys.executable).parent
PACKAGE = Path(__file__).resolve().parents[2] / "quizzer"
RUNS = 21


def _wall(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True)
    return time.perf_counter() - start


def cold_starts(commands: dict[str, list[str]], runs: int = RUNS) -> dict[str, float]:
    """Median wall time of each command as a fresh process, in seconds.

    The commands run interleaved (baseline, a, b, baseline, a, b, ...) so that a slow patch of the machine
    weighs on all of them alike; one warm-up round is discarded.
    """
    times: dict[str, list[float]] = {label: [] for label in commands}
    for round_ in range(runs + 1):
        for label, argv in commands.items():
            elapsed = _wall(argv)
            if round_:
                times[label].append(elapsed)
    return {label: statistics.median(values) for label, values in times.items()}


def main() -> int:
    # An installed quizzer runs from bytecode (pip compiles at install time); an editable checkout under
    # PYTHONDONTWRITEBYTECODE=1 would recompile every module on every start, so compile it first.
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(PACKAGE)], check=True)
    quizzer = str(BIN / "quizzer")
    budgets = {"quizzer count llama-3-8b --json": 5.0}
    medians = cold_starts(
        {
            "python -c pass (baseline)": [sys.executable, "-c", "pass"],
            "quizzer count llama-3-8b --json": [quizzer, "count", "llama-3-8b", "--json"],
        }
    )
    baseline = medians.pop("python -c pass (baseline)")
    print(f"cold start, median of {RUNS} interleaved runs")
    print(f"  {'python -c pass (baseline)':<44} {baseline * 1000:7.1f} ms")
    over = 0
    for label, value in medians.items():
        ratio, budget = value / baseline, budgets[label]
        verdict = "ok" if ratio <= budget else "OVER BUDGET"
        print(f"  {label:<44} {value * 1000:7.1f} ms   ratio {ratio:5.2f} (budget <= {budget})  {verdict}")
        over += ratio > budget
    return 1 if over else 0


if __name__ == "__main__":
    raise SystemExit(main())
