"""Once a bank is loaded, what the process holds is frozen out of the collector's scans."""

from __future__ import annotations

import gc
import shutil
from pathlib import Path

from quizzer.bank.loader import load_bank

DATA = Path(__file__).resolve().parents[1] / "data" / "lazy"


def test_loading_a_bank_freezes_the_heap(tmp_path: Path) -> None:
    shutil.copy(DATA / "unmade.toml", tmp_path / "unmade.toml")
    gc.unfreeze()
    assert gc.get_freeze_count() == 0
    bank = load_bank([str(tmp_path)])
    assert gc.get_freeze_count() == 0  # the files' ids are read; nothing is parsed yet
    templates = bank.templates()
    assert [t.id for t in templates] == ["unmade-rest"]
    frozen = gc.get_freeze_count()
    assert frozen > 0
    assert gc.is_tracked(templates[0])
    assert all(o is not templates[0] for o in gc.get_objects())  # the collector's generations skip it
    bank.templates()  # nothing newly parsed: not frozen again
    assert gc.get_freeze_count() == frozen
