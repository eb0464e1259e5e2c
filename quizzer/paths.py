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
