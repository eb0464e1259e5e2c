"""HistoryStore against a plain list and dict: record, reopen, put_card and a locked file lose nothing."""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
from typing import Any

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from quizzer.session.records import MODES, VERDICTS, Attempt, CardState
from quizzer.store.history import HistoryStore

finite = st.floats(allow_nan=False, allow_infinity=False)
huge_ints = st.integers(min_value=-(10**30), max_value=10**30) | st.sampled_from(
    [10**30, 3 * 10**23, -(2**64)]
)
numbers = huge_ints | finite
variables = st.dictionaries(
    st.text(max_size=8), st.integers() | finite | st.text(max_size=8) | st.booleans(), max_size=4
)
attempts = st.builds(
    Attempt,
    template_id=st.sampled_from(["mini-product", "kv-cache-bytes", "x"]) | st.text(max_size=10),
    seed=st.integers(min_value=-(2**63), max_value=2**63 - 1),
    variables=variables,
    answer=st.text(max_size=12),
    value=st.none() | numbers,
    expected=numbers,
    unit=st.text(max_size=6),
    verdict=st.sampled_from(VERDICTS),
    rel_error=st.none() | finite,
    mistake=st.none() | st.text(max_size=10),
    seconds=finite,
    hints=st.integers(min_value=0, max_value=2**31),
    mode=st.sampled_from(MODES),
    at=st.floats(min_value=0, max_value=4e9) | st.sampled_from([100.0, 200.0]),
    session=st.text(max_size=6),
    topic=st.text(max_size=6),
    minutes=finite,
)
cards = st.builds(
    CardState,
    template_id=st.sampled_from(["a", "b", "c"]),  # few ids, so a put often replaces a card
    card_json=st.text(max_size=20),
    introduced=finite,
    due=finite,
)


def exact(a: Attempt) -> list[tuple[str, type, Any]]:
    """Every field with its type: an int must come back an int, a float a float (1 == 1.0 hides that)."""
    out: list[tuple[str, type, Any]] = []
    for name, value in a.as_dict().items():
        if name == "variables":
            value = sorted((k, type(v).__name__, v) for k, v in value.items())
        out.append((name, type(value), value))
    return out


class HistoryMachine(RuleBasedStateMachine):
    #: The store's busy timeout (None: the default).
    busy_timeout_ms: int | None = None

    def __init__(self) -> None:
        super().__init__()
        self.folder = tempfile.mkdtemp(prefix="quizzer-store-")
        self.path = os.path.join(self.folder, "history.db")
        self.store = HistoryStore.open(self.path, busy_timeout_ms=self.busy_timeout_ms)
        self.model: list[Attempt] = []
        self.cards: dict[str, CardState] = {}

    @rule(attempt=attempts)
    def record(self, attempt: Attempt) -> None:
        self.store.record(attempt)
        self.model.append(attempt)

    @rule()
    def reopen(self) -> None:
        self.store.close()
        self.store = HistoryStore.open(self.path, busy_timeout_ms=self.busy_timeout_ms)

    @rule(state=cards)
    def put_card(self, state: CardState) -> None:
        self.store.put_card(state)
        self.cards[state.template_id] = state

    @rule(
        since=st.none() | st.floats(min_value=0, max_value=4e9) | st.just(200.0),
        mode=st.none() | st.sampled_from(MODES),
    )
    def filtered(self, since: float | None, mode: str | None) -> None:
        expected = [
            a for a in self.model if (since is None or a.at >= since) and (mode is None or a.mode == mode)
        ]
        assert self.store.attempts(since=since, mode=mode) == expected

    @invariant()
    def attempts_match(self) -> None:
        assert [exact(a) for a in self.store.attempts()] == [exact(a) for a in self.model]
        assert self.store.count() == len(self.model)

    @invariant()
    def cards_match(self) -> None:
        assert {c.template_id: c for c in self.store.cards()} == self.cards
        assert len(self.store.cards()) == len(self.cards)
        for template_id in ("a", "b", "c"):
            assert self.store.card(template_id) == self.cards.get(template_id)

    @invariant()
    def saved_to_the_file(self) -> None:
        assert (self.store.path, self.store.warning) == (self.path, None)

    def teardown(self) -> None:
        self.store.close()
        shutil.rmtree(self.folder)


HistoryMachine.TestCase.settings = settings(max_examples=25, stateful_step_count=20, deadline=None)
test_history_store_matches_a_list = HistoryMachine.TestCase


class LockedHistoryMachine(HistoryMachine):
    """The same, while another connection takes and releases the write lock at any step: every change is held
    (reads include it) and reaches the file or a side file, which a later open adds back."""

    busy_timeout_ms = 1

    def __init__(self) -> None:
        super().__init__()
        self.other: sqlite3.Connection | None = None

    @rule()
    def lock(self) -> None:
        if self.other is None:
            self.other = sqlite3.connect(self.path, isolation_level=None, timeout=5)
            self.other.execute("BEGIN EXCLUSIVE")

    @rule()
    def unlock(self) -> None:
        if self.other is not None:
            self.other.execute("COMMIT")
            self.other.close()
            self.other = None

    @invariant()
    def saved_to_the_file(self) -> None:
        if self.store.saved_to_file:
            assert (self.store.path, self.store.pending_count) == (self.path, 0)
        else:
            assert self.store.warning is not None
            assert self.store.path is None

    def teardown(self) -> None:
        self.unlock()
        self.store.close()
        again = HistoryStore.open(self.path)
        try:
            assert [exact(a) for a in again.attempts()] == [exact(a) for a in self.model]
            assert {c.template_id: c for c in again.cards()} == self.cards
            assert again.saved_to_file
            assert not [name for name in os.listdir(self.folder) if ".unsaved-" in name]
        finally:
            again.close()
            shutil.rmtree(self.folder)


LockedHistoryMachine.TestCase.settings = settings(max_examples=25, stateful_step_count=25, deadline=None)
test_history_store_under_a_lock_matches_a_list = LockedHistoryMachine.TestCase
