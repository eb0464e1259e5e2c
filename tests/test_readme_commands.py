"""The README's commands run as it shows them, and its links lead somewhere.

Every ``quizzer`` line of a ``console`` block (``$ quizzer ...``) or an ``sh`` block (``quizzer ...``) is
run as ``python -m quizzer`` from the checkout, in the private history and config every test gets
(tests/conftest.py), except those that open the app, start a server or install something (a line that
saves what quizzer prints, ``quizzer completion bash > FILE``, runs without writing FILE). It must exit 0
(or the status a ``# exit N`` comment on the line gives), and every line the README shows under it in a
``console`` block must be in its output, in order; a line holding ``...`` stands for lines left out.
The README's length and its links to CONTRIBUTING.md and docs/ are checked here too.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
#: The files the README sends contributors and curious users to (the issue: they exist and are linked).
LINKED = ("CONTRIBUTING.md", "docs/architecture.md", "docs/conventions.md")
MAX_LINES = 300

#: Verbs that open the full-screen app (`quizzer --help`: drill, mock, study, cram, interview) or serve it.
OPENS_APP = frozenset({"drill", "mock", "study", "cram", "interview", "serve"})
FENCE = re.compile(r"^```(\w*)\s*$")
ELIDED = ("...", "…")


@dataclass
class Command:
    """A ``quizzer`` command line of the README, with the output shown under it."""

    line: int
    text: str
    shown: list[str] = field(default_factory=list)

    @property
    def id(self) -> str:
        return f"README.md:{self.line}: {self.text}"


def commands(markdown: str) -> list[Command]:
    """The ``quizzer`` lines of ``console`` and ``sh`` blocks, in order, with what each block shows."""
    found: list[Command] = []
    language: str | None = None
    current: Command | None = None
    for number, raw in enumerate(markdown.splitlines(), start=1):
        fence = FENCE.match(raw)
        if fence:
            language = fence.group(1) if language is None else None
            current = None
            continue
        if language not in ("console", "sh", "shell", "bash"):
            continue
        line = raw.strip()
        if language == "console":
            if line.startswith("$ "):
                command = line[2:].strip()
                current = Command(number, command) if command.split()[:1] == ["quizzer"] else None
                if current:
                    found.append(current)
            elif current is not None and line:
                current.shown.append(raw.rstrip())
        elif line.split()[:1] == ["quizzer"]:
            found.append(Command(number, line))
    return found


def argv(command: Command) -> tuple[list[str], int] | str:
    """The arguments after ``quizzer`` and the exit status expected, or why the command is not run."""
    words = shlex.split(command.text)  # not comments=True: shlex would end `ID#SEED` at its "#"
    comment = next((at for at, word in enumerate(words) if word.startswith("#")), len(words))
    words = words[:comment]
    status = re.search(r"#\s*exits?\s+(\d+)\s*$", command.text)
    args = words[1:]
    if not args:
        return "opens the app"
    if args[0] in OPENS_APP:
        return "opens the app" if args[0] != "serve" else "starts a server"
    if any(word in ("|", "&&", ";", "<") for word in args):
        return "a shell pipeline"
    # `quizzer completion bash > ~/.local/share/...` installs a file: run what it prints, write nothing.
    for redirect in (">", ">>"):
        if redirect in args:
            args = args[: args.index(redirect)]
    return args, int(status.group(1)) if status else 0


def problems(command: Command) -> list[str]:
    """What is wrong when ``command`` runs: its exit status, the lines shown that it did not print."""
    parsed = argv(command)
    assert not isinstance(parsed, str), parsed
    args, expected_status = parsed
    env = {name: value for name, value in os.environ.items() if name != "QUIZZER_QUESTIONS"}
    ran = subprocess.run(
        [sys.executable, "-m", "quizzer", *args],
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    found: list[str] = []
    if ran.returncode != expected_status:
        found.append(
            f"exit status {ran.returncode}, the README expects {expected_status}: {ran.stderr.strip()}"
        )
    printed = [line.rstrip() for line in ran.stdout.splitlines()]
    at = 0
    for shown in command.shown:
        if any(mark in shown for mark in ELIDED):
            continue
        try:
            at = printed.index(shown, at) + 1
        except ValueError:
            found.append(f"the README shows {shown!r}, which it did not print (in this order)")
    return found


README_COMMANDS = commands(README.read_text(encoding="utf-8"))
RUN = [command for command in README_COMMANDS if not isinstance(argv(command), str)]


def test_the_readme_has_commands_to_run() -> None:
    """The extraction finds the README's examples (a fence renamed would otherwise make the test vacuous)."""
    texts = [command.text for command in RUN]
    assert any(text.startswith("quizzer grade ") for text in texts), texts
    assert any(command.text.startswith("quizzer count ") and command.shown for command in RUN), texts


@pytest.mark.parametrize("command", RUN, ids=[command.id for command in RUN])
def test_a_readme_command_runs_as_shown(command: Command) -> None:
    assert problems(command) == [], command.id


PLANTED = """\
```console
$ quizzer grade embedding-table-params#7 "16.4M" --set vocab_size=32000 --set d_model=512
read as 16,400,000 params; expected 16,384,000 params (0.098% off): wrong
...
```

```sh
quizzer show no-such-template   # not a template: exit 2, not 0
quizzer drill --topic kv-cache
quizzer completion bash > ~/.local/share/bash-completion/completions/quizzer
uv tool install quizzer-ml
```
"""


def test_a_wrong_command_or_output_fails() -> None:
    """Planted: a verdict the grader does not give, and a command that fails. Both are caught; the app's
    verb is not run and the redirection is not followed."""
    planted = commands(PLANTED)
    assert [command.text.split()[1] for command in planted] == ["grade", "show", "drill", "completion"]
    grade, show, drill, completion = planted
    assert grade.shown[-1] == "..."
    assert argv(drill) == "opens the app"
    assert argv(completion) == (["completion", "bash"], 0)
    (wrong_verdict,) = problems(grade)
    assert "did not print" in wrong_verdict
    assert ": wrong" in wrong_verdict
    (wrong_status,) = problems(show)
    assert wrong_status.startswith("exit status 2, the README expects 0")


def test_the_readme_is_short_and_links_the_rest() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= MAX_LINES, "the README is for users: move detail to docs/architecture.md"
    for path in LINKED:
        assert (ROOT / path).is_file(), path
        assert f"]({path}" in text, f"the README does not link {path}"


def _slug(heading: str) -> str:
    """GitHub's anchor for a Markdown heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    headings, fenced = [], False
    for line in lines:
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("#"):
            headings.append(_slug(line.lstrip("#")))
    return set(headings)


LINK = re.compile(r"\]\(([^)\s]+)\)")


@pytest.mark.parametrize("source", ["README.md", *LINKED])
def test_every_local_link_leads_to_a_file_and_heading(source: str) -> None:
    """Links between the README, CONTRIBUTING.md and docs/ (``file#anchor``) point at what exists."""
    origin = ROOT / source
    broken = []
    for target in LINK.findall(origin.read_text(encoding="utf-8")):
        if "://" in target or target.startswith("mailto:"):
            continue
        path_part, _, anchor = target.partition("#")
        path = (origin.parent / path_part).resolve() if path_part else origin
        if not path.exists():
            broken.append(f"{target}: no such file")
        elif anchor and path.suffix == ".md" and anchor not in _anchors(path):
            broken.append(f"{target}: no heading '{anchor}' in {path.relative_to(ROOT)}")
    assert broken == [], broken
