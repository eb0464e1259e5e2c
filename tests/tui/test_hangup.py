"""The app ends once its terminal hangs up, with no SIGHUP sent (a `make run` whose window closed):
Textual's input thread would otherwise read the closed terminal in a loop, a whole core, for ever."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from quizzer.tui.hangup import hung_up, watchable

pytestmark = pytest.mark.skipif(not hasattr(select, "poll"), reason="POSIX terminals")


def test_a_terminal_hangs_up_when_its_other_side_closes() -> None:
    main, side = os.openpty()
    try:
        assert watchable(side)
        assert not hung_up(side)
        os.close(main)
        assert hung_up(side)
    finally:
        os.close(side)


def test_a_pipe_is_not_watched() -> None:
    read, write = os.pipe()
    try:
        assert not watchable(read)
    finally:
        os.close(read)
        os.close(write)


def _painted(fd: int, needle: bytes, seconds: float) -> bool:
    """Read what the app writes until ``needle`` came and then a second passed with nothing more (the
    terminal keeps up, as a real one does: an app blocked on a full terminal is another matter)."""
    seen, end, quiet = b"", time.monotonic() + seconds, None
    while time.monotonic() < end:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            seen += os.read(fd, 65536)
            quiet = None
        elif needle in seen:
            quiet = quiet or time.monotonic()
            if time.monotonic() - quiet > 1.0:
                return True
    return False


def test_the_app_ends_when_its_terminal_closes_without_a_sighup(tmp_path: Path) -> None:
    main, side = os.openpty()
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path)}
    env |= {"XDG_STATE_HOME": str(tmp_path), "TERM": "xterm-256color", "COLUMNS": "100", "LINES": "30"}
    # a session of its own with no controlling terminal: closing the terminal sends it no SIGHUP
    app = subprocess.Popen(
        [sys.executable, "-m", "quizzer"],
        stdin=side,
        stdout=side,
        stderr=side,
        env=env,
        start_new_session=True,
    )
    os.close(side)
    try:
        assert _painted(main, b"sizing practice", 30)  # Home painted, its output read
        os.close(main)
        main = -1
        app.wait(timeout=15)  # it looks every 2 s; without the look it ran until killed
        assert app.returncode is not None
    finally:
        if main >= 0:
            os.close(main)
        if app.poll() is None:
            app.kill()
            app.wait()
