"""Launch to the question's prompt on screen in a real terminal (tmux, 100×30): quizzer vs a minimal app."""

from __future__ import annotations

import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: Interleaved rounds measured of each app, after one warm-up round.
ROUNDS = 7
#: The ratio budget: quizzer's launch to its prompt against the minimal app's launch to its question.
BUDGET = 1.3
#: The question `quizzer drill` is started on.
TEMPLATE, SEED = "embedding-table-params", 1
POLL_S = 0.005
TIMEOUT_S = 30.0


def tmux_path() -> str | None:
    """tmux, installed with apt-get (quietly, as root only) if it is missing; None if it still is."""
    found = shutil.which("tmux")
    if found or os.geteuid() != 0 or not shutil.which("apt-get"):
        return found
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = ["apt-get", "install", "-y", "-qq", "tmux"]
    if subprocess.run(install, capture_output=True, env=env).returncode != 0:
        subprocess.run(["apt-get", "update", "-qq"], capture_output=True, env=env)
        subprocess.run(install, capture_output=True, env=env)
    return shutil.which("tmux")


class Tmux:
    """A tmux server of our own (its own socket, no config file), kept up between runs by an idle session;
    the apps it starts get ``env`` (the server's environment)."""

    def __init__(self, tmux: str, env: dict[str, str]) -> None:
        self.base = [tmux, "-L", f"quizzer-bench-{os.getpid()}", "-f", os.devnull]
        self.env = env
        self.run("new-session", "-d", "-s", "idle", "-x", "100", "-y", "30", "cat")
        self.run("set-option", "-g", "remain-on-exit", "on")  # a crash stays readable in the pane
        self.socket = self.run("display-message", "-p", "#{socket_path}").strip()

    def run(self, *args: str) -> str:
        done = subprocess.run([*self.base, *args], capture_output=True, text=True, env=self.env)
        if done.returncode != 0:
            raise RuntimeError(f"tmux {' '.join(args)}: {done.stderr.strip()}")
        return done.stdout

    def launch_to(self, argv: list[str], text: str) -> float:
        """Seconds from starting ``argv`` in a new 100×30 window to ``text`` in its pane (polled every 5 ms);
        then the window is closed and its process waited for."""
        start = time.perf_counter()
        self.run("new-session", "-d", "-s", "run", "-x", "100", "-y", "30", *argv)
        try:
            while text not in (pane := self.run("capture-pane", "-p", "-t", "run")):
                if time.perf_counter() - start > TIMEOUT_S:
                    raise RuntimeError(f"{text!r} never showed; the pane:\n{pane}")
                time.sleep(POLL_S)
            return time.perf_counter() - start
        finally:
            pid = int(self.run("display-message", "-p", "-t", "run", "#{pane_pid}").strip() or 0)
            self.run("kill-session", "-t", "run")
            _wait_gone(pid)

    def close(self) -> None:
        """Stop the server and remove its socket (tmux leaves it behind)."""
        subprocess.run([*self.base, "kill-server"], capture_output=True, env=self.env)
        Path(self.socket).unlink(missing_ok=True)


def _wait_gone(pid: int) -> None:
    """Wait (at most 5 s, then SIGKILL) for the app's process to end, so the next run has the CPU."""
    deadline = time.perf_counter() + 5
    while pid and Path(f"/proc/{pid}").exists():
        if time.perf_counter() > deadline:
            os.kill(pid, signal.SIGKILL)
            return
        time.sleep(0.01)


def tmux_row() -> tuple[str, int]:
    """The row as printed and whether it is over (0 when tmux is missing: then it was not measured)."""
    label = "launch to the prompt painted in tmux 100×30"
    tmux = tmux_path()
    if tmux is None:
        return f"  {label:<64} not measured: tmux is not installed", 0
    sys.path.insert(0, str(HERE.parents[1]))
    from frames import needle
    from tui_start import MINIMAL_QUESTION

    from quizzer.bank.generate.render import generate
    from quizzer.bank.loader import load_bank
    from quizzer.paths import question_paths
    from quizzer.tui.widgets.teaching import question_markdown

    bank = load_bank(question_paths())
    prompt = needle(question_markdown(generate(bank.get(TEMPLATE), SEED)))
    bin_dir = Path(sys.executable).parent
    commands = {
        "minimal": (
            [sys.executable, str(HERE / "tui_start.py"), "minimal", "--terminal"],
            needle(MINIMAL_QUESTION),
        ),
        "quizzer": ([str(bin_dir / "quizzer"), "drill", "--template", TEMPLATE, "--seed", str(SEED)], prompt),
    }
    times: dict[str, list[float]] = {name: [] for name in commands}
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            **os.environ,
            "QUIZZER_DB": f"{tmp}/history.sqlite3",
            "QUIZZER_CONFIG": f"{tmp}/config.toml",
            "XDG_CONFIG_HOME": f"{tmp}/config",
            "XDG_DATA_HOME": f"{tmp}/data",
        }
        env.pop("TMUX", None)
        server: Tmux | None = None
        try:
            server = Tmux(tmux, env)
            for round_ in range(ROUNDS + 1):  # interleaved; the first round warms up and is left out
                for name, (argv, text) in commands.items():
                    seconds = server.launch_to(argv, text)
                    if round_:
                        times[name].append(seconds)
        except RuntimeError as exc:
            return f"  {label:<64} failed: {exc}  OVER", 1
        finally:
            if server is not None:
                server.close()
    medians = {name: statistics.median(values) for name, values in times.items()}
    ratio = medians["quizzer"] / medians["minimal"]
    label = (
        f"launch to the prompt in tmux: {medians['quizzer'] * 1000:.0f} ms vs minimal app "
        f"{medians['minimal'] * 1000:.0f} ms (median of {ROUNDS})"
    )
    over = ratio > BUDGET
    return f"  {label:<64} ratio {ratio:5.2f} (budget <= {BUDGET})  {'OVER' if over else 'ok'}", int(over)


if __name__ == "__main__":
    print(tmux_row()[0])
