"""The texts of a template as written (placeholders unfilled), each with the part and field it belongs to."""

from __future__ import annotations

from collections.abc import Iterator

from quizzer.bank.read.schema import PartSpec, Template
from quizzer.bank.read.texts import TextPart
from quizzer.core.record import Record

#: The kinds of text the literals lint reads: what teaches, after the question (and the nudges and mistakes
#: that teach before and during it). A prompt and the conventions state the question's givens instead.
TEACHING = frozenset({"explanation", "tldr", "memory_aid", "follow_up", "nudge", "feedback", "title"})


class SourceText(Record):
    """One text of a template as written: its part (None: the template's own), its field as a problem
    names it within that part, its kind, and the text."""

    part: PartSpec | None
    field: str
    kind: str
    text: str


def _parts(key: str, parts: tuple[TextPart, ...]) -> Iterator[tuple[str, str]]:
    """A text field's parts with their field names: ``explanation`` for a lone text, else ``[i]``."""
    if len(parts) == 1 and parts[0].when is None:
        yield key, parts[0].text
    else:
        yield from ((f"{key}[{i}]", p.text) for i, p in enumerate(parts))


def source_texts(template: Template) -> Iterator[SourceText]:
    """Every text a student reads of ``template``, as written: each part's prompt, explanation, TL;DR,
    nudges, mistakes' feedback and titles and layers label, then the conventions, memory aid and
    follow-ups."""
    for part in template.parts:
        yield SourceText(part, "prompt", "prompt", part.prompt)
        for field, text in _parts("explanation", part.explanation_parts):
            yield SourceText(part, field, "explanation", text)
        for field, text in _parts("tldr", part.tldr_parts):
            yield SourceText(part, field, "tldr", text)
        for i, nudge in enumerate(part.nudges):
            yield SourceText(part, f"nudges[{i}]", "nudge", nudge)
        for i, mistake in enumerate(part.mistakes):
            yield SourceText(part, f"mistakes[{i}].feedback", "feedback", mistake.feedback)
            if mistake.title:
                yield SourceText(part, f"mistakes[{i}].title", "title", mistake.title)
        if part.layers_label:
            yield SourceText(part, part.context_key("layers_label"), "layers_label", part.layers_label)
    for i, convention in enumerate(template.conventions):
        yield SourceText(None, f"conventions[{i}]", "conventions", convention)
    for field, text in _parts("memory_aid", template.memory_aid_parts):
        yield SourceText(None, field, "memory_aid", text)
    for i, follow_up in enumerate(template.follow_ups):
        yield SourceText(None, f"follow_ups[{i}].question", "follow_up", follow_up.question)
        yield SourceText(None, f"follow_ups[{i}].answer", "follow_up", follow_up.answer)


__all__ = ["TEACHING", "SourceText", "source_texts"]
