"""A pack's template that reuses an id is named, never silently shadowed: the built-in bank (or the pack
loaded first) keeps the id, and check, list, show, pack list and the lazy loading all say so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from quizzer.bank.collisions import collisions
from quizzer.bank.errors import TemplateError
from quizzer.bank.loader import load_bank
from quizzer.paths import questions_dir
from tests.cli_run import run_cli

pytestmark = pytest.mark.usefixtures("validated_once")

MINI = Path(__file__).resolve().parent.parent / "data" / "good" / "mini.toml"
BUILT_IN = Path(questions_dir()) / "embeddings.toml"


def pack_with(folder: Path, template_id: str, title: str = "A product") -> Path:
    """A pack of one template (mini.toml's) with this id and title."""
    folder.mkdir(parents=True, exist_ok=True)
    text = MINI.read_text(encoding="utf-8").replace("mini-product", template_id)
    (folder / "t.toml").write_text(
        text.replace('title = "A product"', f'title = "{title}"'), encoding="utf-8"
    )
    return folder


def test_check_of_a_pack_names_the_built_in_file_it_would_shadow(tmp_path: Path) -> None:
    pack = pack_with(tmp_path / "mine", "embedding-table-params", "My own embedding question")
    ran = run_cli("check", str(pack), "--seeds", "5", "--jobs", "1")
    assert ran.returncode == 1
    (line,) = [line for line in ran.stdout.splitlines() if "already used by" in line]
    assert line == (
        f"{pack / 't.toml'}: template 'embedding-table-params': field 'id': already used by {BUILT_IN} "
        "(built-in): wherever both are loaded, the copy loaded first is used and the other skipped (ids are "
        "never reused); give this template an id of its own"
    )
    assert ran.stdout.rstrip().endswith(": 1 problem")


def test_check_of_a_pack_names_another_packs_file_and_its_source(tmp_path: Path) -> None:
    first = pack_with(tmp_path / "first", "shared-id")
    second = pack_with(tmp_path / "second", "shared-id")
    config = tmp_path / "config.toml"
    config.write_text(f'packs = ["{first}"]\n', encoding="utf-8")
    ran = run_cli("check", str(second), "--seeds", "5", "--jobs", "1", env={"QUIZZER_CONFIG": str(config)})
    assert ran.returncode == 1
    assert f"already used by {first / 't.toml'} (config.toml)" in ran.stdout
    # checking the config pack itself: its own file is no collision
    own = run_cli("check", str(first), "--seeds", "5", "--jobs", "1", env={"QUIZZER_CONFIG": str(config)})
    assert own.returncode == 0, own.stdout
    # without the config, the second pack stands alone and is clean
    alone = run_cli("check", str(second), "--seeds", "5", "--jobs", "1")
    assert alone.returncode == 0, alone.stdout


def test_check_without_a_path_reports_the_duplicate_of_a_config_pack(tmp_path: Path) -> None:
    pack = pack_with(tmp_path / "mine", "embedding-table-params")
    config = tmp_path / "config.toml"
    config.write_text(f'packs = ["{pack}"]\n', encoding="utf-8")
    ran = run_cli(
        "check", "--only", "giveaway", "--seeds", "1", "--jobs", "1", env={"QUIZZER_CONFIG": str(config)}
    )
    assert (
        f"{pack / 't.toml'}: template 'embedding-table-params': field 'id': already used by {BUILT_IN}"
        in (ran.stdout)
    )


def test_the_built_in_template_wins_and_the_verbs_warn(tmp_path: Path) -> None:
    pack = pack_with(tmp_path / "mine", "embedding-table-params", "Shadow")
    shown = run_cli("show", "embedding-table-params#1", "--json", "--questions", str(pack))
    assert shown.returncode == 0
    assert json.loads(shown.stdout)["title"] == "Embedding table parameters"  # the built-in's
    assert f"quizzer: warning: {pack / 't.toml'}: template 'embedding-table-params'" in shown.stderr
    assert f"already used by {BUILT_IN}" in shown.stderr
    listed = run_cli("list", "--questions", str(pack))
    assert f"already used by {BUILT_IN}" in listed.stderr
    rows = json.loads(run_cli("pack", "list", "--json", "--questions", str(pack)).stdout)
    (mine,) = [row for row in rows if row["source"] == "--questions"]
    assert mine["templates"] == 0
    assert len(mine["problems"]) == 1
    assert f"already used by {BUILT_IN}" in mine["problems"][0]


def test_an_installed_or_config_pack_never_changes_what_a_built_in_id_is(tmp_path: Path) -> None:
    """Deferred packs come last: an id found without them is the id they would not change."""
    pack = pack_with(tmp_path / "mine", "embedding-table-params", "Shadow")
    config = tmp_path / "config.toml"
    config.write_text(f'packs = ["{pack}"]\n', encoding="utf-8")
    shown = run_cli("show", "embedding-table-params#1", "--json", env={"QUIZZER_CONFIG": str(config)})
    assert json.loads(shown.stdout)["title"] == "Embedding table parameters"


def test_collisions_skip_the_same_file_and_name_both() -> None:
    built_in = load_bank([questions_dir()])
    same = load_bank([str(BUILT_IN)])
    assert collisions(same, built_in) == []  # a pack that is also loaded: its own file


def test_collisions_name_every_shared_id(tmp_path: Path) -> None:
    a = pack_with(tmp_path / "a", "one-id")
    b = tmp_path / "b"
    b.mkdir()
    text = MINI.read_text(encoding="utf-8")
    (b / "x.toml").write_text(text.replace("mini-product", "one-id") + text.replace("mini-product", "two-id"))
    found = collisions(load_bank([str(b)]), load_bank([str(a)]), where=lambda path: f"<{path}>")
    assert [(e.path, e.template_id, e.field) for e in found] == [(str(b / "x.toml"), "one-id", "id")]
    assert f"already used by <{a / 't.toml'}>" in found[0].message


def test_deferred_packs_are_read_only_when_needed(tmp_path: Path) -> None:
    pack = pack_with(tmp_path / "later", "later-id")
    calls: list[int] = []

    def later() -> tuple[list[str], list[TemplateError]]:
        calls.append(1)
        return [str(pack)], [TemplateError("somewhere", None, None, "a pack that could not be found")]

    bank = load_bank([str(MINI)])
    bank.defer(later)
    assert "mini-product" in bank
    assert bank.get("mini-product").id == "mini-product"
    assert calls == []  # found without them
    assert bank.known_problems() == []
    assert "later-id" in bank
    assert calls == [1]
    assert [str(p) for p in bank.known_problems()] == ["somewhere: a pack that could not be found"]
    assert "nothing-of-the-kind" not in bank
    assert calls == [1]  # once


@pytest.mark.parametrize("method", ["ids", "scanned_ids", "templates", "problems"])
def test_every_listing_reads_the_deferred_packs(tmp_path: Path, method: str) -> None:
    pack = pack_with(tmp_path / "later", "later-id")
    missing = TemplateError(str(tmp_path / "gone"), None, None, "no such folder")
    bank = load_bank([str(MINI)])
    bank.defer(lambda: ([str(pack)], [missing]))
    result = getattr(bank, method)()
    if method == "problems":
        assert result == [missing]
    else:
        assert [getattr(x, "id", x) for x in result] == ["mini-product", "later-id"]
