"""``packs = [...]`` in config.toml: read and resolved, loaded by the verbs, a missing folder a warning."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from quizzer.config import _NEW_FILE_TOP, ConfigError, Settings, load_settings
from tests.cli_run import run_cli

pytestmark = pytest.mark.usefixtures("validated_once")

DATA = Path(__file__).resolve().parent.parent / "data"
GOOD = DATA / "good"  # one template, mini-product


def config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "conf" / "config.toml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_packs_are_absolute_relative_to_the_config_folder_and_expand_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    path = config(tmp_path, 'packs = ["mine", "../shared/p", "~/q", "/abs/r", " spaced "]\n')
    folder = tmp_path / "conf"
    assert load_settings(str(path)).packs == (
        str(folder / "mine"),
        str(tmp_path / "shared" / "p"),
        str(tmp_path / "home" / "q"),
        "/abs/r",
        str(folder / "spaced"),
    )
    assert Settings().packs == ()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('packs = "~/my-pack"\n', "packs must be a list of folders"),
        ("packs = [1]\n", "packs[0] must be the path of a folder"),
        ('packs = ["ok", ""]\n', "packs[1] must be the path of a folder"),
        ('packs = [["nested"]]\n', "packs[0] must be the path of a folder"),
        ('pack = ["x"]\n', "unknown key 'pack' (did you mean 'packs'?)"),
    ],
)
def test_a_malformed_packs_value_names_the_file_and_the_key(tmp_path: Path, text: str, message: str) -> None:
    path = config(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_settings(str(path))
    assert str(info.value).startswith(f"{path}: ")
    assert message in str(info.value)


def test_the_new_config_file_documents_packs_and_its_example_reads() -> None:
    (line,) = [line for line in _NEW_FILE_TOP.splitlines() if line.startswith("# packs")]
    assert "relative" in line
    example = line.removeprefix("# ").split("#")[0]
    import tomllib

    assert tomllib.loads(example) == {"packs": ["~/my-pack"]}


def test_a_config_pack_is_loaded_by_the_verbs(tmp_path: Path) -> None:
    path = config(tmp_path, f'packs = ["{GOOD}"]\n')
    env = {"QUIZZER_CONFIG": str(path)}
    listed = run_cli("list", "--json", env=env)
    assert listed.returncode == 0, listed.stderr
    assert "mini-product" in {row["id"] for row in json.loads(listed.stdout)}
    shown = run_cli("show", "mini-product#4", "--json", env=env)
    assert shown.returncode == 0, shown.stderr
    data = json.loads(shown.stdout)
    assert data["answer"]["value"] == data["variables"]["a"] * data["variables"]["b"]
    graded = run_cli("grade", "mini-product#4", str(data["answer"]["value"]), env=env)
    assert graded.returncode == 0, graded.stderr
    assert ": exact" in graded.stdout
    plain = run_cli("plain", "--template", "mini-product", "--count", "1", stdin="1\n", env=env)
    assert plain.returncode == 0, plain.stderr
    assert "What is" in plain.stdout
    # the same verbs without the config: the pack is not there
    missing = run_cli("show", "mini-product#4")
    assert missing.returncode == 2
    assert "no template 'mini-product'" in missing.stderr


def test_a_relative_config_pack_is_read_from_the_config_folder_not_the_working_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = config(tmp_path, 'packs = ["packs/mini"]\n')
    (tmp_path / "conf" / "packs").mkdir()
    os.symlink(GOOD, tmp_path / "conf" / "packs" / "mini")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    shown = run_cli("show", "mini-product#1", "--no-answer", env={"QUIZZER_CONFIG": str(path)})
    assert shown.returncode == 0, shown.stderr


def test_a_missing_config_pack_is_a_warning_naming_it_and_the_rest_loads(tmp_path: Path) -> None:
    path = config(tmp_path, f'packs = ["gone", "{GOOD}"]\n')
    gone = tmp_path / "conf" / "gone"
    listed = run_cli("list", "--json", env={"QUIZZER_CONFIG": str(path)})
    assert listed.returncode == 0
    assert f"quizzer: warning: {gone}: no such folder: the packs of {path} name it; skipped" in listed.stderr
    assert "mini-product" in {row["id"] for row in json.loads(listed.stdout)}
    assert "Traceback" not in listed.stderr
    packs = run_cli("pack", "list", "--json", env={"QUIZZER_CONFIG": str(path)})
    rows = {row["path"]: row for row in json.loads(packs.stdout)}
    assert rows[str(gone)]["source"] == "config.toml"
    assert rows[str(gone)]["templates"] == 0
    assert rows[str(gone)]["problems"] == [f"{gone}: no such folder: the packs of {path} name it; skipped"]
    assert rows[str(GOOD)]["templates"] == 1


def test_a_config_pack_that_is_a_file_is_named(tmp_path: Path) -> None:
    file = tmp_path / "notes.toml"
    file.write_text("", encoding="utf-8")
    path = config(tmp_path, f'packs = ["{file}"]\n')
    listed = run_cli("list", env={"QUIZZER_CONFIG": str(path)})
    assert f"{file}: not a folder: the packs of {path} name it; skipped" in listed.stderr


def test_a_broken_config_is_a_warning_for_the_verbs_and_never_read_for_a_built_in_id(tmp_path: Path) -> None:
    path = config(tmp_path, "packs = [\n")  # not TOML
    env = {"QUIZZER_CONFIG": str(path)}
    shown = run_cli("show", "embedding-table-params#1", "--no-answer", env=env)
    assert shown.returncode == 0
    assert shown.stderr == ""  # a built-in id: config.toml is not even read
    listed = run_cli("list", env=env)
    assert listed.returncode == 0
    assert f"quizzer: warning: {path}: TOML syntax error" in listed.stderr
    assert "its packs are not loaded" in listed.stderr


def test_a_folder_in_config_and_on_the_command_line_loads_once(tmp_path: Path) -> None:
    path = config(tmp_path, f'packs = ["{GOOD}"]\n')
    listed = run_cli("list", "--questions", str(GOOD), env={"QUIZZER_CONFIG": str(path)})
    assert listed.returncode == 0
    assert "already used" not in listed.stderr, listed.stderr
    rows = json.loads(run_cli("pack", "list", "--json", "--questions", str(GOOD)).stdout)
    assert [row["source"] for row in rows] == ["built-in", "--questions"]


def test_pack_list_names_every_source(tmp_path: Path) -> None:
    env_pack, flag_pack, config_pack = (tmp_path / n for n in ("env", "flag", "conf-pack"))
    for folder, tid in ((env_pack, "env-one"), (flag_pack, "flag-one"), (config_pack, "conf-one")):
        folder.mkdir()
        text = (GOOD / "mini.toml").read_text(encoding="utf-8").replace("mini-product", tid)
        (folder / "t.toml").write_text(text, encoding="utf-8")
    path = config(tmp_path, f'packs = ["{config_pack}"]\n')
    ran = run_cli(
        "pack",
        "list",
        "--json",
        "--questions",
        str(flag_pack),
        env={"QUIZZER_CONFIG": str(path), "QUIZZER_QUESTIONS": str(env_pack)},
    )
    assert ran.returncode == 0, ran.stderr
    rows = json.loads(ran.stdout)
    assert [(r["source"], r["path"], r["templates"], r["problems"]) for r in rows[1:]] == [
        ("QUIZZER_QUESTIONS", str(env_pack), 1, []),
        ("--questions", str(flag_pack), 1, []),
        ("config.toml", str(config_pack), 1, []),
    ]
    assert rows[0]["source"] == "built-in"
    assert rows[0]["templates"] > 100
    text = run_cli("pack", "list", env={"QUIZZER_CONFIG": str(path)}).stdout
    assert text.splitlines()[0].split() == ["source", "templates", "problems", "path"]
    assert any(
        line.split()[0] == "config.toml" and line.endswith(str(config_pack)) for line in text.splitlines()
    )
