"""A pack folder's *.toml that is not a regular file (a FIFO, a socket, a folder) is named and skipped, never
opened: a FIFO made `list`, `check`, `show` and the app's bank load wait forever for a writer."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from quizzer.bank.loader import load_bank

DATA = Path(__file__).resolve().parent.parent / "data"
MINI = (DATA / "good" / "mini.toml").read_text(encoding="utf-8")
REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")


@pytest.fixture
def pack(tmp_path: Path) -> Path:
    """A pack with a valid template beside a FIFO, a folder and a socket named *.toml."""
    folder = tmp_path / "pack"
    folder.mkdir()
    (folder / "mini.toml").write_text(MINI, encoding="utf-8")
    os.mkfifo(folder / "x.toml")
    (folder / "sub.toml").mkdir()
    return folder


def _quizzer(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m quizzer ARGS`` that must end within 5 s: a blocked one fails the test, it does not hang."""
    try:
        return subprocess.run(
            [sys.executable, "-m", "quizzer", *args],
            capture_output=True,
            text=True,
            timeout=5,
            cwd=REPO,
            env={**os.environ, "PYTHONPATH": str(REPO)},
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"quizzer {' '.join(args)} was still running after 5 s (blocked on the FIFO?)")


@pytest.mark.parametrize(
    "args",
    [
        ["list", "--topic", "testing"],
        ["check", "--seeds", "2"],
        ["show", "mini-product#1"],
        ["plain", "--topic", "testing", "--count", "1", "--seed", "1"],
    ],
    ids=" ".join,
)
def test_a_fifo_in_a_pack_is_named_and_skipped_within_5_seconds(pack: Path, args: list[str]) -> None:
    if args[0] == "check":
        ran = _quizzer(*args, str(pack))
        said = ran.stdout
    else:
        ran = _quizzer(*args, "--questions", str(pack))
        said = ran.stderr
    assert "Traceback" not in ran.stderr
    if args[0] != "show":  # show parses only the file that holds its template, and warns of nothing else
        assert f"{pack / 'x.toml'}: is a named pipe (FIFO), not a file: skipped" in said, ran
        assert f"{pack / 'sub.toml'}: is a folder, not a file: skipped" in said, ran
    if args[0] in ("list", "show"):
        assert ran.returncode == 0, ran.stderr
        assert "mini-product" in ran.stdout or "A product" in ran.stdout


def test_the_apps_bank_load_returns_with_the_fifo_named(pack: Path) -> None:
    """What the app's worker does (load_bank, then every template and problem), in a process of its own."""
    script = (
        "import sys\n"
        "from quizzer.bank.loader import load_bank\n"
        "bank = load_bank([sys.argv[1]])\n"
        "print([t.id for t in bank.templates()])\n"
        "for p in bank.problems(): print(p)\n"
    )
    try:
        ran = subprocess.run(
            [sys.executable, "-c", script, str(pack)],
            capture_output=True,
            text=True,
            timeout=5,
            cwd=REPO,
            env={**os.environ, "PYTHONPATH": str(REPO)},
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("load_bank was still running after 5 s")
    assert ran.returncode == 0, ran.stderr
    lines = ran.stdout.splitlines()
    assert lines[0] == "['mini-product']"
    assert sorted(lines[1:]) == sorted(
        [
            f"{pack / 'sub.toml'}: is a folder, not a file: skipped (only regular files are read)",
            f"{pack / 'x.toml'}: is a named pipe (FIFO), not a file: skipped (only regular files are read)",
        ]
    )


def test_a_socket_and_a_fifo_given_as_files_are_named(tmp_path: Path) -> None:
    sock_path = tmp_path / "s.toml"
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(sock_path))
        fifo = tmp_path / "f.toml"
        os.mkfifo(fifo)
        bank = _load_within(5, [str(sock_path), str(fifo)])
    assert sorted(p.message for p in bank.problems()) == [
        "is a named pipe (FIFO), not a file: skipped (only regular files are read)",
        "is a socket, not a file: skipped (only regular files are read)",
    ]


def test_a_path_swapped_for_a_fifo_after_the_stat_is_not_waited_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check before opening can race with a rename: the open does not block (O_NONBLOCK) and the opened
    descriptor is checked again."""
    from quizzer.bank.read import files as files

    fifo = tmp_path / "x.toml"
    os.mkfifo(fifo)
    regular, real_stat = os.stat(DATA / "good" / "mini.toml"), os.stat

    def saw_a_file(path: object, *args: object, **kwargs: object) -> os.stat_result:
        """The stat before the open saw a regular file (the path was swapped for a FIFO after it)."""
        return regular if os.fspath(path) == str(fifo) else real_stat(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(files.os, "stat", saw_a_file)
    with pytest.raises(files.NotAFile, match="named pipe"):
        _within(5, lambda: files.read_regular(str(fifo), 1 << 20), fifo)


def _load_within(seconds: float, paths: list[str]) -> object:
    from quizzer.bank.loader import Bank

    bank = _within(seconds, lambda: load_bank(paths), *[Path(p) for p in paths])
    assert isinstance(bank, Bank)
    return bank


def _within(seconds: float, call: object, *fifos: Path) -> object:
    """``call()`` in a thread; fail the test if it has not returned within ``seconds`` (then open the FIFOs
    for writing, which lets a reader blocked in open() go, so no thread is left behind)."""
    result: dict[str, object] = {}

    def run() -> None:
        try:
            result["value"] = call()  # type: ignore[operator]
        except BaseException as exc:
            result["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        for fifo in fifos:
            try:
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            except OSError:
                pass
        thread.join(5)
        pytest.fail(f"still running after {seconds} s: blocked on a FIFO")
    if "error" in result:
        raise result["error"]  # type: ignore[misc]
    return result["value"]
