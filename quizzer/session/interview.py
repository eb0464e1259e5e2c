"""InterviewSession: questions an interviewer asks aloud, each part graded live as they type what is said."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from quizzer.bank.generate.instance import Instance, Part
from quizzer.bank.read.schema import Template
from quizzer.core.markdown import md_escape
from quizzer.core.record import Record
from quizzer.core.words import counted
from quizzer.session.chain import PartGrade, grade_part, part_of
from quizzer.session.interview_sheet import PartSheet, part_sheet
from quizzer.session.picking import format_set
from quizzer.session.records import RIGHT


class PartAnswer(Record):
    """One part as the interview left it: what the candidate said and its grade (None: not answered,
    the interviewer moved on)."""

    number: int
    answer: str
    grade: PartGrade | None

    @property
    def kind(self) -> str:
        """The verdict's kind, or "skipped"."""
        return self.grade.verdict.kind if self.grade is not None else "skipped"

    @property
    def right(self) -> bool:
        return self.kind in RIGHT

    @property
    def carried(self) -> bool:
        """Right only against the candidate's own wrong earlier answers (carried credit)."""
        return self.kind == "consistent"

    @property
    def value(self) -> int | float | None:
        """The value the candidate gave (what a later part may carry)."""
        if self.grade is None or self.grade.verdict.given is None:
            return None
        return self.grade.verdict.given.value


class InterviewSession:
    """An interview over ``instances``, question 0, part 1 first: ``preview`` grades what is typed without
    keeping it, ``record`` keeps a readable answer and asks the next part (or the next question), and
    ``next_question`` leaves the rest of a question unanswered. ``templates`` (id -> template) gives a
    later part carried credit; without it every part is graded against the true values only.
    """

    def __init__(
        self,
        instances: Sequence[Instance],
        *,
        templates: Callable[[str], Template | None] | None = None,
    ) -> None:
        if not instances:
            raise ValueError("an interview needs at least one question")
        self.instances = tuple(instances)
        self._templates = templates or (lambda _id: None)
        self.current = 0
        """The question being asked (``len(instances)`` once every question is done)."""
        self.answers: list[list[PartAnswer]] = [[] for _ in self.instances]
        """Per question, each part done so far, in order."""

    # --- where the interview is ------------------------------------------------------------------------

    @property
    def total(self) -> int:
        return len(self.instances)

    @property
    def done(self) -> bool:
        """Every question asked: nothing more is recorded."""
        return self.current >= self.total

    @property
    def instance(self) -> Instance:
        """The question being asked (the last once the interview is done)."""
        return self.instances[min(self.current, self.total - 1)]

    @property
    def number(self) -> int:
        """The part being asked (1 is the main question)."""
        if self.done:
            return self.instance.part_count
        return len(self.answers[self.current]) + 1

    @property
    def part(self) -> Part:
        return part_of(self.instance, self.number)

    @property
    def answered(self) -> int:
        """Parts the candidate answered (a part left when moving on is not counted)."""
        return sum(a.grade is not None for parts in self.answers for a in parts)

    @property
    def right(self) -> int:
        """Parts right (carried credit included)."""
        return sum(a.right for parts in self.answers for a in parts)

    def earlier(self) -> dict[int, int | float | None]:
        """The values the candidate gave the earlier parts of the question being asked."""
        return {a.number: a.value for a in self.answers[self.current]} if not self.done else {}

    def template(self) -> Template | None:
        return self._templates(self.instance.template_id)

    def sheet(self) -> PartSheet:
        """What the interviewer sees of the part being asked (what it carries from the earlier answers)."""
        return part_sheet(self.instance, self.number, self.template(), self.earlier())

    # --- what the interviewer does ---------------------------------------------------------------------

    def preview(self, answer: str) -> PartGrade | None:
        """The grade ``answer`` would get as the part being asked, nothing kept; None for nothing typed."""
        if not answer.strip() or self.done:
            return None
        return grade_part(self.template(), self.instance, self.number, answer, self.earlier())

    def record(self, answer: str) -> PartGrade | None:
        """Grade ``answer`` as the part being asked and keep it, then ask the next part or question; an
        unreadable answer is graded (the verdict says why) but kept nothing. None: nothing typed, or done."""
        graded = self.preview(answer)
        if graded is None or graded.verdict.kind == "unparsed":
            return graded
        self.answers[self.current].append(PartAnswer(self.number, answer.strip(), graded))
        if len(self.answers[self.current]) >= self.instance.part_count:
            self.current += 1
        return graded

    def next_question(self) -> int:
        """Move to the next question, the parts not answered left so; how many were left."""
        if self.done:
            return 0
        left = 0
        while len(self.answers[self.current]) < self.instance.part_count:
            self.answers[self.current].append(PartAnswer(self.number, "", None))
            left += 1
        self.current += 1
        return left

    def set_text(self) -> str:
        """The questions as a set file (``quizzer interview --set-file`` and ``quizzer mock --set-file``
        replay it), timed at their expected minutes."""
        return format_set(self.instances, sum(i.minutes for i in self.instances))


def parts_words(numbers: Sequence[int | str]) -> str:
    """ "part 1", "parts 1 and 2", "parts 1, 2 and 3".

    >>> parts_words([1]), parts_words(["1", "2"]), parts_words([1, 2, 3])
    ('part 1', 'parts 1 and 2', 'parts 1, 2 and 3')
    """
    names = [str(n) for n in numbers]
    if len(names) == 1:
        return f"part {names[0]}"
    return f"parts {', '.join(names[:-1])} and {names[-1]}"


def report_markdown(session: InterviewSession, words: Mapping[str, str] | None = None) -> str:
    """The interview as Markdown: parts right of parts answered, then each question's parts: what the
    candidate said, the verdict (``words`` names a kind; the kind itself without), its diagnosis, carried
    credit and the expected answer. Questions not reached are listed as such."""
    say = words or {}
    lines = [
        f"# Interview: {session.right} of {counted(session.answered, 'part')} answered right",
        "",
        f"{counted(session.total, 'question')}; answers typed by the interviewer as the candidate said them.",
    ]
    for index, (instance, parts) in enumerate(zip(session.instances, session.answers, strict=True), 1):
        lines += ["", f"## {index}. {md_escape(instance.title)}", "", f"`{instance.id}`"]
        if not parts:
            lines += ["", "Not reached."]
        for done in parts:
            part = part_of(instance, done.number)
            head = f"**Part {done.number}**: " if instance.part_count > 1 else ""
            expected = f"expected {md_escape(part.display)}"
            if done.grade is None:
                lines += ["", f"- {head}no answer ({expected})"]
                continue
            verdict = done.grade.verdict
            said = f"said **{md_escape(done.answer)}**: {say.get(done.kind, done.kind)}"
            lines += ["", f"- {head}{said} ({expected})"]
            lines.append(f"  - {md_escape(verdict.message)}")  # the diagnosis ends its feedback
            if done.carried and done.grade.carried:
                lines.append(
                    f"  - carried credit: right from their own {parts_words(list(done.grade.carried))}"
                )
    return "\n".join(lines) + "\n"


__all__ = ["InterviewSession", "PartAnswer", "parts_words", "report_markdown"]
