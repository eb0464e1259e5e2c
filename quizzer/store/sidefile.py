"""Side files: attempts and cards the database never got, saved beside it as JSON lines, added back later."""

from __future__ import annotations

import json
import os
import time
from typing import Any

from quizzer.session.records import Attempt, CardRemoved, CardState, Item, SessionMark
from quizzer.store.faults import SIDE_MARK, SIDE_SUFFIX
from quizzer.store.rows import attempt_row, row_attempt

#: A side file larger than this is not read (a session's attempts take a few kB).
MAX_BYTES = 64 * 2**20
_NUMBER = (int, float)
#: The fields of a card and of a session mark in side files written before leeches and plans (version 5);
#: a card written before review logs (version 6) has none: its earlier reviews are unknown, as in the file.
_FIRST_CARD_FIELDS = ("template_id", "card_json", "introduced", "due")
_FIRST_SESSION_FIELDS = ("session", "mode", "started", "planned", "finished")


def lines(items: list[Item]) -> list[str]:
    """One JSON object per item: an attempt as ``quizzer export --format json`` writes it, a card as
    ``{"card": {"template_id": ..., "card_json": ..., "introduced": ..., "due": ...}}``."""
    return [json.dumps(_line(item)) for item in items]


def _line(item: Item) -> dict[str, Any]:
    if isinstance(item, Attempt):
        return attempt_row(item)
    if isinstance(item, SessionMark):
        return {"session": {**item.as_dict(), "plan": list(item.plan)}}
    if isinstance(item, CardRemoved):
        return {"card_removed": item.as_dict()}
    return {"card": item.as_dict()}


def save(db_path: str, items: list[Item], now: float) -> tuple[str | None, list[str]]:
    """Write ``items`` to a new side file beside the database or, failing that, in the temporary folder.

    Returns the file written (None if neither place took it) and, for each place that failed, what happened.
    """
    import tempfile  # here: it loads random and shutil, which opening a store does not need

    text = "".join(line + "\n" for line in lines(items))
    problems: list[str] = []
    for folder in (os.path.dirname(db_path), tempfile.gettempdir()):
        target = _new_name(db_path, now, folder)
        try:
            _write_new(target, text)
        except OSError as exc:
            problems.append(f"{target}: {exc.strerror or exc}")
            continue
        return target, problems
    return None, problems


def read(path: str) -> tuple[str, list[Item]]:
    """The SHA-256 of a side file and its items; ValueError naming the line that is not one (OSError if it
    cannot be read)."""
    import hashlib  # here: only a session that finds a side file needs it

    data, text = bounded_text(path, MAX_BYTES)
    items: list[Item] = []
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                items.append(_item(json.loads(line)))
            except (ValueError, TypeError) as exc:  # json.JSONDecodeError is a ValueError
                raise ValueError(f"line {number}: {exc}") from None
    return hashlib.sha256(data).hexdigest(), items


def bounded_text(path: str, limit_bytes: int) -> tuple[bytes, str]:
    """The file at ``path`` as bytes and UTF-8 text, at most ``limit_bytes`` read; ValueError saying it is
    larger or not UTF-8 (where), OSError if it cannot be read."""
    if os.path.getsize(path) > limit_bytes:
        raise ValueError(f"larger than {limit_bytes // 2**20} MiB")
    with open(path, "rb") as file:
        data = file.read(limit_bytes + 1)
    try:
        return data, data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def _item(obj: Any) -> Item:
    """An Attempt, a card (kept or removed) or a session mark from one decoded line."""
    if not isinstance(obj, dict):
        raise ValueError("not a JSON object")
    if set(obj) == {"session"} and isinstance(obj["session"], dict):
        mark = dict(obj["session"])
        if not set(_FIRST_SESSION_FIELDS) <= set(mark) <= set(SessionMark._fields):
            raise ValueError(f"a session needs {', '.join(_FIRST_SESSION_FIELDS)} (and may have a plan)")
        plan = mark.pop("plan", [])
        if not (isinstance(plan, list) and all(isinstance(t, str) for t in plan)):
            raise ValueError("a session's plan is a list of template ids")
        if not isinstance(mark.get("minutes"), (*_NUMBER, type(None))):
            raise ValueError("a session's minutes is a number or null")
        return SessionMark(**mark, plan=tuple(plan))
    if set(obj) == {"card_removed"} and isinstance(obj["card_removed"], dict):
        removed = obj["card_removed"]
        if set(removed) != {"template_id"} or not isinstance(removed["template_id"], str):
            raise ValueError("a removed card needs exactly a template_id (a string)")
        return CardRemoved(removed["template_id"])
    if "card" not in obj:
        return row_attempt(obj)
    card = obj["card"]
    if not isinstance(card, dict) or set(obj) != {"card"}:
        raise ValueError(f"a card needs {', '.join(_FIRST_CARD_FIELDS)}")
    if not set(_FIRST_CARD_FIELDS) <= set(card) <= set(CardState._fields):
        raise ValueError(
            f"a card needs {', '.join(_FIRST_CARD_FIELDS)} (and may have lapses, suspended, review_log)"
        )
    if not (isinstance(card["template_id"], str) and isinstance(card["card_json"], str)):
        raise ValueError("a card's template_id and card_json are strings")
    if not (isinstance(card["introduced"], _NUMBER) and isinstance(card["due"], _NUMBER)):
        raise ValueError("a card's introduced and due are numbers")
    if not isinstance(card.get("lapses", 0), int) or not isinstance(
        card.get("suspended"), (*_NUMBER, type(None))
    ):
        raise ValueError("a card's lapses is a whole number and suspended a number or null")
    if not isinstance(card.get("review_log"), (str, type(None))):
        raise ValueError("a card's review_log is a string (JSON) or null")
    return CardState(**card)


def _new_name(db_path: str, now: float, folder: str) -> str:
    """``<folder>/<db name>.unsaved-<YYYYmmdd-HHMMSS>.jsonl`` in local time, ``.2``... if that is taken."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now))
    base = os.path.join(folder, f"{os.path.basename(db_path)}{SIDE_MARK}{stamp}")
    name, n = base + SIDE_SUFFIX, 1
    while os.path.lexists(name) or os.path.lexists(name + ".part"):
        n += 1
        name = f"{base}.{n}{SIDE_SUFFIX}"
    return name


def _write_new(target: str, text: str) -> None:
    """Write ``text`` to ``target`` through a temporary name, synced: a reader never sees half a file."""
    part = target + ".part"
    try:
        with open(part, "x", encoding="utf-8") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        os.rename(part, target)
    except OSError:
        try:
            os.remove(part)
        except OSError:
            pass
        raise
