"""KeyFooter: Textual's Footer, built again only when the keys it shows change."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.widgets import Footer

if TYPE_CHECKING:
    from textual.app import ComposeResult
    from textual.screen import Screen


class KeyFooter(Footer):
    """The footer of every screen. Textual's Footer removes and builds all its keys (a widget each, styled
    with two component classes) every time a screen's bindings are updated: each focus change, each
    question, each ``refresh_bindings``. Most updates show the same keys; this one builds them again only
    when what it would show differs (the keys, their labels and tooltips, which are enabled, the palette
    key, the compact style), so it looks exactly as Textual's does."""

    _shown: tuple[Any, ...] | None = None
    """What the last build showed (``_keys_shown``), None before the first."""
    _pending = False
    """Whether a build is scheduled (it reads the bindings as they are when it runs)."""

    def _keys_shown(self, screen: Screen[Any]) -> tuple[Any, ...]:
        """Everything Footer.compose reads to build its keys, for ``screen``'s bindings now."""
        app = screen.app
        return (
            self.compact,
            self.show_command_palette,
            tuple(
                (key, active.binding, app.get_key_display(active.binding), active.enabled, active.tooltip)
                for key, active in screen.active_bindings.items()
                if active.binding.show or key == app.COMMAND_PALETTE_BINDING
            ),
        )

    def compose(self) -> ComposeResult:
        if self._bindings_ready:
            self._shown = self._keys_shown(self.screen)
        yield from super().compose()

    def bindings_changed(self, screen: Screen[Any]) -> None:
        # Footer.bindings_changed, with one build at a time: it schedules one for every update, and a
        # screen's first paint alone sends several
        self._bindings_ready = True
        if self._pending or not screen.app.app_focus or not (self.is_attached and screen is self.screen):
            return
        if self._shown is None or self._keys_shown(screen) != self._shown:
            self._pending = self.call_after_refresh(self._rebuild)  # False: closing, nothing scheduled

    async def _rebuild(self) -> None:
        """Build the keys again if they still differ from those on show (the last update may undo one)."""
        self._pending = False
        if self.is_attached and (self._shown is None or self._keys_shown(self.screen) != self._shown):
            await self.recompose()
