"""Grading: read typed answers (parse) and judge them against expected values (grade)."""

from quizzer.grading.grade import (
    VERDICTS,
    Mistake,
    Tolerance,
    Verdict,
    builtin_mistakes,
    grade,
    is_within,
    tolerance_band,
)
from quizzer.grading.parse import Parsed, ParseError, format_plain, parse_answer

__all__ = [
    "VERDICTS",
    "Mistake",
    "ParseError",
    "Parsed",
    "Tolerance",
    "Verdict",
    "builtin_mistakes",
    "format_plain",
    "grade",
    "is_within",
    "parse_answer",
    "tolerance_band",
]
