"""Start a TUI headless, exit once the first question is painted; print seconds to that paint and peak RSS.

`python tests/bench/tui_start.py quizzer [drill args...]` runs quizzer's app (a drill);
`python tests/bench/tui_start.py minimal` runs a minimal Textual app (Header, Markdown, Input, Footer);
`python tests/bench/tui_start.py minimal --terminal` runs it in the terminal until killed (tmux_launch.py);
`python tests/bench/tui_start.py home DB` opens Home over the history database DB.
Run as a fresh process by tests/bench/run.py, which times it from the outside as well.
"""

from __future__ import annotations

import asyncio
import resource
import sys
import time

START = time.perf_counter()
#: Seconds from START to the first paint of the question (not to the process's exit: quizzer starts
#: validating the whole bank in a thread once the question is painted, and exit waits for that thread).
PAINTED: list[float] = []


def peak_kib() -> int:
    """This process's peak resident memory in KiB: VmHWM, of this program alone. ru_maxrss is not: on Linux
    it keeps the peak of the memory before exec, the parent's (run.py's, hundreds of MiB after it checked
    the bank), and the row read 1.00 whatever the app took."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def painted_then_exit(app: object) -> None:
    PAINTED.append(time.perf_counter() - START)
    app.exit()  # type: ignore[attr-defined]


#: The minimal app's question (tmux_launch.py waits for its start on screen).
MINIMAL_QUESTION = "How many parameters does the embedding table hold?"


def minimal(terminal: bool = False) -> None:
    """The minimal app: headless, exiting once painted; with ``terminal``, in the terminal until killed."""
    from textual.app import App, ComposeResult
    from textual.widgets import Footer, Header, Input, Markdown

    class Minimal(App[None]):
        def compose(self) -> ComposeResult:
            yield Header()
            yield Markdown(f"# A question\n\n{MINIMAL_QUESTION}")
            yield Input(placeholder="answer")
            yield Footer()

        def on_mount(self) -> None:
            if not terminal:
                self.call_after_refresh(painted_then_exit, self)

    Minimal().run(headless=not terminal)


def quizzer(argv: list[str]) -> None:
    from quizzer.paths import question_paths
    from quizzer.tui.app import QuizzerApp
    from quizzer.tui.options import DrillOptions
    from quizzer.tui.screens.drill import DrillScreen

    shown = DrillScreen.show_question

    def show_then_exit(self: DrillScreen, **kwargs: bool) -> None:
        # registered first, so it runs before the screen's own after-refresh work (preparing the feedback)
        self.call_after_refresh(painted_then_exit_loaded, self.app)
        shown(self, **kwargs)

    def painted_then_exit_loaded(app: QuizzerApp) -> None:
        """The paint's time; the exit once the whole bank is loaded: the app validates it in a thread right
        after the paint, and its peak memory is the app's (exiting at the paint, the thread may not start)."""
        PAINTED.append(time.perf_counter() - START)

        async def exit_when_loaded() -> None:
            while app.bank is None:
                await asyncio.sleep(0.01)
            app.exit()

        app.run_worker(exit_when_loaded())  # a task of its own: the app's messages go on meanwhile

    DrillScreen.show_question = show_then_exit  # type: ignore[method-assign]
    template = argv[argv.index("--template") + 1] if "--template" in argv else None
    import tempfile

    from quizzer.store.history import HistoryStore

    with tempfile.TemporaryDirectory() as tmp:
        store = HistoryStore.open(f"{tmp}/history.sqlite3")  # as `quizzer drill` does, a fresh file
        try:
            options = DrillOptions(template_id=template, seed=1)
            QuizzerApp(question_paths(), drill=options, store=store).run(headless=True)
        finally:
            store.close()


def home(db: str) -> None:
    """Open Home over the history database ``db`` (as `quizzer` does) and exit once it is painted."""
    from quizzer.paths import question_paths
    from quizzer.store.history import HistoryStore
    from quizzer.tui.app import QuizzerApp
    from quizzer.tui.screens.home import HomeScreen

    mounted = HomeScreen.on_mount

    def mount_then_exit(self: HomeScreen) -> None:
        self.call_after_refresh(painted_then_exit, self.app)
        mounted(self)

    HomeScreen.on_mount = mount_then_exit  # type: ignore[method-assign]
    store = HistoryStore.open(db)
    try:
        QuizzerApp(question_paths(), store=store).run(headless=True)
    finally:
        store.close()


if __name__ == "__main__":
    if sys.argv[1] == "minimal" and "--terminal" in sys.argv:
        minimal(terminal=True)
        raise SystemExit(0)
    if sys.argv[1] == "minimal":
        minimal()
    elif sys.argv[1] == "home":
        home(sys.argv[2])
    else:
        quizzer(sys.argv[2:])
    print(f"{PAINTED[0]:.6f} {peak_kib()}")
