"""`quizzer completion bash|zsh|fish` prints a script for the shell, from the whole command line's parser;
TERM=dumb runs `quizzer plain` where an app verb would draw the app."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from quizzer.cli import VERBS, main


def _script(shell: str, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["completion", shell]) == 0
    return capsys.readouterr().out


def test_bash_is_valid_and_knows_every_verb_and_their_options(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = _script("bash", capsys)
    path = tmp_path / "quizzer.bash"
    path.write_text(script, encoding="utf-8")
    assert subprocess.run(["bash", "-n", str(path)], check=False).returncode == 0
    for verb in VERBS:
        assert verb in script
    assert "--seq-len" in script  # count's options: the whole parser, not the completion verb's alone
    assert "--state-dtype" in script


def test_zsh_is_a_compdef(capsys: pytest.CaptureFixture[str]) -> None:
    script = _script("zsh", capsys)
    assert script.startswith("#compdef quizzer")
    assert "--difficulty" in script


def test_fish_completes_verbs_then_their_options_and_choices(capsys: pytest.CaptureFixture[str]) -> None:
    script = _script("fish", capsys)
    lines = script.splitlines()
    for verb in VERBS:
        assert any(f" -a {verb} -d " in line for line in lines), verb
    assert (
        "complete -c quizzer -n '__fish_seen_subcommand_from drill' -l difficulty -r -a 'easy medium hard'"
        in (script)
    )
    assert "complete -c quizzer -n '__fish_seen_subcommand_from count' -l seq-len -r" in script


def test_an_unknown_shell_is_refused_with_the_choices(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["completion", "powershell"])
    assert "invalid choice: 'powershell' (choose from 'bash', 'zsh', 'fish')" in capsys.readouterr().err


def test_term_dumb_runs_plain_with_a_note(tmp_path: Path) -> None:
    env = {**os.environ, "TERM": "dumb", "QUIZZER_DB": str(tmp_path / "h.sqlite3")}
    proc = subprocess.run(
        [sys.executable, "-m", "quizzer", "drill", "--template", "embedding-table-params", "--seed", "1"],
        input="",
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "TERM=dumb: drill needs a terminal that draws; running `quizzer plain`" in proc.stderr
    assert "embedding-table-params#1" in proc.stdout  # plain asked the drill's question
