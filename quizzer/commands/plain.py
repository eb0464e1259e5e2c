"""`quizzer plain`: a line-based drill for any terminal or a pipe (question, one answer line, verdict)."""

from __future__ import annotations

import argparse
import os
import random
import sys

from quizzer.bank.render import generate
from quizzer.commands.common import UsageError, open_bank, warn_problems
from quizzer.commands.show import question_text
from quizzer.session.drill import grade_instance

#: Verdicts that count as right in the score.
RIGHT = ("exact", "correct")


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    bank = open_bank(args)
    warn_problems(bank)
    templates = [t for t in bank.templates() if not args.topic or t.topic == args.topic]
    if not templates:
        raise UsageError(
            f"no templates{f' in topic {args.topic!r}' if args.topic else ''}; see `quizzer list`"
        )
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(3), "big")
    rng = random.Random(seed)
    out = sys.stdout
    out.write(f"quizzer plain · seed {seed} · an empty line skips, Ctrl-D ends\n")
    asked = right = 0
    while not args.count or asked < args.count:
        template = rng.choice(templates)
        instance = generate(template, rng.randrange(1_000_000))
        out.write(f"\n── question {asked + 1} " + "─" * 40 + "\n" + question_text(instance) + "\n")
        verdict = None
        while True:
            out.write("answer> ")
            out.flush()
            line = sys.stdin.readline()
            if not line:
                out.write(f"\n\nscore: {right}/{asked} right\n")
                return 0
            if not line.strip():
                verdict = None
                break
            verdict = grade_instance(instance, line.strip())
            if verdict.kind != "unparsed":
                break
            out.write(f"  {verdict.message}\n")
        asked += 1
        if verdict is None:
            out.write(f"skipped. The answer: {instance.display}\n")
            continue
        right += verdict.kind in RIGHT
        out.write(f"→ {verdict.message}\n")
        out.write(
            f"\nAnswer: {instance.display}\n\n{instance.explanation.strip()}\n\n"
            f"TL;DR: {instance.tldr.strip()}\n"
        )
    out.write(f"\nscore: {right}/{asked} right\n")
    return 0
