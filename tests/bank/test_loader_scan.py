"""The loader's text scan for id lines: the lines it finds, the files it reads for one id, and that finding a
template through it gives exactly what loading every file gives."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from quizzer.bank import loader
from quizzer.bank.loader import Bank, load_bank
from quizzer.bank.read.overrides import settable_rows
from quizzer.cli import main
from quizzer.commands.show import instance_json
from quizzer.paths import questions_dir
from tests.builtin_bank import builtin_bank
from tests.sampling import sampled

DATA = Path(__file__).resolve().parent.parent / "data"
MINI = (DATA / "good" / "mini.toml").read_text(encoding="utf-8")
#: The scan as first written: ^ under re.MULTILINE. The loader's starts with the newline instead (faster).
MULTILINE = re.compile(rb'^[ \t]*(?:id|"id"|\'id\')[ \t]*=[ \t]*["\']([^"\'\n]+)["\']', re.MULTILINE)
BUILT_IN = sorted(Path(questions_dir()).glob("*.toml"))
IDS = load_bank([questions_dir()]).ids()


def scanned(text: bytes, folder: Path) -> list[str]:
    """The ids the loader's scan finds on the id lines of a file holding ``text``, in order."""
    (folder / "scan.toml").write_bytes(text)
    bank = load_bank([str(folder / "scan.toml")])
    return list(bank._ids_in(str(folder / "scan.toml")))


def multiline(text: bytes) -> list[str]:
    return [found.decode("utf-8", "replace") for found in MULTILINE.findall(text)]


@pytest.mark.parametrize(
    "text",
    [
        b'id = "first-line"\n',
        b'id = "no-newline-at-the-end"',
        b'\n\n  id = "indented"\r\nid="crlf"\r\n\t"id" = \'quoted-key\'\n',
        b'x = """\nid = "inside-a-string"\n"""\n',
        b'# id = "a-comment"\nxid = "not-an-id"\nid = "x"  id = "twice-on-a-line"\n',
        b"",
        b'\n\nid = ""\nid = "a\nb"\n',
    ],
)
def test_the_scan_finds_the_lines_the_multiline_pattern_finds(text: bytes, tmp_path: Path) -> None:
    assert scanned(text, tmp_path) == multiline(text)


@pytest.mark.parametrize("path", BUILT_IN, ids=[p.name for p in BUILT_IN])
def test_the_scan_finds_the_same_ids_in_every_built_in_file(path: Path, tmp_path: Path) -> None:
    text = path.read_bytes()
    assert scanned(text, tmp_path) == multiline(text)
    assert scanned(text, tmp_path)  # every file holds templates


def test_the_scan_finds_every_built_in_id_in_its_file_alone() -> None:
    """For every id, the files a fresh bank would parse to find it: the one file of a bank that parsed all."""
    fresh = load_bank([questions_dir()])
    for template_id in IDS:
        assert fresh._files_with(template_id) == [builtin_bank().get(template_id).path], template_id
    assert fresh._parsed == set()  # found without parsing anything


@pytest.fixture(scope="module")
def parsed_bank() -> Bank:
    """The built-in bank with every file parsed and nothing validated (peek keeps less then): read only."""
    full = load_bank([questions_dir()])
    full.ids()
    return full


@pytest.mark.parametrize("template_id", sampled(IDS))  # a third in the dev run, all in CI (tests/sampling.py)
def test_a_built_in_id_is_found_parsing_only_its_file(
    template_id: str, parsed_bank: Bank, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fresh bank parses one file to find the id, and its table is the one of a bank that parsed every
    file (the same file, the same table)."""
    full = parsed_bank
    parsed: list[str] = []
    real = loader._load_toml
    monkeypatch.setattr(loader, "_load_toml", lambda path: parsed.append(path) or real(path))
    fresh = load_bank([questions_dir()])
    assert fresh.peek(template_id) == full.peek(template_id)
    assert parsed == [full.file_of(template_id)]


@pytest.mark.parametrize("template_id", sampled(IDS))  # a third in the dev run, all in CI (tests/sampling.py)
def test_show_json_is_the_same_as_from_a_bank_that_parsed_every_file(
    template_id: str, capsys: pytest.CaptureFixture[str]
) -> None:
    full = builtin_bank()  # every file parsed, every template validated
    assert main(["show", f"{template_id}#1", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    settable = {"settable": settable_rows(full.get(template_id))}
    expected = instance_json(full.generate(template_id, 1)) | settable
    assert shown == json.loads(json.dumps(expected))


def test_only_the_files_that_hold_the_id_are_scanned(tmp_path: Path) -> None:
    (tmp_path / "a.toml").write_text(MINI, encoding="utf-8")
    (tmp_path / "b.toml").write_text(MINI.replace("mini-product", "other-product"), encoding="utf-8")
    (tmp_path / "c.toml").write_text("# mini-product, in a comment: no id line\n", encoding="utf-8")
    bank = load_bank([str(tmp_path)])
    assert "mini-product" in bank
    assert sorted(Path(p).name for p in bank._file_ids) == ["a.toml", "c.toml"]  # b.toml never scanned
    assert bank.scanned_ids() == ["mini-product", "other-product"]  # now every file


def test_an_id_in_two_files_parses_both_and_the_first_wins(tmp_path: Path) -> None:
    (tmp_path / "a.toml").write_text(MINI, encoding="utf-8")
    (tmp_path / "b.toml").write_text(MINI, encoding="utf-8")
    bank = load_bank([str(tmp_path)])
    assert bank.get("mini-product").path == str(tmp_path / "a.toml")
    assert [p.field for p in bank.file_problems] == ["id"]  # b.toml's copy, reported
    assert "already used by" in bank.file_problems[0].message


def test_an_id_that_is_not_utf8_is_found_by_the_replacement_character(tmp_path: Path) -> None:
    (tmp_path / "bad.toml").write_bytes(b'[[template]]\nid = "caf\xe9"\n')
    bank = load_bank([str(tmp_path)])
    assert bank.scanned_ids() == ["caf\ufffd"]
    fresh = load_bank([str(tmp_path)])
    assert "caf\ufffd" not in fresh  # every file scanned for it (its bytes are not the id's), then parsed
    problem = fresh.why_missing("caf\ufffd")
    assert problem is not None
    assert "not UTF-8" in problem.message


def test_a_lone_surrogate_id_is_looked_up_without_an_error(tmp_path: Path) -> None:
    (tmp_path / "a.toml").write_text(MINI, encoding="utf-8")
    bank = load_bank([str(tmp_path)])
    assert "mini\udcff" not in bank  # as argv gives undecodable bytes: no such template, no exception
    assert bank.scanned_ids() == ["mini-product"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs a named pipe (POSIX)")
def test_a_file_longer_than_its_stat_size_is_read_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A regular file whose size says 0 bytes (as /proc's do, or one growing while read): the loader reads on
    to the limit, as it read MAX_FILE_BYTES + 1 at once before. (A FIFO is no longer read at all: reading it
    blocks until a writer comes; tests/bank/test_special_files.py.)"""
    path = tmp_path / "grown.toml"
    text = MINI.encode("utf-8") * 3
    path.write_bytes(text)
    real_fstat = os.fstat

    def zero_size(fd: int) -> os.stat_result:
        st = real_fstat(fd)
        return os.stat_result((*st[:6], 0, *st[7:10]))

    monkeypatch.setattr(os, "fstat", zero_size)
    assert loader._read(str(path)) == text


def test_a_pack_file_over_the_limit_is_refused_unread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(loader, "MAX_FILE_BYTES", 64)
    (tmp_path / "exact.toml").write_bytes(b"#" * 64)
    (tmp_path / "over.toml").write_bytes(b"#" * 65)
    assert loader._read(str(tmp_path / "exact.toml")) == b"#" * 64
    with pytest.raises(loader._TooLarge, match="65 bytes"):
        loader._read(str(tmp_path / "over.toml"))
