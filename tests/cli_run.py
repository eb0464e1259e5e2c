"""The command line run in this process, seen as a subprocess would see it: exit code, stdout and stderr.

A subprocess costs an interpreter start and, for the verbs that read the whole bank, a validation of every
template (``list``, ``plain`` and ``check`` warn of every problem first): most CLI tests use ``run_cli``
here instead (with the ``validated_once`` fixture of tests/conftest.py), and a few keep a real
``python -m quizzer`` for the entry point, the exit code and the absence of a traceback.
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Mapping
from contextlib import redirect_stderr, redirect_stdout

from quizzer.cli import main


class Ran:
    """What ``subprocess.run(..., capture_output=True, text=True)`` returns, for the fields tests read."""

    def __init__(self, returncode: int, stdout: str, stderr: str) -> None:
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


def run_cli(*args: str, stdin: str | None = None, env: Mapping[str, str] | None = None) -> Ran:
    """``quizzer ARGS`` through ``quizzer.cli.main`` in this process: stdin reads ``stdin`` (nothing when
    None, as a closed pipe), stdout and stderr are captured, ``env`` is set for the call only, and a
    SystemExit (argparse's usage errors) gives its code as ``python -m quizzer`` would. Any other exception
    propagates: the test fails with the traceback a user would have seen."""
    saved_env = {name: os.environ.get(name) for name in env or {}}
    saved_stdin = sys.stdin
    out, err = io.StringIO(), io.StringIO()
    os.environ.update(env or {})
    sys.stdin = io.StringIO(stdin or "")
    try:
        with redirect_stdout(out), redirect_stderr(err):
            try:
                code = main(list(args))
            except SystemExit as exc:
                code = _exit_code(exc.code, err)
    finally:
        sys.stdin = saved_stdin
        for name, value in saved_env.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    return Ran(code, out.getvalue(), err.getvalue())


def _exit_code(code: object, err: io.StringIO) -> int:
    """The status Python exits with for ``SystemExit(code)`` (a message is printed to stderr, status 1)."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=err)
    return 1
