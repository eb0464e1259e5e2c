"""A newcomer's keyboard habits: Help opens on the current screen's keys, Browse's search box takes the
typing and leads into its results, and the palette never stacks a mode on itself and runs its first match on
enter."""

from __future__ import annotations

from keys import type_keys
from snapshot_app import drill_app, make_app
from textual.command import CommandInput
from textual.widgets import Input, OptionList, Static

from quizzer.tui.screens.browse import BrowseScreen
from quizzer.tui.screens.drill import DrillScreen
from quizzer.tui.screens.help import HelpModal
from quizzer.tui.screens.home import HomeScreen
from quizzer.tui.screens.mock import MockScreen
from quizzer.tui.screens.mock_report import VERDICT_WORDS_REPORT
from quizzer.tui.widgets.lines import VERDICT_WORDS

SIZE = (100, 32)


def first_rows(source: str) -> list[str]:
    """The rows of the first key table of Help's Markdown (its header and rule left out)."""
    table = source.split("\n\n")[1]
    return table.splitlines()[2:]


async def test_help_opens_on_the_keys_of_the_screen_it_is_asked_on() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpModal)
        assert app.screen.source.startswith("## Keys here: home\n")
        assert first_rows(app.screen.source)[0].startswith("| home | `d` | Drill |")
        await pilot.press("escape", "b")
        await pilot.pause()
        assert isinstance(app.screen, BrowseScreen)
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpModal)
        source = app.screen.source
        assert source.startswith("## Keys here: browse\n")
        rows = first_rows(source)
        assert {row.split(" | ")[0] for row in rows} == {"| browse", "| everywhere"}
        assert "| browse | `d` | Drill this |" in rows
        assert any(row.startswith("| everywhere | `ctrl+p`") for row in rows)
        # the other screens' keys follow, Home's among them, without the app's keys again
        others = source.split("## Keys on the other screens")[1]
        assert "| home | `d` | Drill |" in others
        assert "| everywhere |" not in others


async def test_help_in_a_drill_shows_the_drills_and_a_questions_keys_first() -> None:
    app = drill_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpModal)
        rows = first_rows(app.screen.source)
        assert app.screen.source.startswith("## Keys here: drill\n")
        assert rows[0] == "| drill | `n` | Next |"
        assert any(row.startswith("| any question |") for row in rows)
        assert not any(row.startswith("| home |") for row in rows)


async def test_browse_searches_as_you_type_and_the_preview_follows_the_first_result() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("b")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, BrowseScreen)
        search = screen.query_one("#browse-query", Input)
        assert search.has_focus  # typing searches at once
        assert screen.selected is not None
        assert screen.selected.id == "embedding-table-params"
        await type_keys(pilot, *"product d")  # a "d" is typed, never a drill of the row highlighted
        await pilot.pause()
        assert isinstance(app.screen, BrowseScreen)
        assert search.value == "product d"
        await type_keys(pilot, "backspace", "backspace")
        await pilot.pause()
        assert screen.selected is not None
        assert screen.selected.id == "mini-product"  # the first result
        meta = str(screen.query_one("#preview-meta", Static).render())
        assert "mini-product#" in meta
        await type_keys(pilot, *"zzz")  # nothing matches: nothing is left to drill
        await pilot.pause()
        assert screen.selected is None
        await pilot.press("d")  # typed
        assert isinstance(app.screen, BrowseScreen)


async def test_down_and_enter_in_browses_search_move_into_the_results() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("b")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, BrowseScreen)
        listing = screen.query_one("#templates", OptionList)
        await pilot.press("down")
        await pilot.pause()
        assert listing.has_focus
        assert listing.highlighted_option is not None
        assert listing.highlighted_option.id == "embedding-table-params"
        await pilot.press("slash")
        await type_keys(pilot, *"product")
        await pilot.press("enter")
        await pilot.pause()
        assert listing.has_focus
        assert listing.highlighted_option is not None
        assert listing.highlighted_option.id == "mini-product"
        await pilot.press("enter")  # in the results: drill the one highlighted (and previewed)
        await pilot.pause()
        assert isinstance(app.screen, DrillScreen)
        assert app.screen.session.instance.template_id == "mini-product"


async def test_escape_leaves_browse_from_an_empty_search_box() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("b")
        await pilot.pause()
        await type_keys(pilot, *"emb")
        await pilot.press("escape")  # a search typed: to its results first
        await pilot.pause()
        assert isinstance(app.screen, BrowseScreen)
        assert app.screen.query_one("#templates", OptionList).has_focus
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)
        await pilot.press("b")
        await pilot.pause()
        await pilot.press("escape")  # nothing typed: back at once
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)


async def palette(pilot, command: str) -> None:  # type: ignore[no-untyped-def]
    """Open the palette, type ``command`` and press enter before its search has run: the text and the enter
    reach the palette one after the other, as a quick typist's do when the search is slower than them."""
    await pilot.press("ctrl+p")
    await pilot.pause()
    box = pilot.app.screen.query_one(CommandInput)
    box.value = command  # Changed: the palette starts searching, in a worker
    box.post_message(box.Submitted(box, box.value))  # enter, handled before that worker has run
    await pilot.pause(0.5)
    await pilot.pause()


async def test_the_palettes_drill_topic_in_a_drill_takes_its_place() -> None:
    app = drill_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        first = app.screen
        assert isinstance(first, DrillScreen)
        depth = len(app.screen_stack)
        await palette(pilot, "Drill testing")
        assert isinstance(app.screen, DrillScreen)
        assert app.screen is not first
        assert app.screen.session.topic == "testing"
        assert first not in app.screen_stack
        assert len(app.screen_stack) == depth
        await pilot.press("escape", "q")
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)  # not the old question


async def test_the_palettes_browse_in_browse_is_not_stacked() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("b")
        await pilot.pause()
        depth = len(app.screen_stack)
        await palette(pilot, "Browse")
        assert isinstance(app.screen, BrowseScreen)
        assert len(app.screen_stack) == depth


async def test_the_palettes_drill_in_a_running_mock_asks_first() -> None:
    from quizzer.tui.options import MockOptions
    from quizzer.tui.screens.confirm import ConfirmModal

    app = make_app(mock=MockOptions(count=2, minutes=30, seed=1))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, MockScreen)
        await palette(pilot, "Drill testing")
        assert isinstance(app.screen, ConfirmModal)
        await pilot.press("escape")  # stay
        await pilot.pause()
        mock = app.screen
        assert isinstance(mock, MockScreen)
        assert not mock.exam.finished
        await palette(pilot, "Drill testing")
        await pilot.press("y")  # leave: the mock is submitted, and the drill takes its place
        await pilot.pause(0.3)
        await pilot.pause()
        assert mock.exam.finished
        assert isinstance(app.screen, DrillScreen)
        assert app.screen.session.topic == "testing"
        assert mock not in app.screen_stack


async def test_enter_in_the_palette_right_after_typing_runs_the_first_match() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await palette(pilot, "Drill embeddings")
        assert isinstance(app.screen, DrillScreen)
        assert app.screen.session.topic == "embeddings"


def test_every_verdict_says_its_word_and_a_symbol_not_only_a_colour() -> None:
    kinds = ["exact", "correct", "consistent", "imprecise", "close", "wrong", "unparsed", "skipped"]
    for kind in kinds:
        symbol, word = VERDICT_WORDS[kind].split(" ", 1)
        assert not symbol.isalnum(), kind
        assert word[0].isalpha(), kind
    for kind in [*kinds, "timed-out"]:
        symbol, word = VERDICT_WORDS_REPORT[kind].split(" ", 1)
        assert not symbol.isalnum(), kind
        assert word[0].isalpha(), kind


async def test_a_fast_search_with_no_match_leaves_no_stale_preview() -> None:
    """Typed at once, each keystroke refills the list: the highlight of an earlier list came after the
    last one and previewed its first match under "No template matches" (tmux, 80×24)."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("b")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, BrowseScreen)
        # two refills before the first one's highlight is handled, as fast typing in a terminal gives
        screen.fill("mini")  # matches: its first match's highlight is posted
        screen.fill("miniz")  # matches nothing
        await pilot.pause()
        await pilot.pause()
        assert screen.selected is None
        assert str(screen.query_one("#preview-meta", Static).render()) == ""
        preview = screen.query_one("#preview")
        assert "No template matches" in preview.source  # type: ignore[attr-defined]
