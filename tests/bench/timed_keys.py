"""Bench: keys sent to an app under run_test, each timed to the first frame written that shows a text."""

from __future__ import annotations

import asyncio
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the bench's modules are imported inside functions: pytest collects these files too
    from frames import Frames

#: The longest wait for a screen, a worker or a frame before the bench gives up.
TIMEOUT_S = 20.0


class Bench:
    """One app under run_test, its frames recorded; ``timed`` sends a key and finds the frame of a text."""

    def __init__(self, app: Any, pilot: Any, frames: Frames) -> None:
        self.app, self.pilot, self.frames = app, pilot, frames
        self.times: defaultdict[str, list[float]] = defaultdict(list)
        #: Rounds left out because the text was on screen before the key (two prompts alike).
        self.ambiguous: Counter[str] = Counter()

    def screen(self, kind: type) -> Any:
        """The current screen if it is a ``kind``, else None."""
        return self.app.screen if isinstance(self.app.screen, kind) else None

    async def until(self, ready: Callable[[], Any], what: str) -> Any:
        """Wait (polling every 20 ms) until ``ready()`` is truthy; returns it. A widget not there yet (a
        screen pushed and still composing its children) is not ready yet."""
        from textual.css.query import NoMatches

        def polled() -> Any:
            try:
                return ready()
            except NoMatches:
                return None

        deadline = time.perf_counter() + TIMEOUT_S
        while not (value := polled()):
            if time.perf_counter() > deadline:
                screen = type(self.app.screen).__name__
                raise SystemExit(f"bench: gave up waiting for {what} (on {screen}):\n{self.frames.text()}")
            await asyncio.sleep(0.02)
        return value

    async def settle(self) -> None:
        """Let the app finish what the last step started (workers, refreshes), as a person reading would."""
        await self.app.workers.wait_for_complete()
        await self.pilot.pause(0.1)
        self.frames.drain()

    async def keys(self, *keys: str) -> None:
        """Untimed keys, then settle."""
        await self.pilot.press(*keys)
        await self.settle()

    async def timed(self, row: str, key: str, target: Callable[[], str | None]) -> float | None:
        """Send ``key``; ``target()`` gives the text to wait for once the app knows it (None before): the
        time from the key to the first frame written that shows it joins ``row``. A round whose text was
        on screen before the key is counted as ambiguous and left out. Returns that frame's time stamp.

        The replay and the search run after the stamps are taken (polled every 20 ms, between frames)."""
        self.frames.drain()
        start = time.perf_counter()  # the pilot hands the key to the app's driver right after this
        await self.pilot.press(key)
        text = await self.until(target, f"the target of {row!r}")
        self.frames.replay_until(start)
        if self.frames.shows(text):
            self.ambiguous[row] += 1
            await self.settle()
            return None
        deadline = time.perf_counter() + TIMEOUT_S
        while (stamp := self.frames.first_showing(text)) is None:
            if time.perf_counter() > deadline:
                raise SystemExit(f"bench: {text!r} never painted for {row!r}:\n{self.frames.text()}")
            await asyncio.sleep(0.02)
        self.times[row].append((stamp - start) * 1000)
        await self.settle()
        return stamp
