"""`quizzer serve`: the app in a browser with textual-serve, one app process per browser tab."""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import os
import sys
from typing import Any

#: What `quizzer serve` says, in one line, when the optional extra is not installed.
MISSING_EXTRA = "quizzer serve needs the serve extra: pip install 'quizzer[serve]' (or make serve)"
#: How long a tab's app may take to quit once asked (its tab closed, or the server stopping), in seconds.
APP_EXIT_S = 10.0
#: The addresses that bind every interface: a browser cannot use them in a URL.
WILDCARD_HOSTS = ("0.0.0.0", "::", "")


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` keeps the server to this machine (``localhost`` or an address in 127.0.0.0/8
    or ::1); a name other than ``localhost`` may resolve anywhere, so it does not count.

    >>> is_loopback("127.0.0.1"), is_loopback("localhost"), is_loopback("::1"), is_loopback("0.0.0.0")
    (True, True, True, False)
    """
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def exposure_warning(host: str) -> str | None:
    """The warning printed before serving on ``host``, or None for a loopback address."""
    if is_loopback(host):
        return None
    return (
        f"quizzer serve: warning: listening on {host or 'every interface'}, not only this machine. "
        "textual-serve has no authentication: anyone who can reach this address can open the app, and every "
        "browser tab writes to the history of whoever runs this server."
    )


def public_url(host: str, port: int, given: str | None = None) -> str:
    """The address the page tells the browser to open its websocket at: ``given``, else ``host`` (a wildcard
    address is not one a browser can open, so this machine's loopback address stands in for it).

    >>> public_url("127.0.0.1", 8000), public_url("0.0.0.0", 80), public_url("::1", 8001)
    ('http://127.0.0.1:8000', 'http://127.0.0.1:80', 'http://[::1]:8001')
    """
    if given:
        return given.rstrip("/")
    if host in WILDCARD_HOSTS:
        host = "::1" if host == "::" else "127.0.0.1"
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def served_command() -> str:
    """The shell command textual-serve runs for each browser tab: this Python's `python -m quizzer`, which
    replaces the shell (`exec`), so that the process the server waits for and signals is the app's."""
    argv = [sys.executable, "-m", "quizzer"]
    if os.name == "nt":
        import subprocess  # list2cmdline quotes for cmd.exe, which runs the command there

        return subprocess.list2cmdline(argv)
    import shlex

    return "exec " + shlex.join(argv)


def served_environment(db: str | None, questions: list[str]) -> dict[str, str]:
    """The variables that pass --db and --questions to every tab's app (bare `quizzer` takes no options):
    QUIZZER_DB, and QUIZZER_QUESTIONS with the extra packs after any it already names, as absolute paths
    (the server's folder is the apps' folder too, but a path stays right if that changes)."""
    env: dict[str, str] = {}
    if db:
        env["QUIZZER_DB"] = db if db == ":memory:" else os.path.abspath(db)
    if questions:
        before = [p for p in os.environ.get("QUIZZER_QUESTIONS", "").split(os.pathsep) if p]
        env["QUIZZER_QUESTIONS"] = os.pathsep.join([*before, *(os.path.abspath(p) for p in questions)])
    return env


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    try:
        return _serve(args)
    except KeyboardInterrupt:  # Ctrl+C before the server's own handler is in place (it then exits with 0)
        return 130


def _serve(args: argparse.Namespace) -> int:
    try:
        import textual_serve.server
        from textual_serve.app_service import AppService
        from textual_serve.server import Server
    except ImportError:
        print(MISSING_EXTRA, file=sys.stderr)
        return 2
    if not 0 < args.port < 65536:
        print(f"quizzer serve: --port must be from 1 to 65535, not {args.port}", file=sys.stderr)
        return 2
    warning = exposure_warning(args.host)
    if warning:
        print(warning, file=sys.stderr)
    os.environ.update(served_environment(args.db, args.questions))  # each tab's process copies os.environ
    url = public_url(args.host, args.port, args.public_url)
    open_browser = args.open
    tabs: set[asyncio.Task[object]] = set()  # the websocket handlers, one per open browser tab

    class TabApp(AppService):
        """textual-serve's app process, waited for when it stops: textual-serve reads its output to the end
        but never reaps it, and a server stopped right after a tab closed then ends its event loop with the
        process unreaped (a RuntimeError traceback as Python exits)."""

        async def stop(self) -> None:
            await super().stop()
            process = self._process
            if process is not None and process.returncode is None:
                try:
                    await asyncio.wait_for(process.wait(), APP_EXIT_S)
                except TimeoutError:
                    process.kill()
                    await process.wait()

    textual_serve.server.AppService = TabApp  # type: ignore[misc]  # what handle_websocket starts per tab

    class QuizzerServer(Server):
        """textual-serve's server, saying where it is in one line, opening the browser with --open, and
        closing every tab's app when it stops (aiohttp would otherwise wait up to a minute for open tabs)."""

        async def on_startup(self, app: object) -> None:
            self.console.print(f"quizzer serve: open {self.public_url} in a browser; Ctrl+C stops the server")
            if open_browser:  # in a thread: a console browser would hold the server up
                import webbrowser

                asyncio.get_running_loop().run_in_executor(None, webbrowser.open, self.public_url)

        async def handle_websocket(self, request: Any) -> Any:
            task = asyncio.current_task()
            assert task is not None
            tabs.add(task)
            try:
                return await super().handle_websocket(request)
            finally:
                tabs.discard(task)

        async def on_shutdown(self, app: object) -> None:
            # textual-serve's handler takes the cancellation as "close": it asks the app to quit, waits for
            # it (the app closes its history), then closes the websocket.
            for task in tabs:
                task.cancel()

    server = QuizzerServer(served_command(), host=args.host, port=args.port, title="quizzer", public_url=url)
    try:
        server.serve()
    except OSError as exc:  # the port is taken, the address is not this machine's...
        print(
            f"quizzer serve: cannot listen on {args.host}:{args.port}: {exc.strerror or exc}", file=sys.stderr
        )
        return 2
    return 0
