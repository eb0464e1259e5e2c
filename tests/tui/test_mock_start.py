"""Pilot tests of the mock's start screen: the set and its expected time shown, the clock started on enter."""

from __future__ import annotations

from snapshot_app import FakeClock, make_app
from textual.widgets import Input, Static

from quizzer.tui.screens.home import HomeScreen
from quizzer.tui.screens.mock import MockScreen
from quizzer.tui.screens.mock_start import MockStart, MockStartScreen

SIZE = (100, 32)


def text(app, selector: str) -> str:  # type: ignore[no-untyped-def]
    return str(app.screen.query_one(selector, Static).render())


async def test_home_m_opens_the_start_screen_and_enter_starts_the_clock() -> None:
    clock = FakeClock()
    app = make_app(clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)
        await pilot.press("m")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MockStartScreen)
        assert screen.query_one("#mock-start-count", Input).value == "8"  # the settings' defaults
        assert screen.query_one("#mock-start-minutes", Input).value == "20"
        # the test pack has two templates (1 and 2 minutes): 8 questions take 12 minutes, not 16 to 24
        assert text(app, "#mock-start-total") == "✗ no 8 questions fill 20 minutes: the longest 8 take 12"
        minutes = screen.query_one("#mock-start-minutes", Input)
        minutes.focus()
        minutes.value = ""
        await pilot.press("1", "3")  # 12 minutes of questions fit 13 (10.4 to 15.6)
        await pilot.pause()
        assert text(app, "#mock-start-total") == "8 questions · 13 minutes · expected total 12 min"
        listing = text(app, "#mock-start-list")
        assert listing.count("\n") == 7
        assert "Embedding table parameters" in listing
        assert not any(isinstance(s, MockScreen) for s in app.screen_stack)  # no clock runs yet
        clock.now += 300  # time spent on the start screen is not the mock's
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, MockScreen)
        exam = app.screen.exam
        assert exam.total == 8
        assert exam.remaining() == 13 * 60


async def test_escape_goes_back_to_home_without_a_mock() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("m")
        await pilot.pause()
        assert isinstance(app.screen, MockStartScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)
        assert app.store.sessions() == []  # nothing started: no session mark


async def test_changing_the_count_redraws() -> None:
    app = make_app(mock=MockStart(count=2, minutes=3, seed=5))  # as `quizzer mock --count 2 --minutes 3`
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MockStartScreen)
        assert text(app, "#mock-start-total") == "2 questions · 3 minutes · expected total 3 min"
        assert screen.instances is not None
        assert len({i.template_id for i in screen.instances}) == 2
        count = screen.query_one("#mock-start-count", Input)
        count.focus()
        count.value = ""
        await pilot.press("1")  # one question: 1 or 2 minutes, neither within ±20% of 3
        await pilot.pause()
        assert text(app, "#mock-start-total") == "✗ no question fills 3 minutes: the longest takes 2"
        await pilot.press("enter")  # nothing to start
        await pilot.pause()
        assert isinstance(app.screen, MockStartScreen)


async def test_save_set_writes_the_started_set(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from snapshot_app import PACK

    from quizzer.bank.loader import load_bank
    from quizzer.session.picking import parse_set

    path = tmp_path / "set.txt"
    app = make_app(mock=MockStart(count=2, minutes=3, seed=5, save_set=str(path)))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert not path.exists()  # written when the mock starts, not before
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, MockScreen)
        started = [i.id for i in app.screen.exam.instances]
    text = path.read_text()
    assert text.splitlines()[0].startswith("# quizzer mock set: 2 questions, 3 minutes")
    assert text.splitlines()[1:] == started
    assert [i.id for i in parse_set(load_bank([str(PACK)]), text, str(path))] == started


async def test_a_replayed_set_is_shown_and_started_as_given() -> None:
    from snapshot_app import PACK

    from quizzer.bank.loader import load_bank

    bank = load_bank([str(PACK)])
    given = (bank.generate("mini-product", 11), bank.generate("embedding-table-params", 12))
    app = make_app(mock=MockStart(minutes=4, instances=given))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert text(app, "#mock-start-total") == "2 questions · 4 minutes · expected total 3 min"
        await pilot.press("enter")
        await pilot.pause()
        assert [i.id for i in app.screen.exam.instances] == ["mini-product#11", "embedding-table-params#12"]


async def test_an_empty_or_invalid_field_says_why_and_nothing_starts() -> None:
    """On main, emptying the minutes kept the last draw on screen and enter started it."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("m")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MockStartScreen)
        count = screen.query_one("#mock-start-count", Input)
        count.value = "2"  # two questions take 3 minutes: 3 fits
        minutes = screen.query_one("#mock-start-minutes", Input)
        minutes.value = "3"
        await pilot.pause()
        assert text(app, "#mock-start-total") == "2 questions · 3 minutes · expected total 3 min"
        for typed, why in [
            ("", "✗ type the minutes: a number above 0, at most 600"),
            ("0", "✗ type the minutes: a number above 0, at most 600"),
            ("inf", "✗ type the minutes: a number above 0, at most 600"),
            ("601", "✗ type the minutes: a number above 0, at most 600"),
        ]:
            minutes.value = typed
            await pilot.pause()
            assert text(app, "#mock-start-total") == why
            assert text(app, "#mock-start-list") == ""  # the last draw is not kept behind it
            assert screen.query_one("#mock-start-go").disabled
            minutes.focus()
            await pilot.press("enter")
            await pilot.pause()
            assert app.screen is screen  # nothing started
        minutes.value = "3"
        count.value = ""
        await pilot.pause()
        assert text(app, "#mock-start-total") == "✗ type how many questions: a whole number from 1 to 100"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is screen
        count.value = "1"  # one question of 1 minute fills 1 minute: the singulars
        minutes.value = "1"
        await pilot.pause()
        assert text(app, "#mock-start-total").startswith("1 question · 1 minute · ")


async def test_home_reads_nothing_while_the_mock_it_is_under_opens_and_again_once_shown() -> None:
    app = make_app()
    reads: list[str] = []
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("m")
        await pilot.pause()
        minutes = app.screen.query_one("#mock-start-minutes", Input)
        minutes.focus()
        minutes.value = ""
        await pilot.press("1", "3")  # 8 questions of the test pack fit 13 minutes
        await app.workers.wait_for_complete()
        await pilot.pause()
        study_status = app.reader.study_status

        def counted(template_ids):  # type: ignore[no-untyped-def]
            reads.append(type(app.screen).__name__)
            return study_status(template_ids)

        app.reader.study_status = counted  # type: ignore[method-assign]
        await pilot.press("enter")  # the start screen leaves Home on top, then the mock is pushed over it
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, MockScreen)
        assert reads == []  # Home, under the mock, read nothing as it came back
        await pilot.press("ctrl+s", "ctrl+s")  # submitted: its report
        await pilot.pause()
        while not isinstance(app.screen, HomeScreen):
            await pilot.press("escape")
            await pilot.pause()
        await app.workers.wait_for_complete()
        assert reads[-1] == "HomeScreen"  # shown again: it reads what the mock changed
