"""config.toml's [keymap]: binding ids remapped to other keys, in the drill and in Help; unknown ids and bad
keys are one-line errors naming the file and the key."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from snapshot_app import PACK, SEED, FakeClock, FakeWall

from quizzer.bank.loader import load_bank
from quizzer.config import ConfigError, Settings, load_settings
from quizzer.store.history import HistoryStore
from quizzer.tui.app import QuizzerApp
from quizzer.tui.options import DrillOptions
from quizzer.tui.screens.drill import DrillScreen
from quizzer.tui.screens.help import HelpModal, binding_ids
from quizzer.tui.widgets.answer_input import AnswerInput

SIZE = (100, 32)
TUI = Path(__file__).resolve().parents[2] / "quizzer" / "tui"


def config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


def drill_app(path: Path) -> QuizzerApp:
    """A drill of the embedding question (as snapshot_app's), with the settings read from ``path``."""
    bank = load_bank([str(PACK)])
    bank.templates()
    return QuizzerApp(
        [str(PACK)],
        drill=DrillOptions(template_id="embedding-table-params", seed=SEED),
        clock=FakeClock(),
        wall=FakeWall(),
        seed_source=lambda: SEED,
        bank=bank,
        store=HistoryStore.memory(),
        settings=load_settings(str(path)),
        config_path=str(path),
    )


async def test_a_remapped_key_moves_on_and_the_old_key_no_longer_does(tmp_path: Path) -> None:
    app = drill_app(config(tmp_path, '[keymap]\ndrill-next = "j"\n'))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, DrillScreen)
        session = screen.session
        first = session.instance
        await pilot.press(*str(first.value), "enter")
        await pilot.pause()
        assert session.attempts[-1].verdict == "exact"

        await pilot.press("n")
        await pilot.pause()
        assert session.instance is first  # "n" is no longer Next
        assert screen.query_one(".feedback").display
        assert screen.query_one(AnswerInput).value == str(first.value)  # nor typed into the answer box

        await pilot.press("j")
        await pilot.pause()
        assert session.instance is not first
        assert not screen.query_one(".feedback").display


async def test_a_binding_can_have_several_keys_and_the_others_keep_theirs(tmp_path: Path) -> None:
    app = drill_app(config(tmp_path, '[keymap]\ndrill-next = "ctrl+n, right"\n'))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, DrillScreen)
        session = screen.session
        for key in ("ctrl+n", "right"):
            before = session.instance
            await pilot.press("escape", "s")  # drill-skip: still "s"
            await pilot.pause()
            assert session.attempts[-1].verdict == "skipped"
            await pilot.press(key)
            await pilot.pause()
            assert session.instance is not before, key


async def test_help_shows_the_remapped_keys(tmp_path: Path) -> None:
    app = drill_app(config(tmp_path, '[keymap]\ndrill-next = "j"\nquit = "ctrl+x"\n'))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpModal)
        table = app.screen.source
        assert "| drill | `j` | Next |" in table
        assert "| drill | `n` | Next |" not in table
        assert "| study | `n` | Next |" in table  # study-next was not remapped
        assert "| everywhere | `^x` | quit" in table
        assert "`ctrl+q`" not in table


async def test_the_remapped_quit_key_quits(tmp_path: Path) -> None:
    app = drill_app(config(tmp_path, '[keymap]\nquit = "ctrl+x"\n'))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert app.is_running
        await pilot.press("ctrl+x")
        await pilot.pause()
        assert not app.is_running


def test_an_unknown_binding_id_is_a_one_line_error_naming_the_file_and_the_key(tmp_path: Path) -> None:
    path = config(tmp_path, '[keymap]\ndrill-hint = "k"\ndrill-nxt = "j"\n')
    with pytest.raises(ConfigError) as info:
        drill_app(path)
    assert str(info.value) == f"{path}: keymap.drill-nxt: no binding has this id (did you mean 'drill-next'?)"


def test_the_command_line_prints_an_unknown_binding_id_in_one_line_before_the_app_opens(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("QUIZZER_CONFIG", str(config(tmp_path, '[keymap]\ndrill-nxt = "j"\n')))
    proc = subprocess.run(
        [sys.executable, "-m", "quizzer", "drill", "--questions", str(PACK)],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert len(proc.stderr.splitlines()) == 1
    assert proc.stderr.startswith("quizzer drill: ")
    assert "config.toml: keymap.drill-nxt: no binding has this id (did you mean 'drill-next'?)" in proc.stderr


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('keymap = "j"\n', 'keymap must be a table: [keymap] with lines like drill-next = "j"'),
        ("[keymap]\ndrill-next = 3\n", "keymap.drill-next must be a key, or keys separated by commas"),
        ('[keymap]\ndrill-next = ""\n', "keymap.drill-next must be a key, or keys separated by commas"),
        ('[keymap]\ndrill-next = "j,,k"\n', "keymap.drill-next must be a key, or keys separated by commas"),
        ('[keymap]\ndrill-next = "ctrl n"\n', "keymap.drill-next must be a key, or keys separated by commas"),
        ('[keymap]\n"drill\\nnext" = 3\n', "keymap.'drill\\nnext' must be a key"),
        ('[keymap.drill]\nnext = "j"\n', "keymap.drill must be a key, or keys separated by commas"),
        ('[kemap]\ndrill-next = "j"\n', "unknown key 'kemap' (did you mean 'keymap'?)"),
    ],
)
def test_a_malformed_keymap_names_the_file_and_the_key_in_one_line(
    tmp_path: Path, text: str, message: str
) -> None:
    path = config(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_settings(str(path))
    assert str(info.value).startswith(f"{path}: {message}")
    assert "\n" not in str(info.value)


def test_keys_are_read_with_the_spaces_around_them_left_out(tmp_path: Path) -> None:
    path = config(tmp_path, '[keymap]\ndrill-next = " j , ctrl+n "\nhelp = "?"\n')
    assert load_settings(str(path)) == Settings(keymap=(("drill-next", "j,ctrl+n"), ("help", "?")))


def test_every_binding_id_in_the_tui_can_be_remapped_and_names_one_binding() -> None:
    # What the source declares, read as text: a screen left out of binding_ids() is caught here.
    declared = [
        m.group(1)
        for path in sorted(TUI.rglob("*.py"))
        for m in re.finditer(r'Binding\(.*\bid="([^"]+)"', path.read_text(encoding="utf-8"))
    ]
    assert len(declared) >= 49
    assert len(declared) == len(set(declared)), "a binding id used twice would remap two bindings at once"
    assert binding_ids(QuizzerApp.BINDINGS) == set(declared)


def test_the_readme_lists_every_binding_id() -> None:
    """The README's table of binding ids is the set the app accepts in [keymap]."""
    import re
    from pathlib import Path

    from quizzer.tui.app import QuizzerApp
    from quizzer.tui.screens.help import binding_ids

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    table = readme[readme.index("| where | ids (default key) |") :].split("\n\n")[0]
    listed = set(re.findall(r"`([a-z0-9-]+)` \(", table))
    assert listed == binding_ids(QuizzerApp.BINDINGS)
