"""Installed packs: the ``quizzer.packs`` entry points found as importlib.metadata finds them, each broken
one a warning naming its package, and a pack built and installed by pip found by every verb."""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from quizzer.commands.installed_packs import GROUP, EntryPoint, PackFolderError, entry_points, pack_folders
from quizzer.commands.pack_sources import installed
from tests.cli_run import run_cli

pytestmark = pytest.mark.usefixtures("validated_once")

GOOD = Path(__file__).resolve().parent.parent / "data" / "good" / "mini.toml"


def install(
    site: Path, dist: str, points: dict[str, str], *, version: str = "1.0", kind: str = "dist-info"
) -> Path:
    """A distribution as an installer leaves it in ``site``: its metadata folder, with these entry points."""
    meta = site / f"{dist.replace('-', '_')}-{version}.{kind}"
    meta.mkdir(parents=True)
    header = "Metadata-Version: 2.1" if kind == "dist-info" else "Metadata-Version: 1.0"
    (meta / ("METADATA" if kind == "dist-info" else "PKG-INFO")).write_text(
        f"{header}\nName: {dist}\nVersion: {version}\n\nA pack.\n", encoding="utf-8"
    )
    lines = [f"[{GROUP}]", *(f"{name} = {value}" for name, value in points.items())]
    (meta / "entry_points.txt").write_text(
        "[console_scripts]\nother = other:main\n\n" + "\n".join(lines) + "\n", encoding="utf-8"
    )
    return meta


def package(site: Path, module: str, toml: Path | None = GOOD, *, init: str | None = None) -> Path:
    """The package ``module`` in ``site``, holding ``toml`` (and an __init__.py when ``init`` is given)."""
    folder = site / module
    folder.mkdir(parents=True)
    if toml is not None:
        (folder / toml.name).write_text(toml.read_text(encoding="utf-8"), encoding="utf-8")
    if init is not None:
        (folder / "__init__.py").write_text(init, encoding="utf-8")
    return folder


def test_entry_points_are_those_importlib_metadata_finds(tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    install(first, "quizzer-pack-alpha", {"alpha": "quizzer_pack_alpha", "beta": "beta_mod:folder [extra]"})
    install(first, "unrelated", {})  # has entry_points.txt, none in the group
    install(second, "Quizzer_Pack.Egg", {"egg": "egg_pack"}, kind="egg-info")
    install(second, "quizzer-pack-alpha", {"shadowed": "never"}, version="0.9")  # the first on the path wins
    (second / "no-metadata.dist-info").mkdir()
    search = [str(first), str(tmp_path / "missing"), str(second)]
    ours = [(p.name, p.value, p.dist) for p in entry_points(search)]
    with pytest.MonkeyPatch.context() as patch:  # importlib.metadata's own search of these folders
        patch.setattr(sys, "path", search)
        theirs = [
            (ep.name, ep.value, ep.dist.metadata["Name"])
            for ep in importlib.metadata.entry_points(group=GROUP)
        ]
    assert ours == theirs
    assert ours == [
        ("alpha", "quizzer_pack_alpha", "quizzer-pack-alpha"),
        ("beta", "beta_mod:folder [extra]", "quizzer-pack-alpha"),
        ("egg", "egg_pack", "Quizzer_Pack.Egg"),
    ]


def test_a_package_entry_point_gives_its_folder_without_importing_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = package(tmp_path, "quizzer_pack_quiet", init="raise RuntimeError('imported!')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert pack_folders(EntryPoint("quiet", "quizzer_pack_quiet", "d")) == [str(folder)]
    assert "quizzer_pack_quiet" not in sys.modules
    namespace = package(tmp_path, "quizzer_pack_ns")  # no __init__.py, as the scaffold's wheel
    assert pack_folders(EntryPoint("ns", "quizzer_pack_ns", "d")) == [str(namespace)]


def test_an_attribute_entry_point_may_be_a_path_or_a_function(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (tmp_path / "pack_paths.py").write_text(
        f"from pathlib import Path\nFOLDER = Path({str(data)!r})\ndef folder():\n    return {str(data)!r}\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert pack_folders(EntryPoint("a", "pack_paths:FOLDER", "d")) == [str(data)]
    assert pack_folders(EntryPoint("b", "pack_paths:folder", "d")) == [str(data)]


@pytest.mark.parametrize(
    ("value", "source", "message"),
    [
        ("nowhere_at_all", None, "no package 'nowhere_at_all' is installed"),
        ("nowhere_at_all:folder", None, "cannot import 'nowhere_at_all'"),
        ("broken_mod:folder", "raise RuntimeError('boom')\n", "RuntimeError: boom"),
        ("broken_mod:folder", "def folder():\n    return 42\n", "broken_mod:folder gave int, not the path"),
        ("broken_mod:folder", "def folder():\n    raise OSError('disk')\n", "OSError: disk"),
        ("broken_mod:nothing", "x = 1\n", "AttributeError"),
        ("broken_mod", "x = 1\n", "'broken_mod' is a module, not a package"),
        ("not a value!", None, "is not `package` or `module:attribute`"),
    ],
)
def test_a_broken_entry_point_is_a_pack_folder_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str, source: str | None, message: str
) -> None:
    if source is not None:
        (tmp_path / "broken_mod.py").write_text(source, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "broken_mod", raising=False)
    with pytest.raises(PackFolderError) as info:
        pack_folders(EntryPoint("p", value, "d"))
    assert message in str(info.value)


def test_installed_packs_carry_their_problem_naming_the_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    install(tmp_path, "quizzer-pack-good", {"good": "quizzer_pack_good"})
    folder = package(tmp_path, "quizzer_pack_good")
    install(tmp_path, "quizzer-pack-bad", {"bad": "quizzer_pack_missing"})
    packs = installed([str(tmp_path)])
    assert [(p.name, p.dist, p.path) for p in packs] == [
        ("bad", "quizzer-pack-bad", None),
        ("good", "quizzer-pack-good", str(folder)),
    ]
    bad, good = packs
    assert good.problem is None
    assert good.label == "entry point good (quizzer-pack-good)"
    assert str(bad.problem) == (
        f"the installed package quizzer-pack-bad (entry point {GROUP}: bad = quizzer_pack_missing): "
        "no package 'quizzer_pack_missing' is installed; its pack is skipped"
    )


def _env(site: Path) -> dict[str, str]:
    return {"PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)}


def test_the_verbs_load_an_installed_pack_and_warn_of_a_broken_one(tmp_path: Path) -> None:
    site = tmp_path / "site"
    install(site, "quizzer-pack-good", {"good": "quizzer_pack_good"})
    package(site, "quizzer_pack_good")
    install(site, "quizzer-pack-bad", {"bad": "quizzer_pack_bad:folder"})
    (site / "quizzer_pack_bad.py").write_text("import does_not_exist\n", encoding="utf-8")
    env = {**os.environ, **_env(site)}
    listed = subprocess.run(
        [sys.executable, "-m", "quizzer", "list", "--json"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert listed.returncode == 0, listed.stderr
    assert "mini-product" in {row["id"] for row in json.loads(listed.stdout)}
    assert "Traceback" not in listed.stderr
    (warning,) = [line for line in listed.stderr.splitlines() if "quizzer-pack-bad" in line]
    assert warning.startswith("quizzer: warning: the installed package quizzer-pack-bad (entry point")
    assert "No module named 'does_not_exist'" in warning
    shown = subprocess.run(
        [sys.executable, "-m", "quizzer", "show", "mini-product#2", "--json"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert shown.returncode == 0, shown.stderr
    rows = json.loads(
        subprocess.run(
            [sys.executable, "-m", "quizzer", "pack", "list", "--json"],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        ).stdout
    )
    by_name = {row["name"]: row for row in rows if row["source"] == "entry point"}
    assert by_name["good"]["dist"] == "quizzer-pack-good"
    assert by_name["good"]["templates"] == 1
    assert by_name["good"]["path"] == str(site / "quizzer_pack_good")
    assert by_name["bad"]["path"] is None
    assert by_name["bad"]["templates"] == 0
    assert "quizzer-pack-bad" in by_name["bad"]["problems"][0]


def test_show_of_a_built_in_id_looks_for_no_installed_pack_and_reads_no_config(tmp_path: Path) -> None:
    """The start of `quizzer show` (budgeted): the scan, config.toml and platformdirs stay out of it."""
    env = {k: v for k, v in os.environ.items() if k != "QUIZZER_CONFIG"}
    env["XDG_CONFIG_HOME"] = str(tmp_path)  # where platformdirs looks, if it is asked: nothing there
    code = (
        "import sys\nfrom quizzer.cli import main\n"
        "assert main(['show', 'embedding-table-params#1', '--json']) == 0\n"
        "late = ('quizzer.commands.installed_packs', 'quizzer.config', 'platformdirs', 'importlib.metadata')"
        "\n"
        "print(sorted(m for m in late if m in sys.modules), file=sys.stderr)\n"
    )
    ran = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False)
    assert ran.returncode == 0, ran.stderr
    assert ran.stderr.strip() == "[]"
    # and a verb that lists every template does look (the same line, other verb): the check can fail
    listing = code.replace("'show', 'embedding-table-params#1', '--json'", "'list', '--json'")
    ran = subprocess.run(
        [sys.executable, "-c", listing], capture_output=True, text=True, env=env, check=False
    )
    assert (
        ran.stderr.strip().splitlines()[-1]
        == "['platformdirs', 'quizzer.commands.installed_packs', 'quizzer.config']"
    )


@pytest.mark.slow
def test_the_scaffolded_pack_installed_by_pip_in_a_venv_is_found_listed_and_checked(tmp_path: Path) -> None:
    """pack new, then a temporary venv (python -m venv) whose site-packages also reads this environment's
    (a .pth line: quizzer and its dependencies, nothing installed again), pip building the pack (hatchling,
    from the package index) and installing it into that venv (entry_points.txt and all); quizzer run by
    the venv's python finds it, lists it, shows and checks it."""
    import site as site_module
    import sysconfig

    assert run_cli("pack", "new", "demo-pack", "--dir", str(tmp_path)).returncode == 0
    venv = tmp_path / "venv"
    made = subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(venv)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert made.returncode == 0, made.stderr
    python = venv / "bin" / "python"
    site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    ours = [*site_module.getsitepackages(), sysconfig.get_paths()["purelib"]]
    (site / "outer.pth").write_text(
        "import site; " + "; ".join(f"site.addsitedir({p!r})" for p in dict.fromkeys(ours)) + "\n",
        encoding="utf-8",
    )
    pack = tmp_path / "demo-pack"
    pip = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", str(pack)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert pip.returncode == 0, pip.stderr
    (meta,) = site.glob("quizzer_pack_demo_pack-0.1.0.dist-info")
    assert (meta / "entry_points.txt").read_text(encoding="utf-8").split() == [
        f"[{GROUP}]",
        "demo-pack",
        "=",
        "quizzer_pack_demo_pack",
    ]
    assert sorted(p.name for p in (site / "quizzer_pack_demo_pack").iterdir()) == ["demo-pack.toml"]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}

    def quizzer(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(python), "-m", "quizzer", *args],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
            check=False,
        )

    outside = subprocess.run(
        [sys.executable, "-m", "quizzer", "pack", "list", "--json"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert "entry point" not in {r["source"] for r in json.loads(outside.stdout)}  # only inside the venv
    rows = json.loads(quizzer("pack", "list", "--json").stdout)
    (row,) = [r for r in rows if r["source"] == "entry point"]
    assert row == {
        "source": "entry point",
        "name": "demo-pack",
        "dist": "quizzer-pack-demo-pack",
        "path": str(site / "quizzer_pack_demo_pack"),
        "templates": 1,
        "problems": [],
    }
    shown = quizzer("show", "demo-pack-weights-memory#9", "--json")
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["topic"] == "demo-pack"
    checked = quizzer("check", row["path"], "--seeds", "50")
    assert checked.returncode == 0, checked.stdout
    assert "1 template, 50 instances checked in" in checked.stdout
    assert checked.stdout.rstrip().endswith(": 0 problems")


def test_check_without_a_path_checks_the_installed_packs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install(tmp_path, "quizzer-pack-broken", {"broken": "quizzer_pack_broken"})
    folder = package(tmp_path, "quizzer_pack_broken")
    text = (folder / "mini.toml").read_text(encoding="utf-8")
    (folder / "mini.toml").write_text(text.replace('expr = "a * b"', 'expr = "a * bb"'), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    ran = run_cli("check", "--only", "giveaway", "--seeds", "1", "--jobs", "1")
    assert ran.returncode == 1
    (line,) = [line for line in ran.stdout.splitlines() if line.startswith(str(folder))]
    assert line.startswith(f"{folder / 'mini.toml'}: template 'mini-product': field 'answer.expr'")
    assert "'bb'" in line
