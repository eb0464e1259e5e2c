"""The UI thread never reads the history, and no worker touches the UI thread's bank (issue 23).

Every app a test makes runs in strict mode (tests/conftest.py sets QUIZZER_STRICT_THREADS): the store raises
when the app's code calls it on the UI thread. These tests check that guard, then walk every screen and
mode that reads the history (Home's counts, progress and guide, Stats and its export, past mocks, study,
cram and a drill by weakness at their start, leeches returned to study) with a bank that records which
thread uses it.
"""

from __future__ import annotations

import threading

import pytest
from snapshot_app import make_app
from test_home_progress import seeded_store, settled
from test_leech_cram_pilot import with_cards

from quizzer.bank.loader import Bank
from quizzer.store.history import HistoryStore
from quizzer.tui.app import QuizzerApp
from quizzer.tui.messages import ExportHistory, ReturnToStudy
from quizzer.tui.options import CramOptions, DrillOptions, StudyOptions
from quizzer.tui.screens.drill import DrillScreen
from quizzer.tui.screens.home import HomeScreen
from quizzer.tui.screens.past_mocks import PastMocksScreen
from quizzer.tui.screens.stats import StatsScreen
from quizzer.tui.screens.study import StudyScreen
from quizzer.tui.ui_thread import UIThreadRead

SIZE = (100, 32)


async def read_on_the_ui_thread(app: QuizzerApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await settled(app, pilot)
        app.call_later(app.store.attempts)  # the app's own code, on its UI thread
        await pilot.pause()


async def test_a_history_read_by_the_app_on_its_ui_thread_is_refused_in_strict_mode() -> None:
    app = make_app(store=HistoryStore.memory())
    with pytest.raises(UIThreadRead):
        await read_on_the_ui_thread(app)


async def test_the_tests_own_reads_and_the_apps_workers_pass() -> None:
    store = seeded_store()
    app = make_app(store=store)
    async with app.run_test(size=SIZE) as pilot:
        await settled(app, pilot)
        assert store.count() > 0  # the test's code: the UI thread's id, not the app's context
        assert await app.read(app.reader.history_csv)  # a worker thread


class WatchedBank(Bank):
    """A bank that remembers every thread that called one of its public methods."""

    threads: set[int]

    def __getattribute__(self, name: str) -> object:
        if not name.startswith("_") and name != "threads":
            object.__getattribute__(self, "threads").add(threading.get_ident())
        return object.__getattribute__(self, name)


def watched(bank: Bank) -> WatchedBank:
    bank.__class__ = WatchedBank
    assert isinstance(bank, WatchedBank)
    bank.threads = set()
    return bank


async def in_app(app, pilot, action, *args) -> None:  # type: ignore[no-untyped-def]
    """Run ``action(*args)`` as the app's own code (its context on the UI thread, as a key would), then
    wait for its workers."""
    app.call_later(action, *args)
    await settled(app, pilot)
    await settled(app, pilot)


async def test_every_screen_reads_the_history_in_workers_and_the_ui_bank_stays_on_the_ui_thread() -> None:
    store = seeded_store()
    with_cards(store)
    app = make_app(store=store)
    ui_bank = watched(app.questions_bank())
    async with app.run_test(size=SIZE) as pilot:
        ui = threading.get_ident()
        await settled(app, pilot)
        assert isinstance(app.screen, HomeScreen)  # due counts, progress, guide: read in Home's workers
        assert "due" in str(app.screen.query_one("#study-due").render())
        await in_app(app, pilot, app.start_study, StudyOptions(new_per_day=2, seed=3))
        assert isinstance(app.screen, StudyScreen)
        await in_app(app, pilot, app.go_home)
        await in_app(app, pilot, app.start_cram, CramOptions(seed=3))
        assert isinstance(app.screen, DrillScreen)
        assert app.screen.session.mode == "cram"
        await in_app(app, pilot, app.go_home)
        await in_app(app, pilot, app.start_drill, DrillOptions(order="weakest", seed=3))
        assert isinstance(app.screen, DrillScreen)
        await in_app(app, pilot, app.go_home)
        await in_app(app, pilot, app.action_stats)
        assert isinstance(app.screen, StatsScreen)
        await in_app(app, pilot, app.post_message, ReturnToStudy(("mini-product",)))
        await in_app(app, pilot, app.post_message, ExportHistory())
        await in_app(app, pilot, app.action_past_mocks)
        assert isinstance(app.screen, PastMocksScreen)
        await in_app(app, pilot, app.go_home)
        await in_app(app, pilot, app.start_placement)
        assert isinstance(app.screen, DrillScreen)
    app.writer.drain()
    assert not [c for c in store.cards() if c.suspended is not None]  # the leech went back to study
    assert ui_bank.threads == {ui}  # no worker used the bank the UI thread draws from
