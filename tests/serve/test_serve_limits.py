"""`quizzer serve` bounds browser tabs: their size, their origin, how many, how long an app outlives one."""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import aiohttp
import pytest
from served import PATIENCE_S, Served, Tab, app_pids, ends, free_port, rss_mib, running, serving, tab

from quizzer.cli import _parser
from quizzer.commands import serve

#: The first words of Home's introduction: Home is on screen.
HOME = r"Sizing questions as interviews ask them"
#: The answer box's placeholder: a drill's question is on screen.
ANSWER_BOX = r"e\.g\. 16\.4M"
#: The bound the issue sets on a tab's app (it grew past 4 GB before), in MiB.
MOST_RSS_MIB = 300
#: The stated bound on how long a tab's app may outlive its websocket, in seconds.
OUTLIVES_S = 10
#: The largest terminal a tab's app is given (quizzer.commands.serve_policy: MAX_COLUMNS x MAX_ROWS).
MAX_COLUMNS, MAX_ROWS = 500, 200
#: A cursor move, ESC [ row ; column H: the app writes each line of its screen after one.
CURSOR_MOVE = re.compile(rb"\x1b\[(\d+);(\d+)H")


def lowest_row(data: bytes) -> int:
    """The lowest row (1 at the top) the app moved its cursor to in ``data``; 0 if none."""
    return max((int(row) for row, _ in CURSOR_MOVE.findall(data)), default=0)


def rightmost_column(data: bytes) -> int:
    """The rightmost column the app moved its cursor to in ``data``; 0 if none."""
    return max((int(column) for _, column in CURSOR_MOVE.findall(data)), default=0)


def the_app(served: Served) -> int:
    """The process id of the one tab's app (the server's only child)."""
    (pid,) = app_pids(served)
    return pid


async def home_within_bound(browser_tab: Tab, pid: int) -> tuple[bool, float]:
    """Whether Home comes (within the patience), and the tab's app's largest RSS meanwhile (MiB)."""
    peak_mib = 0.0

    def home_yet(data: bytes) -> bool:
        nonlocal peak_mib
        peak_mib = max(peak_mib, rss_mib(pid))
        return peak_mib >= MOST_RSS_MIB or re.search(HOME, browser_tab.text) is not None

    shown = await browser_tab.wait_until(home_yet, what=HOME, every_s=0.2)
    return shown and peak_mib < MOST_RSS_MIB, peak_mib


async def test_a_huge_terminal_is_bounded_and_the_app_ends_with_its_tab(tmp_path: Path) -> None:
    with serving(cwd=tmp_path) as served:
        async with tab(served, query="width=100&height=99999999") as browser_tab:
            assert await browser_tab.wait_until(lambda _: bool(app_pids(served)), what="an app")
            pid = the_app(served)
            shown, peak_mib = await home_within_bound(browser_tab, pid)
            assert peak_mib < MOST_RSS_MIB, f"the tab's app grew to {peak_mib:.0f} MiB at height=99999999"
            assert shown, f"no Home:\n{browser_tab.text[-2000:]}"
            assert lowest_row(browser_tab.data) == MAX_ROWS  # 200 rows, not 99,999,999

            browser_tab.clear()
            await browser_tab.websocket.send_json(["resize", {"width": 100000, "height": 100000}])
            peak_mib = 0.0

            def repainted_wide(
                data: bytes,
            ) -> bool:  # the app takes the bounded size: its lines reach col 500
                nonlocal peak_mib
                peak_mib = max(peak_mib, rss_mib(pid))
                return peak_mib >= MOST_RSS_MIB or rightmost_column(data) > 100

            assert await browser_tab.wait_until(repainted_wide, what="a wider screen", every_s=0.2)
            assert peak_mib < MOST_RSS_MIB, f"the tab's app grew to {peak_mib:.0f} MiB after a 100000 resize"
            assert await browser_tab.wait_for(HOME)
            assert lowest_row(browser_tab.data) <= MAX_ROWS
            assert 100 < rightmost_column(browser_tab.data) <= MAX_COLUMNS
            assert rss_mib(pid) < MOST_RSS_MIB
        assert await ends(pid, within_s=OUTLIVES_S), (
            f"the app ran on after its tab closed: {rss_mib(pid)} MiB"
        )
        assert served.stop() == 0
    assert "Traceback" not in served.out + served.err, served.out + served.err


async def test_an_app_that_does_not_quit_is_killed_within_10_s_of_its_tab_closing(tmp_path: Path) -> None:
    with serving(cwd=tmp_path) as served:
        async with tab(served) as browser_tab:
            assert await browser_tab.wait_for(HOME), f"no Home:\n{browser_tab.text[-2000:]}"
            pid = the_app(served)
            os.kill(pid, signal.SIGSTOP)  # stuck: it will never read the request to quit
        try:
            assert await ends(pid, within_s=OUTLIVES_S), "a stuck app ran on after its tab closed"
        finally:
            if running(pid):  # the old code left it: end it here, or the server could not stop
                os.kill(pid, signal.SIGKILL)
        assert served.stop() == 0
    assert "Traceback" not in served.out + served.err, served.out + served.err


#: Messages textual.js never sends, each of which must leave the tab working (not a traceback, not a close).
MALFORMED = (
    "not json",
    "[" * 100_000,  # nested past Python's recursion limit
    '{"stdin": "x"}',
    "[]",
    '["stdin", 5]',
    '["stdin", "\\ud800"]',  # a lone surrogate: not encodable as UTF-8
    '["stdin", ""]',  # nothing: Textual's parser would take it as the end of its input
    '["resize", {"width": "wide", "height": null}]',
    '["resize", {"width": 1e999, "height": NaN}]',
    '["resize", [1, 2]]',
    '["resize"]',
    '["ping", {"a": 1}]',
    '["unknown", 1]',
)


async def test_malformed_messages_are_ignored(tmp_path: Path) -> None:
    with serving(cwd=tmp_path) as served:
        async with tab(served) as browser_tab:
            assert await browser_tab.wait_for(HOME), f"no Home:\n{browser_tab.text[-2000:]}"
            for text in MALFORMED:
                await browser_tab.websocket.send_str(text)
            await browser_tab.websocket.send_json(["resize", {"width": 0, "height": -5}])  # 1 x 1
            await browser_tab.websocket.send_json(["resize", {"width": 100, "height": 32}])
            browser_tab.clear()
            await browser_tab.press("d")
            assert await browser_tab.wait_for(ANSWER_BOX), f"no drill:\n{browser_tab.text[-2000:]}"
        assert served.stop() == 0
    assert "Traceback" not in served.out + served.err, served.out + served.err
    assert "error" not in served.err, served.err


async def handshake(served: Served, origin: str | None) -> int:
    """The HTTP status a websocket to ``served`` gets with ``origin`` (101: it opened, and is closed)."""
    headers = {} if origin is None else {"Origin": origin}
    async with aiohttp.ClientSession() as session:
        try:
            websocket = await session.ws_connect(f"{served.url}/ws?width=80&height=24", headers=headers)
        except aiohttp.WSServerHandshakeError as error:
            return error.status
        await websocket.close()
        return 101


async def test_a_page_from_another_origin_gets_no_tab(tmp_path: Path) -> None:
    with serving(cwd=tmp_path) as served:
        port = served.port
        for origin in (
            "http://evil.example",
            f"http://evil.example:{port}",
            f"http://127.0.0.1:{port + 1}",  # another server on this machine
            f"https://127.0.0.2:{port}",
            "null",  # a sandboxed frame, a file:// page
            "http://127.0.0.1:8000@evil.example",
            "",
        ):
            assert await handshake(served, origin) == 403, origin
        assert app_pids(served) == []  # no app was started for any of them
        assert served.stop() == 0
    refusals = [line for line in served.err.splitlines() if "refused a tab" in line]
    assert len(refusals) == 7, served.err
    assert refusals[0] == (
        "quizzer serve: refused a tab opened by a page at 'http://evil.example', not this server's "
        "(--allow-origin URL lets one more origin in)"
    )


async def test_this_server_s_own_pages_and_programs_get_a_tab(tmp_path: Path) -> None:
    with serving(cwd=tmp_path) as served:
        port = served.port
        for origin in (None, f"http://127.0.0.1:{port}", f"http://LOCALHOST:{port}/", f"http://[::1]:{port}"):
            async with tab(served, origin=origin) as browser_tab:
                assert await browser_tab.wait_for(HOME), f"{origin}: no Home:\n{browser_tab.text[-2000:]}"
        assert served.stop() == 0
    assert "refused" not in served.err


async def test_the_public_url_and_allow_origin_open_tabs(tmp_path: Path) -> None:
    public = "http://quiz.example:8123"
    with serving("--public-url", public, "--allow-origin", "https://proxy.example", cwd=tmp_path) as served:
        assert await handshake(served, "http://quiz.example:8124") == 403
        assert await handshake(served, "http://proxy.example") == 403  # not https
        assert await handshake(served, "https://proxy.example:443") == 101
        assert await handshake(served, public) == 101
        assert served.stop() == 0


async def test_a_tab_over_the_cap_is_refused_with_its_reason(tmp_path: Path) -> None:
    with serving("--max-tabs", "2", cwd=tmp_path) as served:
        async with tab(served) as first, tab(served) as second:
            assert await first.wait_for(HOME), f"no Home:\n{first.text[-2000:]}"
            assert await second.wait_for(HOME), f"no Home:\n{second.text[-2000:]}"
            (first_pid, _) = app_pids(served)
            async with tab(served) as third:
                message = await third.websocket.receive(timeout=PATIENCE_S)
                assert message.type == aiohttp.WSMsgType.CLOSE, message
                assert (message.data, message.extra) == (
                    aiohttp.WSCloseCode.TRY_AGAIN_LATER,
                    "quizzer serve: 2 tabs are open, the most allowed (--max-tabs). Close one, then Restart.",
                )
            assert len(app_pids(served)) == 2  # the third started no app
        # both tabs closed: once their apps have ended, a tab opens again
        assert await ends(first_pid, within_s=OUTLIVES_S)
        for pid in app_pids(served):
            assert await ends(pid, within_s=OUTLIVES_S)
        async with tab(served) as again:
            assert await again.wait_for(HOME), f"no Home:\n{again.text[-2000:]}"
        assert served.stop() == 0
    assert served.err.count("--max-tabs") == 1, served.err


@pytest.mark.parametrize(
    ("flags", "error"),
    [
        (["--public-url", "my-laptop:8000"], "--public-url must be an http:// or https:// address"),
        (["--allow-origin", "null"], "--allow-origin must be an http:// or https:// address"),
        (["--max-tabs", "0"], "--max-tabs must be at least 1, not 0"),
    ],
)
def test_a_bad_option_is_one_line(flags: list[str], error: str, tmp_path: Path) -> None:
    proc = subprocess.run(  # in a subprocess: were the option taken, the server would listen until stopped
        [sys.executable, "-m", "quizzer", "serve", "--port", str(free_port()), *flags],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=PATIENCE_S,
    )
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr.startswith(f"quizzer serve: {error}")
    assert proc.stderr.count("\n") == 1


def test_the_flags_and_their_defaults() -> None:
    def parsed(*flags: str) -> argparse.Namespace:
        return _parser("serve").parse_args(["serve", *flags])

    assert (serve.max_tabs(parsed()), serve.allowed_origins(parsed())) == (8, [])
    given = parsed(
        "--max-tabs", "3", "--allow-origin", "http://a.example", "--allow-origin", "http://b.example"
    )
    assert (serve.max_tabs(given), serve.allowed_origins(given)) == (
        3,
        ["http://a.example", "http://b.example"],
    )
