"""`quizzer` (no verb), `drill`, `mock`, `study`, `cram`, `interview`: open the Textual app; the only verbs
that import textual."""

from __future__ import annotations

import argparse
import gc
from typing import TYPE_CHECKING

from quizzer.bank.loader import Bank, load_bank
from quizzer.commands.common import UsageError, find_template, for_model, model_of, resolve
from quizzer.commands.history import print_notice
from quizzer.commands.pack_sources import open_packs, pack_paths
from quizzer.config import Settings, load_settings
from quizzer.core.errors import QuizzerError
from quizzer.paths import config_file, db_path, interviews_dir

if TYPE_CHECKING:
    from quizzer.bank.generate.render import Instance
    from quizzer.tui.options import InterviewOptions


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Open the app as ``args`` ask; its exit status. The cyclic garbage collector is off until the first
    screen is painted (the app turns it on then): it walked every object of the start-up (modules, bank,
    widgets) just before the paint, 15-30 ms of it. Nothing the start-up makes needs collecting sooner."""
    gc.disable()
    try:
        return _run(args, parser)
    finally:
        gc.enable()


def _run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from quizzer.store.history import HistoryStore
    from quizzer.tui.app import QuizzerApp  # textual loads here
    from quizzer.tui.options import CramOptions, DrillOptions, StudyOptions
    from quizzer.tui.screens.mock_start import MockStart

    settings = load_settings(config_file())
    drill = mock = study = cram = interview = None
    if args.verb == "drill":
        if args.template and (args.topic or args.difficulty):
            raise UsageError("--template picks one template: leave out --topic and --difficulty")
        if args.template and args.slips:
            raise UsageError("--slips picks the templates: leave out --template")
        drill = DrillOptions(
            args.topic, args.difficulty, args.template, args.seed, args.order, slips=args.slips
        )
    elif args.verb == "mock":
        count = settings.mock_count if args.count is None else args.count
        minutes = settings.mock_minutes if args.minutes is None else args.minutes
        if count < 1 or minutes <= 0:
            raise UsageError("--count must be at least 1 and --minutes more than 0")
        mock = MockStart(
            count,
            minutes,
            args.topic,
            args.seed,
            instances=tuple(replayed_set(args)) if args.set_file else (),
            save_set=args.save_set,
        )
    elif args.verb == "cram":
        if args.count < 1:
            raise UsageError("--count must be at least 1")
        cram = CramOptions(args.topic, args.count, args.seed)
    elif args.verb == "study":
        new_per_day = settings.new_per_day if args.new_per_day is None else args.new_per_day
        if new_per_day < 0:
            raise UsageError("--new-per-day cannot be negative")
        until = args.until
        if until is not None:
            from quizzer.config import parse_date

            if parse_date(until) is None:
                raise UsageError(f"--until {until!r}: give the interview date as YYYY-MM-DD")
        study = StudyOptions(args.topic, new_per_day, args.seed, until)
    # config.toml's packs and the installed ones, added by each bank when first needed (often after the paint)
    paths = pack_paths(getattr(args, "questions", []), settings)
    bank = for_model(load_bank(paths), args.model) if getattr(args, "model", None) else None
    if args.verb == "interview":
        interview = interview_options(args, settings, bank or load_bank(paths))
    drill_bank = None
    if drill is not None and drill.template_id is not None:
        drill_bank = bank or load_bank(paths)
        find_template(drill_bank, drill.template_id)  # a clear error before the screen opens
        # the app draws from it: the template's file is not read and parsed a second time before the paint
    store = HistoryStore.open(db_path(getattr(args, "db", None)))
    try:  # the app checks the theme and the keymap against what it has: a config error closes the store
        app = QuizzerApp(
            paths,
            drill=drill,
            mock=mock,
            study=study,
            cram=cram,
            interview=interview,
            store=store,
            settings=settings,
            config_path=config_file(),
            bank=bank,
            drill_bank=drill_bank,
            interviews_dir=interviews_dir(getattr(args, "db", None)),
        )
    except BaseException:
        store.close()
        raise
    printed: list[str] = []

    def after_the_app(severity: str, message: str) -> None:
        printed.append(message)
        print_notice(severity, message)

    try:
        app.run()
    finally:
        store.on_notice = after_the_app  # the app is gone: what closing finds goes to stderr
        store.close()
    if store.warning and not printed:  # still in fault at exit: say it once more where it stays visible
        print_notice("warning", store.warning)
    # Textual prints the traceback of a crash and sets a non-zero return code: pass it on.
    return app.return_code or 0


def replayed_set(args: argparse.Namespace) -> list[Instance]:
    """The questions of ``--set-file``; a UsageError (one line, naming the file and line) if it cannot."""
    from quizzer.session.picking import parse_set

    if args.count is not None or args.topic or args.seed is not None:
        raise UsageError("--set-file gives the questions: leave out --count, --topic and --seed")
    path = args.set_file
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read(1_000_000)
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot read the set: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        return parse_set(open_packs(getattr(args, "questions", [])), text, path)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def interview_options(args: argparse.Namespace, settings: Settings, bank: Bank) -> InterviewOptions:
    """The interview the command line asks for: its REFs, a --set-file, or questions drawn (--count, --topic,
    --seed); a UsageError for a REF that names no question or a mix of the three."""
    from quizzer.tui.options import InterviewOptions

    if args.refs and args.set_file:
        raise UsageError("give the questions as REFs or as --set-file, not both")
    if args.refs and (args.count is not None or args.topic):
        raise UsageError("REFs give the questions: leave out --count and --topic")
    count = settings.mock_count if args.count is None else args.count
    if count < 1:
        raise UsageError("--count must be at least 1")
    instances: tuple[Instance, ...] = ()
    if args.set_file:
        instances = tuple(replayed_set(args))
    elif args.refs:
        instances = tuple(referenced(bank, args.refs, args.seed))
    return InterviewOptions(count, args.topic, args.seed, instances, args.save_set, args.report)


def referenced(bank: Bank, refs: list[str], seed: int | None) -> list[Instance]:
    """The instance of each REF (ID, ID#SEED, ID#SEED@MODEL); an ID without a seed gets one drawn (from
    ``seed`` when given: the same REFs and --seed give the same questions)."""
    import random

    rng = random.Random(seed)
    out = []
    for ref in refs:
        template_id, given = resolve(ref, None, seed_required=False)
        template = find_template(bank, template_id)
        drawn = rng.randrange(1_000_000) if given is None else given
        model = model_of(ref, None)
        try:
            if model:
                from quizzer.bank.model_bank import posed_for
                from quizzer.bank.read.model_files import model_name

                out.append(posed_for(bank, template.id, drawn, model_name(model)))
            else:
                out.append(bank.generate(template.id, drawn))
        except QuizzerError as exc:
            raise UsageError(f"{ref}: {exc}") from None
    return out
