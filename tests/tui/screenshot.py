"""`make screenshot`: the README's picture of a drill's feedback, taken by the app itself (an SVG)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from snapshot_app import drill_app
from textual.widgets import Input

OUT = Path(__file__).resolve().parents[2] / "docs" / "drill-feedback.svg"


async def main() -> None:
    app = drill_app()
    async with app.run_test(size=(100, 36)) as pilot:
        await pilot.pause()
        for widget in app.screen.query(Input):
            widget.cursor_blink = False
        wrong = 2 * app.screen.session.instance.value  # type: ignore[attr-defined]
        await pilot.press(*f"{wrong / 1e9:.2f}B", "enter")
        await pilot.pause()
        app.save_screenshot(filename=OUT.name, path=str(OUT.parent))
    print(f"wrote {OUT}")


if __name__ == "__main__":
    asyncio.run(main())
