"""`quizzer serve`: a drill answered through the server's websocket lands in the history; where it listens."""

from __future__ import annotations

import asyncio
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
import textual_serve  # the serve extra is part of the dev install: without it this test fails, never skips
from served import PATIENCE_S, Tab, accepts, serving, tab

from quizzer.cli import _parser, main
from quizzer.commands import serve
from quizzer.store.history import HistoryStore

#: The first words of Home's introduction: Home is on screen.
HOME = r"Sizing questions as interviews ask them"
#: The answer box's placeholder: a question is on screen and its box open.
ANSWER_BOX = r"e\.g\. 16\.4M"
#: A graded answer's verdict line: a mark, then the word (wrong, close, right...).
VERDICT = r"[✓✗≈] (Exact|Correct|Consistent|Right|Close|Wrong)"
ANSWER = "12345"


def attempts_in(path: Path) -> list[tuple[str, str, str]]:
    """(mode, answer, verdict) of every attempt the history file at ``path`` holds."""
    store = HistoryStore.open(path)
    try:
        return [(a.mode, a.answer, a.verdict) for a in store.attempts()]
    finally:
        store.close()


async def type_answer(browser_tab: Tab, answer: str) -> None:
    """Type ``answer`` until the box shows it (keys sent while a question is being painted are dropped)."""
    for _ in range(3):
        browser_tab.clear()
        await browser_tab.press(answer)
        if await browser_tab.wait_for(answer, timeout_s=2):
            return
    raise AssertionError(f"the answer box never showed {answer!r}:\n{browser_tab.text[-2000:]}")


async def test_a_drill_answered_in_a_tab_lands_in_the_history(tmp_path: Path) -> None:
    db = tmp_path / "served.sqlite3"  # --db, not QUIZZER_DB (conftest's): the flag must reach the app
    with serving("--db", str(db), cwd=tmp_path) as served:
        async with tab(served) as browser_tab:
            assert await browser_tab.wait_for(HOME), f"no Home:\n{browser_tab.text[-2000:]}"
            browser_tab.clear()
            await browser_tab.press("d")
            assert await browser_tab.wait_for(ANSWER_BOX), f"no drill:\n{browser_tab.text[-2000:]}"
            await type_answer(browser_tab, ANSWER)
            browser_tab.clear()
            await browser_tab.press("\r")
            assert await browser_tab.wait_for(VERDICT), f"no verdict:\n{browser_tab.text[-2000:]}"
        assert served.stop() == 0  # Ctrl+C: the server and the app stop cleanly
    assert "Traceback" not in served.out + served.err  # the tabs' apps write their stderr to the server's
    ((mode, answer, verdict),) = attempts_in(db)
    assert (mode, verdict != "unparsed") == ("drill", True)
    assert answer.endswith(ANSWER)
    assert attempts_in(Path(serve.os.environ["QUIZZER_DB"])) == []  # nothing went to the default history


async def test_kill_stops_the_server_and_its_tabs_apps(tmp_path: Path) -> None:
    with serving(cwd=tmp_path) as served:
        async with tab(served) as browser_tab:
            assert await browser_tab.wait_for(HOME), f"no Home:\n{browser_tab.text[-2000:]}"
            # only the server is signalled; in a thread, so that this tab answers the server's closing
            stopping = asyncio.create_task(asyncio.to_thread(served.stop, group=False, sig=signal.SIGTERM))
            assert await browser_tab.closed(), "the tab stayed open"
            assert await stopping == 0
    assert "Traceback" not in served.out + served.err, served.out + served.err


def test_open_opens_the_browser_at_the_url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    opened = tmp_path / "opened.txt"
    browser = tmp_path / "browser.sh"  # webbrowser runs $BROWSER with the URL
    browser.write_text(f'#!/bin/sh\nprintf %s "$1" > {opened}\n', encoding="utf-8")
    browser.chmod(0o755)
    monkeypatch.setenv("BROWSER", str(browser))
    with serving("--open", cwd=tmp_path) as served:
        for _ in range(100):  # at most 100 looks, 0.05 s apart
            if opened.exists() and opened.read_text(encoding="utf-8"):
                break
            time.sleep(0.05)
        assert opened.read_text(encoding="utf-8") == served.url


def test_the_default_host_is_the_loopback_address() -> None:
    args = _parser("serve").parse_args(["serve"])
    assert (args.host, args.port, args.open) == ("127.0.0.1", 8000, False)


def page_websocket(url: str) -> str:
    """The websocket address the page at ``url`` tells textual.js to open."""
    direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # no proxy for this machine
    with direct.open(url, timeout=PATIENCE_S) as response:
        page = response.read().decode("utf-8")
    found = re.search(r'data-session-websocket-url="([^"]*)"', page)
    assert found, page
    return found.group(1)


def test_by_default_it_listens_on_127_0_0_1_only(tmp_path: Path) -> None:
    with serving(cwd=tmp_path) as served:
        assert accepts("127.0.0.1", served.port)
        assert not accepts("127.0.0.2", served.port)  # loopback too, but not the address it bound
        assert page_websocket(served.url) == f"ws://127.0.0.1:{served.port}/ws"
    assert served.returncode == 0
    assert "warning" not in served.err


def test_listening_on_every_interface_warns(tmp_path: Path) -> None:
    with serving("--host", "0.0.0.0", "--public-url", "http://localhost:8123", cwd=tmp_path) as served:
        assert accepts("127.0.0.2", served.port)  # bound to every address: the test above can tell
        assert page_websocket(served.url) == "ws://localhost:8123/ws"
    assert served.returncode == 0
    assert "warning: listening on 0.0.0.0" in served.err
    assert "no authentication" in served.err
    assert "history" in served.err


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.20", "quizzer.example.org"])
def test_the_warning_for_an_address_beyond_this_machine(host: str) -> None:
    warning = serve.exposure_warning(host)
    assert warning is not None
    assert "no authentication" in warning
    assert "history of whoever runs this server" in warning


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "::1", "localhost", "LOCALHOST"])
def test_no_warning_for_this_machine(host: str) -> None:
    assert serve.exposure_warning(host) is None


def test_db_and_questions_reach_every_tab_as_absolute_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("QUIZZER_QUESTIONS", "/packs/a")
    env = serve.served_environment("h.sqlite3", ["mine", "/packs/b"])
    sep = serve.os.pathsep
    assert env == {
        "QUIZZER_DB": str(tmp_path / "h.sqlite3"),
        "QUIZZER_QUESTIONS": sep.join(["/packs/a", str(tmp_path / "mine"), "/packs/b"]),
    }
    assert serve.served_environment(None, []) == {}
    assert serve.served_environment(":memory:", []) == {"QUIZZER_DB": ":memory:"}


@pytest.mark.parametrize(
    ("host", "given", "url"),
    [
        ("127.0.0.1", None, "http://127.0.0.1:8000"),
        ("0.0.0.0", None, "http://127.0.0.1:8000"),  # the page's websocket needs an address to open
        ("::", None, "http://[::1]:8000"),
        ("192.168.1.20", None, "http://192.168.1.20:8000"),
        ("0.0.0.0", "http://my-laptop:8000/", "http://my-laptop:8000"),
    ],
)
def test_the_address_the_page_gives_the_browser(host: str, given: str | None, url: str) -> None:
    assert serve.public_url(host, 8000, given) == url


def test_the_served_command_is_this_python_running_quizzer() -> None:
    command = serve.served_command()
    assert command.split(" ")[-2:] == ["-m", "quizzer"]
    assert sys.executable in command
    assert command.startswith("exec ")  # the app replaces the shell: the server reaps and signals the app


def test_without_the_extra_one_line_says_how_to_get_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "textual_serve.server", None)  # `import` raises ImportError
    assert main(["serve"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == "quizzer serve needs the serve extra: pip install 'quizzer-ml[serve]' (or make serve)\n"


def test_a_port_in_use_is_one_line(tmp_path: Path) -> None:
    with socket.socket() as taken:  # in a subprocess: the server sets up logging and signal handlers
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = subprocess.run(
            [sys.executable, "-m", "quizzer", "serve", "--port", str(port)],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            timeout=PATIENCE_S,
        )
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"quizzer serve: cannot listen on 127.0.0.1:{port}: ")
    assert proc.stderr.count("\n") == 1


@pytest.mark.parametrize("port", ["0", "65536", "-1"])
def test_a_port_out_of_range_is_refused(port: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--port", port]) == 2
    assert capsys.readouterr().err == f"quizzer serve: --port must be from 1 to 65535, not {port}\n"


def test_the_extra_is_installed() -> None:
    assert textual_serve.__name__ == "textual_serve"


def test_bare_quizzer_on_pipes_prints_the_help_without_the_web_driver(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("TEXTUAL_DRIVER", raising=False)  # under textual-serve it opens Home (the test above)
    assert main([]) == 0
    assert capsys.readouterr().out.startswith("usage: quizzer")
