"""Pilot tests: practising on a model from Home (a config.json, a preset), and one that cannot be read."""

from __future__ import annotations

import json
from pathlib import Path

from keys import type_keys
from snapshot_app import FakeClock, FakeWall

from quizzer.core.presets import preset
from quizzer.paths import questions_dir
from quizzer.store.history import HistoryStore
from quizzer.tui.app import QuizzerApp
from quizzer.tui.screens.drill import DrillScreen
from quizzer.tui.screens.home import HomeScreen
from quizzer.tui.screens.model_pick import ModelPickModal
from quizzer.tui.widgets.answer_input import AnswerInput

SIZE = (100, 30)


def _app(store: HistoryStore) -> QuizzerApp:
    return QuizzerApp(
        [questions_dir()], clock=FakeClock(), wall=FakeWall(), seed_source=lambda: 7, store=store
    )


async def _until(pilot, done) -> None:  # type: ignore[no-untyped-def]
    for _ in range(600):  # the model's bank is built in a worker thread (30 s at most, under load)
        await pilot.pause(0.05)
        if done():
            return
    raise AssertionError("timed out")


async def test_practise_on_a_users_config_json(tmp_path: Path) -> None:
    config = dict(preset("llama-3-8b").config) | {"num_hidden_layers": 30, "_name_or_path": "my-llama-30l"}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    store = HistoryStore.memory()
    app = _app(store)
    async with app.run_test(size=SIZE) as pilot:
        await _until(pilot, lambda: isinstance(app.screen, HomeScreen))
        await pilot.press("p")
        await _until(pilot, lambda: isinstance(app.screen, ModelPickModal))
        await type_keys(pilot, *str(path))
        await pilot.press("enter")
        await _until(pilot, lambda: isinstance(app.focused, AnswerInput))  # the drill is painted
        assert isinstance(app.screen, DrillScreen)
        assert app.sub_title == "practising on my-llama-30l"
        instance = app.screen.session.instance
        assert "@config-" in instance.id
        assert instance.variables["@config"]["num_hidden_layers"] == 30
        assert "my-llama-30l" in instance.prompt
        assert app.focused is app.screen.query_one(AnswerInput)
        await type_keys(pilot, *f"{instance.main.value!r} {instance.main.unit}")
        await pilot.press("enter")
        await pilot.pause()
        app.writer.drain()
        (attempt,) = store.attempts()
        assert attempt.verdict == "exact"
        assert attempt.variables["@model"] == instance.variables["@model"]
        assert attempt.variables["@config"] == config  # the history keeps the config: it replays


async def test_a_model_that_cannot_be_read_is_named_and_home_stays(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"model_type": "mamba"}), encoding="utf-8")
    app = _app(HistoryStore.memory())
    async with app.run_test(size=SIZE) as pilot:
        await _until(pilot, lambda: isinstance(app.screen, HomeScreen))
        await pilot.press("p")
        await _until(pilot, lambda: isinstance(app.screen, ModelPickModal))
        await type_keys(pilot, *str(path))
        await pilot.press("enter")
        await _until(pilot, lambda: any("mamba" in str(n.message) for n in app._notifications))
        assert isinstance(app.screen, HomeScreen)
        assert app.sub_title == QuizzerApp.SUB_TITLE
        await pilot.pause(0.2)  # Home's workers end before the app does


async def test_escape_changes_nothing_and_empty_returns_to_every_question() -> None:
    app = _app(HistoryStore.memory())
    async with app.run_test(size=SIZE) as pilot:
        await _until(pilot, lambda: isinstance(app.screen, HomeScreen))
        await pilot.press("p")
        await _until(pilot, lambda: isinstance(app.screen, ModelPickModal))
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)
        await pilot.press("p")
        await _until(pilot, lambda: isinstance(app.screen, ModelPickModal))
        await type_keys(pilot, *"gemma-3-4b")
        await pilot.press("enter")
        await _until(pilot, lambda: isinstance(app.focused, AnswerInput))
        assert isinstance(app.screen, DrillScreen)
        assert app.screen.session.instance.id.endswith("@gemma-3-4b")
        await pilot.press("escape", "escape")
        await _until(pilot, lambda: isinstance(app.screen, HomeScreen))
        await pilot.press("p")
        await _until(pilot, lambda: isinstance(app.screen, ModelPickModal))
        await pilot.press("enter")
        await _until(pilot, lambda: app.sub_title == QuizzerApp.SUB_TITLE)
