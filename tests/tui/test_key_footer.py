"""KeyFooter shows what Textual's Footer shows, and builds its keys again only when they change."""

from __future__ import annotations

from typing import Any

from keys import type_keys
from snapshot_app import drill_app
from textual.widgets import Footer
from textual.widgets._footer import FooterKey  # the minor version is pinned

from quizzer.tui.app import QuizzerApp
from quizzer.tui.screens.drill import DrillScreen
from quizzer.tui.widgets.key_footer import KeyFooter

SIZE = (100, 32)


def keys_of(footer: Footer) -> list[tuple[str, str, str, bool, bool]]:
    """What a footer shows: each key's binding, label, description, whether dim, whether the palette's."""
    return [
        (k.key, k.key_display, k.description, k.has_class("-disabled"), k.has_class("-command-palette"))
        for k in footer.query(FooterKey)
    ]


def key_widgets(app: QuizzerApp) -> list[FooterKey]:
    return list(app.screen.query_one(KeyFooter).query(FooterKey))


async def same_as_stock(pilot: Any) -> None:
    """The screen's KeyFooter shows exactly the keys of a stock Footer mounted beside it."""
    screen = pilot.app.screen
    stock = Footer(id="stock")
    await screen.mount(stock)
    screen.refresh_bindings()  # a Footer shows nothing before its first bindings update
    await pilot.pause()
    await pilot.pause()
    ours = keys_of(screen.query_one(KeyFooter))
    assert ours, "the footer shows no key"
    assert ours == keys_of(stock)
    await stock.remove()


async def test_the_keys_are_a_stock_footers_through_a_drill() -> None:
    app = drill_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, DrillScreen)
        await same_as_stock(pilot)  # a question asked
        answering = keys_of(screen.query_one(KeyFooter))
        await type_keys(pilot, *str(screen.session.instance.value))  # type: ignore[arg-type]
        await pilot.press("enter")
        await pilot.pause()
        await same_as_stock(pilot)  # its feedback: other keys (the next question's)
        assert keys_of(app.screen.query_one(KeyFooter)) != answering
        await pilot.press("n")
        await pilot.pause()
        await same_as_stock(pilot)  # the next question: the answering keys again
        assert keys_of(app.screen.query_one(KeyFooter)) == answering
        await pilot.press("escape")
        await pilot.pause()
        await same_as_stock(pilot)  # Home


async def test_an_update_that_changes_no_key_builds_nothing() -> None:
    app = drill_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        before = key_widgets(app)
        assert before
        for _ in range(3):
            app.screen.refresh_bindings()
            await pilot.pause()
        assert key_widgets(app) == before  # the same widgets: nothing built again
        screen = app.screen
        assert isinstance(screen, DrillScreen)
        await type_keys(pilot, *str(screen.session.instance.value))  # type: ignore[arg-type]
        await pilot.press("enter")
        await pilot.pause()
        after = key_widgets(app)
        assert not set(map(id, after)) & set(map(id, before))  # the keys changed: built again


def test_no_screen_yields_textuals_footer() -> None:
    """Every footer is a KeyFooter: one of Textual's would rebuild its keys at each bindings update."""
    import ast
    from pathlib import Path

    import quizzer.tui

    root = Path(quizzer.tui.__file__).parent
    found = [
        str(path.relative_to(root))
        for path in sorted(root.rglob("*.py"))
        if path.name != "key_footer.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ImportFrom)
        and (node.module or "").startswith("textual")
        and any(alias.name == "Footer" for alias in node.names)
    ]
    assert found == []
    assert sum("KeyFooter()" in p.read_text(encoding="utf-8") for p in (root / "screens").glob("*.py")) >= 10
