"""`quizzer mock --save-set FILE` / `--set-file FILE`: a saved set replays the same instances; bad files."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from quizzer.bank.loader import Bank, load_bank
from quizzer.cli import main
from quizzer.session.picking import fit_instances, format_set, parse_set


@cache
def real_bank() -> Bank:
    from quizzer.paths import question_paths

    return load_bank(question_paths())


def test_a_saved_set_replays_the_same_instances() -> None:
    bank = real_bank()
    for seed in range(5):
        drawn = fit_instances(bank, count=8, minutes=20, seed=seed)
        text = format_set(drawn, 20)
        assert text.startswith("# ")
        assert text.count("\n") == 9  # a header, then one line a question
        replayed = parse_set(load_bank([str(p) for p in bank_paths()]), text, "set.txt")  # a fresh bank
        assert [i.id for i in replayed] == [i.id for i in drawn]
        assert [i.value for i in replayed] == [i.value for i in drawn]


def bank_paths() -> list[str]:
    from quizzer.paths import question_paths

    return question_paths()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "# header\nweights-bytes#12\nno-such-template#3\n",
            "set.txt:3: no template has the id 'no-such-template'",
        ),
        ("weights-bytes#12\n\nweights-bytes\n", "set.txt:3: 'weights-bytes' is not ID#SEED"),
        ("weights-bytes#seven\n", "set.txt:1: 'weights-bytes#seven' is not ID#SEED"),
        ("#only a comment\n\n", "set.txt: the set has no question"),
    ],
)
def test_bad_set_files_name_the_file_and_line(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=r"^set\.txt") as caught:
        parse_set(real_bank(), text, "set.txt")
    assert str(caught.value).startswith(message)
    assert "\n" not in str(caught.value)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("QUIZZER_DB", str(tmp_path / "history.sqlite3"))
    monkeypatch.setenv("QUIZZER_CONFIG", str(tmp_path / "config.toml"))
    return tmp_path


def test_the_command_line_replays_a_set_file(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from quizzer.tui.app import QuizzerApp

    drawn = fit_instances(real_bank(), count=3, minutes=12, seed=9)
    path = home / "friend.txt"
    path.write_text(format_set(drawn, 12))
    opened = []
    monkeypatch.setattr(QuizzerApp, "run", lambda app, **_: opened.append(app._start))
    assert main(["mock", "--set-file", str(path), "--minutes", "12"]) == 0
    (options,) = opened
    assert [i.id for i in options.instances] == [i.id for i in drawn]
    assert options.minutes == 12


def test_the_command_line_says_what_is_wrong_in_one_line(
    home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from quizzer.tui.app import QuizzerApp

    monkeypatch.setattr(QuizzerApp, "run", lambda app, **_: pytest.fail("the app must not open"))
    path = home / "bad.txt"
    path.write_text("weights-bytes#1\nnope#2\n")
    assert main(["mock", "--set-file", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert f"{path}:2: no template has the id 'nope'" in err
    assert "\n" not in err
    assert main(["mock", "--set-file", str(home / "missing.txt")]) == 2
    assert "missing.txt: cannot read the set" in capsys.readouterr().err
    assert main(["mock", "--set-file", str(path), "--count", "3"]) == 2
    assert "leave out --count" in capsys.readouterr().err
