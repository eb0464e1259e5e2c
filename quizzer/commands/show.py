"""`quizzer show`: a question, then its answer and worked explanation (text or JSON)."""

from __future__ import annotations

import argparse
import json
import os
from typing import Any

from quizzer.bank.render import Instance
from quizzer.commands.common import find_template, open_bank, overrides, resolve


def instance_json(instance: Instance) -> dict[str, Any]:
    """The documented JSON shape of an instance (extra keys allowed)."""
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
        "prompt": instance.prompt,
        "conventions": list(instance.conventions),
        "answer": {"value": instance.value, "unit": instance.unit, "display": instance.display},
        "tolerance": {"kind": instance.tolerance.kind, "value": instance.tolerance.value},
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
        "mistakes": [{"name": m.name, "value": m.value, "feedback": m.feedback} for m in instance.mistakes],
    }


def question_text(instance: Instance) -> str:
    """The question part: header, prompt, conventions."""
    header = (
        f"{instance.title}  [{instance.id}]\n{instance.topic} · {instance.difficulty} · "
        f"{instance.kind} · ~{instance.minutes:g} min"
    )
    parts = [header, instance.prompt.strip()]
    if instance.conventions:
        parts.append("Conventions:\n" + "\n".join(f"- {c}" for c in instance.conventions))
    return "\n\n".join(parts)


def answer_text(instance: Instance) -> str:
    """The answer part: answer, worked explanation, TL;DR, memory aid, follow-ups, references."""
    parts = [
        f"Answer: {instance.display}",
        "Worked explanation:\n" + instance.explanation.strip(),
        f"TL;DR: {instance.tldr.strip()}",
    ]
    if instance.memory_aid:
        parts.append(f"Memory aid: {instance.memory_aid.strip()}")
    if instance.follow_ups:
        parts.append(
            "Follow-ups:\n" + "\n".join(f"Q: {q.strip()}\nA: {a.strip()}" for q, a in instance.follow_ups)
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
    if args.json:
        data = instance_json(instance)
        if args.no_answer:
            for key in (
                "answer",
                "derivation",
                "explanation",
                "tldr",
                "memory_aid",
                "follow_ups",
                "mistakes",
            ):
                data.pop(key)
        print(json.dumps(data, indent=2))
        return 0
    print(question_text(instance))
    if not args.no_answer:
        print()
        print(answer_text(instance))
    return 0
