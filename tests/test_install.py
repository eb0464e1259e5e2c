"""Installed like a tool: the built wheel in a fresh virtual environment outside the checkout runs its verbs,
prints shell completion and starts the app (under Pilot), with nothing of the checkout on its path."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from quizzer import __version__

ROOT = Path(__file__).resolve().parent.parent

#: Started in the installed environment: the app opens on Home with the bank inside the wheel.
PILOT = textwrap.dedent(
    """
    import asyncio
    from quizzer.paths import question_paths
    from quizzer.store.history import HistoryStore
    from quizzer.tui.app import QuizzerApp
    from quizzer.tui.screens.home import HomeScreen

    async def main():
        app = QuizzerApp(question_paths([]), store=HistoryStore.memory())
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            assert isinstance(app.screen, HomeScreen), app.screen
            print("home", app.screen.__class__.__name__)

    asyncio.run(main())
    """
)


def _run(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=600, check=False)


@pytest.mark.slow
def test_the_wheel_installs_outside_the_checkout_and_runs(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    pip_wheel = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(ROOT)]
    built = _run(pip_wheel, ROOT, dict(os.environ))
    assert built.returncode == 0, built.stderr
    (wheel,) = wheels.glob("quizzer_ml-*.whl")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    bin_dir = venv / ("Scripts" if os.name == "nt" else "bin")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(QUIZZER_DB=str(tmp_path / "history.sqlite3"), QUIZZER_CONFIG=str(tmp_path / "config.toml"))
    away = tmp_path / "elsewhere"
    away.mkdir()
    installed = _run([str(bin_dir / "python"), "-m", "pip", "install", "-q", str(wheel)], away, env)
    assert installed.returncode == 0, installed.stderr
    where = _run([str(bin_dir / "python"), "-c", "import quizzer; print(quizzer.__file__)"], away, env)
    assert Path(where.stdout.strip()).is_relative_to(venv), where.stdout  # not the checkout's package
    quizzer = str(bin_dir / "quizzer")
    version = _run([quizzer, "--version"], away, env)
    assert version.stdout.strip() == f"quizzer {__version__}", version.stderr
    listed = _run([quizzer, "list", "--json"], away, env)
    assert listed.returncode == 0, listed.stderr
    ids = {t["id"] for t in json.loads(listed.stdout)}
    assert len(ids) >= 100
    assert {"embedding-table-params", "hybrid-qwen3-next-walkthrough"} <= ids  # the bank inside the wheel
    completion = _run([quizzer, "completion", "bash"], away, env)
    assert completion.returncode == 0, completion.stderr
    script = tmp_path / "quizzer.bash"
    script.write_text(completion.stdout, encoding="utf-8")
    assert subprocess.run(["bash", "-n", str(script)], check=False).returncode == 0
    assert "count" in completion.stdout
    assert "--seq-len" in completion.stdout
    started = _run([str(bin_dir / "python"), "-c", PILOT], away, env)
    assert started.returncode == 0, started.stderr
    assert started.stdout.strip() == "home HomeScreen"
