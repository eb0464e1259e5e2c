"""The mock answers exactly what was typed for each part (issue 23): a locked part's text never reaches
another part, esc never submits, the clock starts when the question is painted (every mode), a long
question scrolls from the keyboard, typed text survives a time-out; and what is new (a hint, a chain's next
part) is scrolled into view."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from keys import type_keys
from snapshot_app import FakeClock, FakeWall
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Static

from quizzer.bank.loader import load_bank
from quizzer.store.history import HistoryStore
from quizzer.tui.app import DrillOptions, MockOptions, QuizzerApp, StudyOptions
from quizzer.tui.screens.mock import MockScreen
from quizzer.tui.screens.mock_report import MockReportScreen
from quizzer.tui.widgets.answer_input import AnswerInput
from quizzer.tui.widgets.question_panel import QuestionPanel

DATA = Path(__file__).resolve().parent.parent / "data"
LONG = DATA / "tui_long"
SIZE = (100, 30)


@pytest.fixture
def pack(tmp_path: Path) -> Path:
    """Two templates: the three-part chain-arithmetic (GPUs, jobs, jobs per queue) and mini-product."""
    blocks = (DATA / "chains" / "chain.toml").read_text(encoding="utf-8").split("[[template]]")
    (chain,) = [b for b in blocks if 'id = "chain-arithmetic"' in b]
    (tmp_path / "chain.toml").write_text("[[template]]" + chain, encoding="utf-8")
    (tmp_path / "mini.toml").write_text((DATA / "tui" / "mini.toml").read_text(encoding="utf-8"))
    return tmp_path


def app_for(folder: Path, store: HistoryStore, clock: FakeClock | None = None, **start: object) -> QuizzerApp:
    bank = load_bank([str(folder)])
    bank.templates()
    return QuizzerApp(
        [str(folder)],
        clock=clock or FakeClock(),
        wall=FakeWall(),
        seed_source=lambda: 5,
        bank=bank,
        store=store,
        **start,  # type: ignore[arg-type]
    )


async def ready(pilot: Pilot[None]) -> AnswerInput:
    """Wait until the question is painted and its box takes keys; the box."""
    app = pilot.app
    for _ in range(50):
        await pilot.pause()
        box = app.screen.query(AnswerInput)
        if box and box.first().ready and box.first().has_focus:
            return box.first()
    raise AssertionError("the answer box never took keys")


async def to_the_chain(pilot: Pilot[None]) -> MockScreen:
    """The mock's screen, on its chain question."""
    screen = pilot.app.screen
    assert isinstance(screen, MockScreen)
    while screen.exam.instances[screen.exam.current].part_count == 1:
        await pilot.press("down")
        await ready(pilot)
    return screen


def recorded(store: HistoryStore, app: QuizzerApp, template_id: str) -> list[tuple[int | None, str]]:
    app.writer.drain()
    return [(a.part, a.answer) for a in store.attempts() if a.template_id == template_id]


# --- a locked part's text never reaches another part --------------------------------------------------


@pytest.mark.parametrize("then", ["ctrl+s", "escape", "down-up", "timeout"])
async def test_part_one_typed_then_ctrl_s_once_is_never_recorded_as_part_two(pack: Path, then: str) -> None:
    """Issue 23's steps: type 486 in part 1, ctrl+s once (the warning), then ctrl+s again, esc, ↓↑, or the
    time running out. On main part 1 was locked unseen, and part 2 recorded as '486'."""
    store, clock = HistoryStore.memory(), FakeClock()
    app = app_for(pack, store, clock, mock=MockOptions(count=2, minutes=4, seed=5))
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        screen = await to_the_chain(pilot)
        chain_id = screen.exam.instances[screen.exam.current].template_id
        await type_keys(pilot, *"486")
        await pilot.press("ctrl+s")  # unanswered questions: a warning only
        await pilot.pause()
        if then == "ctrl+s":
            await pilot.press("ctrl+s")
        elif then == "escape":
            await pilot.press("escape", "escape", "ctrl+s")
        elif then == "down-up":
            await pilot.press("down", "up", "ctrl+s", "ctrl+s")
        else:
            clock.now += 4 * 60 + 1
            screen.tick()
        await pilot.pause()
        assert isinstance(app.screen, MockReportScreen)
        assert recorded(store, app, chain_id) == [(1, "486"), (2, ""), (3, "")]


async def test_ctrl_s_once_leaves_the_part_asked_as_it_was(pack: Path) -> None:
    store = HistoryStore.memory()
    app = app_for(pack, store, mock=MockOptions(count=2, minutes=4, seed=5))
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        screen = await to_the_chain(pilot)
        await type_keys(pilot, *"486")
        await pilot.press("ctrl+s")
        await pilot.pause()
        i = screen.exam.current
        assert screen.exam.part_on(i) == 1  # still part 1: nothing locked behind the user's back
        assert screen.panel.answer_box.value == "486"
        assert not screen.query(".chain-outcome")  # no part listed as locked
        await pilot.press("down", "up")
        await ready(pilot)
        assert screen.panel.answer_box.value == "486"  # ↓↑ brings back what was typed, for part 1
        assert screen.exam.part_on(i) == 1


# --- esc never submits ----------------------------------------------------------------------------------


async def test_esc_in_a_running_mock_leaves_the_box_and_never_submits(pack: Path) -> None:
    store = HistoryStore.memory()
    app = app_for(pack, store, mock=MockOptions(count=2, minutes=4, seed=5))
    async with app.run_test(size=SIZE) as pilot:
        box = await ready(pilot)
        screen = app.screen
        assert isinstance(screen, MockScreen)
        await type_keys(pilot, *"12")
        await pilot.press("escape")
        await pilot.pause()
        assert not box.has_focus  # out of the box, as in the drill
        await pilot.press("escape", "escape")
        await pilot.pause()
        assert app.screen is screen
        assert not screen.exam.finished
        await pilot.press("3")  # a digit jumps back in and continues the answer
        await pilot.pause()
        assert box.has_focus
        assert box.value == "123"


# --- the clock starts when the question is on screen ------------------------------------------------


@pytest.fixture
def slow_paint(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    """A clock that moves 2 s while a question is shown (as building and painting it does on 2 cores)."""
    clock = FakeClock()
    show = QuestionPanel.show

    def slow_show(self: QuestionPanel, *args: object, **kwargs: object) -> None:
        show(self, *args, **kwargs)  # type: ignore[arg-type]
        clock.now += 2

    monkeypatch.setattr(QuestionPanel, "show", slow_show)
    return clock


async def test_the_mock_clock_starts_when_the_first_question_is_painted(
    pack: Path, slow_paint: FakeClock
) -> None:
    store = HistoryStore.memory()
    app = app_for(pack, store, slow_paint, mock=MockOptions(count=2, minutes=4, seed=5))
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        screen = app.screen
        assert isinstance(screen, MockScreen)
        assert screen.exam.remaining() == 240
        assert "4:00 left" in str(screen.query_one(".question-side", Static).render())
        assert screen.exam.seconds_on(screen.exam.current) == 0


async def test_the_mock_clock_starts_in_the_frame_that_draws_its_first_prompt(
    pack: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The clock starts right after the frame that draws the question's prompt is written, not frames
    later (the screen's next idle refresh came ~100 ms after it while the footer redrew)."""
    from textual.app import App

    from quizzer.session.mock import MockExam
    from quizzer.tui.widgets.prompt import PromptBlocks

    frames: list[str] = []  # what happened, in order: "frame", "drawn", "start"
    display, render_strips, start = App._display, PromptBlocks.render_strips, MockExam.start

    def counted_display(self: App[None], screen: object, renderable: object) -> None:
        display(self, screen, renderable)  # type: ignore[arg-type]
        frames.append("frame")

    def counted_render(self: PromptBlocks, *args: object, **kwargs: object) -> object:
        frames.append("drawn")
        return render_strips(self, *args, **kwargs)  # type: ignore[arg-type]

    def counted_start(self: MockExam, *args: object, **kwargs: object) -> object:
        frames.append("start")
        return start(self, *args, **kwargs)

    monkeypatch.setattr(App, "_display", counted_display)
    monkeypatch.setattr(PromptBlocks, "render_strips", counted_render)
    monkeypatch.setattr(MockExam, "start", counted_start)
    app = app_for(pack, HistoryStore.memory(), mock=MockOptions(count=2, minutes=4, seed=5))
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert "start" in frames
        drawn = frames.index("drawn")
        # the frame that draws the prompt is written, then the clock starts: no frame between
        # the frame that draws the prompt is written, then the clock starts (the refresh's own second
        # write may come first); waiting for the screen's next idle refresh came 5 frames after it
        assert frames[drawn + 1 : frames.index("start")].count("frame") <= 2


@pytest.mark.parametrize("mode", ["drill", "study"])
async def test_a_drill_or_study_question_is_timed_from_its_paint(
    pack: Path, slow_paint: FakeClock, mode: str
) -> None:
    store = HistoryStore.memory()
    start = (
        {"drill": DrillOptions(template_id="mini-product", seed=3)}
        if mode == "drill"
        else {"study": StudyOptions(new_per_day=5, seed=3)}
    )
    app = app_for(pack, store, slow_paint, **start)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        instance = app.screen.panel.instance  # type: ignore[attr-defined]
        slow_paint.now += 7  # the time the user takes
        await type_keys(pilot, *str(instance.value))
        await pilot.press("enter")
        await pilot.pause()
        app.writer.drain()
        assert [a.seconds for a in store.attempts()][:1] == [7]  # not 9: the paint's 2 s are not the user's


# --- a long question scrolls from the keyboard -------------------------------------------------------


@pytest.mark.parametrize("mode", ["mock", "drill"])
async def test_pageup_and_pagedown_scroll_a_long_question_while_the_box_keeps_the_focus(mode: str) -> None:
    store = HistoryStore.memory()
    start = (
        {"mock": MockOptions(count=1, minutes=4, seed=5, topic=None)}
        if mode == "mock"
        else {"drill": DrillOptions(template_id="long-prompt", seed=3)}
    )
    app = app_for(LONG, store, **start)
    async with app.run_test(size=SIZE) as pilot:
        box = await ready(pilot)
        body = app.screen.panel.body  # type: ignore[attr-defined]
        assert body.max_scroll_y > 0  # the question is longer than the screen
        assert body.scroll_y == 0
        shown = [ab.binding for ab in app.screen.active_bindings.values() if ab.binding.show]
        assert any(b.key == "pageup" and b.key_display == "PgUp/PgDn" for b in shown)  # the footer says so
        await pilot.press("pagedown")
        await pilot.pause()
        assert body.scroll_y > 0
        assert box.has_focus
        await pilot.press("pageup")
        await pilot.pause()
        assert body.scroll_y == 0
        assert box.has_focus


# --- a typed answer survives a time-out -----------------------------------------------------------------


async def test_a_part_typed_and_entered_as_the_time_runs_out_is_recorded(
    pack: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No timer tick between the typing and enter (they come 0.25 s apart at best): the text itself
    must reach the exam. On main the time-out dropped it unless a tick had copied the box first."""
    set_interval = MockScreen.set_interval

    def no_tick(self: MockScreen, interval: float, callback: object = None, **kwargs: object) -> object:
        if getattr(callback, "__name__", "") == "tick":
            return None  # the mock's 0.25 s tick: off; the test calls nothing in its place
        return set_interval(self, interval, callback, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(MockScreen, "set_interval", no_tick)
    store, clock = HistoryStore.memory(), FakeClock()
    app = app_for(pack, store, clock, mock=MockOptions(count=2, minutes=4, seed=5))
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        screen = await to_the_chain(pilot)
        chain = screen.exam.instances[screen.exam.current]
        gpus = chain.value
        await type_keys(pilot, *str(gpus))
        await pilot.press("enter")  # part 1 locked, part 2 asked
        await ready(pilot)
        await type_keys(pilot, *"77")
        clock.now += 4 * 60 + 1  # the time runs out while part 2 is typed
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, MockReportScreen)
        assert recorded(store, app, chain.template_id) == [(1, str(gpus)), (2, "77"), (3, "")]


# --- what is new is scrolled into view ---------------------------------------------------------------


def in_view(body: Widget, widget: Widget) -> bool:
    """Every line of ``widget`` is inside the body's visible region."""
    return body.region.contains_region(widget.region) and widget.region.height > 0


async def test_a_revealed_hint_is_scrolled_into_view() -> None:
    app = app_for(LONG, HistoryStore.memory(), drill=DrillOptions(template_id="long-prompt", seed=3))
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        panel = app.screen.panel  # type: ignore[attr-defined]
        await pilot.press("escape", "h")
        await pilot.pause()
        await pilot.pause()
        hints = panel.query_one(".hints", Static)
        assert "FIRST NUDGE" in str(hints.render())
        assert in_view(panel.body, hints)


class SlowStatic(Static):
    """A Static whose mount takes a tenth of a second (a long explanation rendered on a busy machine)."""

    async def on_mount(self) -> None:
        await asyncio.sleep(0.1)


async def test_a_chains_next_part_is_scrolled_into_view_after_layout(monkeypatch: pytest.MonkeyPatch) -> None:
    """On main the scroll ran on the refresh after the mount was asked for, before the part was laid out:
    a slow mount left the next part's prompt below the fold."""
    monkeypatch.setattr("quizzer.tui.widgets.question_panel.Static", SlowStatic)
    app = app_for(LONG, HistoryStore.memory(), drill=DrillOptions(template_id="long-chain", seed=3))
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        panel = app.screen.panel  # type: ignore[attr-defined]
        await type_keys(pilot, *str(panel.instance.value))
        await pilot.press("enter")
        await ready(pilot)
        prompt = panel.query(".chain-prompt").last()
        assert "PART 2 ASKS" in prompt.content.markup
        assert in_view(panel.body, prompt)
