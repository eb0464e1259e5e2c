"""The core and the `count` verb never load the TUI (or anything outside the standard library)."""

from __future__ import annotations

import subprocess
import sys

import pytest

CHECK = """
import sys
{imports}
heavy = sorted(m for m in sys.modules if m.split(".")[0] in {{"textual", "rich", "torch", "transformers"}})
print("HEAVY:" + ",".join(heavy))
"""


@pytest.mark.parametrize(
    "imports",
    [
        "import quizzer.core",
        "import quizzer.cli",
        "from quizzer.cli import main; main(['count', 'gpt2', '--json'])",
    ],
)
def test_headless_imports_stay_light(imports: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", CHECK.format(imports=imports)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert proc.stdout.strip().splitlines()[-1] == "HEAVY:"


def test_core_imports_only_the_standard_library() -> None:
    code = (
        "import sys, quizzer.core\n"
        "top = {m.split('.')[0] for m in sys.modules if not m.startswith('_')}\n"
        "third = top - set(sys.stdlib_module_names) - {'quizzer'}\n"
        "print(sorted(third))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert proc.stdout.strip() == "[]"
