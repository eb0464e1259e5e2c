"""Typing in Pilot tests: a run of keys sent as one burst, then one wait, as a terminal delivers fast typing.

``Pilot.press`` waits for the app to go idle after every key (two ``wait_for_idle`` of 20 ms or more each),
about a tenth of a second a key on 2 cores: most of a Pilot test's time when it types answers. ``type_keys``
sends the same Key events, in the same order, then waits once; the app handles each in turn as it would a
fast typist's. Use it for text typed into a focused box that is already on screen; press the key that
submits or changes screen (enter, escape) with ``pilot.press``, so that what follows waits for it.
"""

from __future__ import annotations

import unicodedata

from textual import events
from textual.app import App
from textual.keys import REPLACED_KEYS, _character_to_key, _get_unicode_name_from_key
from textual.pilot import Pilot


def key_event(key: str) -> events.Key:
    """The Key event ``Pilot.press(key)`` sends (as textual's ``App._press_keys`` builds it)."""
    if len(key) == 1 and not key.isalnum():
        key = _character_to_key(key)
    original = REPLACED_KEYS.get(key, key)
    try:
        char: str | None = unicodedata.lookup(_get_unicode_name_from_key(original))
    except KeyError:
        char = key if len(key) == 1 else None
    return events.Key(key, char)


async def type_keys(pilot: Pilot[object], *keys: str) -> None:
    """Send ``keys`` (characters or key names, as ``Pilot.press`` takes them) one after another through the
    app's driver, as ``Pilot.press`` does, then wait once for the app to finish with them."""
    app: App[object] = pilot.app
    driver = app._driver
    assert driver is not None, "the app is not running"
    for key in keys:
        event = key_event(key)
        event.set_sender(app)
        driver.send_message(event)
    await pilot.pause()
