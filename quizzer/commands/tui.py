"""`quizzer` (no verb), `drill`, `mock`, `study`: open the Textual app; the only verbs that import textual."""

from __future__ import annotations

import argparse

from quizzer.bank.loader import load_bank
from quizzer.commands.common import UsageError, find_template
from quizzer.paths import db_path, question_paths


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from quizzer.store.history import HistoryStore
    from quizzer.tui.app import DrillOptions, MockOptions, QuizzerApp, StudyOptions  # textual loads here

    drill = mock = study = None
    if args.verb == "drill":
        if args.template and (args.topic or args.difficulty):
            raise UsageError("--template picks one template: leave out --topic and --difficulty")
        drill = DrillOptions(args.topic, args.difficulty, args.template, args.seed)
    elif args.verb == "mock":
        if args.count < 1 or args.minutes <= 0:
            raise UsageError("--count must be at least 1 and --minutes more than 0")
        mock = MockOptions(args.count, args.minutes, args.topic, args.seed)
    elif args.verb == "study":
        if args.new_per_day < 0:
            raise UsageError("--new-per-day cannot be negative")
        study = StudyOptions(args.topic, args.new_per_day, args.seed)
    paths = question_paths(getattr(args, "questions", []))
    if drill is not None and drill.template_id is not None:
        find_template(load_bank(paths), drill.template_id)  # a clear error before the screen opens
    store = HistoryStore.open(db_path(getattr(args, "db", None)))
    try:
        QuizzerApp(paths, drill=drill, mock=mock, study=study, store=store).run()
    finally:
        store.close()
    if store.warning:
        print(f"quizzer: warning: {store.warning}")
    return 0
