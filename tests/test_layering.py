"""Layering: who may import whom (checked statically), and headless verbs never load the TUI."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "quizzer"

#: pyproject.toml states these rules as import-linter contracts too (`make lint`), adding chains of imports,
#: relative imports, cycles and the TUI's own layers; keep the two in step. The verbs' tests below show what
#: only running the code can: which modules each verb loads.
#: layer -> quizzer layers it may import (a layer may always import itself). Top to bottom:
#: cli/commands -> tui -> store -> session -> bank -> grading -> core. Only the TUI imports textual or rich;
#: only the store sqlite3; the session reads no clock and draws no randomness of its own (they are arguments).
ALLOWED = {
    "core": {"core"},
    "grading": {"core"},
    "bank": {"core", "grading"},
    "session": {"core", "grading", "bank"},
    "store": {"core", "session"},
    "tui": {"core", "grading", "bank", "session", "store", "config", "tui"},
    "commands": {"core", "grading", "bank", "session", "store", "paths", "config", "commands", "tui"},
}
FORBIDDEN_EVERYWHERE_BUT_TUI = {"textual", "rich"}

CHECK = """
import sys
{imports}
loaded = sorted(m for m in sys.modules if m.split(".")[0] in {forbidden!r})
print("LOADED:" + ",".join(loaded))
"""

#: Never loaded by a verb that does not open the app (shtab: only by `quizzer completion`).
HEAVY = {"textual", "rich", "torch", "transformers", "shtab"}
#: Left out on purpose for start-up time: ``Record`` exists so that the core needs no ``dataclasses`` (which
#: loads ``inspect``), expressions are parsed with the C-level ``_ast`` (not ``ast``), ``difflib`` is loaded
#: only to suggest a name, and fsrs only by a study session.
SPEED = {"inspect", "dataclasses", "ast", "difflib", "fsrs"}
#: Only the verbs that keep a history open the store.
NO_HISTORY = SPEED | {"sqlite3"}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_layers_import_only_downwards(layer: str) -> None:
    for path in sorted((PACKAGE / layer).rglob("*.py")):
        for name in _imports(path):
            parts = name.split(".")
            if layer != "tui":
                assert parts[0] not in FORBIDDEN_EVERYWHERE_BUT_TUI, f"{path} imports {name}"
            if layer != "store":
                assert parts[0] != "sqlite3", f"{path} imports {name}: only quizzer/store may"
            if layer == "session":
                assert parts[0] not in {"time", "os", "secrets"}, f"{path} imports {name}"
            if parts[0] == "quizzer" and len(parts) > 1:
                assert parts[1] in ALLOWED[layer] | {layer}, f"{path.relative_to(PACKAGE)} imports {name}"


def test_core_and_grading_use_only_the_standard_library() -> None:
    for layer in ("core", "grading"):
        for path in sorted((PACKAGE / layer).rglob("*.py")):
            for name in _imports(path):
                top = name.split(".")[0]
                assert top in sys.stdlib_module_names or top in ("quizzer", "_ast"), f"{path} imports {name}"


@pytest.mark.parametrize(
    ("imports", "forbidden"),
    [
        ("import quizzer.core, quizzer.grading, quizzer.bank, quizzer.session", NO_HISTORY),
        ("import quizzer.cli", NO_HISTORY),
        # count needs neither the bank nor exact fractions
        (
            "from quizzer.cli import main; main(['count', 'gpt2', '--json'])",
            NO_HISTORY | {"fractions", "random"},
        ),
        ("from quizzer.cli import main; main(['list', '--json'])", NO_HISTORY),
        ("from quizzer.cli import main; main(['show', 'embedding-table-params#1', '--json'])", NO_HISTORY),
        (
            "from quizzer.cli import main; main(['grade', 'embedding-table-params#1', '16M', '--json'])",
            NO_HISTORY,
        ),
        ("from quizzer.cli import main; main(['check', 'tests/data/good', '--seeds', '3'])", NO_HISTORY),
        (
            "import io, sys; sys.stdin = io.StringIO('1\\n'); from quizzer.cli import main; "
            "main(['plain', '--count', '1', '--seed', '1'])",
            SPEED,
        ),
        ("from quizzer.cli import main; main(['stats', '--db', ':memory:'])", SPEED),
        ("from quizzer.cli import main; main(['export', '--format', 'json', '--db', ':memory:'])", SPEED),
        # nor does `config path` read the file (tomlkit is the app's, for saving the theme)
        ("from quizzer.cli import main; main(['config', 'path'])", NO_HISTORY | {"tomllib", "tomlkit"}),
        # fish's script is written from the parser: no shtab (bash and zsh load it, and only they)
        ("from quizzer.cli import main; main(['completion', 'fish'])", NO_HISTORY),
    ],
)
def test_headless_verbs_leave_out_the_tui_and_what_start_up_avoids(imports: str, forbidden: set[str]) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", CHECK.format(imports=imports, forbidden=sorted(HEAVY | forbidden))],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert proc.stdout.strip().splitlines()[-1] == "LOADED:"


def test_core_imports_only_the_standard_library_at_run_time() -> None:
    code = (
        "import sys, quizzer.core, quizzer.grading\n"
        "top = {m.split('.')[0] for m in sys.modules if not m.startswith('_')}\n"
        "third = top - set(sys.stdlib_module_names) - {'quizzer'}\n"
        "print(sorted(third))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert proc.stdout.strip() == "[]"


def test_serve_imports_textual_serve_but_never_textual_itself() -> None:
    """`quizzer serve` runs each tab's app in a process of its own: the server loads textual-serve (which
    brings rich and aiohttp), not textual, the store or fsrs. A bad port returns before it listens."""
    imports = (
        "import contextlib, io\n"
        "from quizzer.cli import main\n"
        "with contextlib.redirect_stderr(io.StringIO()):\n"
        "    assert main(['serve', '--port', '0']) == 2\n"
        "import textual_serve.server"
    )
    forbidden = {"textual", "torch", "transformers", "sqlite3", "fsrs"}
    proc = subprocess.run(
        [sys.executable, "-c", CHECK.format(imports=imports, forbidden=sorted(forbidden))],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert proc.stdout.strip().splitlines()[-1] == "LOADED:"
