"""Instances generated a second by the engine importable here, over a question bank: one number printed.

`python tests/bench/engine_rate.py QUESTIONS SECONDS` loads QUESTIONS, makes one instance of each template
(its expressions compile on their first evaluation), then generates every template at seeds 1, 2, 3...
for SECONDS. run.py runs it for this checkout and, with PYTHONPATH at an older commit's ``quizzer``
(extracted by ``git archive``), for the engine before #30, interleaved: a ratio measured in the same run.
"""

from __future__ import annotations

import sys
import time


def drill_view(instance: object) -> tuple[object, ...]:
    """What the drill screen reads to paint a question (its meta line, prompt and conventions, the last
    one the tolerance sentence) and the answer it grades against: the fields of "what a drill shows"."""
    return tuple(
        getattr(instance, name)
        for name in (
            "id",
            "title",
            "topic",
            "difficulty",
            "minutes",
            "part_count",
            "prompt",
            "conventions",
            "value",
            "display",
            "tolerance_text",
        )
    )


def main(questions: str, seconds: float) -> float:
    from quizzer.bank.generate.render import generate
    from quizzer.bank.loader import load_bank

    templates = load_bank([questions]).templates()
    for template in templates:
        generate(template, 0)
    made, seed, start = 0, 1, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        for template in templates:
            generate(template, seed)
        made, seed = made + len(templates), seed + 1
    return made / elapsed


if __name__ == "__main__":
    print(f"{main(sys.argv[1], float(sys.argv[2])):.1f}")
