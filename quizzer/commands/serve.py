"""`quizzer serve`: the app in a browser with textual-serve, one app process per browser tab."""

from __future__ import annotations

import argparse
import os
import sys

from quizzer.commands.serve_policy import (
    DEFAULT_MAX_TABS,
    WILDCARD_HOSTS,
    is_loopback,
    origin_of,
    served_origins,
)

#: What `quizzer serve` says, in one line, when the optional extra is not installed.
MISSING_EXTRA = "quizzer serve needs the serve extra: pip install 'quizzer-ml[serve]' (or make serve)"

__all__ = [
    "MISSING_EXTRA",
    "WILDCARD_HOSTS",
    "allowed_origins",
    "exposure_warning",
    "is_loopback",
    "max_tabs",
    "public_url",
    "run",
    "served_command",
    "served_environment",
]


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
        import textual_serve.server  # noqa: F401  (imported here: the extra is optional)
    except ImportError:
        print(MISSING_EXTRA, file=sys.stderr)
        return 2
    problem = _problem(args)
    if problem:
        print(f"quizzer serve: {problem}", file=sys.stderr)
        return 2
    warning = exposure_warning(args.host)
    if warning:
        print(warning, file=sys.stderr)
    os.environ.update(served_environment(args.db, args.questions))  # each tab's process copies os.environ
    url = public_url(args.host, args.port, args.public_url)
    from quizzer.commands.serve_server import QuizzerServer

    server = QuizzerServer(
        served_command(),
        origins=served_origins(args.host, args.port, url, allowed_origins(args)),
        max_tabs=max_tabs(args),
        open_browser=args.open,
        host=args.host,
        port=args.port,
        title="quizzer",
        public_url=url,
    )
    try:
        server.serve()
    except OSError as exc:  # the port is taken, the address is not this machine's...
        print(
            f"quizzer serve: cannot listen on {args.host}:{args.port}: {exc.strerror or exc}", file=sys.stderr
        )
        return 2
    return 0


def max_tabs(args: argparse.Namespace) -> int:
    """How many tabs may be open at once: --max-tabs, else DEFAULT_MAX_TABS."""
    return DEFAULT_MAX_TABS if args.max_tabs is None else int(args.max_tabs)


def allowed_origins(args: argparse.Namespace) -> list[str]:
    """The origins given with --allow-origin (none by default)."""
    return list(args.allow_origin)


def _problem(args: argparse.Namespace) -> str | None:
    """What is wrong with the options, in words, or None."""
    if not 0 < args.port < 65536:
        return f"--port must be from 1 to 65535, not {args.port}"
    if max_tabs(args) < 1:
        return f"--max-tabs must be at least 1, not {max_tabs(args)}"
    given = [("--allow-origin", url) for url in allowed_origins(args)]
    for flag, url in [("--public-url", args.public_url), *given] if args.public_url else given:
        if origin_of(url) is None:
            return f"{flag} must be an http:// or https:// address, e.g. http://my-laptop:8000, not {url!r}"
    return None
