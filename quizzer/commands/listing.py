"""`quizzer list`: the templates, as a table or JSON."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from quizzer.bank.read.schema import Template
from quizzer.commands.common import open_bank, warn_problems

if TYPE_CHECKING:
    from quizzer.bank.loader import Bank


def practice_table(templates: list[Template]) -> str:
    """The README's "what you can practise" table: topic, templates, difficulties."""
    rows = ["| topic | templates | easy | medium | hard | estimates |", "|---|---|---|---|---|---|"]
    for topic in sorted({t.topic for t in templates}):
        mine = [t for t in templates if t.topic == topic]
        counts = [sum(t.difficulty == d for t in mine) for d in ("easy", "medium", "hard")]
        estimates = sum(t.kind == "estimate" for t in mine)
        rows.append(f"| {topic} | {len(mine)} | " + " | ".join(map(str, counts)) + f" | {estimates} |")
    total = [sum(t.difficulty == d for t in templates) for d in ("easy", "medium", "hard")]
    rows.append(
        f"| **all** | **{len(templates)}** | "
        + " | ".join(map(str, total))
        + f" | {sum(t.kind == 'estimate' for t in templates)} |"
    )
    return "\n".join(rows)


def template_row(t: Template) -> dict[str, Any]:
    """A template as `quizzer list --json` gives it (the MCP server's ``list_templates`` too)."""
    return {
        "id": t.id,
        "title": t.title,
        "topic": t.topic,
        "difficulty": t.difficulty,
        "kind": t.kind,
        "minutes": t.minutes,
    }


def list_for_model(bank: Bank, args: argparse.Namespace) -> int:
    """``list --model MODEL``: the templates posed for the model, then those that take a model but do not
    apply to it, each with its reason."""
    from quizzer.commands.common import for_model

    posed = for_model(bank, args.model, quiet=True)
    skipped = {tid: why for tid, why in getattr(posed, "skipped", {}).items() if why != "takes no model"}
    chosen = [t for t in posed.templates() if not args.topic or t.topic == args.topic]
    if args.json:
        rows = [{"id": t.id, "topic": t.topic, "posed": True} for t in chosen]
        rows += [{"id": tid, "posed": False, "reason": why} for tid, why in skipped.items()]
        print(json.dumps(rows, indent=2))
        return 0
    print(f"Asked about {args.model} ({len(chosen)}):")
    for t in chosen:
        print(f"  {t.id}  [{t.topic}]")
    if skipped:
        print(f"\nTake a model but do not apply ({len(skipped)}):")
        for tid, why in skipped.items():
            print(f"  {tid}: {why}")
    return 0


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    bank = open_bank(args)
    if args.model:
        return list_for_model(bank, args)
    templates = [t for t in bank.templates() if not args.topic or t.topic == args.topic]
    if args.markdown:
        print(practice_table(templates))
        return 0
    warn_problems(bank)
    rows = [template_row(t) for t in templates]  # the JSON rows
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    if not rows:
        print(f"no templates{f' in topic {args.topic!r}' if args.topic else ''}")
        return 0
    width = max(len(r["id"]) for r in rows)
    topic_width = max(len(r["topic"]) for r in rows)
    for r in rows:
        print(
            f"{r['id']:<{width}}  {r['topic']:<{topic_width}}  {r['difficulty']:<6}  {r['kind']:<8}  "
            f"{r['title']}"
        )
    return 0
