"""textual-serve's server and per-tab app wrapper, bounded: sizes, origins, tab count, an app's end."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from typing import Any

from aiohttp import WSCloseCode, WSMsgType, web
from textual_serve.app_service import AppService
from textual_serve.server import Server

from quizzer.commands.serve_page import local_page
from quizzer.commands.serve_policy import (
    DEFAULT_COLUMNS,
    DEFAULT_ROWS,
    MAX_COLUMNS,
    MAX_ROWS,
    cells,
    origin_allowed,
    refusal_for_tabs,
    resize,
    terminal_size,
)

#: How long a tab's app may take to quit once asked (its tab closed, or the server stopping), in seconds;
#: then it is killed. Quitting takes well under a second (the app closes its history); an app that does not
#: answer is stuck, and its memory is the user's. Together with noticing the close, well within 10 s.
APP_QUIT_S = 6.0
#: How long the output of a killed app may take to drain to its tab, in seconds.
OUTPUT_DRAIN_S = 2.0
#: The most origins refused that the server names on its console (a hostile page may try many times).
REFUSALS_NAMED = 20


def say(line: str) -> None:
    """One line on the server's console (stderr), where `quizzer serve` reports."""
    print(line, file=sys.stderr, flush=True)


class TabApp(AppService):
    """textual-serve's app process for one tab, given a bounded terminal size and ended when its tab closes:
    asked to quit, killed after APP_QUIT_S if it does not, and reaped (textual-serve reads the app's output
    to the end, which an app that never quits never gives, and never reaps it)."""

    async def start(self, width: int, height: int) -> None:
        await super().start(
            cells(width, MAX_COLUMNS) or DEFAULT_COLUMNS, cells(height, MAX_ROWS) or DEFAULT_ROWS
        )

    async def set_terminal_size(self, width: int, height: int) -> None:
        size = resize({"width": width, "height": height})
        if size is not None:
            await super().set_terminal_size(*size)

    async def stop(self) -> None:
        task, self._task = self._task, None
        process = self._process
        if task is None or process is None:
            return
        await self._download_manager.cancel_app_downloads(app_service_id=self.app_service_id)
        try:  # the request to quit waits too: a stuck app may have stopped reading its input
            async with asyncio.timeout(APP_QUIT_S):
                await self.send_meta({"type": "quit"})
                await process.wait()
        except TimeoutError:
            if process.returncode is None:
                try:
                    process.kill()
                except ProcessLookupError:  # it ended meanwhile
                    pass
        # The reader ends at the end of the app's output; on a tab that no longer reads, wait_for cancels it.
        # Process.wait() also waits for the pipes to close, which an unread pipe may never do: bounded too
        # (the process itself has ended: the event loop's child watcher reaps it either way).
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(task, OUTPUT_DRAIN_S)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(process.wait(), OUTPUT_DRAIN_S)


class QuizzerServer(Server):
    """textual-serve's server for quizzer: a tab's page from another origin is refused, at most ``max_tabs``
    tabs run at once, their sizes are bounded, a malformed message is ignored, the page needs no other host,
    and stopping the server closes every tab's app (aiohttp would otherwise wait up to a minute)."""

    def __init__(
        self, command: str, *, origins: frozenset[str], max_tabs: int, open_browser: bool, **kw: Any
    ):
        super().__init__(command, **kw)
        self.origins = origins
        """The origins whose pages may open a tab (``serve_policy.served_origins``)."""
        self.max_tabs = max_tabs
        """The most tabs, each its own app process, that may be open at once."""
        self.open_browser = open_browser
        """Whether to open the default browser at the page once the server listens (--open)."""
        self.tabs: set[asyncio.Task[Any]] = set()
        """The websocket handlers of the open tabs (a tab counts until its app has ended)."""
        self.refused: set[str] = set()
        """The origins refused so far (each is named once on the console)."""

    async def on_startup(self, app: web.Application) -> None:
        self.console.print(f"quizzer serve: open {self.public_url} in a browser; Ctrl+C stops the server")
        if self.open_browser:  # in a thread: a console browser would hold the server up
            import webbrowser

            asyncio.get_running_loop().run_in_executor(None, webbrowser.open, self.public_url)

    async def on_shutdown(self, app: web.Application) -> None:
        # The handler takes the cancellation as "close": it asks the app to quit, waits for it (the app closes
        # its history), then closes the websocket.
        for task in self.tabs:
            task.cancel()

    async def handle_index(self, request: web.Request) -> web.StreamResponse:
        response = await super().handle_index(request)
        assert isinstance(response, web.Response)
        assert response.text is not None
        response.text = local_page(response.text)
        return response

    async def handle_websocket(self, request: web.Request) -> web.StreamResponse:  # type: ignore[override]
        origin = request.headers.get("Origin")
        if not origin_allowed(origin, self.origins):
            return self.refuse_origin(str(origin))
        task = asyncio.current_task()
        assert task is not None
        if len(self.tabs) >= self.max_tabs:  # counted and added with no await between: no race
            return await self.refuse_tab(request)
        self.tabs.add(task)
        websocket = web.WebSocketResponse(heartbeat=15)  # a browser gone silent: closed within about 25 s
        app_service: TabApp | None = None

        async def close() -> None:  # the app quit by itself (ctrl+q)
            await websocket.close()

        try:
            await websocket.prepare(request)
            app_service = TabApp(
                self.command,
                write_bytes=websocket.send_bytes,
                write_str=websocket.send_str,
                close=close,
                download_manager=self.download_manager,
                debug=self.debug,
            )
            await app_service.start(*terminal_size(request.query))
            await self._process_messages(websocket, app_service)
        except asyncio.CancelledError:  # the server is stopping
            pass
        except Exception as error:  # one line on the console, never a traceback
            say(f"quizzer serve: a tab ended on an error: {type(error).__name__}: {error}")
        finally:
            if app_service is not None:
                await app_service.stop()
            await websocket.close()
            self.tabs.discard(task)
        return websocket

    def refuse_origin(self, origin: str) -> web.Response:
        """A 403 for a websocket from a page of another origin; the first few such origins are named once."""
        if origin not in self.refused and len(self.refused) < REFUSALS_NAMED:
            self.refused.add(origin)
            say(
                f"quizzer serve: refused a tab opened by a page at {origin[:200]!r}, not this server's "
                "(--allow-origin URL lets one more origin in)"
            )
        return web.Response(status=403, text="quizzer serve: this page's origin may not open a tab\n")

    async def refuse_tab(self, request: web.Request) -> web.WebSocketResponse:
        """A tab over the cap: its websocket opens, then closes at once with a reason the page shows."""
        reason = refusal_for_tabs(self.max_tabs)
        say(reason)
        websocket = web.WebSocketResponse()
        await websocket.prepare(request)
        await websocket.close(code=WSCloseCode.TRY_AGAIN_LATER, message=reason.encode())
        return websocket

    async def _process_messages(self, websocket: web.WebSocketResponse, app_service: AppService) -> None:
        """textual.js's messages to the app (``["stdin", text]``, ``["resize", {"width", "height"}]``, ping,
        blur, focus); one that is not JSON, or not of that shape, is ignored rather than ending the tab."""
        async for message in websocket:
            if message.type != WSMsgType.TEXT:
                continue
            try:
                envelope = json.loads(message.data)
            except (ValueError, RecursionError):  # not JSON, or arrays nested past Python's recursion limit
                continue
            if not isinstance(envelope, list) or not envelope:
                continue
            kind, data = envelope[0], envelope[1] if len(envelope) > 1 else None
            if kind == "stdin" and isinstance(data, str):
                keys = data.encode("utf-8", "ignore")  # a lone surrogate is dropped
                if keys:  # Textual's input parser takes an empty packet as the end of its input: a deaf app
                    await app_service.send_bytes(keys)
            elif kind == "resize" and (size := resize(data)) is not None:
                await app_service.set_terminal_size(*size)
            elif kind == "ping" and isinstance(data, str):
                await websocket.send_json(["pong", data])
            elif kind == "blur":
                await app_service.blur()
            elif kind == "focus":
                await app_service.focus()
