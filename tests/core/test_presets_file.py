"""presets.toml is read a preset at a time (presets._sections): the file keeps the shape that allows it."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from quizzer.core import presets


def read_alike(path: Path, monkeypatch: pytest.MonkeyPatch) -> bool:
    """Whether reading ``path`` a preset at a time gives what parsing it whole gives: the same names in
    order, the same table for each, the same aliases."""
    whole: dict[str, Any] = tomllib.loads(path.read_text(encoding="utf-8"))
    monkeypatch.setattr(presets, "_PRESETS_FILE", str(path))
    presets._sections.cache_clear()
    try:
        sections, names = presets._sections()
        if list(sections) != list(whole):
            return False
        if any(presets._entry(name) != table for name, table in whole.items()):
            return False
    except (KeyError, tomllib.TOMLDecodeError):
        return False
    finally:
        presets._sections.cache_clear()
    expected = {name: name for name in whole}
    for name, table in whole.items():
        expected.update(dict.fromkeys(table.get("aliases", ()), name))
    return names == expected


def test_the_shipped_file_reads_alike_a_preset_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    path = Path(presets._PRESETS_FILE)
    assert read_alike(path, monkeypatch)
    assert len(tomllib.loads(path.read_text(encoding="utf-8"))) >= 50


TWO = """[a]
title = "A"
aliases = ["a1"]
config = { x = 1 }

["b.2"]
title = "B"
config = { x = 2 }

[a.extra]
y = 3
"""


def test_a_preset_split_in_two_places_is_caught(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "presets.toml"
    path.write_text(TWO, encoding="utf-8")
    assert not read_alike(path, monkeypatch)  # [a.extra] after ["b.2"]: a's tables are not together
    path.write_text(TWO.replace('aliases = ["a1"]', 'aliases = [\n  "a1",\n]'), encoding="utf-8")
    assert not read_alike(path, monkeypatch)  # aliases over three lines: not read from one
    together = TWO.replace("[a.extra]\ny = 3\n", "").replace(
        "config = { x = 1 }\n", "config = { x = 1 }\n\n[a.extra]\ny = 3\n", 1
    )
    path.write_text(together, encoding="utf-8")
    assert read_alike(path, monkeypatch)
