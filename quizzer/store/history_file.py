"""The history file: one machine's whole history as a versioned JSON document, written and read back.

``quizzer export --format history`` writes it; ``quizzer import`` reads it (every field checked before the
history is touched). Version 1 holds:

- ``format`` ("quizzer-history"), ``version`` (1), ``machine`` (the host that wrote it), ``exported_at``
  (epoch seconds) and ``quizzer`` (the version that wrote it);
- ``attempts``: every attempt, as ``quizzer export --format json`` writes one (``at_iso`` is ignored);
- ``cards``: every study card: its state as that machine had it (``card_json``, ``introduced``, ``due``,
  ``lapses``, ``suspended``: leeches are the suspended ones) and ``reviews``, its review log
  (quizzer.session.review_log), which an import replays;
- ``sessions``: every session mark (when a mock or placement drill started and finished, its plan, limit).

Left out: the digests of side files already added (``side_files``: they say what this file has taken in,
nothing another machine needs), and the settings (config.toml is each machine's own).
"""

from __future__ import annotations

import json
import math
from typing import Any

from quizzer.core.record import Record
from quizzer.session import review_log
from quizzer.session.records import MODES, VERDICTS, Attempt, CardState, SessionMark
from quizzer.session.replay import check_card_json
from quizzer.session.review_log import Entry
from quizzer.store.rows import attempt_row, iso_utc, row_attempt
from quizzer.store.sidefile import bounded_text

FORMAT = "quizzer-history"
VERSION = 1
#: A history file larger than this is not read (a year of daily practice is a few MB).
MAX_BYTES = 512 * 2**20
_KEYS = ("format", "version", "machine", "exported_at", "quizzer", "attempts", "cards", "sessions")
_CARD_KEYS = ("template_id", "card_json", "introduced", "due", "lapses", "suspended", "reviews")
_SESSION_KEYS = ("session", "mode", "started", "planned", "finished", "plan", "minutes")


class HistoryFile(Record):
    """What a history file holds, checked: its machine, when it was written, and its records."""

    machine: str
    exported_at: float
    attempts: tuple[Attempt, ...]
    logs: dict[str, tuple[Entry, ...]]
    """Template id -> its card's review log (a card written without one: its state as the base)."""
    sessions: tuple[SessionMark, ...]


def document(
    attempts: list[Attempt],
    cards: list[CardState],
    sessions: list[SessionMark],
    *,
    machine: str,
    exported_at: float,
    quizzer_version: str,
) -> str:
    """The history file's text (JSON, indented) of these records."""
    doc = {
        "format": FORMAT,
        "version": VERSION,
        "machine": machine,
        "exported_at": exported_at,
        "exported_at_iso": iso_utc(exported_at),
        "quizzer": quizzer_version,
        "attempts": [attempt_row(a) for a in attempts],
        "cards": [_card(c) for c in cards],
        "sessions": [{**m.as_dict(), "plan": list(m.plan)} for m in sessions],
    }
    return json.dumps(doc, indent=1, allow_nan=False)


def _card(card: CardState) -> dict[str, Any]:
    fields = card.as_dict()
    del fields["review_log"]
    return {**fields, "reviews": review_log.entries_of(card)}


def read(path: str) -> HistoryFile:
    """The history file at ``path``; ValueError naming what is wrong and where; OSError if unreadable."""
    try:
        _, text = bounded_text(path, MAX_BYTES)
    except ValueError as exc:
        raise ValueError(f"{exc}: not a history file") from None
    try:
        doc = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})") from None
    except (ValueError, RecursionError) as exc:  # NaN, a number too long, nesting too deep
        raise ValueError(f"not JSON quizzer can read ({exc})") from None
    return parse(doc)


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not a number JSON allows")


def parse(doc: Any) -> HistoryFile:
    """The HistoryFile of a decoded document; ValueError naming the first thing wrong."""
    if isinstance(doc, list):
        raise ValueError(
            "a list of attempts (`quizzer export --format json`), not a history file: on the other machine,"
            " run `quizzer export --format history --output FILE`"
        )
    if not isinstance(doc, dict):
        raise ValueError(f"not a quizzer history file (a JSON {_kind(doc)}, not an object)")
    if doc.get("format") != FORMAT:
        found = f"its format is {doc['format']!r}" if "format" in doc else "it has no 'format'"
        raise ValueError(f"not a quizzer history file ({found}; expected {FORMAT!r})")
    version = doc.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise ValueError(f"its 'version' is {version!r}; a history file's is a whole number from 1")
    if version > VERSION:
        raise ValueError(
            f"written by a newer quizzer (history format version {version}; this one reads up to {VERSION}):"
            " upgrade quizzer here first"
        )
    missing = [key for key in _KEYS if key not in doc]
    if missing:
        raise ValueError(f"no {missing[0]!r} field")
    unknown = sorted(set(doc) - {*_KEYS, "exported_at_iso"})
    if unknown:
        raise ValueError(f"unknown field {unknown[0]!r} (version {VERSION} has {', '.join(_KEYS)})")
    if not isinstance(doc["machine"], str) or not isinstance(doc["quizzer"], str):
        raise ValueError("'machine' and 'quizzer' are strings")
    exported_at = _number(doc["exported_at"], "'exported_at'")
    return HistoryFile(
        doc["machine"],
        exported_at,
        tuple(_each(doc, "attempts", _attempt)),
        dict(_each(doc, "cards", _card_log)),
        tuple(_each(doc, "sessions", _session)),
    )


def _each(doc: dict[str, Any], key: str, read: Any) -> list[Any]:
    """``read`` of each element of the list ``doc[key]``; ValueError naming ``key[i]`` and what is wrong."""
    items = doc[key]
    if not isinstance(items, list):
        raise ValueError(f"'{key}' is a list, not a JSON {_kind(items)}")
    out = []
    for i, item in enumerate(items):
        try:
            if not isinstance(item, dict):
                raise ValueError(f"not a JSON object but a {_kind(item)}")
            out.append(read(item))
        except ValueError as exc:
            raise ValueError(f"{key}[{i}]: {exc}") from None
    return out


def _attempt(row: dict[str, Any]) -> Attempt:
    try:
        attempt = row_attempt(row)
    except TypeError as exc:  # a field of the wrong kind for the record
        raise ValueError(str(exc)) from None
    if attempt.verdict not in VERDICTS:
        raise ValueError(f"'verdict' is {attempt.verdict!r}, not one of {', '.join(VERDICTS)}")
    if attempt.mode not in MODES:
        raise ValueError(f"'mode' is {attempt.mode!r}, not one of {', '.join(MODES)}")
    _number(attempt.at, "'at'")
    return attempt


def _card_log(card: dict[str, Any]) -> tuple[str, tuple[Entry, ...]]:
    """(template id, review log) of one card; its state is checked as a base (used when it has no log)."""
    if set(card) != set(_CARD_KEYS):
        missing = [k for k in _CARD_KEYS if k not in card]
        problem = (
            f"no {missing[0]!r}" if missing else f"unknown field {sorted(set(card) - set(_CARD_KEYS))[0]!r}"
        )
        raise ValueError(f"{problem} (a card has {', '.join(_CARD_KEYS)})")
    template_id = card["template_id"]
    if not isinstance(template_id, str) or not template_id:
        raise ValueError("'template_id' is a non-empty string")
    fields = {k: card[k] for k in _CARD_KEYS[1:-1]}
    try:
        state = review_log.entry({"base": fields})
        if not isinstance(card["reviews"], list):
            raise ValueError(f"'reviews' is a list, not a JSON {_kind(card['reviews'])}")
        entries = [review_log.entry(e) for e in card["reviews"]] or [state]
        for e in entries:
            if "base" in e:
                check_card_json(e["base"]["card_json"])
    except ValueError as exc:
        raise ValueError(f"card {template_id!r}: {exc}") from None
    return template_id, tuple(entries)


def _session(mark: dict[str, Any]) -> SessionMark:
    if set(mark) != set(_SESSION_KEYS):
        missing = [k for k in _SESSION_KEYS if k not in mark]
        problem = (
            f"no {missing[0]!r}"
            if missing
            else f"unknown field {sorted(set(mark) - set(_SESSION_KEYS))[0]!r}"
        )
        raise ValueError(f"{problem} (a session has {', '.join(_SESSION_KEYS)})")
    if not (isinstance(mark["session"], str) and mark["session"] and isinstance(mark["mode"], str)):
        raise ValueError("a session's 'session' (its id) and 'mode' are strings")
    planned = mark["planned"]
    if not isinstance(planned, int) or isinstance(planned, bool) or planned < 0:
        raise ValueError("a session's 'planned' is a whole number, 0 or more")
    plan = mark["plan"]
    if not (isinstance(plan, list) and all(isinstance(t, str) for t in plan)):
        raise ValueError("a session's 'plan' is a list of template ids")
    finished, minutes = mark["finished"], mark["minutes"]
    return SessionMark(
        mark["session"],
        mark["mode"],
        _number(mark["started"], "'started'"),
        planned,
        None if finished is None else _number(finished, "'finished'"),
        tuple(plan),
        None if minutes is None else _number(minutes, "'minutes'"),
    )


def _number(value: Any, name: str) -> float:
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
        raise ValueError(f"{name} is a number")
    return float(value)


def _kind(value: Any) -> str:
    """The JSON name of a decoded value's type."""
    if value is None:
        return "null"
    names = {bool: "boolean", int: "number", float: "number", str: "string", list: "list", dict: "object"}
    return names.get(type(value), type(value).__name__)
