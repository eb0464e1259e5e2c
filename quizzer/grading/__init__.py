"""Grading: read typed answers (parse) and judge them against expected values (grade)."""

from quizzer.grading.carry import trivial
from quizzer.grading.grade import (
    VERDICTS,
    GradeContext,
    Mistake,
    Tolerance,
    Verdict,
    builtin_mistakes,
    format_in,
    grade,
    is_within,
    needed_figures,
    round_figures,
    title_from_name,
    tolerance_band,
)
from quizzer.grading.parse import Parsed, ParseError, format_plain, parse_answer

__all__ = [
    "VERDICTS",
    "GradeContext",
    "Mistake",
    "ParseError",
    "Parsed",
    "Tolerance",
    "Verdict",
    "builtin_mistakes",
    "format_in",
    "format_plain",
    "grade",
    "is_within",
    "needed_figures",
    "parse_answer",
    "round_figures",
    "title_from_name",
    "tolerance_band",
    "trivial",
]
