"""Real faults for the history tests: a small filesystem to fill, immutable files, another process's lock."""

from __future__ import annotations

import errno
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from quizzer.session.records import Attempt

#: Run in another process: take the write lock of the database argv[1], say "locked", keep it until a line
#: arrives on stdin, then commit a card of its own and say "released".
HOLD_LOCK = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN EXCLUSIVE")
conn.execute("INSERT INTO cards (template_id, card_json, introduced, due)"
             " VALUES ('from-the-other-process', '{}', 1.0, 2.0)")
print("locked", flush=True)
sys.stdin.readline()
conn.execute("COMMIT")
conn.close()
print("released", flush=True)
"""


def make(i: int, session: str = "s1") -> Attempt:
    """A distinct attempt per ``i``, with integers too big for 64 bits."""
    return Attempt(
        f"template-{i % 3}",
        i,
        {"n_layers": 24 + i, "big": 10**25 + i, "name": f"model {i}"},
        f"{i}e23",
        None if i % 4 == 0 else i * 10**23 + 1,
        3 * 10**23 + i,
        "FLOPs",
        "close",
        0.01 * i,
        None,
        1.5 + i,
        i % 2,
        "drill",
        1_700_000_000.25 + i,
        session,
        "flops",
        2.0,
    )


def rows_in_file(path: Path) -> int:
    """How many attempts the database file holds, read by a connection of its own."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return int(conn.execute("SELECT count(*) FROM attempts").fetchone()[0])
    finally:
        conn.close()


def side_files(db: Path, folder: Path | None = None) -> list[Path]:
    """The side files of ``db`` in ``folder`` (its own by default)."""
    return sorted((folder or db.parent).glob(f"{db.name}.unsaved-*.jsonl"))


def side_rows(path: Path) -> list[dict[str, Any]]:
    """The JSON objects of a side file, one a line."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def as_attempt(row: dict[str, Any]) -> Attempt:
    """The Attempt of an exported row (at_iso left out)."""
    return Attempt(**{k: v for k, v in row.items() if k != "at_iso"})


# --- a small filesystem that can be filled up ---------------------------------------------------------------


def mount_small_disk(folder: Path, size_kib: int = 512) -> str | None:
    """Mount a tmpfs of ``size_kib`` at ``folder``; None if it worked, else why not (for the skip reason)."""
    folder.mkdir(parents=True, exist_ok=True)
    if shutil.which("mount") is None:
        return "no mount command"
    if os.geteuid() != 0:
        return "mounting a tmpfs needs root"
    proc = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size_kib}k,mode=0755", "tmpfs", str(folder)],
        capture_output=True,
        text=True,
    )
    return None if proc.returncode == 0 else f"mount -t tmpfs failed: {proc.stderr.strip()}"


def unmount(folder: Path) -> None:
    """Unmount what mount_small_disk mounted (lazily if a file is still open there)."""
    if subprocess.run(["umount", str(folder)], capture_output=True).returncode != 0:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True, check=True)


def fill(folder: Path) -> Path:
    """Write a file in ``folder`` until the filesystem is full; the file (delete it to free the space)."""
    filler = folder / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        for chunk in (b"\0" * 65536, b"\0" * 4096, b"\0"):
            try:
                while True:
                    os.write(fd, chunk)
            except OSError as exc:
                if exc.errno != errno.ENOSPC:
                    raise
    finally:
        os.close(fd)
    return filler


# --- immutable files --------------------------------------------------------------------------------------


def immutable_unsupported(folder: Path) -> str | None:
    """None if ``chattr +i`` works on a file in ``folder`` (and stops a write there), else why not."""
    if shutil.which("chattr") is None:
        return "no chattr command"
    probe = folder / ".immutable-probe"
    probe.write_bytes(b"probe")
    try:
        proc = subprocess.run(["chattr", "+i", str(probe)], capture_output=True, text=True)
        if proc.returncode != 0:
            return f"chattr +i is not supported here: {proc.stderr.strip()}"
        try:
            os.close(os.open(probe, os.O_RDWR))
        except PermissionError:
            return None
        return "chattr +i did not stop a write"
    finally:
        subprocess.run(["chattr", "-i", str(probe)], capture_output=True)
        probe.unlink()


def set_immutable(on: bool, *paths: Path) -> None:
    """``chattr +i`` (or ``-i``) on each of ``paths`` that exists."""
    names = [str(p) for p in paths if p.exists()]
    if names:
        subprocess.run(["chattr", "+i" if on else "-i", *names], check=True)


@contextmanager
def immutable(*paths: Path) -> Iterator[None]:
    """``paths`` immutable inside the block, and never after it (pytest must be able to delete them)."""
    set_immutable(True, *paths)
    try:
        yield
    finally:
        set_immutable(False, *paths)


# --- a lock held by another process ------------------------------------------------------------------------


class Locker:
    """Another process holding the write lock (BEGIN EXCLUSIVE) of a database until release()."""

    def __init__(self, db: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", HOLD_LOCK, str(db)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        assert self.proc.stdout.readline() == "locked\n"

    def release(self) -> None:
        """Commit the other process's transaction and wait for it to end."""
        assert self.proc.stdin is not None
        assert self.proc.stdout is not None
        self.proc.stdin.write("go\n")
        self.proc.stdin.flush()
        assert self.proc.stdout.readline() == "released\n"
        assert self.proc.wait(timeout=30) == 0
        self.proc.stdin.close()
        self.proc.stdout.close()

    def kill(self) -> None:
        """End the other process if it is still running (cleanup after a failed test)."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=30)
