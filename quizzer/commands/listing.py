"""`quizzer list`: the templates, as a table or JSON."""

from __future__ import annotations

import argparse
import json

from quizzer.commands.common import open_bank, warn_problems


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    bank = open_bank(args)
    templates = [t for t in bank.templates() if not args.topic or t.topic == args.topic]
    warn_problems(bank)
    rows = [
        {
            "id": t.id,
            "title": t.title,
            "topic": t.topic,
            "difficulty": t.difficulty,
            "kind": t.kind,
            "minutes": t.minutes,
        }
        for t in templates
    ]
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
