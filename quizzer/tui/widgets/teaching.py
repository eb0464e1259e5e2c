"""The Markdown of a question (prompt and conventions) and of its teaching (answer, explanation, TL;DR...)."""

from __future__ import annotations

from quizzer.bank.render import Instance


def question_markdown(instance: Instance) -> str:
    """The prompt and its conventions (the last one states the tolerance)."""
    text = instance.prompt.strip()
    if instance.conventions:
        text += "\n\n**Conventions**\n\n" + "\n".join(f"- {c}" for c in instance.conventions)
    return text


def teaching_markdown(instance: Instance) -> str:
    """The answer, worked explanation, TL;DR, memory aid and references."""
    parts = [
        f"### Answer: {instance.display}",
        instance.explanation.strip(),
        f"**TL;DR** {instance.tldr.strip()}",
    ]
    if instance.memory_aid:
        parts.append(f"**Memory aid** {instance.memory_aid.strip()}")
    if instance.references:
        parts.append("**References**\n\n" + "\n".join(f"- [{t}]({u})" for t, u in instance.references))
    return "\n\n".join(parts)
