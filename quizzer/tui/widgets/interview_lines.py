"""Lines of the interviewer's screen, built as Content: a part's slips; a grade with its carried credit."""

from __future__ import annotations

from textual.content import Content

from quizzer.session.chain import PartGrade
from quizzer.session.interview import parts_words
from quizzer.session.interview_sheet import PartSheet
from quizzer.tui.widgets.lines import Part, dim, line, verdict_line

#: The widest a slip's title column gets; a longer title wraps under it.
TITLE_CELLS = 44


def slip_lines(sheet: PartSheet) -> Content:
    """One line per slip: its title (the template's own first) and the value it gives, aligned."""
    if not sheet.slips:
        return dim("No slip is known for this part.")
    width = min(max(len(row.title) for row in sheet.slips), TITLE_CELLS)
    rows: list[Part] = [("Slips", "bold"), "  (what a wrong answer may be)"]
    for row in sheet.slips:
        rows += ["\n  ", row.title.ljust(width), "  ", (row.shown, "bold")]
    return line(*rows)


def grade_lines(grade: PartGrade, head: str = "", *, brief: bool = False) -> Content:
    """A grade as the interviewer reads it: the verdict, what was read against what was expected, the
    feedback (a known slip's, then the diagnosis: the factors that differ, two slips at once), and carried
    credit when the part was right only from the candidate's own earlier answers. ``brief`` (a part done):
    the slip's title, not its feedback."""
    verdict = grade.verdict
    said = verdict.summary or verdict.message
    parts: list[Part | Content] = [(head, "dim")] if head else []
    if brief:
        title = f" · {verdict.mistake_title}" if verdict.mistake_title else ""
        parts.append(verdict_line(verdict.kind, said + title))
    else:
        parts.append(verdict_line(verdict.kind, said, verdict.feedback))  # the diagnosis ends the feedback
    if grade.carried:
        carried = parts_words(list(grade.carried))
        parts += ["\n", ("Carried credit", "bold"), f": right from their own {carried}"]
    return Content.assemble(*parts)
