"""Command-line entry point: argparse verbs; only the TUI verb may import textual."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from importlib import import_module
from typing import TextIO, cast

from quizzer import __version__
from quizzer.bank.read.control import visible
from quizzer.core.errors import QuizzerError

Parser = argparse.ArgumentParser


class _Formatter(argparse.HelpFormatter):
    """argparse's formatter, sized with os.get_terminal_size: the stock one imports shutil on every start."""

    def __init__(self, prog: str, **kwargs: int) -> None:
        try:
            columns = os.get_terminal_size().columns
        except OSError:
            columns = 80
        super().__init__(prog, width=max(columns - 2, 40), **kwargs)


def _count(p: Parser) -> None:
    p.add_argument("model", nargs="?", help="a preset name (see --list) or a path to a config.json")
    p.add_argument("--list", action="store_true", help="list the model presets and exit")
    p.add_argument("--dtype", default="bf16", help="dtype of weights and KV cache (default: bf16)")
    p.add_argument(
        "--seq-len",
        type=int,
        default=0,
        metavar="N",
        help="context length: adds the KV cache for N tokens and attention FLOPs at N",
    )
    p.add_argument("--batch", type=int, default=1, metavar="B", help="sequences in the KV cache (default: 1)")
    p.add_argument(
        "--state-dtype",
        choices=("fp32", "model"),
        default="fp32",
        help="a hybrid's recurrent state: fp32 (as Hugging Face keeps it; the default) or --dtype",
    )
    p.add_argument(
        "--mtp",
        action="store_true",
        help="count the multi-token-prediction modules the config gives (transformers builds none)",
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")


def _list(p: Parser) -> None:
    p.add_argument("--topic", help="only this topic")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--markdown", action="store_true", help="print the README's table of topics")
    _model(p)


def _instance(p: Parser) -> None:
    p.add_argument("id", metavar="ID[#SEED]", help="a template id, optionally with #seed")


def _model(p: Parser) -> None:
    p.add_argument(
        "--model",
        metavar="PRESET|CONFIG",
        help="ask about this model: a preset (quizzer count --list) or a config.json path",
    )


def _show(p: Parser) -> None:
    _instance(p)
    p.add_argument("--seed", type=int, help="the instance seed (default: the #SEED, else a random one)")
    p.add_argument(
        "--set", action="append", default=[], metavar="NAME=VALUE", help="fix a variable of any part"
    )
    _model(p)
    p.add_argument("--part", metavar="N", help="show only part N, on its own numbers")
    p.add_argument("--vars", action="store_true", help="list every name --set takes, and exit")
    p.add_argument("--no-answer", action="store_true", help="print the question only")
    p.add_argument("--json", action="store_true", help="print JSON")


def _grade(p: Parser) -> None:
    _instance(p)
    p.add_argument("answer", help='the answer as you would write it, e.g. "16.4M" or "15.6 GiB"')
    p.add_argument("--seed", type=int, help="the instance seed (or ID#SEED)")
    p.add_argument(
        "--set", action="append", default=[], metavar="NAME=VALUE", help="fix a variable of any part"
    )
    _model(p)
    # read by the verb, so that a bad number is the same one-line error as a part the template lacks
    p.add_argument("--part", default="1", metavar="N", help="the part of a chain to grade (default: 1)")
    p.add_argument(
        "--given",
        action="append",
        default=[],
        metavar="K=ANSWER",
        help="your answer to an earlier part K, for carried-forward credit; repeatable",
    )
    p.add_argument("--json", action="store_true", help="print JSON")


#: The options of `grade` that take a value: the argument after one is that value, never the answer.
_GRADE_VALUE_OPTIONS = ("--seed", "--set", "--questions", "--part", "--given", "--model")


def _grade_answer_last(argv: list[str]) -> list[str]:
    """`grade ID -16.4M --json` as `grade ID --json -- -16.4M`: argparse reads an argument that starts with
    '-' as an option unless it is a plain negative number ('-5'), and `grade` has no single-dash option but
    -h, so the first such argument (not an option's value) is the answer and moves behind a '--'. An argv
    with a '--' already is left as typed."""
    if "--" in argv:
        return argv
    for i, arg in enumerate(argv[1:], 1):
        before = argv[i - 1]
        is_value = (
            before[:2] == "--"
            and "=" not in before
            and any(o.startswith(before) for o in _GRADE_VALUE_OPTIONS)
        )
        if arg[:1] == "-" and arg[:2] != "--" and arg not in ("-", "-h") and not is_value:
            return [*argv[:i], *argv[i + 1 :], "--", arg]
    return argv


def _plain(p: Parser) -> None:
    p.add_argument(
        "--count", type=int, default=0, metavar="N", help="stop after N questions (default: at EOF)"
    )
    p.add_argument("--topic", help="only this topic")
    p.add_argument("--template", metavar="ID", help="only this template (the first question is ID#SEED)")
    p.add_argument("--seed", type=int, help="the same seed gives the same questions")
    _model(p)
    _db(p)


def _drill(p: Parser) -> None:
    _model(p)
    p.add_argument("--topic", help="only this topic")
    p.add_argument("--difficulty", choices=("easy", "medium", "hard"), help="only this difficulty")
    p.add_argument("--template", metavar="ID", help="only this template")
    p.add_argument("--seed", type=int, help="the same seed gives the same sequence of questions")
    p.add_argument(
        "--order",
        choices=("random", "weakest", "unseen", "slowest"),
        default="random",
        help="weakest: lowest recent accuracy first; unseen: never answered first; slowest: your median "
        "time against the expected minutes, slowest first (default: random; never the same template twice "
        "in a row)",
    )
    p.add_argument(
        "--slips",
        action="store_true",
        help="the templates where your most frequent recorded slips (GB/GiB, dtype, K and V...) can happen",
    )


def _db(p: Parser) -> None:
    p.add_argument(
        "--db", metavar="PATH", help="the history database (default: QUIZZER_DB, else the user data folder)"
    )


def _drill_db(p: Parser) -> None:
    _drill(p)
    _db(p)


def _mock(p: Parser) -> None:
    p.add_argument(
        "--count", type=int, metavar="N", help="questions (default: mock_count in config.toml, else 8)"
    )
    p.add_argument(
        "--minutes", type=float, metavar="M", help="time for the whole mock (default: mock_minutes, else 20)"
    )
    p.add_argument("--topic", help="only this topic")
    p.add_argument("--seed", type=int, help="the same seed gives the same questions")
    p.add_argument("--save-set", metavar="FILE", help="write the mock's questions (ID#SEED a line) to FILE")
    p.add_argument("--set-file", metavar="FILE", help="replay the questions a --save-set FILE holds")
    _model(p)
    _db(p)


def _interview(p: Parser) -> None:
    p.add_argument(
        "refs",
        nargs="*",
        metavar="REF",
        help="the questions to ask, in order: ID, ID#SEED or ID#SEED@MODEL (default: drawn as a mock draws)",
    )
    p.add_argument("--topic", help="only this topic")
    p.add_argument("--count", type=int, metavar="N", help="questions drawn (default: mock_count, else 8)")
    p.add_argument("--seed", type=int, help="the same seed gives the same questions")
    p.add_argument(
        "--set-file", metavar="FILE", help="ask the questions a set file holds (mock --save-set's)"
    )
    p.add_argument(
        "--save-set",
        metavar="FILE",
        help="write the questions (ID#SEED a line) to FILE (default: STAMP.set in interviews/ beside the db)",
    )
    p.add_argument(
        "--report", metavar="FILE", help="write the report to FILE (default: interviews/STAMP.md beside it)"
    )
    _model(p)
    _db(p)


def _study(p: Parser) -> None:
    p.add_argument("--topic", help="only this topic")
    p.add_argument(
        "--new-per-day",
        type=int,
        metavar="N",
        help="new templates a day at most (default: new_per_day, else 10)",
    )
    p.add_argument(
        "--until",
        metavar="YYYY-MM-DD",
        help="study toward this interview date, daily_minutes a day (default: interview_date, if set)",
    )
    p.add_argument("--seed", type=int, help="the seed of the questions drawn")
    _db(p)


def _cram(p: Parser) -> None:
    p.add_argument("--topic", help="only this topic")
    p.add_argument("--count", type=int, default=10, metavar="N", help="the N weakest templates (default: 10)")
    p.add_argument("--seed", type=int, help="the seed of the questions drawn")
    _db(p)


def _check(p: Parser) -> None:
    p.add_argument("paths", nargs="*", metavar="PATH", help="folders or files (default: every loaded pack)")
    p.add_argument("--seeds", type=int, default=100, metavar="N", help="instances per template (default 100)")
    p.add_argument(
        "--jobs",
        type=int,
        metavar="N",
        help="check templates in N processes at once (default: one per CPU, at most 8)",
    )
    p.add_argument(
        "--skip",
        action="append",
        metavar="LINT",
        help="leave out one lint (repeatable); all run by default; --lints lists them",
    )
    p.add_argument("--only", action="append", metavar="LINT", help="run only this lint (repeatable)")
    p.add_argument("--lints", action="store_true", help="list the lints and what each finds, then exit")
    p.add_argument("--no-omissions", action="store_true", help="the same as --skip omissions")


def _stats(p: Parser) -> None:
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--days", type=int, default=14, metavar="N", help="days in the trend (default: 14)")
    _db(p)


def _export(p: Parser) -> None:
    p.add_argument(
        "--format",
        required=True,
        choices=("csv", "json", "history"),
        help="csv or json: the attempts; history: everything, for `quizzer import` on another machine",
    )
    p.add_argument("--output", metavar="FILE", help="write to FILE (default: stdout)")
    _db(p)


def _config(p: Parser) -> None:
    p.add_argument(
        "what",
        choices=("path",),
        help="path: print where config.toml is (QUIZZER_CONFIG, else the config folder)",
    )


def _serve(p: Parser) -> None:
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="the address to listen on (default: 127.0.0.1, this machine only; any other prints a warning: "
        "there is no login)",
    )
    p.add_argument("--port", type=int, default=8000, help="the port to listen on (default: 8000)")
    p.add_argument("--open", action="store_true", help="open the app in the default browser")
    p.add_argument(
        "--public-url",
        metavar="URL",
        help="the address browsers reach the server at, e.g. http://my-laptop:8000 "
        "(default: http://HOST:PORT; with --host 0.0.0.0 other machines need it)",
    )
    p.add_argument(
        "--max-tabs",
        type=int,
        metavar="N",
        help="the most browser tabs open at once, each its own app (default: 8); one more is refused",
    )
    p.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="URL",
        help="let pages at URL (an origin, e.g. https://quiz.example) open tabs too; repeatable",
    )
    _db(p)


def _pack(p: Parser) -> None:
    p.add_argument(
        "action",
        choices=("new", "list"),
        help="new: scaffold a pack folder (a template, README, test command); list: the packs, their sources",
    )
    p.add_argument("name", nargs="?", metavar="NAME", help="the new pack's name (pack new)")
    p.add_argument("--dir", metavar="PATH", help="where pack new makes the folder (default: here)")
    p.add_argument("--json", action="store_true", help="pack list as JSON")


def _export_deck(p: Parser) -> None:
    p.add_argument(
        "file",
        metavar="FILE.apkg",
        help="the Anki deck to write; notes have stable ids (template, seed, part), so importing a re-export "
        "updates the notes already imported instead of adding copies",
    )
    p.add_argument(
        "--count",
        type=int,
        default=3,
        metavar="N",
        help="instances per template, seeds 1..N (default: 3); a chain gives one note per part",
    )
    p.add_argument("--topic", help="only this topic")
    p.add_argument(
        "--seed", type=int, metavar="S", help="the first seed: seeds S..S+N-1 (new numbers, new notes)"
    )


def _mcp(p: Parser) -> None:
    """No options beyond --questions: the server speaks MCP on stdin and stdout."""


def _import(p: Parser) -> None:
    p.add_argument("file", metavar="FILE", help="another machine's `quizzer export --format history` file")
    p.add_argument("--dry-run", action="store_true", help="say what would be merged, change nothing")
    _db(p)


def _completion(p: Parser) -> None:
    p.add_argument("shell", choices=("bash", "zsh", "fish"), help="the shell the script is for")


#: verb -> (module in quizzer.commands with run(args, parser) -> int, help, takes --questions, arguments)
VERBS: dict[str, tuple[str, str, bool, Callable[[Parser], None]]] = {
    "drill": ("tui", "open the app straight into a drill", True, _drill_db),
    "mock": ("tui", "a timed mock interview, graded at the end", True, _mock),
    "study": ("tui", "spaced repetition: what is due, then new templates", True, _study),
    "interview": ("tui", "ask someone questions aloud: answers, slips and live grades", True, _interview),
    "cram": ("tui", "drill the weakest templates without changing the study schedule", True, _cram),
    "list": ("listing", "list the question templates", True, _list),
    "show": ("show", "print a question, its answer and worked explanation", True, _show),
    "grade": ("grade", "grade an answer to one instance", True, _grade),
    "plain": ("plain", "a line-based drill for any terminal or a pipe", True, _plain),
    "check": ("check", "check question templates (for authors)", True, _check),
    "count": ("count", "parameter, memory and FLOP breakdown of a real model", False, _count),
    "stats": ("stats", "accuracy, mistakes, calendar and days in a row from your history", False, _stats),
    "export": ("export", "every recorded attempt as CSV or JSON", False, _export),
    "config": ("config", "the settings file: `quizzer config path` prints where it is", False, _config),
    "export-deck": (
        "export_deck",
        "an Anki deck of instances, answers graded by the answerset add-on",
        True,
        _export_deck,
    ),
    "import": ("import_history", "merge another machine's history export into this one", False, _import),
    "pack": ("pack", "question packs: `pack new NAME` scaffolds one, `pack list` lists them", True, _pack),
    "mcp": (
        "mcp",
        "an MCP server on stdio: verified sizing numbers for AI agents (needs the mcp extra)",
        True,
        _mcp,
    ),
    "serve": ("serve", "the app in a browser, one app per tab (needs the serve extra)", True, _serve),
    "completion": (
        "completion",
        "a shell completion script: quizzer completion bash|zsh|fish",
        False,
        _completion,
    ),
}


def _parser(only: str | None = None) -> Parser:
    """The argument parser; with ``only``, just that verb's sub-parser is built (a faster start)."""
    parser = Parser(
        prog="quizzer",
        description="Practise ML-systems sizing questions: parameters, FLOPs, memory, KV cache, latency.",
        formatter_class=_Formatter,
    )
    parser.add_argument("--version", action="version", version=f"quizzer {__version__}")
    # prog= spares argparse a HelpFormatter on every start.
    subparsers = parser.add_subparsers(dest="verb", metavar="VERB", prog="quizzer")
    for name, (_, help_text, packs, add_arguments) in VERBS.items():
        if only in (None, name):
            sub = subparsers.add_parser(
                name,
                help=help_text,
                description=help_text[0].upper() + help_text[1:],
                formatter_class=_Formatter,
            )
            add_arguments(sub)
            if packs:
                sub.add_argument(
                    "--questions",
                    action="append",
                    default=[],
                    metavar="DIR",
                    help="an extra question pack (folder of *.toml); repeatable; also QUIZZER_QUESTIONS",
                )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the quizzer command line; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["grade"]:
        argv = _grade_answer_last(argv)
    # completion walks every verb's options: it gets the whole parser
    only = argv[0] if argv and argv[0] in VERBS and argv[0] != "completion" else None
    parser = _parser(only)
    args = parser.parse_args(argv)
    if args.verb is None:
        # textual-serve runs the app on pipes, TEXTUAL_DRIVER naming Textual's web driver: no terminal needed
        if not (sys.stdin.isatty() and sys.stdout.isatty()) and not os.environ.get("TEXTUAL_DRIVER"):
            parser.print_help()  # not a terminal: the app cannot run, so say what can
            return 0
        args.verb, args.questions = "tui", []
    name = VERBS[args.verb][0] if args.verb in VERBS else args.verb
    if name == "tui" and os.environ.get("TERM") == "dumb" and not os.environ.get("TEXTUAL_DRIVER"):
        if args.verb == "interview":  # plain is the candidate's drill, and would write to your history
            print(
                "quizzer interview: TERM=dumb: the interviewer's screen needs a terminal that draws; "
                "`quizzer show ID#SEED` prints a question with its answer",
                file=sys.stderr,
            )
            return 2
        args, name = _plain_instead(args), "plain"
    saved = sys.stdout, sys.stderr
    if name not in _APP_VERBS:  # no control character from a pack, a history or the settings is written
        sys.stdout, sys.stderr = _escaped(sys.stdout), _escaped(sys.stderr)
    try:
        module = import_module(f"quizzer.commands.{name}")
        return int(module.run(args, parser))
    except QuizzerError as exc:
        print(f"quizzer {args.verb}: {visible(str(exc))}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `quizzer list | head`
        return 0
    finally:
        sys.stdout, sys.stderr = saved


def _plain_instead(args: argparse.Namespace) -> argparse.Namespace:
    """The arguments of `quizzer plain` for an app verb run where TERM=dumb (a terminal that cannot draw the
    app, or a screen reader's): the same topic, template, seed, history and packs; says so on stderr."""
    verb = args.verb if args.verb != "tui" else "the app"
    print(
        f"quizzer: TERM=dumb: {verb} needs a terminal that draws; running `quizzer plain`, the line-based "
        "drill, instead",
        file=sys.stderr,
    )
    return argparse.Namespace(
        verb="plain",
        count=0,
        topic=getattr(args, "topic", None),
        template=getattr(args, "template", None),
        seed=getattr(args, "seed", None),
        db=getattr(args, "db", None),
        questions=getattr(args, "questions", []),
    )


#: The modules of the verbs that run the app: Textual writes escape sequences of its own to the terminal.
_APP_VERBS = ("tui", "serve")


def _escaped(stream: TextIO) -> TextIO:
    """``stream`` writing every control character but newline and tab as an escape (commands/terminal.py)."""
    from quizzer.commands.terminal import EscapedStream

    return cast(TextIO, EscapedStream(stream))
