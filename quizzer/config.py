"""Settings: the user's defaults for the study modes, read from config.toml (unknown keys are errors)."""

from __future__ import annotations

import tomllib
from typing import Any

from quizzer.core.checks import did_you_mean
from quizzer.core.errors import QuizzerError
from quizzer.core.record import Record


class ConfigError(QuizzerError):
    """config.toml cannot be used: the message names the file and the key."""


class Settings(Record):
    """Defaults the command-line flags override.

    >>> Settings().new_per_day, Settings().mock_count, Settings().mock_minutes
    (10, 8, 20.0)
    """

    new_per_day: int = 10
    """New templates a study session introduces a day, at most (Home's Study button uses it too)."""
    mock_count: int = 8
    """Questions in a mock interview."""
    mock_minutes: float = 20.0
    """Minutes for a whole mock interview."""


#: key -> (type, smallest allowed value)
_FIELDS: dict[str, tuple[type, float]] = {
    "new_per_day": (int, 0),
    "mock_count": (int, 1),
    "mock_minutes": (float, 0),
}


def load_settings(path: str) -> Settings:
    """The settings in ``path``; the defaults when there is no such file. Raises ConfigError."""
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except FileNotFoundError:
        return Settings()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read it: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: TOML syntax error: {exc}") from None
    values: dict[str, Any] = {}
    for key, value in data.items():
        if key not in _FIELDS:
            known = ", ".join(_FIELDS)
            raise ConfigError(f"{path}: unknown key {key!r}{did_you_mean(key, _FIELDS)} (known: {known})")
        kind, least = _FIELDS[key]
        if isinstance(value, bool) or not isinstance(value, (int, float) if kind is float else int):
            raise ConfigError(f"{path}: {key} must be {'a number' if kind is float else 'a whole number'}")
        if value < least or (kind is float and value == least):
            raise ConfigError(f"{path}: {key} must be {'more than' if kind is float else 'at least'} {least}")
        values[key] = kind(value)
    return Settings(**values)
