"""Where quizzer finds its files: the built-in question bank and extra packs."""

from __future__ import annotations

import os

_PACKAGE = os.path.dirname(os.path.abspath(__file__))


def questions_dir() -> str:
    """The built-in bank: ``quizzer/questions`` in an installed wheel, ``questions/`` in a checkout."""
    installed = os.path.join(_PACKAGE, "questions")
    if os.path.isdir(installed):
        return installed
    return os.path.join(os.path.dirname(_PACKAGE), "questions")


def question_paths(extra: list[str] | None = None) -> list[str]:
    """The built-in bank, then ``QUIZZER_QUESTIONS`` (an os.pathsep-separated list), then ``--questions``."""
    env = [p for p in os.environ.get("QUIZZER_QUESTIONS", "").split(os.pathsep) if p]
    return [questions_dir(), *env, *(extra or [])]


def data_dir() -> str:
    """The user data folder (platformdirs): ``~/.local/share/quizzer`` on Linux, created if missing."""
    import platformdirs  # only the verbs that keep history need it

    path = platformdirs.user_data_dir("quizzer", appauthor=False)
    try:
        os.makedirs(path, exist_ok=True)
    except OSError:
        pass  # the store then says it cannot open the file, and keeps the history in memory
    return path


def db_path(flag: str | None = None) -> str:
    """The history database: ``--db``, else ``QUIZZER_DB``, else ``history.sqlite3`` in the data folder."""
    return flag or os.environ.get("QUIZZER_DB") or os.path.join(data_dir(), "history.sqlite3")


def config_file() -> str:
    """The settings file: ``QUIZZER_CONFIG``, else ``config.toml`` in the user config folder."""
    env = os.environ.get("QUIZZER_CONFIG")
    if env:
        return env
    import platformdirs

    return os.path.join(platformdirs.user_config_dir("quizzer", appauthor=False), "config.toml")


def interviews_dir(db: str | None = None) -> str:
    """Where an interviewer's sets and reports go: ``interviews`` beside the history (``db_path``), so a
    QUIZZER_DB or --db elsewhere takes them along; created when one is written, not here."""
    return os.path.join(os.path.dirname(os.path.abspath(db_path(db))), "interviews")
