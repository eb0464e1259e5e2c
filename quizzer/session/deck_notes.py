"""The Anki notes of one instance: one note per part, each answerable alone, graded by the answerset add-on.

A chain's later part is a note of its own: Anki shows notes one at a time, in its own order, so part K
cannot wait for your answer to part K - 1. Its front shows the earlier parts as asked, each with its true
answer (as ``quizzer show ID#SEED --part K`` poses it), then part K; its prompt already speaks of the true
earlier values. Every part is kept (nearly every built-in template is a chain; part 1 alone would drop
most of what they teach).
"""

from __future__ import annotations

import re

from quizzer.bank.generate.instance import Instance, Part
from quizzer.core.record import Record
from quizzer.session.deck_answer import CardAnswer, card_answer
from quizzer.session.deck_html import inline_html, markdown_html

#: Anki separates tags with spaces: a run of spaces in a topic or an id becomes one underscore.
_SPACES = re.compile(r"\s+")


class DeckNote(Record):
    """The fields of one Anki note, as plain values (the verb turns them into genanki's Note).

    Attributes:
        key: what the note's GUID is made from: ("quizzer", template id, seed, part number). The same
            instance and part always give the same GUID, so importing a re-export updates the note.
        question: the front, HTML: the prompt, the conventions and tolerance, the unit to type the answer in.
        answer: the answer field in answerset's ``value?factor`` syntax ("14.958?1.01").
        explanation: the back, HTML: the answer as people write it, the worked explanation, the TL;DR.
        instance: "ID#SEED", with "part K of N" for a chain, and the command that shows it again.
        tags: quizzer, its topic, difficulty, kind and template (namespaced ``quizzer::topic::kv-cache``).
    """

    key: tuple[str, str, int, int]
    question: str
    answer: str
    explanation: str
    instance: str
    tags: tuple[str, ...]


def tag(text: str) -> str:
    """``text`` as one Anki tag: no spaces.

    >>> tag("kv-cache"), tag("my  pack topic")
    ('kv-cache', 'my_pack_topic')
    """
    return _SPACES.sub("_", text.strip())


def note_tags(instance: Instance) -> tuple[str, ...]:
    """The tags of every note of ``instance``: ``quizzer`` and quizzer::topic|difficulty|kind|template."""
    return (
        "quizzer",
        f"quizzer::topic::{tag(instance.topic)}",
        f"quizzer::difficulty::{tag(instance.difficulty)}",
        f"quizzer::kind::{tag(instance.kind)}",
        f"quizzer::template::{tag(instance.template_id)}",
    )


def part_answer(part: Part) -> CardAnswer:
    """The answerset answer of ``part``, in the unit its card names."""
    return card_answer(part.value, part.unit, part.display_unit, part.tolerance, part.needed_figures)


def _unit_line(answer: CardAnswer) -> str:
    """The sentence that says how to type the answer: the unit, plainly, and what answerset reads."""
    return (
        f'<p class="unit">Type the answer as a plain number <b>{inline_html(answer.unit_words)}</b>: '
        "digits and a decimal point only (no unit, no commas, no e-notation).</p>"
    )


def _conventions(conventions: tuple[str, ...] | list[str]) -> str:
    """The conventions as a list (the last states the tolerance)."""
    if not conventions:
        return ""
    rows = "".join(f"<li>{inline_html(c.strip())}</li>" for c in conventions)
    return f'<div class="conventions"><b>Conventions</b><ul>{rows}</ul></div>'


def _header(instance: Instance, part: Part) -> str:
    """The title line: title, topic, difficulty and, for a chain, which part this is."""
    which = f" · part {part.number} of {instance.part_count}" if instance.part_count > 1 else ""
    return (
        f'<p class="title"><b>{inline_html(instance.title)}</b><br>'
        f"{inline_html(instance.topic)} · {inline_html(instance.difficulty)}{which}</p>"
    )


def _question(instance: Instance, part: Part, answer: CardAnswer) -> str:
    """The front of part ``part``: the earlier parts asked and answered, then this part to answer."""
    if part.number == 1:
        return (
            _header(instance, part)
            + markdown_html(part.prompt)
            + _conventions(instance.conventions)
            + _unit_line(answer)
        )
    earlier = []
    for before in instance.parts[: part.number - 1]:
        conventions = _conventions(instance.conventions) if before.number == 1 else ""
        earlier.append(
            f'<div class="earlier"><p><b>Part {before.number}</b></p>{markdown_html(before.prompt)}'
            f"{conventions}<p>Answer to part {before.number}: <b>{inline_html(before.display)}</b></p></div>"
        )
    return (
        _header(instance, part)
        + "".join(earlier)
        + f'<div class="asked"><p><b>Part {part.number} of {instance.part_count}</b></p>'
        + markdown_html(part.prompt)
        + _conventions([part.tolerance_text])
        + _unit_line(answer)
        + "</div>"
    )


def _explanation(part: Part, answer: CardAnswer) -> str:
    """The back: the answer as people write it (with the card's number when the card scales it: millions,
    billions...), the explanation, the TL;DR."""
    scaled = answer.unit != part.display_unit
    typed = f" (on this card {answer.number}, {answer.unit_words})" if scaled else ""
    out = f'<p class="answer">Answer: <b>{inline_html(part.display)}</b>{inline_html(typed)}</p>'
    out += markdown_html(part.explanation)
    if part.tldr.strip():
        out += f'<p class="tldr"><b>TL;DR:</b> {inline_html(part.tldr.strip())}</p>'
    return out


def deck_notes(instance: Instance) -> tuple[DeckNote, ...]:
    """One note per part of ``instance``, part 1 first (see the module for why every part); tests/anki reads
    them back from a written deck."""
    tags = note_tags(instance)
    notes = []
    for part in instance.parts:
        answer = part_answer(part)
        which = f" part {part.number} of {instance.part_count}" if instance.part_count > 1 else ""
        again = f" --part {part.number}" if instance.part_count > 1 else ""
        ref = f"{instance.template_id}#{instance.seed}"
        notes.append(
            DeckNote(
                key=("quizzer", instance.template_id, instance.seed, part.number),
                question=_question(instance, part, answer),
                answer=answer.field,
                explanation=_explanation(part, answer),
                instance=inline_html(f"{ref}{which} · quizzer show {ref}{again}"),
                tags=tags,
            )
        )
    return tuple(notes)


__all__ = ["DeckNote", "deck_notes", "note_tags", "part_answer", "tag"]
