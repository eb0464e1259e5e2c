"""The app's services: the bank, the history and its writer, the settings, clocks and seeds."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, TypeVar

from textual import on, work
from textual.app import App
from textual.events import DeliveryComplete, DeliveryFailed
from textual.reactive import var
from textual.worker import Worker, WorkerFailed, WorkerState

from quizzer.bank.errors import TemplateError
from quizzer.bank.loader import Bank, load_bank
from quizzer.config import ConfigError, Settings, check_keymap, check_theme, save_setting
from quizzer.core.errors import QuizzerError
from quizzer.session.records import Attempt, CardState
from quizzer.tui import ui_thread
from quizzer.tui.messages import DeliverFile, ExportHistory, StartMode
from quizzer.tui.options import CramOptions, DrillOptions, InterviewOptions, MockOptions, StudyOptions
from quizzer.tui.reader import HistoryReader
from quizzer.tui.writer import HistoryWriter

if TYPE_CHECKING:
    from quizzer.store.history import HistoryStore

_T = TypeVar("_T")
#: Set to "1" (the tests do), the history raises when the UI thread calls it: every read runs in a worker.
STRICT_THREADS = "QUIZZER_STRICT_THREADS"
#: How long a history fault stays on screen: until it is dismissed (a click) or resolved, in practice.
HISTORY_FAULT_SECONDS = 24 * 3600


class AppServices(App[None]):
    """What every screen and mode of the app uses: the bank, the history (written off the UI thread), the
    settings, the clocks and fresh seeds; and the history reads the screens show."""

    #: config.toml, where the theme picked in the palette is saved; None: it is not saved (tests).
    config_path: str | None = None

    #: The topics a finished placement drill suggests, weakest first (Home shows them); None before one.
    suggested_path: list[str] | None = None

    #: Where delivered files go in a terminal (None: the user's downloads folder, Textual's default).
    save_directory: str | None = None

    #: Where an interview's set and report go unless named (``paths.interviews_dir``: beside the history);
    #: None: nowhere, saving says so.
    interviews_folder: str | None = None

    bank: var[Bank | None] = var(None, init=False)
    """The whole bank, validated in a worker: what Home, Browse and the palette list. None until then."""

    def __init__(
        self,
        question_paths: list[str],
        *,
        drill: DrillOptions | None = None,
        mock: MockOptions | None = None,
        study: StudyOptions | None = None,
        cram: CramOptions | None = None,
        interview: InterviewOptions | None = None,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
        seed_source: Callable[[], int] | None = None,
        bank: Bank | None = None,
        drill_bank: Bank | None = None,
        store: HistoryStore | None = None,
        settings: Settings | None = None,
        config_path: str | None = None,
        interviews_dir: str | None = None,
    ) -> None:
        super().__init__()
        self.question_paths = question_paths
        self._start: DrillOptions | MockOptions | StudyOptions | CramOptions | InterviewOptions | None = (
            drill or mock or study or cram or interview
        )
        self.clock = clock
        #: Seconds since the epoch: stamps attempts and schedules reviews (never used to time a mock).
        self.wall = wall
        if store is None:
            from quizzer.store.history import HistoryStore

            store = HistoryStore.memory()
        #: Where every attempt and card goes (through the writer thread, in order).
        self.store: HistoryStore = store
        self.interviews_folder = interviews_dir
        self.writer = HistoryWriter(on_error=self._write_failed)
        #: The user's defaults (config.toml): the mock's size, the daily limit of new templates.
        self.settings = settings or Settings()
        self._apply_settings(config_path)
        self._given_bank = bank
        model = getattr(bank, "title", None)
        if model:  # a bank posed for one model (--model): the header says which
            self.sub_title = f"practising on {model}"
        #: The bank sessions draw from on the UI thread. It validates a template when a drill first draws it,
        #: so a drill starts before the worker is done; the worker never touches it (Bank is not locked).
        #: ``drill_bank``: the command line's, which read the first question's file already.
        self._drill_bank: Bank | None = bank or drill_bank
        self._seed_source = seed_source or (lambda: int.from_bytes(os.urandom(3), "big"))
        #: Every read of the history the screens show, made in worker threads (``read``).
        self.reader = HistoryReader(
            store,
            self.writer,
            question_paths,
            wall=wall,
            new_per_day=study.new_per_day if study is not None else self.settings.new_per_day,
            desired_retention=self.settings.desired_retention,
            interview_date=(study.until if study is not None else None) or self.settings.interview_date,
            daily_minutes=self.settings.daily_minutes,
        )
        if os.environ.get(STRICT_THREADS) == "1":  # the tests: a history call on the UI thread raises
            store.guard = ui_thread.refuse_on_ui_thread

    @property
    def new_per_day(self) -> int:
        """The daily limit of new templates in a study session (Home's counts and Study button use it)."""
        return self.reader.new_per_day

    @new_per_day.setter
    def new_per_day(self, limit: int) -> None:
        self.reader.new_per_day = limit

    # --- settings (config.toml) ----------------------------------------------------------------------

    def _apply_settings(self, config_path: str | None) -> None:
        """The theme and [keymap] of the settings; ConfigError for a theme or binding id that does not exist
        (raised before the app runs: the command line prints it in one line, as for any config error)."""
        where, theme, keymap = config_path or "config.toml", self.settings.theme, self.settings.keymap
        check_theme(where, theme, self.available_themes)
        if keymap:  # the screens' bindings are imported only for a keymap (a drill's start spares Home's)
            from quizzer.tui.screens.help import binding_ids

            check_keymap(where, keymap, binding_ids(self.BINDINGS))
            self.set_keymap(dict(keymap))
        if theme is not None:
            self.theme = theme
        self.config_path = config_path  # after the theme is set: setting it saves nothing

    def watch_theme(self, theme: str) -> None:
        """Save a theme picked in the palette to config.toml; a failure is one notification, the file kept."""
        if self.config_path is None:
            return
        try:
            save_setting(self.config_path, "theme", theme)
        except ConfigError as exc:
            self.notify(str(exc), title="Settings not saved", severity="error", markup=False)

    # --- start and services ---------------------------------------------------------------------------

    def on_load(self) -> None:
        ui_thread.mark()  # the app's tasks (its screens and widgets) know they run on the UI thread

    def on_unmount(self) -> None:
        self.writer.close()  # every attempt is in the store before the command closes it

    @work(thread=True, exclusive=True, exit_on_error=False, group="bank")
    def load_bank(self) -> Bank:
        """Parse and validate every template off the UI thread (a bank of its own: Bank is not locked)."""
        bank = load_bank(self.question_paths)
        bank.templates()
        return bank

    @work(thread=True, exclusive=True, exit_on_error=False, group="model")
    def model_bank(self, text: str) -> Bank:
        """The bank posed for the model ``text`` names (a preset or a config.json), built off the UI thread:
        reading the config and trying each template on the model takes a second."""
        from quizzer.bank.model_bank import ModelBank
        from quizzer.bank.read.model_files import model_name

        return ModelBank(load_bank(self.question_paths), model_name(text))

    @on(Worker.StateChanged)
    def model_worker(self, event: Worker.StateChanged) -> None:
        """The model bank's end: practise on it (a drill starts), or say why the model cannot be read."""
        if event.worker.group != "model":
            return
        if event.state == WorkerState.ERROR:
            error = event.worker.error
            message = str(error) if isinstance(error, QuizzerError) else repr(error)
            self.notify(message, title="This model cannot be used", severity="error", markup=False)
        elif event.state == WorkerState.SUCCESS and isinstance(event.worker.result, Bank):
            bank = event.worker.result
            posed, skipped = bank.ids(), getattr(bank, "skipped", {})
            if not posed:
                self.notify("No question can be asked about this model.", title="Model", severity="warning")
                return
            self._drill_bank = self.bank = bank
            title = getattr(bank, "title", "")
            self.sub_title = f"practising on {title}"
            left = sum(why != "takes no model" for why in skipped.values())
            self.notify(
                f"{len(posed)} questions about {title}; {left} that take a model do not apply to it.",
                title="Model",
                markup=False,
            )
            self.post_message(StartMode("drill"))

    @on(Worker.StateChanged)
    def bank_worker(self, event: Worker.StateChanged) -> None:
        """The bank worker's end: its bank, or, if it failed, an empty bank that names the failure."""
        if event.worker.group != "bank":
            return
        if event.state == WorkerState.SUCCESS and isinstance(event.worker.result, Bank):
            if getattr(self.bank, "model", None):  # practising on a model: its bank stays the one shown
                return
            self.bank = event.worker.result
        elif event.state == WorkerState.ERROR:
            failed = Bank()
            failed.file_problems.append(
                TemplateError(
                    ", ".join(self.question_paths), None, None, f"could not be loaded: {event.worker.error!r}"
                )
            )
            self.bank = failed

    def record(self, attempt: Attempt) -> None:
        """Commit an attempt to the history, off the UI thread (in the order they come)."""
        self.writer.submit(self.store.record, attempt)

    def put_card(self, state: CardState) -> None:
        """Commit a study card, off the UI thread."""
        self.writer.submit(self.store.put_card, state)

    def remove_card(self, template_id: str) -> None:
        """Drop a study card (an undone first review), off the UI thread."""
        self.writer.submit(self.store.remove_card, template_id)

    def _write_failed(self, exc: BaseException) -> None:
        self.call_from_thread(
            self.notify, f"A history write failed: {exc!r}", title="History", severity="error", markup=False
        )

    def history_notice(self, severity: str, message: str) -> None:
        """Say at once what happened to the history; a fault stays on screen until dismissed (thread-safe)."""
        timeout = 10 if severity == "information" else HISTORY_FAULT_SECONDS
        self.notify(message, title="History", severity=severity, timeout=timeout, markup=False)  # type: ignore[arg-type]  # the store's severities are Textual's three

    def new_seed(self) -> int:
        return self._seed_source()

    def new_session_id(self, mode: str) -> str:
        """A fresh id for a drill, mock or study session (attempts are grouped by it)."""
        return f"{mode}-{os.urandom(6).hex()}"

    def questions_bank(self) -> Bank:
        """The bank sessions draw from on the UI thread (files parsed, templates validated, as drawn)."""
        if self._drill_bank is None:
            self._drill_bank = load_bank(self.question_paths)  # reads the files' ids; parses nothing yet
        return self._drill_bank

    async def read(self, read: Callable[..., _T], *args: object) -> _T | None:
        """Run ``read(*args)`` (one of the reader's) in a worker thread and wait for its result, so the UI
        thread never reads the history; a failure is one notification, and None."""
        worker: Worker[_T] = self.run_worker(
            partial(read, *args), thread=True, exit_on_error=False, group="history-read"
        )
        try:
            return await worker.wait()
        except WorkerFailed as failed:
            self.notify(
                f"The history could not be read: {failed.error!r}",
                title="History",
                severity="error",
                markup=False,
            )
            return None

    # --- files handed to the user (export, a mock's set) ------------------------------------------------

    @on(DeliverFile)
    def deliver_file(self, event: DeliverFile) -> None:
        """Save the file to the downloads folder (a terminal) or start a browser download (served): Textual's
        deliver_text does the one that applies; DeliveryComplete or DeliveryFailed says how it went."""
        event.stop()
        import io

        self.deliver_text(
            io.StringIO(event.text),
            save_directory=self.save_directory,
            save_filename=event.filename,
            mime_type=event.mime_type,
            name=event.what,
        )

    @on(ExportHistory)
    async def export_history(self, event: ExportHistory) -> None:
        """Every attempt as CSV, as `quizzer export --format csv` writes it, handed to the user."""
        event.stop()
        stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(self.wall()))
        csv_text = await self.read(self.reader.history_csv)
        if csv_text is not None:
            self.post_message(DeliverFile(csv_text, f"quizzer-history-{stamp}.csv", "history", "text/csv"))

    def on_delivery_complete(self, event: DeliveryComplete) -> None:
        where = f"saved to {event.path}" if event.path is not None else "sent to your browser as a download"
        self.notify(f"The {event.name or 'file'} is {where}.", title="Saved", markup=False)

    def on_delivery_failed(self, event: DeliveryFailed) -> None:
        self.notify(
            f"The {event.name or 'file'} could not be saved: {event.exception}",
            title="Not saved",
            severity="error",
            markup=False,
        )
