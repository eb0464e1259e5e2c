"""`quizzer export-deck` refuses bad input in one line (exit 2), writes atomically, escapes a pack's text."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import pytest

from tests.anki.deck_reader import Deck
from tests.cli_run import run_cli

HOSTILE_PACK = '''
[[template]]
id = "hostile-product"
title = "A <b>product</b>"
topic = "pack tests"
difficulty = "easy"
minutes = 1
kind = "exact"
prompt = "What is **{a}** × `{b}`? <script>alert(1)</script> [see](javascript:alert(2))"
explanation = """Multiply: <img src=x onerror=alert(3)>

{derivation}"""
tldr = "{answer}"

[template.variables]
a = { range = [2, 20], step = 2 }
b = { log2 = [8, 64] }

[template.answer]
expr = "a * b"
unit = "count"
'''


def refused(*args: str) -> str:
    """Run export-deck; it must exit 2 with one line on stderr and nothing on stdout; returns that line."""
    ran = run_cli("export-deck", *args)
    assert ran.returncode == 2, (ran.returncode, ran.stderr)
    assert ran.stdout == ""
    lines = ran.stderr.strip().splitlines()
    assert len(lines) == 1, ran.stderr
    assert "Traceback" not in ran.stderr
    return lines[0]


def test_unknown_topic_is_named_with_a_suggestion(tmp_path: Path) -> None:
    line = refused(str(tmp_path / "d.apkg"), "--topic", "kv-cahce")
    assert "'kv-cahce'" in line
    assert "'kv-cache'" in line
    assert not (tmp_path / "d.apkg").exists()


@pytest.mark.parametrize("count", ["0", "-3", "101"])
def test_count_out_of_range(tmp_path: Path, count: str) -> None:
    line = refused(str(tmp_path / "d.apkg"), "--count", count)
    assert f"--count {count}" in line
    assert "between 1 and 100" in line
    assert list(tmp_path.iterdir()) == []


def test_a_folder_that_does_not_exist(tmp_path: Path) -> None:
    line = refused(str(tmp_path / "no" / "such" / "d.apkg"))
    assert "does not exist" in line
    assert str(tmp_path / "no" / "such") in line
    assert list(tmp_path.iterdir()) == []


def test_a_folder_that_is_a_file(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("mine")
    line = refused(str(tmp_path / "file" / "d.apkg"))
    assert "is not a folder" in line
    assert (tmp_path / "file").read_text() == "mine"


def test_the_path_is_a_folder(tmp_path: Path) -> None:
    (tmp_path / "d.apkg").mkdir()
    assert "is a folder" in refused(str(tmp_path / "d.apkg"))


def test_a_name_anki_would_not_import(tmp_path: Path) -> None:
    assert ".apkg" in refused(str(tmp_path / "deck.zip"))
    assert list(tmp_path.iterdir()) == []


def test_an_unwritable_place(tmp_path: Path) -> None:
    # /proc exists and is a folder, but no file can be made in it, not even by root
    line = refused("/proc/quizzer-deck.apkg", "--topic", "kv-cache", "--count", "1")
    assert line.startswith("quizzer export-deck: cannot write /proc/quizzer-deck.apkg")


def test_a_file_that_is_not_a_deck_is_not_overwritten(tmp_path: Path) -> None:
    target = tmp_path / "notes.apkg"
    target.write_text("my notes, not a deck")
    line = refused(str(target), "--topic", "kv-cache", "--count", "1")
    assert "not an Anki deck" in line
    assert "not overwritten" in line
    assert target.read_text() == "my notes, not a deck"


def test_a_deck_is_replaced_and_says_so(tmp_path: Path) -> None:
    target = tmp_path / "d.apkg"
    first = run_cli("export-deck", str(target), "--topic", "kv-cache", "--count", "1")
    assert first.returncode == 0
    assert "replacing" not in first.stderr
    second = run_cli("export-deck", str(target), "--topic", "kv-cache", "--count", "2")
    assert second.returncode == 0, second.stderr
    assert "replacing the deck that was there" in second.stderr
    assert {n.instance.split("#")[1] for n in Deck(target).notes} == {"1", "2"}
    assert [p.name for p in tmp_path.iterdir()] == ["d.apkg"]  # no temporary file left


def test_a_failed_write_leaves_the_old_deck_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import genanki  # type: ignore[import-untyped]

    target = tmp_path / "d.apkg"
    assert run_cli("export-deck", str(target), "--topic", "kv-cache", "--count", "1").returncode == 0
    before = target.read_bytes()

    def full_disk(self: object, file: str, timestamp: float | None = None) -> None:
        Path(file).write_bytes(b"half a deck")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(genanki.Package, "write_to_file", full_disk)
    line = refused(str(target), "--topic", "kv-cache", "--count", "2")
    assert "cannot write" in line
    assert "No space left on device" in line
    assert target.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["d.apkg"]


def test_without_genanki_it_names_the_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "genanki", None)  # import genanki raises ImportError
    line = refused(str(tmp_path / "d.apkg"))
    assert "pip install 'quizzer-ml[anki]'" in line
    assert list(tmp_path.iterdir()) == []


def test_genanki_leaves_nothing_in_the_temporary_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    ran = run_cli("export-deck", str(tmp_path / "d.apkg"), "--topic", "kv-cache", "--count", "1")
    assert ran.returncode == 0, ran.stderr
    assert list(scratch.iterdir()) == []
    assert tempfile.tempdir == str(scratch)  # put back as it was


def test_a_packs_text_is_escaped_and_its_markdown_rendered(tmp_path: Path) -> None:
    pack = tmp_path / "pack"
    pack.mkdir()
    (pack / "hostile.toml").write_text(HOSTILE_PACK, encoding="utf-8")
    target = tmp_path / "d.apkg"
    ran = run_cli(
        "export-deck", str(target), "--questions", str(pack), "--topic", "pack tests", "--count", "2"
    )
    assert ran.returncode == 0, ran.stderr
    deck = Deck(target)
    assert len(deck.notes) == 2
    for note in deck.notes:
        html = note.fields["Question"] + note.fields["Explanation"]
        assert "<script" not in html
        assert "<img" not in html
        assert 'href="javascript' not in html
        assert "[see](javascript:alert(2))" in note.fields["Question"]  # a link only to http(s)
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in note.fields["Question"]
        assert "&lt;img src=x onerror=alert(3)&gt;" in note.fields["Explanation"]
        assert "A &lt;b&gt;product&lt;/b&gt;" in note.fields["Question"]
        assert "<b>" in note.fields["Question"]
        assert "<code>" in note.fields["Question"]
        assert "quizzer::topic::pack_tests" in note.tags  # a topic's space: no space in a tag
