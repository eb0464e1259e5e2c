"""`quizzer serve` in a subprocess on a free loopback port, and the screen text its websocket sends."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

import aiohttp

#: Escape sequences (CSI, OSC, two-byte) that the app writes between the characters of its screen.
ESCAPES = re.compile(rb"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
#: How long a start, a screen or a stop may take before the test fails, in seconds (a bound, not a measure).
PATIENCE_S = 10.0


def screen_text(data: bytes) -> str:
    """The characters in ``data`` with the escape sequences taken out.

    >>> screen_text(b"\\x1b[2;5H\\x1b[38;2;1;2;3mDrill\\x1b[0m now")
    'Drill now'
    """
    return ESCAPES.sub(b"", data).decode("utf-8", "replace")


def free_port() -> int:
    """A loopback port nothing listens on (bound to port 0, then let go)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def app_pids(served: Served) -> list[int]:
    """The processes the server started (with `exec`, the shell each tab's app runs in is the app)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:  # it ended meanwhile
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == served.proc.pid:  # the field after the name: ppid
                pids.append(int(entry.name))
    return pids


def rss_mib(pid: int) -> float:
    """The resident memory of process ``pid`` (VmRSS), in MiB; 0 once it has ended."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0.0
    found = re.search(r"^VmRSS:\s+(\d+) kB", status, re.M)
    return int(found.group(1)) / 1024 if found else 0.0


def running(pid: int) -> bool:
    """Whether process ``pid`` exists and has not ended (an ended one not yet reaped is a zombie, state Z)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


async def ends(pid: int, within_s: float) -> bool:
    """Whether process ``pid`` ends within ``within_s`` seconds (looked at every 0.1 s)."""
    deadline = time.monotonic() + within_s
    while running(pid):
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.1)
    return True


def accepts(host: str, port: int) -> bool:
    """Whether something accepts a TCP connection at ``host``:``port``."""
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


class Served:
    """A running `quizzer serve`; ``stop()`` sends Ctrl+C to its process group and keeps what it printed."""

    def __init__(self, proc: subprocess.Popen[str], port: int) -> None:
        self.proc = proc
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        self.out = self.err = ""
        self.returncode: int | None = None

    def stop(self, *, group: bool = True, sig: int = signal.SIGINT) -> int:
        """Ctrl+C as a terminal sends it, to the server and its tabs' apps (or ``sig`` to the server alone,
        as `kill PID` does, with ``group=False``); its exit status."""
        if self.returncode is None:
            try:
                if group:
                    os.killpg(self.proc.pid, sig)
                else:
                    self.proc.send_signal(sig)
            except ProcessLookupError:
                pass
            try:
                self.out, self.err = self.proc.communicate(timeout=PATIENCE_S)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.out, self.err = self.proc.communicate()
                message = f"quizzer serve did not stop on signal {sig}:\n{self.out}\n{self.err}"
                raise AssertionError(message) from None
            self.returncode = self.proc.returncode
        return self.returncode


@contextmanager
def serving(*args: str, cwd: Path) -> Iterator[Served]:
    """`quizzer serve --port <free> ARGS...` until it listens on 127.0.0.1; stopped (Ctrl+C) at the end."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "quizzer", "serve", "--port", str(port), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=cwd,
        start_new_session=True,  # its own process group, which stop() signals as a terminal's Ctrl+C would
    )
    served = Served(proc, port)
    try:
        deadline = time.monotonic() + PATIENCE_S
        while not accepts("127.0.0.1", port):
            if proc.poll() is not None or time.monotonic() > deadline:
                served.stop()
                raise AssertionError(f"quizzer serve did not listen:\n{served.out}\n{served.err}")
            time.sleep(0.05)
        yield served
    except BaseException as failure:  # the test's own failure stays in front of one the stop may add
        try:
            served.stop()
        except AssertionError as stop_failure:
            failure.add_note(f"and then: {stop_failure}")
        raise
    else:
        served.stop()


class Tab:
    """One browser tab, spoken to as textual.js does: JSON ``["stdin", keys]`` out, the screen's bytes in."""

    def __init__(self, websocket: aiohttp.ClientWebSocketResponse) -> None:
        self.websocket = websocket
        self.data = b""
        """What the app wrote since the last ``clear()``."""

    def clear(self) -> None:
        """Forget the screen so far: the next ``wait_for`` looks only at what comes after."""
        self.data = b""

    async def press(self, keys: str) -> None:
        """Type ``keys`` (a character, or an escape sequence such as "\\r" for Enter)."""
        await self.websocket.send_json(["stdin", keys])

    async def wait_for(self, pattern: str, timeout_s: float = PATIENCE_S) -> re.Match[str] | None:
        """The first match of the regular expression ``pattern`` on the screen; None after ``timeout_s``."""
        compiled = re.compile(pattern)
        if await self.wait_until(
            lambda data: compiled.search(screen_text(data)) is not None, timeout_s, pattern
        ):
            return compiled.search(self.text)
        return None

    async def wait_until(
        self,
        done: Callable[[bytes], bool],
        timeout_s: float = PATIENCE_S,
        what: str = "",
        every_s: float = 1.0,
    ) -> bool:
        """Whether ``done(the bytes so far)`` comes true within ``timeout_s``; ``done`` is asked after each
        message and at least every ``every_s`` seconds. A tab closed meanwhile fails, naming ``what``."""
        deadline = time.monotonic() + timeout_s
        while not done(self.data):
            left_s = deadline - time.monotonic()
            if left_s <= 0:
                return False
            try:
                message = await self.websocket.receive(timeout=min(left_s, every_s))
            except TimeoutError:
                continue
            if message.type == aiohttp.WSMsgType.BINARY:
                self.data += message.data
            elif message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.ERROR):
                raise AssertionError(f"the tab closed before {what!r}; last screen:\n{self.text[-2000:]}")
        return True

    async def closed(self, timeout_s: float = PATIENCE_S) -> bool:
        """Whether the server closes this tab within ``timeout_s`` (what the app writes meanwhile is kept)."""
        deadline = time.monotonic() + timeout_s
        while (left_s := deadline - time.monotonic()) > 0:
            try:
                message = await self.websocket.receive(timeout=left_s)
            except TimeoutError:
                return False
            if message.type == aiohttp.WSMsgType.BINARY:
                self.data += message.data
            elif message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.ERROR):
                return True
        return False

    @property
    def text(self) -> str:
        """The screen text since the last ``clear()``."""
        return screen_text(self.data)


@asynccontextmanager
async def tab(
    served: Served, width: int = 100, height: int = 32, *, query: str | None = None, origin: str | None = None
) -> AsyncIterator[Tab]:
    """A websocket to ``served`` as a browser tab of ``width`` x ``height`` cells opens it (its own app), or
    with ``query`` as its address's query; ``origin`` is the Origin header a browser sends (None: none)."""
    query = f"width={width}&height={height}" if query is None else query
    async with (
        aiohttp.ClientSession() as session,
        session.ws_connect(f"{served.url}/ws?{query}", origin=origin) as websocket,
    ):
        yield Tab(websocket)
