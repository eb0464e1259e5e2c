"""`quizzer show`: a question, then its answer and worked explanation (plain text or JSON)."""

from __future__ import annotations

import argparse
import json
import os
from typing import Any

from quizzer.bank.plaintext import markdown_to_text
from quizzer.bank.render import Instance
from quizzer.commands.common import find_template, open_bank, overrides, resolve, warn_instance

#: Keys ``--no-answer`` leaves out of the JSON.
ANSWER_KEYS = (
    "answer",
    "derivation",
    "explanation",
    "tldr",
    "memory_aid",
    "follow_ups",
    "mistakes",
    "needed_figures",
)


def instance_json(instance: Instance) -> dict[str, Any]:
    """The documented JSON shape of an instance (extra keys allowed); texts keep their Markdown."""
    return {
        "id": instance.template_id,
        "seed": instance.seed,
        "instance": instance.id,
        "title": instance.title,
        "topic": instance.topic,
        "difficulty": instance.difficulty,
        "kind": instance.kind,
        "minutes": instance.minutes,
        "variables": instance.variables,
        "warnings": list(instance.warnings),
        "prompt": instance.prompt,
        "conventions": list(instance.conventions),
        "nudges": list(instance.nudges),
        "answer": {"value": instance.value, "unit": instance.unit, "display": instance.display},
        "tolerance": {
            "kind": instance.tolerance.kind,
            "value": instance.tolerance.value,
            "text": instance.tolerance_text,
        },
        "needed_figures": instance.needed_figures,
        "grading": {
            "display_unit": instance.display_unit,
            "dtype": instance.dtype,
            "layers": instance.layers,
            "layers_label": instance.layers_label,
            "per_layer": instance.per_layer,
        },
        "derivation": [
            {
                "label": s.label,
                "formula": s.formula,
                "substituted": s.substituted,
                "value": s.value,
                "unit": s.unit,
            }
            for s in instance.derivation
        ],
        "explanation": instance.explanation,
        "tldr": instance.tldr,
        "memory_aid": instance.memory_aid,
        "follow_ups": [{"question": q, "answer": a} for q, a in instance.follow_ups],
        "references": [{"title": t, "url": u} for t, u in instance.references],
        "mistakes": [
            {"name": m.name, "title": m.title, "value": m.value, "feedback": m.feedback}
            for m in instance.mistakes
        ],
    }


def question_text(instance: Instance) -> str:
    """The question part as plain text: header, prompt, conventions (the last one states the tolerance)."""
    header = (
        f"{instance.title}  [{instance.id}]\n{instance.topic} · {instance.difficulty} · "
        f"{instance.kind} · ~{instance.minutes:g} min"
    )
    parts = [header, markdown_to_text(instance.prompt.strip())]
    if instance.conventions:
        parts.append("Conventions:\n" + "\n".join(f"- {markdown_to_text(c)}" for c in instance.conventions))
    return "\n\n".join(parts)


def answer_text(instance: Instance) -> str:
    """The answer part as plain text: answer, explanation, TL;DR, memory aid, follow-ups, references."""
    parts = [
        f"Answer: {instance.display}",
        "Worked explanation:\n" + markdown_to_text(instance.explanation.strip()),
        f"TL;DR: {markdown_to_text(instance.tldr.strip())}",
    ]
    if instance.memory_aid:
        parts.append(f"Memory aid: {markdown_to_text(instance.memory_aid.strip())}")
    if instance.follow_ups:
        parts.append(
            "Follow-ups:\n"
            + "\n".join(
                f"Q: {markdown_to_text(q.strip())}\nA: {markdown_to_text(a.strip())}"
                for q, a in instance.follow_ups
            )
        )
    if instance.references:
        parts.append("References:\n" + "\n".join(f"- {t}: {u}" for t, u in instance.references))
    return "\n\n".join(parts)


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    template_id, seed = resolve(args.id, args.seed, seed_required=False)
    if seed is None:
        seed = int.from_bytes(os.urandom(3), "big")  # printed in the output, so it can be replayed
    bank = open_bank(args)
    find_template(bank, template_id)
    instance = bank.generate(template_id, seed, overrides(args.set))
    warn_instance(instance)
    if args.json:
        data = instance_json(instance)
        if args.no_answer:
            for key in ANSWER_KEYS:
                data.pop(key)
        print(json.dumps(data, indent=2))
        return 0
    print(question_text(instance))
    if not args.no_answer:
        print()
        print(answer_text(instance))
    return 0
