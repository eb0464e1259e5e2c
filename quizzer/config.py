"""Settings: the user's defaults, read from config.toml (unknown keys are errors); the app saves its theme."""

from __future__ import annotations

import datetime
import os
import re
import tomllib
from collections.abc import Collection, Iterable
from typing import Any

from quizzer.core.checks import did_you_mean
from quizzer.core.errors import QuizzerError
from quizzer.core.record import Record


class ConfigError(QuizzerError):
    """config.toml cannot be used (or saved): the message names the file and the key."""


class Settings(Record):
    """Defaults the command-line flags override, the app's theme and its keymap.

    >>> Settings().new_per_day, Settings().mock_count, Settings().mock_minutes, Settings().theme
    (10, 8, 20.0, None)
    """

    new_per_day: int = 10
    """New templates a study session introduces a day, at most (Home's Study button uses it too)."""
    mock_count: int = 8
    """Questions in a mock interview."""
    mock_minutes: float = 20.0
    """Minutes for a whole mock interview."""
    leech_lapses: int = 8
    """Study reviews rated "again" that make a template a leech, suspended from study (again at every half
    as many more once returned, as Anki); 0 turns leeches off."""
    desired_retention: float = 0.9
    """The probability of recall at a card's due date that study's fsrs schedule aims for (0.7 to 0.99):
    higher means shorter intervals, more reviews."""
    interview_date: str | None = None
    """The date study plans toward (``quizzer study --until``), as YYYY-MM-DD; None: plain fsrs study."""
    daily_minutes: float = 30.0
    """Minutes a day studying toward ``interview_date`` may take (the plan's budget)."""
    theme: str | None = None
    """The app's theme, by Textual's name ("nord"); the palette's theme switcher saves it. None: Textual's."""
    keymap: tuple[tuple[str, str], ...] = ()
    """``[keymap]``: (binding id, keys) pairs, several keys comma-separated ("ctrl+n,j"). The app checks the
    ids (config.py does not know them: the bindings live in the TUI)."""
    packs: tuple[str, ...] = ()
    """``packs``: folders of extra questions (``*.toml``) every verb that takes packs and the app load, as
    absolute paths: ``~`` expanded, a relative path read from config.toml's folder. A folder that is missing
    is not an error here: the verbs warn, naming it, and load the rest."""


#: key -> (type, smallest allowed value)
_FIELDS: dict[str, tuple[type, float]] = {
    "new_per_day": (int, 0),
    "mock_count": (int, 1),
    "mock_minutes": (float, 0),
    "leech_lapses": (int, 0),
    "daily_minutes": (float, 0),
}
_KNOWN = (*_FIELDS, "desired_retention", "interview_date", "theme", "keymap", "packs")
#: Bytes of config.toml read at most: a settings file holds a few hundred.
MAX_CONFIG_BYTES = 1 << 20
#: The range of ``desired_retention`` (inclusive): fsrs's schedule is poor outside it.
RETENTION_RANGE = (0.7, 0.99)
#: A date as config.toml and ``--until`` write it.
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
#: What a binding id looks like (quizzer's are kebab-case); any other is quoted in messages.
_PLAIN_ID = re.compile(r"[A-Za-z0-9_-]+")
#: One key of a keymap value: a name or a character, with modifiers ("j", "ctrl+n", "question_mark", "?").
_KEY = re.compile(r"[^\s,]+")
#: The modifiers a key may carry, as Textual names them in the keys it reads from a terminal.
MODIFIERS = ("ctrl", "shift", "alt", "meta", "super", "hyper")
#: Textual's names of the keys that type no character (textual.keys.Keys, the kitty keyboard protocol's
#: functional keys, and "newline", its alias of ctrl+j), written out here: config.py never imports textual.
#: A key that types a character is the character or its name (``question_mark``), checked with unicodedata.
#: tests/test_config_errors.py compares this list with textual's.
KEY_NAMES = frozenset(
    (
        *"backspace delete down end enter escape home insert left newline pagedown pageup return right "
        "space tab up".split(),
        *(f"f{n}" for n in range(1, 36)),
        *"add caps_lock decimal divide equal iso_level3_shift iso_level5_shift kp_begin left_alt "
        "left_control left_hyper left_meta left_shift left_super lower_volume media_fast_forward media_pause "
        "media_play media_play_pause media_record media_reverse media_rewind media_stop media_track_next "
        "media_track_previous menu multiply mute_volume num_lock pause print_screen raise_volume right_alt "
        "right_control right_hyper right_meta right_shift right_super scroll_lock separator subtract".split(),
    )
)
#: Textual's shorter names for some characters (textual.keys.KEY_NAME_REPLACEMENTS), and the Unicode names
#: with a dash that "_" cannot be read back into.
_CHARACTER_NAMES = {
    "slash": "/",
    "backslash": "\\",
    "at": "@",
    "minus": "-",
    "plus": "+",
    "underscore": "_",
    "less_than_sign": "<",
    "greater_than_sign": ">",
}
_RENAMED = frozenset({"solidus", "reverse_solidus", "commercial_at", "hyphen_minus", "plus_sign", "low_line"})


def load_settings(path: str) -> Settings:
    """The settings in ``path``; the defaults when there is no such file. Raises ConfigError (one line,
    naming the file and the key where there is one) for every other failure."""
    data = _read(path)
    if data is None:
        return Settings()
    values: dict[str, Any] = {}
    for key, value in data.items():
        if key == "theme":
            if not isinstance(value, str) or not value.strip():
                raise ConfigError(f'{path}: theme must be the name of a theme, e.g. "nord"')
            values[key] = value.strip()
            continue
        if key == "keymap":
            values[key] = _keymap(path, value)
            continue
        if key == "desired_retention":
            values[key] = _retention(path, value)
            continue
        if key == "interview_date":
            values[key] = _interview_date(path, value)
            continue
        if key == "packs":
            values[key] = _packs(path, value)
            continue
        if key not in _FIELDS:
            known = ", ".join(_KNOWN)
            raise ConfigError(f"{path}: unknown key {key!r}{did_you_mean(key, _KNOWN)} (known: {known})")
        kind, least = _FIELDS[key]
        if isinstance(value, bool) or not isinstance(value, (int, float) if kind is float else int):
            raise ConfigError(f"{path}: {key} must be {'a number' if kind is float else 'a whole number'}")
        if value < least or (kind is float and value == least):
            raise ConfigError(f"{path}: {key} must be {'more than' if kind is float else 'at least'} {least}")
        values[key] = kind(value)
    return Settings(**values)


def _read(path: str) -> dict[str, Any] | None:
    """The table config.toml holds, None when there is no file; ConfigError for a file that cannot be read
    (a folder or a FIFO in its place, no permission, over MAX_CONFIG_BYTES, not UTF-8, not TOML, nested
    too deeply, an integer over 4,300 digits)."""
    from quizzer.bank.read.files import NotAFile, TooLarge, Unreadable, parse_toml, read_regular

    try:
        data = read_regular(path, MAX_CONFIG_BYTES)
    except FileNotFoundError:
        return None
    except NotAFile as exc:
        raise ConfigError(f"{path}: cannot read it: it is {exc}, not a file") from None
    except TooLarge as exc:
        raise ConfigError(
            f"{path}: cannot read it: {exc.size:,} bytes, over the limit of {MAX_CONFIG_BYTES:,} for the "
            "settings"
        ) from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read it: {exc.strerror or exc}") from None
    try:
        return parse_toml(data)
    except Unreadable as exc:
        raise ConfigError(f"{path}: {exc}") from None


def _retention(path: str, value: object) -> float:
    """``desired_retention``: a number within RETENTION_RANGE; ConfigError otherwise."""
    low, high = RETENTION_RANGE
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
        raise ConfigError(f"{path}: desired_retention must be a number from {low} to {high}, e.g. 0.9")
    return float(value)


def parse_date(text: str) -> datetime.date | None:
    """The calendar date ``text`` names as YYYY-MM-DD, None when it names none.

    >>> parse_date("2026-12-18"), parse_date("2026-02-30"), parse_date("18/12/2026")
    (datetime.date(2026, 12, 18), None, None)
    """
    if not _DATE.fullmatch(text):
        return None
    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        return None


def _interview_date(path: str, value: object) -> str | None:
    """``interview_date``: a TOML date or a "YYYY-MM-DD" string naming a real date, kept as that string;
    "" for none (what the app saves when the date is cleared)."""
    if value == "":
        return None
    if isinstance(value, datetime.date) and not isinstance(value, datetime.datetime):
        return value.isoformat()
    if isinstance(value, str) and parse_date(value.strip()) is not None:
        return value.strip()
    raise ConfigError(f'{path}: interview_date must be a date written YYYY-MM-DD, e.g. "2026-12-18"')


def _packs(path: str, value: object) -> tuple[str, ...]:
    """``packs``: a list of folder paths, each made absolute (``~`` expanded, a relative one read from the
    folder of the config file at ``path``); ConfigError for anything but a list of non-empty texts."""
    example = 'e.g. packs = ["~/my-pack"]'
    if not isinstance(value, list):
        raise ConfigError(f"{path}: packs must be a list of folders, {example}")
    base = os.path.dirname(os.path.abspath(path))
    out: list[str] = []
    for i, item in enumerate(value):
        if not isinstance(item, str) or not item.strip():
            raise ConfigError(f"{path}: packs[{i}] must be the path of a folder, {example}")
        folder = os.path.expanduser(item.strip())
        out.append(os.path.normpath(os.path.join(base, folder)))  # join keeps an absolute folder as it is
    return tuple(out)


def _id(binding_id: str) -> str:
    """A binding id as messages show it: plain when it looks like one, else quoted (a newline, a space)."""
    return binding_id if _PLAIN_ID.fullmatch(binding_id) else repr(binding_id)


def _keymap(path: str, table: object) -> tuple[tuple[str, str], ...]:
    """``[keymap]``'s (binding id, keys) pairs, keys stripped of spaces; ConfigError for a malformed one."""
    if not isinstance(table, dict):
        raise ConfigError(f'{path}: keymap must be a table: [keymap] with lines like drill-next = "j"')
    pairs: list[tuple[str, str]] = []
    for binding_id, keys in table.items():
        names = [k.strip() for k in keys.split(",")] if isinstance(keys, str) else []
        if not names or not all(_KEY.fullmatch(k) for k in names):
            raise ConfigError(
                f"{path}: keymap.{_id(binding_id)} must be a key, or keys separated by commas, "
                'e.g. "j" or "ctrl+n,j"'
            )
        for key in names:
            problem = key_problem(key)
            if problem is not None:
                raise ConfigError(f"{path}: keymap.{_id(binding_id)}: {key!r} is not a key: {problem}")
        pairs.append((binding_id, ",".join(names)))
    return tuple(pairs)


def key_problem(key: str) -> str | None:
    """Why ``key`` (one key of a keymap value, no comma) is no key Textual can bind, or None when it is.

    A key is a character (``j``, ``?``), Textual's name of one (``question_mark``, ``slash``) or of a key
    that types none (``enter``, ``pageup``, ``f5``), after modifiers among MODIFIERS, each at most once.

    >>> [key_problem(k) for k in ("j", "?", "ctrl+shift+up", "question_mark", "alt+f5", "+")]
    [None, None, None, None, None, None]
    >>> key_problem("ctrl+shift+nonsense")[:37]
    "'nonsense' is no key Textual knows: w"
    >>> key_problem("cmd+a")
    "'cmd' is no modifier (ctrl, shift, alt, meta, super, hyper)"
    >>> key_problem("ctrl+ctrl+a"), key_problem("ctrl+")
    ("'ctrl' is given twice", 'no key follows the modifiers')
    """
    if len(key) == 1:
        return None if key.isprintable() and not key.isspace() else "a key must be a printable character"
    *modifiers, name = key.split("+")
    for i, modifier in enumerate(modifiers):
        if modifier not in MODIFIERS:
            return f"{modifier!r} is no modifier ({', '.join(MODIFIERS)})"
        if modifier in modifiers[:i]:
            return f"{modifier!r} is given twice"
    if not name:
        return "no key follows the modifiers"
    if len(name) == 1 and name.isprintable() and not name.isspace():
        return None
    if name in KEY_NAMES or _names_a_character(name):
        return None
    return (
        f"{name!r} is no key Textual knows: write a character, or a name such as enter, escape, tab, space, "
        "up, pageup, f5 or question_mark"
    )


def _names_a_character(name: str) -> bool:
    """Whether ``name`` is Textual's name of a printable character that is not a letter or a digit (those
    are named by themselves): its Unicode name, lower case, "_" for spaces and dashes, some shortened."""
    import unicodedata  # only for a keymap with such a name

    if name in _RENAMED:  # Textual reads "/" as "slash", never "solidus"
        return False
    character = _CHARACTER_NAMES.get(name)
    if character is None:
        try:
            character = unicodedata.lookup(name.replace("_", " ").upper())
        except KeyError:
            return False
    if len(character) != 1 or character.isalnum() or not character.isprintable():
        return False
    return (
        name in _CHARACTER_NAMES
        or unicodedata.name(character, "").lower().replace("-", "_").replace(" ", "_") == name
    )


def check_keymap(path: str, keymap: Iterable[tuple[str, str]], binding_ids: Collection[str]) -> None:
    """Raise ConfigError for the first binding id of ``keymap`` that is not in ``binding_ids``.

    >>> check_keymap("c.toml", [("drill-nxt", "j")], {"drill-next", "drill-hint"})
    Traceback (most recent call last):
    ...
    quizzer.config.ConfigError: c.toml: keymap.drill-nxt: no binding has this id (did you mean 'drill-next'?)
    """
    for binding_id, _ in keymap:
        if binding_id not in binding_ids:
            hint = did_you_mean(binding_id, binding_ids)
            raise ConfigError(f"{path}: keymap.{_id(binding_id)}: no binding has this id{hint}")


def check_theme(path: str, theme: str | None, themes: Collection[str]) -> None:
    """Raise ConfigError if ``theme`` (when set) is not one of ``themes``.

    >>> check_theme("config.toml", "nrod", ["nord", "dracula"])
    Traceback (most recent call last):
    ...
    quizzer.config.ConfigError: config.toml: theme: there is no theme 'nrod' (did you mean 'nord'?)
    """
    if theme is not None and theme not in themes:
        raise ConfigError(f"{path}: theme: there is no theme {theme!r}{did_you_mean(theme, themes)}")


# --- writing ---------------------------------------------------------------------------------------------

#: A new config.toml: comments first (what can be set), then what the app saves, then the keymap's example
#: (last, so that uncommenting [keymap] never pulls a top-level key into the table).
_NEW_FILE_TOP = """\
# quizzer's settings ("Settings" in its README). The app saves the theme picked in its palette here.
# new_per_day = 10     # new templates a study session introduces a day, at most
# mock_count = 8       # questions in a mock
# mock_minutes = 20    # minutes for a whole mock
# desired_retention = 0.9   # study: the recall fsrs aims at when a card falls due (0.7 to 0.99)
# interview_date = "2026-12-18"   # study plans toward this date (quizzer study --until)
# daily_minutes = 30   # minutes a day the plan toward interview_date may take
# packs = ["~/my-pack"]   # extra question folders for every verb and the app (relative to this folder)
"""
_NEW_FILE_END = """
# [keymap]             # binding id = key, or keys separated by commas
# drill-next = "j"
"""

#: The keys the app saves (top-level strings); the rest of the file is the user's.
SAVED_KEYS = ("theme", "interview_date")


def save_setting(path: str, key: str, value: str) -> None:
    """Set ``key = value`` in the config file at ``path``, keeping every other byte; create it if missing.

    An existing line keeps its place and its comment; a new one goes after the last top-level setting (before
    the tables). The new text is checked (read back, it must hold what the old one did plus ``key``), written
    to a temporary file in the same folder and renamed over the old one: the user's file is the old one or
    the new one, never half-written. A symlink's target is written. Raises ConfigError (naming the file) when
    the file is read-only, unreadable, not TOML, or cannot be written; the file is then unchanged.
    """
    if key not in SAVED_KEYS:
        raise ValueError(f"the app saves only {', '.join(SAVED_KEYS)}, not {key!r}")
    from quizzer.bank.read.files import NotAFile, TooLarge, Unreadable, parse_toml, read_regular

    target = os.path.realpath(path)
    try:
        data: bytes | None = read_regular(target, MAX_CONFIG_BYTES)
    except FileNotFoundError:
        data = None
    except NotAFile as exc:
        raise ConfigError(f"{path}: cannot save the {key}: it is {exc}, not a file") from None
    except TooLarge as exc:
        raise ConfigError(
            f"{path}: cannot save the {key}: the file holds {exc.size:,} bytes, over the limit of "
            f"{MAX_CONFIG_BYTES:,}"
        ) from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot save the {key}: cannot read the file: {_reason(exc)}") from None
    if data is None:
        new_text = _NEW_FILE_TOP + _with_key("", key, value) + _NEW_FILE_END
    else:
        if os.stat(target).st_mode & 0o222 == 0:  # even root, for whom a write would succeed, leaves it alone
            raise ConfigError(f"{path}: cannot save the {key}: the file is read-only")
        try:
            before = parse_toml(data)
        except Unreadable as exc:
            raise ConfigError(f"{path}: cannot save the {key}: {exc}") from None
        text = data.decode("utf-8")  # parse_toml has decoded it once
        new_text = _with_key(text, key, value)
        if tomllib.loads(new_text) != {**before, key: value}:  # never write a file that reads differently
            raise ConfigError(f"{path}: cannot save the {key}: the file's layout is beyond this editor")
    try:
        _replace(target, new_text)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot save the {key}: {_reason(exc)}") from None


def _with_key(text: str, key: str, value: str) -> str:
    """``text`` (valid TOML) with the top-level ``key = value``: the old value replaced, or a new line."""
    import tomlkit  # only the app, and only when it saves
    from tomlkit.items import AoT, Comment, Item, Table

    doc = tomlkit.parse(text)
    item = tomlkit.item(value)
    if key in doc:
        old = doc.item(key)
        if isinstance(old, Item):  # its comment and line ending stay (the caller rejects any other shape)
            trivia = old.trivia
            item.trivia.indent, item.trivia.comment_ws = trivia.indent, trivia.comment_ws
            item.trivia.comment, item.trivia.trail = trivia.comment, trivia.trail
        doc[key] = item
        return doc.as_string()
    body = doc.body
    tables = [i for i, (_, it) in enumerate(body) if isinstance(it, Table | AoT)]
    first_table = tables[0] if tables else len(body)
    settings = [i for i, (k, _) in enumerate(body[:first_table]) if k is not None]
    newline = "\r\n" if "\r\n" in text else "\n"
    line = f"{key} = {item.as_string()}{newline}"
    if settings:
        at = (
            settings[-1] + 1
        )  # after the last setting: what comes after it (blank lines, comments) stays below
    elif tables:
        at = first_table  # above the first table and the comments that head it, with a blank line between
        while at > 0 and isinstance(body[at - 1][1], Comment):
            at -= 1
        line += newline
    else:
        at = len(body)  # comments only: at the end
    prefix = tomlkit.document()
    prefix.parsing(True)  # as parsed: items are rendered as they were read
    for k, it in body[:at]:
        prefix.append(k, it)
    head = prefix.as_string()
    if not text.startswith(head):  # not expected: then tomlkit places it (the caller checks the result)
        doc[key] = item
        return doc.as_string()
    if head and not head.endswith("\n"):
        line = newline + line
    return head + line + text[len(head) :]


def _reason(exc: BaseException) -> str:
    return (exc.strerror if isinstance(exc, OSError) and exc.strerror else None) or str(exc)


def _replace(target: str, text: str) -> None:
    """Write ``text`` to a temporary file beside ``target`` (its folder created if missing), then rename it
    over ``target``: a crash or a full disk leaves the old file whole. The old file's permissions are kept."""
    import tempfile

    folder = os.path.dirname(target) or "."
    os.makedirs(folder, exist_ok=True)
    try:
        mode: int | None = os.stat(target).st_mode & 0o7777
    except FileNotFoundError:
        mode = None
    fd, tmp = tempfile.mkstemp(prefix=".config.", suffix=".toml.tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        if mode is not None:  # a new file keeps mkstemp's 0600: it is the user's own
            os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
