"""`quizzer plain`: a line-based drill for any terminal or a pipe: question, one answer line, verdict."""

from __future__ import annotations

import argparse
import os
import sys
import time

from quizzer.bank.generate.plaintext import markdown_to_text
from quizzer.bank.generate.render import Instance
from quizzer.commands.common import UsageError, find_template, for_model, open_bank, warn_problems
from quizzer.commands.history import open_history
from quizzer.commands.show import part_answer_text, part_question_text, question_text
from quizzer.session.drill import DrillSession


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    if args.template and args.topic:
        raise UsageError("--template picks one template: leave out --topic")
    bank = for_model(open_bank(args), getattr(args, "model", None))
    warn_problems(bank)
    if args.template:
        find_template(bank, args.template)  # a clear error before anything is asked
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(3), "big")
    store = open_history(args.db)  # a fault says so on stderr at once, not at the end
    try:
        session = DrillSession(
            bank,
            seed=seed,
            clock=time.monotonic,
            topic=args.topic,
            template_id=args.template,
            wall=time.time,
            session_id=f"plain-{os.urandom(6).hex()}",
            on_attempt=store.record,  # committed as soon as it is graded, one attempt per part
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
    asked = 0
    while True:
        instance = session.instance
        asked += 1
        out.write(f"\n── question {asked} " + "─" * 40 + "\n" + question_text(instance) + "\n")
        try:
            _ask(session, instance)
        except EOFError:
            out.write(f"\n\n{_score(session)}\n")
            return
        session.next()
        if count and asked >= count:
            out.write(f"\n{_score(session)}\n")
            return


def _read() -> str:
    """One answer line (stripped); EOFError at the end of the input."""
    sys.stdout.write("answer> ")
    sys.stdout.flush()
    line = sys.stdin.readline()
    if not line:
        raise EOFError
    return line.strip()


def _ask(session: DrillSession, instance: Instance) -> None:
    """Ask the question, then each later part of a chain, until every part is graded or skipped: after a
    part's verdict its true value and explanation are shown (part 1 of a chain: its TL;DR, its explanation
    once every part is done, as in the app: it may work out what later parts ask), and the next part's
    prompt shows it."""
    out = sys.stdout
    turn = session.turn
    chain = instance.part_count > 1
    while not turn.done:
        question = turn.question
        if question.number > 1:
            out.write(f"\n{part_question_text(instance, question)}\n")
        label = f"Part {turn.number}" if chain else "Answer"
        while True:
            line = _read()
            if not line:
                out.write(f"skipped. {label if chain else 'The answer'}: {question.display}\n")
                session.skip()
                break
            verdict = session.answer(line)  # graded against the user's earlier answers too (a chain)
            if verdict.kind == "unparsed":
                out.write(f"  {markdown_to_text(verdict.message)}\n")
                continue
            out.write(f"→ {markdown_to_text(verdict.message)}\n\n")
            if question.number > 1:
                out.write(f"{part_answer_text(question)}\n")
            elif chain:  # as in the app: part 1's explanation would answer later parts; it comes at the end
                out.write(
                    f"{label}: {instance.display}\n\nTL;DR: {markdown_to_text(instance.tldr.strip())}\n"
                )
            else:
                out.write(
                    f"{label}: {instance.display}\n\n{markdown_to_text(instance.explanation.strip())}\n\n"
                    f"TL;DR: {markdown_to_text(instance.tldr.strip())}\n"
                )
            break
    if chain:
        out.write(f"\nPart 1, worked:\n\n{markdown_to_text(instance.explanation.strip())}\n")


def _score(session: DrillSession) -> str:
    """``score: 3/5 right`` (skips apart: ``, 2 skipped``); each part of a chain counts once."""
    skipped = f", {session.skipped} skipped" if session.skipped else ""
    return f"score: {session.right}/{session.answered} right{skipped}"
