"""Pilot tests: a whole drill, mistakes, unreadable answers, hints, skips, navigation."""

from __future__ import annotations

from keys import type_keys
from rich.markdown import Markdown as RichMarkdown
from snapshot_app import FakeClock, drill_app, make_app
from textual.widgets import Input, Markdown, Static

from quizzer.tui.app import QuizzerApp
from quizzer.tui.screens.browse import BrowseScreen
from quizzer.tui.screens.drill import DrillScreen
from quizzer.tui.screens.help import HelpModal
from quizzer.tui.screens.home import HomeScreen
from quizzer.tui.widgets.answer_input import AnswerInput
from quizzer.tui.widgets.cached import CachedRenderable
from quizzer.tui.widgets.prompt import QuestionPrompt

SIZE = (100, 32)


def text_of(app: QuizzerApp, selector: str) -> str:
    widget = app.screen.query_one(selector)
    if isinstance(widget, (Markdown, QuestionPrompt)):
        return widget.source
    content = widget.content  # type: ignore[attr-defined]
    if isinstance(content, CachedRenderable):
        content = content.renderable
    if isinstance(content, RichMarkdown):
        return content.markup
    return str(widget.render())


async def type_answer(pilot, text: str) -> None:  # type: ignore[no-untyped-def]
    await type_keys(pilot, *text)
    await pilot.press("enter")
    await pilot.pause()


async def test_a_whole_drill() -> None:
    clock = FakeClock()
    app = drill_app(clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, DrillScreen)
        session = screen.session
        first = session.instance
        assert "vocab_size" in text_of(app, ".question-prompt")
        assert f"{first.variables['vocab_size']:,}" in text_of(app, ".question-prompt")
        assert app.focused is screen.query_one(AnswerInput)

        await type_keys(pilot, *str(first.value))
        await pilot.pause()
        assert text_of(app, ".reading").startswith("= ")
        clock.now += 20
        await pilot.press("enter")
        await pilot.pause()

        assert session.answered == 1
        assert session.attempts[0].verdict == "exact"
        assert session.attempts[0].seconds == 20
        assert "Exact" in text_of(app, ".verdict")
        assert screen.query_one(".verdict").has_class("is-exact")
        assert screen.query_one(".feedback").display
        teaching = text_of(app, ".teaching")
        assert "| Step | Formula |" in teaching  # the derivation table
        assert "TL;DR" in teaching
        assert "1/1 right" in str(screen.query_one(".question-side", Static).render())
        await pilot.pause()
        body, feedback = screen.query_one(".question-body"), screen.query_one(".feedback")
        assert body.scroll_y > 0  # the explanation is scrolled to the top of the body
        assert feedback.region.y == body.content_region.y

        await pilot.press("n")
        await pilot.pause()
        assert session.instance is not first
        assert not screen.query_one(".feedback").display
        assert app.focused is screen.query_one(AnswerInput)
        assert screen.query_one(AnswerInput).value == ""


async def test_a_known_mistake_shows_its_feedback() -> None:
    app = drill_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        session = app.screen.session  # type: ignore[attr-defined]
        await type_answer(pilot, str(2 * session.instance.value))
        verdict = text_of(app, ".verdict")
        assert "Wrong" in verdict
        assert "counted a second vocab_size × d_model matrix" in verdict
        assert session.attempts[-1].mistake == "head-counted-in-the-table"


async def test_an_unreadable_answer_says_why_and_grades_nothing() -> None:
    app = drill_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        session = app.screen.session  # type: ignore[attr-defined]
        await type_keys(pilot, *"lots")
        await pilot.pause()
        assert text_of(app, ".reading").startswith("✗ could not read")
        await pilot.press("enter")
        await pilot.pause()
        assert session.answered == 0
        assert app.screen.query_one(".verdict").has_class("is-unparsed")
        assert not app.screen.query_one(".feedback").display
        assert not app.screen.query_one(AnswerInput).disabled


async def test_hint_skip_repeat_and_back() -> None:
    app = drill_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        session = screen.session  # type: ignore[attr-defined]
        await pilot.press("escape", "h")
        await pilot.pause()
        assert session.hints == 1
        assert "Hint 1" in text_of(app, ".hints")
        await pilot.press("1")  # a digit jumps back into the answer box
        await pilot.pause()
        assert screen.query_one(AnswerInput).value == "1"
        await pilot.press("escape", "s")
        await pilot.pause()
        assert session.attempts[-1].verdict == "skipped"
        assert session.attempts[-1].hints == 1
        # a skip shows the worked explanation, as a wrong answer does, and the keys still work
        assert app.screen.query_one(".feedback").display
        assert "Skipped" in text_of(app, ".verdict")
        assert not screen.query_one(AnswerInput).has_focus
        await pilot.press("n")
        await pilot.pause()
        assert screen.query_one(AnswerInput).value == ""  # "n" moved on; it was not typed as an answer
        await type_answer(pilot, str(session.instance.value))
        await pilot.press("r")
        await pilot.pause()
        assert not session.done
        await pilot.press("escape", "q")
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)


async def test_home_to_drill_browse_help_and_palette() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)
        table = str(app.screen.query_one("#topic-table").render())
        assert table
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(app.screen, DrillScreen)
        await pilot.press("escape", "escape")
        await pilot.pause()
        await pilot.press("b")
        await pilot.pause()
        assert isinstance(app.screen, BrowseScreen)
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpModal)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, BrowseScreen)
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("ctrl+p")
        await pilot.pause()
        await type_keys(pilot, *"Drill embeddings")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause(0.3)
        assert isinstance(app.screen, DrillScreen)
        session = app.screen.session  # type: ignore[attr-defined]
        assert session.topic == "embeddings"
        assert app.bank is not None
        assert app.bank.get(session.instance.template_id).topic == "embeddings"


async def test_browse_search_preview_and_drill() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("b")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, BrowseScreen)
        await pilot.press("slash")
        await type_keys(pilot, *"product")
        await pilot.pause()
        await pilot.press("enter", "down")
        await pilot.pause()
        assert screen.selected is not None
        assert screen.selected.id == "mini-product"
        assert "What is" in text_of(app, "#preview")
        seed_input = screen.query_one("#seed-input", Input)
        seed_input.value = "123"
        await pilot.pause()
        assert "mini-product#123" in str(screen.query_one("#preview-meta", Static).render())
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(app.screen, DrillScreen)
        assert app.screen.session.template_id == "mini-product"  # type: ignore[attr-defined]
        assert app.screen.session.instance.template_id == "mini-product"  # type: ignore[attr-defined]


async def test_drill_opens_before_the_bank_is_validated_and_leaves_to_home() -> None:
    from snapshot_app import PACK, SEED

    from quizzer.tui.options import DrillOptions

    app = QuizzerApp([str(PACK)], drill=DrillOptions(topic="embeddings", seed=SEED), clock=FakeClock())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, DrillScreen)
        assert len(app.screen_stack) == 2  # the drill is the first screen: Home is not built yet
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.bank is not None  # the worker loaded the whole bank after the question was painted
        await pilot.press("escape", "q")
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)
        assert app.screen.query_one("#topic-table").display  # Home shows the loaded bank
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 0


async def test_a_drill_nothing_matches_opens_home_with_a_notice() -> None:
    from snapshot_app import PACK

    from quizzer.tui.options import DrillOptions

    app = QuizzerApp([str(PACK)], drill=DrillOptions(topic="no-such-topic", seed=1), clock=FakeClock())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)
        assert any("No template matches" in n.message for n in app._notifications)


async def test_a_drill_from_the_command_line_draws_from_its_bank() -> None:
    """`quizzer drill --template ID` hands the app the bank it found ID in: the file is not parsed twice."""
    from snapshot_app import PACK

    from quizzer.bank.loader import load_bank
    from quizzer.store.history import HistoryStore
    from quizzer.tui.options import DrillOptions

    bank = load_bank([str(PACK)])
    assert bank.get("embedding-table-params") is not None
    drill = DrillOptions(template_id="embedding-table-params", seed=3)
    app = QuizzerApp([str(PACK)], drill=drill, drill_bank=bank, store=HistoryStore.memory())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.questions_bank() is bank
        screen = app.screen
        assert isinstance(screen, DrillScreen)
        assert screen.session.instance.id == "embedding-table-params#3"


async def test_the_collector_is_off_from_the_start_to_the_first_paint(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The app turns the cyclic garbage collector off when it loads and on once its first screen is painted
    (a full collection just before the paint was 15-30 ms of the launch), and on when it ends."""
    import gc

    seen: list[bool] = []
    show = DrillScreen.show_question

    def shown(self: DrillScreen, **kwargs: bool) -> None:
        seen.append(gc.isenabled())  # the first question about to be painted
        show(self, **kwargs)

    monkeypatch.setattr(DrillScreen, "show_question", shown)
    async with drill_app().run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.pause()
        seen.append(gc.isenabled())  # painted
        gc.disable()  # as if the app had ended before its paint
    assert seen == [False, True]
    assert gc.isenabled()  # the app's end turns it on whatever happened
