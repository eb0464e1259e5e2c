"""`quizzer show`: a question, then its answer and worked explanation (plain text or JSON)."""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING, Any

from quizzer.bank.generate.common_mistakes import common_mistakes
from quizzer.bank.read.overrides import settable_rows
from quizzer.commands.common import find_template, open_bank, pose, resolve, warn_instance

if TYPE_CHECKING:
    from quizzer.bank.generate.instance import Instance, Part
    from quizzer.bank.read.schema import Template

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
#: The keys of a part that ``--no-answer`` keeps: its prompt is the masked one (no earlier answer shown).
PART_QUESTION_KEYS = ("number", "prompt", "tolerance", "carry")


def _graded_json(question: Part) -> dict[str, Any]:
    """What the main question and each part share: answer, tolerance, grading context, derivation,
    explanation, mistakes."""
    return {
        "answer": {"value": question.value, "unit": question.unit, "display": question.display},
        "tolerance": {
            "kind": question.tolerance.kind,
            "value": question.tolerance.value,
            "text": question.tolerance_text,
        },
        "needed_figures": question.needed_figures,
        "grading": {
            "display_unit": question.display_unit,
            "dtype": question.dtype,
            "layers": question.layers,
            "layers_label": question.layers_label,
            "per_layer": question.per_layer,
        },
        "derivation": [
            {
                "label": s.label,
                "formula": s.formula,
                "substituted": s.substituted,
                "value": s.value,
                "unit": s.unit,
            }
            for s in question.derivation
        ],
        "explanation": question.explanation,
        "tldr": question.tldr,
        "mistakes": [
            {"name": m.name, "title": m.title, "value": m.value, "feedback": m.feedback}
            for m in question.mistakes
        ],
    }


def part_json(part: Part) -> dict[str, Any]:
    """The documented JSON shape of one follow-up part (2, 3, ...); texts keep their Markdown. ``prompt``
    shows the true earlier values, ``masked_prompt`` hides them."""
    graded = _graded_json(part)
    return {
        "number": part.number,
        "prompt": part.prompt,
        "masked_prompt": part.masked_prompt,
        "variables": part.variables,
        "nudges": list(part.nudges),
        "carry": part.carry,
        **graded,
    }


def instance_json(instance: Instance) -> dict[str, Any]:
    """The documented JSON shape of an instance (extra keys allowed); texts keep their Markdown."""
    graded = _graded_json(instance.main)
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
        **{k: graded[k] for k in ("answer", "tolerance", "needed_figures", "grading", "derivation")},
        "explanation": instance.explanation,
        "tldr": instance.tldr,
        "memory_aid": instance.memory_aid,
        "follow_ups": [{"question": q, "answer": a} for q, a in instance.follow_ups],
        "references": [{"title": t, "url": u} for t, u in instance.references],
        "mistakes": graded["mistakes"],
        "common_mistakes": [{"title": t, "text": f} for t, f in common_mistakes(instance)],
        "part_count": instance.part_count,
        "parts": [part_json(p) for p in instance.later_parts],
    }


def question_only_json(instance: Instance, template: Template) -> dict[str, Any]:
    """``instance_json`` without the answers (``--no-answer``), without the common mistakes and without the
    variables computed from the drawn ones (``table_and_head`` is the embedding question's answer); each
    part keeps its number, masked prompt, tolerance and carry flag, since its own prompt, variables and
    texts may show an earlier answer."""
    data = instance_json(instance)
    for key in ANSWER_KEYS:
        data.pop(key)
    drawn = {var.name for var in template.main.variables if var.expr is None}
    data["variables"] = {k: v for k, v in data["variables"].items() if k in drawn}
    data.pop("common_mistakes")  # read after answering: a slip's title or feedback tells the method
    data["parts"] = [
        {k: p[k] for k in PART_QUESTION_KEYS} | {"prompt": p["masked_prompt"]} for p in data["parts"]
    ]
    return data


def _plain(markdown: str) -> str:
    """``markdown`` as plain text (``bank.plaintext`` is imported here: ``show --json`` never needs it)."""
    from quizzer.bank.generate.plaintext import markdown_to_text

    return markdown_to_text(markdown)


def question_text(instance: Instance) -> str:
    """The question part as plain text: header, prompt, conventions (the last one states the tolerance)."""
    parts_note = f" · {instance.part_count} parts" if instance.part_count > 1 else ""
    header = (
        f"{instance.title}  [{instance.id}]\n{instance.topic} · {instance.difficulty} · "
        f"{instance.kind} · ~{instance.minutes:g} min{parts_note}"
    )
    parts = [header, _plain(instance.prompt.strip())]
    if instance.conventions:
        parts.append("Conventions:\n" + "\n".join(f"- {_plain(c)}" for c in instance.conventions))
    return "\n\n".join(parts)


def part_question_text(instance: Instance, part: Part, *, masked: bool = False) -> str:
    """Part ``part`` asked as plain text: "Part 2 of 3", its prompt (``masked``: with the earlier answers
    hidden) and the convention stating its tolerance."""
    prompt = part.masked_prompt if masked else part.prompt
    return (
        f"Part {part.number} of {instance.part_count}\n\n{_plain(prompt.strip())}\n\n"
        f"Conventions:\n- {_plain(part.tolerance_text)}"
    )


def part_answer_text(part: Part) -> str:
    """The answer to one part as plain text: "Part 2: 72", its explanation and TL;DR (when it has one)."""
    lines = [f"Part {part.number}: {part.display}", _plain(part.explanation.strip())]
    if part.tldr.strip():
        lines.append(f"TL;DR: {_plain(part.tldr.strip())}")
    return "\n\n".join(lines)


def answer_text(instance: Instance) -> str:
    """The answer part as plain text: answer, explanation, TL;DR, each later part (question, answer,
    explanation), memory aid, follow-ups, references."""
    parts = [
        f"Answer: {instance.display}",
        "Worked explanation:\n" + _plain(instance.explanation.strip()),
        f"TL;DR: {_plain(instance.tldr.strip())}",
    ]
    for part in instance.later_parts:
        parts.append(part_question_text(instance, part))
        parts.append(f"Answer: {part.display}\n\nWorked explanation:\n{_plain(part.explanation.strip())}")
        if part.tldr.strip():
            parts.append(f"TL;DR: {_plain(part.tldr.strip())}")
    if instance.mistakes or any(p.mistakes for p in instance.later_parts):
        parts.append(common_mistakes_text(instance))
    if instance.memory_aid:
        parts.append(f"Memory aid: {_plain(instance.memory_aid.strip())}")
    if instance.follow_ups:
        parts.append(
            "Follow-ups:\n"
            + "\n".join(f"Q: {_plain(q.strip())}\nA: {_plain(a.strip())}" for q, a in instance.follow_ups)
        )
    if instance.references:
        parts.append("References:\n" + "\n".join(f"- {t}: {u}" for t, u in instance.references))
    return "\n\n".join(parts)


def common_mistakes_text(instance: Instance) -> str:
    """The "Common mistakes" section as plain text, read after answering: each mistake's title and
    feedback."""
    rows = common_mistakes(instance)
    return "Common mistakes:\n" + "\n".join(f"- {t}: {_plain(f.strip())}" for t, f in rows)


def print_settable(template: Template, as_json: bool) -> int:
    """``show ID --vars``: every name ``--set`` takes, with its part, kind, unit and values."""
    rows = settable_rows(template)
    if as_json:
        import json

        print(json.dumps(rows, indent=2))
        return 0
    print(f"{template.id}: set any of these with --set NAME=VALUE (own values may lie outside the range)\n")
    for row in rows:
        values = row.get("values")
        if "range" in row:
            lo, hi = row["range"]
            drawn = f"{lo} to {hi}" + (
                f", step {row['step']}" if row["step"] not in (1, "powers of two") else ""
            )
            drawn += " (powers of two)" if row["step"] == "powers of two" else ""
        else:
            drawn = ", ".join(str(v).lower() if isinstance(v, bool) else str(v) for v in values or ())
        unit = f" [{row['unit']}]" if row["unit"] else ""
        print(f"part {row['part']}  {row['name']}{unit}  {row['kind']}: {drawn}")
        if row.get("note"):
            print(f"    {row['note']}")
        for field, what in row.get("fields", {}).items():
            print(f"    {field}: {what}")
    return 0


def print_part(instance: Instance, args: argparse.Namespace) -> int:
    """``show ID#SEED --part N``: part N on its own numbers: its question (earlier answers shown, as true
    values), then its answer and explanation unless ``--no-answer``."""
    from quizzer.commands.grade import part_number
    from quizzer.session.chain import part_of

    number = part_number(instance, args.part)
    part = part_of(instance, number)
    if args.json:
        import json

        data = instance_json(instance)
        chosen = data if number == 1 else next(p for p in data["parts"] if p["number"] == number)
        if args.no_answer:
            chosen = {k: chosen[k] for k in ("prompt", "tolerance") if k in chosen}
        print(json.dumps({"instance": instance.id, "part": number, **chosen}, indent=2))
        return 0
    if number == 1:
        print(question_text(instance))
    else:
        print(f"{instance.title}  [{instance.id}]\n")
        print(part_question_text(instance, part))
    if not args.no_answer:
        print()
        print(
            part_answer_text(part) if number > 1 else f"Answer: {part.display}\n\n{_plain(part.explanation)}"
        )
    return 0


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    template_id, seed = resolve(args.id, args.seed, seed_required=False)
    if seed is None:
        seed = int.from_bytes(os.urandom(3), "big")  # printed in the output, so it can be replayed
    bank = open_bank(args)
    template = find_template(bank, template_id)
    if args.vars:
        return print_settable(template, args.json)
    instance = pose(bank, template, seed, args)
    warn_instance(instance)
    if args.part is not None:
        return print_part(instance, args)
    if args.json:
        import json  # here: the text output never needs it

        data = question_only_json(instance, template) if args.no_answer else instance_json(instance)
        data["settable"] = settable_rows(template)
        print(json.dumps(data, indent=2))
        return 0
    print(question_text(instance))
    if args.no_answer:
        for part in instance.later_parts:
            print()
            print(part_question_text(instance, part, masked=True))
    else:
        print()
        print(answer_text(instance))
    return 0
