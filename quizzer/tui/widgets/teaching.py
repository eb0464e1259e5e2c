"""The Markdown of a question (prompt and conventions) and of its teaching (answer, explanation, TL;DR...)."""

from __future__ import annotations

from quizzer.bank.generate.common_mistakes import common_mistakes
from quizzer.bank.generate.instance import Instance


def question_markdown(instance: Instance) -> str:
    """The prompt and its conventions (the last one states the tolerance)."""
    text = instance.prompt.strip()
    if instance.conventions:
        text += "\n\n**Conventions**\n\n" + "\n".join(f"- {c}" for c in instance.conventions)
    return text


def part_markdown(instance: Instance, number: int) -> str:
    """Part ``number`` (2, 3, ...) of a chain as asked: its heading, prompt and tolerance sentence."""
    part = instance.parts[number - 1]
    return f"**Part {number} of {instance.part_count}.** {part.prompt.strip()}\n\n*{part.tolerance_text}*"


def outcome_markdown(instance: Instance, number: int) -> str:
    """What follows a chain part's verdict: part 1's exact answer and TL;DR (its explanation comes with
    the whole, at the end), or a later part's exact answer and explanation."""
    if number == 1:
        return f"Exact answer: **{instance.display}**. {instance.tldr.strip()}"
    part = instance.parts[number - 1]
    return f"Exact answer: **{part.display}**.\n\n{part.explanation.strip()}"


def teaching_markdown(instance: Instance) -> str:
    """The answer, worked explanation, TL;DR, common mistakes, memory aid and references."""
    answers = f"### Answer: {instance.display}"
    if instance.later_parts:
        answers = f"### Answers: part 1 {instance.display}" + "".join(
            f" · part {p.number} {p.display}" for p in instance.later_parts
        )
    parts = [
        answers,
        instance.explanation.strip(),
        f"**TL;DR** {instance.tldr.strip()}",
    ]
    rows = common_mistakes(instance)
    if rows:
        parts.append(
            "**Common mistakes**\n\n" + "\n".join(f"- **{title}**: {text.strip()}" for title, text in rows)
        )
    if instance.memory_aid:
        parts.append(f"**Memory aid** {instance.memory_aid.strip()}")
    if instance.references:
        parts.append("**References**\n\n" + "\n".join(f"- [{t}]({u})" for t, u in instance.references))
    return "\n\n".join(parts)
