"""`quizzer pack new`: the folder it makes, its template checked clean, its Makefile, and every refusal."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.cli_run import run_cli

pytestmark = pytest.mark.usefixtures("validated_once")

FILES = {"my-pack.toml", "README.md", "Makefile", "pyproject.toml"}


def make_pack(where: Path, name: str = "my-pack") -> Path:
    ran = run_cli("pack", "new", name, "--dir", str(where))
    assert ran.returncode == 0, ran.stderr
    return where / name


def test_pack_new_makes_a_folder_whose_template_checks_clean(tmp_path: Path) -> None:
    ran = run_cli("pack", "new", "my-pack", "--dir", str(tmp_path))
    assert ran.returncode == 0, ran.stderr
    pack = tmp_path / "my-pack"
    assert {p.name for p in pack.iterdir()} == FILES
    assert "make check" in ran.stdout
    checked = run_cli("check", str(pack), "--seeds", "200", "--jobs", "1")
    assert checked.returncode == 0, checked.stdout
    assert checked.stdout.strip().splitlines()[-1].startswith("1 template, 200 instances checked")
    assert checked.stdout.rstrip().endswith(": 0 problems")


def test_the_template_has_the_fields_the_bank_uses(tmp_path: Path) -> None:
    pack = make_pack(tmp_path, "sizing-drills")
    data = tomllib.loads((pack / "sizing-drills.toml").read_text(encoding="utf-8"))
    (template,) = data["template"]
    assert template["id"] == "sizing-drills-weights-memory"
    assert template["topic"] == "sizing-drills"
    for field in ("prompt", "conventions", "explanation", "tldr", "memory_aid", "nudges"):
        assert template[field], field
    assert template["answer"]["unit"] == "bytes"
    assert template["answer"]["display"] == "GiB"
    assert template["answer"]["tolerance"] == {"rel": 0.01}
    (mistake,) = template["mistakes"]
    assert mistake["feedback"]
    assert mistake["answer"]


def test_the_instance_is_a_real_sizing_question(tmp_path: Path) -> None:
    pack = make_pack(tmp_path)
    shown = run_cli("show", "my-pack-weights-memory#3", "--questions", str(pack), "--json")
    assert shown.returncode == 0, shown.stderr
    data = json.loads(shown.stdout)
    billions, dtype = data["variables"]["billions"], data["variables"]["dtype"]
    size = {"fp32": 4, "bf16": 2, "fp16": 2, "fp8": 1, "int8": 1}[dtype]
    assert data["answer"]["value"] == billions * 10**9 * size
    graded = run_cli(
        "grade", "my-pack-weights-memory#3", f"{8 * billions * size}e9 bytes", "--questions", str(pack)
    )
    assert "wrong; That is the weights' size in bits, or bytes counted at 8 per parameter" in graded.stdout


#: The environment of a make run by hand: under `make test` MAKELEVEL and MAKEFLAGS would make it a sub-make,
#: which prints "Entering directory" around the check's output.
ALONE = {
    k: v for k, v in os.environ.items() if k not in ("MAKELEVEL", "MAKEFLAGS", "MFLAGS", "MAKEOVERRIDES")
}


def make_check(pack: Path) -> subprocess.CompletedProcess[str]:
    """`make check` in ``pack``, run by hand with this interpreter's quizzer."""
    return subprocess.run(
        ["make", "check", f"QUIZZER={sys.executable} -m quizzer"],
        cwd=pack,
        env=ALONE,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_the_makefile_check_target_runs_quizzer_check(tmp_path: Path) -> None:
    if shutil.which("make") is None:
        pytest.fail("make is not installed: the pack's test command is a Makefile target")
    pack = make_pack(tmp_path)
    ran = make_check(pack)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "check ." in ran.stdout
    assert "1 template, 100 instances checked" in ran.stdout
    assert ran.stdout.rstrip().endswith(": 0 problems")
    # and the target fails when the pack has a problem: the test command can fail
    text = (pack / "my-pack.toml").read_text(encoding="utf-8")
    slip = text.replace('answer = "8 * weights_bytes', 'answer = "1 * weights_bytes')
    assert slip != text
    (pack / "my-pack.toml").write_text(slip, encoding="utf-8")
    broken = make_check(pack)
    assert broken.returncode != 0
    assert "inside the tolerance of the answer" in broken.stdout


def test_the_readme_says_how_to_write_check_use_and_publish(tmp_path: Path) -> None:
    pack = make_pack(tmp_path)
    readme = (pack / "README.md").read_text(encoding="utf-8")
    for needle in (
        "make check",
        "quizzer check",
        "--questions",
        f'packs = ["{pack}"]',
        '[project.entry-points."quizzer.packs"]',
        'my-pack = "quizzer_pack_my_pack"',
        "quizzer pack list",
        "python -m build",
    ):
        assert needle in readme, needle
    pyproject = tomllib.loads((pack / "pyproject.toml").read_text(encoding="utf-8"))
    assert pyproject["project"]["name"] == "quizzer-pack-my-pack"
    assert pyproject["project"]["entry-points"]["quizzer.packs"] == {"my-pack": "quizzer_pack_my_pack"}


def test_pyproject_toml_beside_the_templates_is_not_read_as_one(tmp_path: Path) -> None:
    pack = make_pack(tmp_path)
    listed = run_cli("list", "--questions", str(pack))
    assert listed.returncode == 0
    assert "pyproject" not in listed.stderr, listed.stderr
    assert "my-pack-weights-memory" in listed.stdout


@pytest.mark.parametrize(
    "name",
    ["My-Pack", "my pack", "1pack", "my--pack", "pack-", "my_pack", "../escape", "a/b", "é", "x" * 41],
)
def test_a_name_that_is_no_slug_is_refused_and_nothing_is_written(tmp_path: Path, name: str) -> None:
    ran = run_cli("pack", "new", name, "--dir", str(tmp_path))
    assert ran.returncode == 2
    assert "is not a pack name" in ran.stderr
    assert "Traceback" not in ran.stderr
    assert list(tmp_path.iterdir()) == []


def test_no_name_is_a_usage_error(tmp_path: Path) -> None:
    ran = run_cli("pack", "new", "--dir", str(tmp_path))
    assert ran.returncode == 2
    assert "needs the pack's NAME" in ran.stderr


@pytest.mark.parametrize("kind", ["folder", "file", "symlink"])
def test_an_existing_folder_is_never_overwritten(tmp_path: Path, kind: str) -> None:
    target = tmp_path / "my-pack"
    if kind == "folder":
        target.mkdir()
        (target / "mine.toml").write_text("# my own work\n", encoding="utf-8")
    elif kind == "file":
        target.write_text("my own file\n", encoding="utf-8")
    else:
        target.symlink_to(tmp_path / "nowhere")
    before = sorted(os.listdir(tmp_path))
    ran = run_cli("pack", "new", "my-pack", "--dir", str(tmp_path))
    assert ran.returncode == 2
    assert f"{target} already exists: nothing was written" in ran.stderr
    assert sorted(os.listdir(tmp_path)) == before  # no staging folder left behind either
    if kind == "folder":
        assert os.listdir(target) == ["mine.toml"]
        assert (target / "mine.toml").read_text(encoding="utf-8") == "# my own work\n"
    elif kind == "file":
        assert target.read_text(encoding="utf-8") == "my own file\n"


def test_a_dir_that_is_missing_is_a_usage_error(tmp_path: Path) -> None:
    ran = run_cli("pack", "new", "my-pack", "--dir", str(tmp_path / "nope"))
    assert ran.returncode == 2
    assert "no such folder" in ran.stderr
    assert not (tmp_path / "nope").exists()


def test_a_dir_that_is_a_file_is_a_usage_error(tmp_path: Path) -> None:
    file = tmp_path / "notes.txt"
    file.write_text("mine\n", encoding="utf-8")
    ran = run_cli("pack", "new", "my-pack", "--dir", str(file))
    assert ran.returncode == 2
    assert f"--dir {file}: not a folder" in ran.stderr
    assert file.read_text(encoding="utf-8") == "mine\n"


def test_options_of_the_other_action_are_refused(tmp_path: Path) -> None:
    assert "--json is for pack list" in run_cli("pack", "new", "x", "--json").stderr
    assert "--dir is for pack new" in run_cli("pack", "list", "--dir", str(tmp_path)).stderr
    assert "takes no NAME" in run_cli("pack", "list", "my-pack").stderr
