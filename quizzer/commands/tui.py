"""`quizzer` (no verb) and `quizzer drill`: open the Textual app. The only verb that imports textual."""

from __future__ import annotations

import argparse

from quizzer.bank.loader import load_bank
from quizzer.commands.common import UsageError, find_template
from quizzer.paths import question_paths


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from quizzer.tui.app import DrillOptions, QuizzerApp  # textual loads here, and only here

    drill = None
    if args.verb == "drill":
        if args.template and (args.topic or args.difficulty):
            raise UsageError("--template picks one template: leave out --topic and --difficulty")
        drill = DrillOptions(args.topic, args.difficulty, args.template, args.seed)
    paths = question_paths(getattr(args, "questions", []))
    if drill is not None and drill.template_id is not None:
        find_template(load_bank(paths), drill.template_id)  # a clear error before the screen opens
    QuizzerApp(paths, drill=drill).run()
    return 0
