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


def test_an_instance_that_compiled_expressions_freezes_what_they_hold(tmp_path: Path) -> None:
    """The closures an expression is compiled to live as long as the process: once an instance compiled
    some, they are frozen out of the collector's scans; an instance that compiled nothing freezes
    nothing (the expressions were compiled by the one before)."""
    from quizzer.bank.expr.expression import compiled_count
    from quizzer.bank.generate.render import generate

    (tmp_path / "q.toml").write_text(
        (DATA / "unmade.toml")
        .read_text()
        .replace('"unmade-rest"', '"heap-compiled"')
        .replace('"heads / 2"', '"heads * 7 + 11"')  # an expression no other test compiles
        .replace("{half:ordinal} half", "{half} halves")
    )
    (template,) = load_bank([str(tmp_path)]).templates()
    gc.unfreeze()
    before = compiled_count()
    first = generate(template, 1)
    assert first.variables == {"heads": 3, "half": 32}
    assert compiled_count() > before
    frozen = gc.get_freeze_count()
    assert frozen > 0
    assert all(o is not first for o in gc.get_objects())  # frozen with what it holds
    generate(template, 2)  # nothing new to compile: nothing frozen again
    assert gc.get_freeze_count() == frozen
