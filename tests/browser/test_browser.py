"""A real browser (`make test-browser`): headless Chromium opens `quizzer serve`, drills, the attempt is kept;
the page asks no other host for anything, and a tab over the cap says why it closed.

Never skipped: without /usr/bin/chromium, /usr/bin/chromedriver or selenium the test fails and says why
(make test-browser installs them). It saves docs/browser.png, the README's picture.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from served import PATIENCE_S, screen_text, serving

from quizzer.store.history import HistoryStore

pytestmark = pytest.mark.browser

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
SCREENSHOT = Path(__file__).resolve().parent.parent.parent / "docs" / "browser.png"
#: The viewport: the README picture's size in pixels (about 104 x 33 cells at textual-serve's 16px font).
WIDTH_PX, HEIGHT_PX = 1000, 640
#: Without the background-networking flags Chromium keeps calling hosts this closed network refuses.
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    f"--window-size={WIDTH_PX},{HEIGHT_PX}",
)
#: textual.js draws the terminal on a canvas, so the page has no text to read: this script, run before the
#: page's own, keeps what the websocket brings (the bytes the browser renders) in window.quizzerScreen.
RECORD_SCREEN = """
window.quizzerScreen = "";
const decoder = new TextDecoder();
const Native = window.WebSocket;
window.WebSocket = class extends Native {
  constructor(...args) {
    super(...args);
    this.addEventListener("message", (event) => {
      if (typeof event.data === "string") return;  // JSON meta messages, not the screen
      if (event.data instanceof ArrayBuffer) {
        window.quizzerScreen += decoder.decode(event.data, {stream: true});
      } else {  // a Blob
        event.data.arrayBuffer().then((b) => { window.quizzerScreen += decoder.decode(b, {stream: true}); });
      }
    });
  }
};
"""
HOME = "Sizing questions as interviews ask them"
#: Home once the bank is loaded: the first topic of the built-in bank's table (alphabetical: a topic lower
#: down may sit below the fold once new topics are added, as 'kv-cache' did when 'hybrids' came).
HOME_LOADED = "activations"
ANSWER_BOX = "e.g. 16.4M"
VERDICTS = ("✓ ", "✗ Wrong", "≈ ")
ANSWER = "12345"


def start_chromium(profile: Path) -> Any:
    """Debian's Chromium through Debian's chromedriver, headless, with a fresh profile; fails if missing."""
    missing = [str(p) for p in (CHROMIUM, CHROMEDRIVER) if not os.access(p, os.X_OK)]
    if missing:
        pytest.fail(
            f"{' and '.join(missing)} missing: apt-get install chromium chromium-driver (make test-browser)"
        )
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        pytest.fail("selenium is not installed: pip install --group browser (make test-browser)")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (*FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL"})  # the network log: requested()
    driver = webdriver.Chrome(options=options, service=Service(str(CHROMEDRIVER)))
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORD_SCREEN})
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": WIDTH_PX, "height": HEIGHT_PX, "deviceScaleFactor": 1, "mobile": False},
    )
    return driver


def requested(driver: Any) -> list[str]:
    """Every URL the page asked for since the last call (documents, styles, scripts, fonts, images,
    fetches, websockets), from Chromium's network log (DevTools' Network events)."""
    urls = []
    for entry in driver.get_log("performance"):
        event = json.loads(entry["message"])["message"]
        if event["method"] == "Network.requestWillBeSent":
            urls.append(event["params"]["request"]["url"])
        elif event["method"] == "Network.webSocketCreated":
            urls.append(event["params"]["url"])
    return urls


def screen(driver: Any) -> str:
    """The text of everything the page's websocket has brought so far."""
    return screen_text(str(driver.execute_script("return window.quizzerScreen || ''")).encode())


def appears(driver: Any, *texts: str, since: int = 0, timeout_s: float = PATIENCE_S) -> str | None:
    """The first of ``texts`` to appear in the screen text after position ``since``, or None in time."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        now = screen(driver)[since:]
        for text in texts:
            if text in now:
                return text
        time.sleep(0.1)
    return None


def expect(driver: Any, *texts: str, since: int = 0) -> None:
    """Wait for one of ``texts``; fail with the screen text if none comes."""
    if appears(driver, *texts, since=since) is None:
        pytest.fail(f"the page never showed {texts}; its last screen text:\n{screen(driver)[-2000:]}")


def test_a_drill_in_headless_chromium(tmp_path: Path) -> None:
    db = tmp_path / "browser.sqlite3"
    driver = start_chromium(tmp_path / "profile")
    try:
        from selenium.webdriver.common.action_chains import ActionChains
        from selenium.webdriver.common.keys import Keys

        with serving("--db", str(db), cwd=tmp_path) as served:
            driver.get(served.url)
            expect(driver, HOME)
            expect(driver, HOME_LOADED)
            time.sleep(0.5)  # the loading indicator fades out; the picture is taken after it
            SCREENSHOT.parent.mkdir(exist_ok=True)
            assert driver.get_screenshot_as_file(str(SCREENSHOT))
            # keys go where a person's go: xterm.js's input box, which sends them down the websocket
            driver.execute_script("document.querySelector('.xterm-helper-textarea').focus()")
            keys = ActionChains(driver)
            mark = len(screen(driver))
            keys.send_keys("d").perform()
            expect(driver, ANSWER_BOX, since=mark)
            for _ in range(3):  # keys typed while the question is being painted are dropped: type again
                mark = len(screen(driver))
                keys.send_keys(ANSWER).perform()
                if appears(driver, ANSWER, since=mark, timeout_s=2):
                    break
            else:
                pytest.fail(f"the answer box never showed {ANSWER}:\n{screen(driver)[-2000:]}")
            mark = len(screen(driver))
            keys.send_keys(Keys.ENTER).perform()
            expect(driver, *VERDICTS, since=mark)
            driver.get_screenshot_as_file(str(tmp_path / "feedback.png"))
            driver.get("about:blank")  # the tab closes: its app quits and closes the history
            assert served.stop() == 0
        assert "Traceback" not in served.out + served.err, served.out + served.err
    finally:
        driver.quit()
    store = HistoryStore.open(db)
    try:
        attempts = store.attempts()
    finally:
        store.close()
    assert [(a.mode, a.answer.endswith(ANSWER)) for a in attempts] == [("drill", True)]


def test_the_page_asks_no_other_host(tmp_path: Path) -> None:
    driver = start_chromium(tmp_path / "profile")
    try:
        with serving("--db", str(tmp_path / "history.sqlite3"), cwd=tmp_path) as served:
            requested(driver)  # what Chromium's own start page asked for is not the page's
            driver.get(served.url)
            expect(driver, HOME)
            expect(driver, HOME_LOADED)
            fonts = driver.execute_async_script(  # the page's fonts, once every one asked for has loaded
                "const done = arguments[arguments.length - 1];"
                "document.fonts.ready.then(() => done([...document.fonts].map((f) => [f.family, f.status])));"
            )
            urls = requested(driver)
            driver.get("about:blank")
            assert served.stop() == 0
    finally:
        driver.quit()
    here = f"127.0.0.1:{served.port}"
    elsewhere = [
        url for url in urls if urlsplit(url).scheme not in ("data", "blob") and urlsplit(url).netloc != here
    ]
    assert elsewhere == [], f"the page asked other hosts: {elsewhere}"
    assert f"http://{here}/static/fonts/RobotoMono-VariableFont_wght.ttf" in urls, urls
    assert ["Roboto Mono", "loaded"] in fonts, fonts
    assert f"ws://{here}/ws" in [url.split("?")[0] for url in urls], urls


def test_a_tab_over_the_cap_says_why_it_closed(tmp_path: Path) -> None:
    driver = start_chromium(tmp_path / "profile")
    try:
        with serving("--max-tabs", "1", "--db", str(tmp_path / "history.sqlite3"), cwd=tmp_path) as served:
            driver.get(served.url)
            expect(driver, HOME)
            driver.switch_to.new_window("tab")
            driver.get(served.url)
            deadline = time.monotonic() + PATIENCE_S
            shown = ""
            while time.monotonic() < deadline and "--max-tabs" not in shown:
                time.sleep(0.1)
                shown = driver.execute_script(
                    "return document.body.classList.contains('-closed') ?"
                    " document.querySelector('.closed-dialog .message').textContent : ''"
                )
            driver.close()
            driver.switch_to.window(driver.window_handles[0])
            driver.get("about:blank")
            assert served.stop() == 0
    finally:
        driver.quit()
    assert shown == "quizzer serve: 1 tab is open, the most allowed (--max-tabs). Close one, then Restart."
