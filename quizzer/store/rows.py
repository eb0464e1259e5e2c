"""Attempts as JSON-ready rows: the fields of `quizzer export` and of the side files the store saves."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Any

from quizzer.session.records import Attempt

#: The columns of the CSV and the keys of each JSON object: Attempt's fields, with ``at_iso`` after ``at``.
COLUMNS: tuple[str, ...] = tuple(
    name for field in Attempt._fields for name in ((field, "at_iso") if field == "at" else (field,))
)
_NUMBER = (int, float)
#: The JSON types each field of a row may have (what attempt_row writes).
_TYPES: dict[str, tuple[type, ...]] = {
    **dict.fromkeys(("template_id", "answer", "unit", "verdict", "mode", "session", "topic"), (str,)),
    **dict.fromkeys(("expected", "seconds", "at", "minutes"), _NUMBER),
    **dict.fromkeys(("value", "rel_error"), (*_NUMBER, type(None))),
    "seed": (int,),
    "hints": (int,),
    "variables": (dict,),
    "mistake": (str, type(None)),
    "mistake_title": (str, type(None)),
    "part": (int, type(None)),
    "carried": (dict, type(None)),
}


#: Fields added after the first release, which rows written before may lack (they take their defaults).
_ADDED_LATER = frozenset({"mistake_title", "part", "carried"})


def iso_utc(at: float) -> str:
    """Seconds since the epoch as ISO-8601 UTC with milliseconds: ``2024-03-10T12:00:00.000Z``."""
    try:
        return datetime.fromtimestamp(at, tz=UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    except (OverflowError, OSError, ValueError):  # a clock far outside the calendar
        return ""


def attempt_row(attempt: Attempt) -> dict[str, Any]:
    """One attempt as a JSON-ready dict in COLUMNS order (ints stay ints, exact however big)."""
    values = attempt.as_dict()
    values["at_iso"] = iso_utc(attempt.at)
    return {name: values[name] for name in COLUMNS}


def row_attempt(row: dict[str, Any]) -> Attempt:
    """The Attempt of an attempt_row() (``at_iso`` is ignored); ValueError naming a missing or bad field."""
    fields = {name: value for name, value in row.items() if name != "at_iso"}
    for name in Attempt._fields:
        if name not in fields and name in _ADDED_LATER:
            continue  # a side file written before the field existed
        if name not in fields:
            raise ValueError(f"no {name!r}")
        if not isinstance(fields[name], _TYPES[name]):
            raise ValueError(f"{name!r} is {type(fields[name]).__name__}")
    unknown = sorted(set(fields) - set(Attempt._fields))
    if unknown:
        raise ValueError(f"unknown field {unknown[0]!r}")
    return Attempt(**fields)


def to_json(attempts: list[Attempt]) -> str:
    """Every attempt as a JSON list of attempt_row objects (``quizzer export --format json``)."""
    return json.dumps([attempt_row(a) for a in attempts], indent=2)


def to_csv(attempts: list[Attempt]) -> str:
    """A header row, then one row per attempt; variables (and carried answers) as JSON, None as empty.

    Numbers stay numbers (a negative relative error is written ``-0.5``); every text cell passes through
    ``csv_cell``, so no cell reaches a spreadsheet as a formula or a terminal as an escape sequence.
    """
    import csv  # here: only an export needs it
    import io

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for a in attempts:
        row = attempt_row(a)
        row["variables"] = json.dumps(row["variables"])
        if row["carried"] is not None:
            row["carried"] = json.dumps(row["carried"])
        writer.writerow([csv_cell(value) for value in row.values()])
    return out.getvalue()


#: The first characters that make a spreadsheet read a cell as a formula (OWASP, "CSV Injection").
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
#: The control characters, as bank.read.control.CONTROL (the store imports no bank; a test compares them).
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def csv_cell(value: Any) -> Any:
    r"""A CSV cell: a text starting with ``=``, ``+``, ``-``, ``@``, tab or carriage return gets a leading
    ``'`` (a spreadsheet then shows it as text, never evaluates it), then every control character but
    newline and tab is written as its escape (``\x1b``), as the verbs write them to a terminal. Anything
    else (numbers, None) is returned as it is.

    >>> csv_cell("=HYPERLINK(1)"), csv_cell("-16.4M"), csv_cell("16.4M"), csv_cell(-0.5)
    ("'=HYPERLINK(1)", "'-16.4M", '16.4M', -0.5)
    >>> csv_cell("\r=1+1\x1b[2J")
    "'\\x0d=1+1\\x1b[2J"
    """
    if not isinstance(value, str):
        return value
    text = "'" + value if value.startswith(FORMULA_START) else value
    return _CONTROL.sub(_escape, text) if _CONTROL.search(text) else text


def _escape(match: re.Match[str]) -> str:
    return f"\\x{ord(match.group()):02x}"
