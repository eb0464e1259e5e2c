"""`make bench`: speed as ratios against a baseline measured in the same run (never a timed test)."""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

BIN = Path(sys.executable).parent
RUNS = 15


def _cold_start(argv: list[str], runs: int = RUNS) -> float:
    """Median wall time of ``argv`` as a fresh process, in seconds (one warm-up run first)."""
    subprocess.run(argv, check=True, capture_output=True)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _row(label: str, value: float, baseline: float, budget: float) -> str:
    ratio = value / baseline
    verdict = "ok" if ratio <= budget else "OVER BUDGET"
    return f"{label:<48} {value * 1000:8.1f} ms   ratio {ratio:5.2f}  (budget <= {budget})  {verdict}"


def main() -> int:
    quizzer = str(BIN / "quizzer")
    baseline = _cold_start([sys.executable, "-c", "pass"])
    print(f"{'python -c pass (baseline)':<48} {baseline * 1000:8.1f} ms   median of {RUNS} runs")
    rows = [
        ("quizzer count llama-3-8b --json", [quizzer, "count", "llama-3-8b", "--json"], 5.0),
    ]
    over = 0
    for label, argv, budget in rows:
        value = _cold_start(argv)
        print(_row(label, value, baseline, budget))
        over += value / baseline > budget
    return 1 if over else 0


if __name__ == "__main__":
    raise SystemExit(main())
