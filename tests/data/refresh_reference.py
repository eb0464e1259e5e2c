"""Refresh tests/data/reference/ from the team's ../shared/reference/: the figures and sources only.

Run by ``make reference``. The tests read only the copy under tests/data/reference/, so a fresh clone needs
nothing beside it. What is kept: every number, every model's ``config_json``, formulas and sources. What is
dropped: the prose (problem statements, notes, the reasons behind tolerances, method descriptions), which
stays with the reference folder; tests/data/reference/README.md describes the format.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
TARGET = HERE / "reference"
DEFAULT_SOURCE = HERE.parents[2] / "shared" / "reference"

#: Files copied, each a list of records under the key given (problems.json is a bare list).
FILES = {
    "real_models.json": "models",
    "real_models_2025.json": "models",
    "real_models_2026.json": "models",
    "problems.json": None,
}

#: Keys whose values are prose about a figure rather than the figure: left out of the copy.
PROSE_KEYS = frozenset(
    {
        "question",
        "notes",
        "note",
        "why",
        "disagreement",
        "method",
        "counted_ops",
        "attention_implementation",
        "definition",
        "bytes_per_token_definition",
        "chunked_note",
        "hf_implementation",
        "description",
        "conventions",
    }
)


def strip_prose(value: Any) -> Any:
    """``value`` without the prose keys, at every depth (``config_json`` is kept whole: it is data)."""
    if isinstance(value, dict):
        return {
            key: (item if key == "config_json" else strip_prose(item))
            for key, item in value.items()
            if key not in PROSE_KEYS
        }
    if isinstance(value, list):
        return [strip_prose(item) for item in value]
    return value


def refresh(source: Path, target: Path = TARGET) -> list[Path]:
    """Write the stripped copy of every reference file in ``source`` to ``target``; returns the paths."""
    written = []
    for name, key in FILES.items():
        data = json.loads((source / name).read_text(encoding="utf-8"))
        records = data[key] if key else data
        out: dict[str, Any] = {"copied_from": f"shared/reference/{name}", "records": strip_prose(records)}
        if isinstance(data, dict) and "generated_with" in data:
            out["generated_with"] = data["generated_with"]
        path = target / name
        path.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        written.append(path)
    return written


def main() -> int:
    """Refresh from QUIZZER_REFERENCE_DIR or ../shared/reference; exit 1 with one line when neither exists."""
    source = Path(os.environ.get("QUIZZER_REFERENCE_DIR", DEFAULT_SOURCE))
    if not all((source / name).is_file() for name in FILES):
        print(f"no reference folder at {source} (set QUIZZER_REFERENCE_DIR); tests/data/reference/ unchanged")
        return 1
    for path in refresh(source):
        print(f"wrote {path.relative_to(HERE.parents[1])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
