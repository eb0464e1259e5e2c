"""`quizzer plain`: a line-based drill for any terminal or a pipe: question, one answer line, verdict."""

from __future__ import annotations

import argparse
import os
import sys
import time

from quizzer.bank.plaintext import markdown_to_text
from quizzer.commands.common import UsageError, open_bank, warn_problems
from quizzer.commands.history import open_history
from quizzer.commands.show import question_text
from quizzer.session.drill import DrillSession


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    bank = open_bank(args)
    warn_problems(bank)
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(3), "big")
    store = open_history(args.db)  # a fault says so on stderr at once, not at the end
    try:
        session = DrillSession(
            bank,
            seed=seed,
            clock=time.monotonic,
            topic=args.topic,
            wall=time.time,
            session_id=f"plain-{os.urandom(6).hex()}",
            on_attempt=store.record,  # committed as soon as it is graded
            mode="plain",
        )
    except ValueError:
        store.close()
        raise UsageError(
            f"no templates{f' in topic {args.topic!r}' if args.topic else ''}; see `quizzer list`"
        ) from None
    try:
        _drill(session, seed, args.count)
    finally:
        store.close()
    return 0


def _drill(session: DrillSession, seed: int, count: int) -> None:
    out = sys.stdout
    out.write(f"quizzer plain · seed {seed} · an empty line skips, Ctrl-D ends\n")
    while True:
        instance = session.instance
        asked = len(session.attempts) + 1
        out.write(f"\n── question {asked} " + "─" * 40 + "\n" + question_text(instance) + "\n")
        while True:
            out.write("answer> ")
            out.flush()
            line = sys.stdin.readline()
            if not line:
                out.write(f"\n\n{_score(session)}\n")
                return
            if not line.strip():
                out.write(f"skipped. The answer: {instance.display}\n")
                session.skip()
                session.next()
                break
            verdict = session.answer(line.strip())
            if verdict.kind == "unparsed":
                out.write(f"  {markdown_to_text(verdict.message)}\n")
                continue
            out.write(f"→ {markdown_to_text(verdict.message)}\n")
            out.write(
                f"\nAnswer: {instance.display}\n\n{markdown_to_text(instance.explanation.strip())}\n\n"
                f"TL;DR: {markdown_to_text(instance.tldr.strip())}\n"
            )
            session.next()
            break
        if count and len(session.attempts) >= count:
            out.write(f"\n{_score(session)}\n")
            return


def _score(session: DrillSession) -> str:
    """``score: 3/5 right`` (skips apart: ``, 2 skipped``)."""
    skipped = f", {session.skipped} skipped" if session.skipped else ""
    return f"score: {session.right}/{session.answered} right{skipped}"
