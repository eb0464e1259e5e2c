"""Control characters in what a pack holds: found (file, template, field), and shown as visible escapes."""

from __future__ import annotations

import re
from typing import Any

#: The characters a terminal may act on instead of showing: C0 but tab and newline, DEL, and C1 (U+0080 to
#: U+009F: U+009B is a one-character CSI, U+009D an OSC). ESC (U+001B) starts every escape sequence.
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _escape(match: re.Match[str]) -> str:
    return f"\\x{ord(match.group()):02x}"


def visible(text: str) -> str:
    r"""``text`` with each control character written as its escape, as Python's repr writes it: ESC as the
    four characters ``\x1b``. Tab and newline stay.

    >>> visible("a\x1b]0;title\x07b\tc\n")
    'a\\x1b]0;title\\x07b\tc\n'
    """
    return CONTROL.sub(_escape, text) if CONTROL.search(text) else text


def neutralised(raw: Any) -> tuple[Any, list[str]]:
    r"""``raw`` (a parsed TOML value) with every control character of its texts and keys made ``visible``,
    and the fields that held one, named as problems name them (``mistakes[0].title``, ``variables.a``).

    The walk uses a stack, not recursion: a table nested as deep as tomllib can read stays within Python's
    recursion limit. A value without a control character is returned as it is (no copy); one with any is
    copied whole.

    >>> neutralised({"title": "a\x1b[2J", "tags": ["ok", "\x9b"], "minutes": 1})
    ({'title': 'a\\x1b[2J', 'tags': ['ok', '\\x9b'], 'minutes': 1}, ['title', 'tags[1]'])
    """
    found: list[str] = []
    if not _holds_control(raw):  # the common case: nothing copied
        return raw, found
    root: list[Any] = [raw]
    # (container, key in it, field of the value): each container met is copied, then its items replaced
    stack: list[tuple[Any, Any, str]] = [(root, 0, "")]
    while stack:
        container, key, field = stack.pop()
        value = container[key]
        if isinstance(value, str):
            if CONTROL.search(value):
                found.append(field)
                container[key] = visible(value)
        elif isinstance(value, dict):
            copy: dict[str, Any] = {}
            for name, item in value.items():
                shown = visible(name)
                if shown != name:
                    found.append(_join(field, shown))
                copy[shown] = item
            container[key] = copy
            stack.extend((copy, name, _join(field, name)) for name in reversed(list(copy)))
        elif isinstance(value, list):
            items = list(value)
            container[key] = items
            stack.extend((items, i, f"{field}[{i}]") for i in reversed(range(len(items))))
    return root[0], found


def _join(field: str, name: str) -> str:
    return f"{field}.{name}" if field else name


def _holds_control(value: Any) -> bool:
    """Whether any text or key inside ``value`` holds a control character (iteratively, as above)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if CONTROL.search(item):
                return True
        elif isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


__all__ = ["CONTROL", "neutralised", "visible"]
