"""Command-line entry point: argparse verbs; only the TUI verb may import textual."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib import import_module

from quizzer import __version__
from quizzer.core.errors import QuizzerError

#: verb -> module in quizzer.commands that has run(args) -> int
VERBS = {
    "count": "count",
    "list": "listing",
    "show": "show",
    "grade": "grade",
    "plain": "plain",
    "check": "check",
}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="quizzer",
        description="Practise ML-systems sizing questions: parameters, FLOPs, memory, KV cache, latency.",
    )
    parser.add_argument("--version", action="version", version=f"quizzer {__version__}")
    packs = argparse.ArgumentParser(add_help=False)
    packs.add_argument(
        "--questions",
        action="append",
        default=[],
        metavar="DIR",
        help="an extra question pack (folder of *.toml); repeatable; also QUIZZER_QUESTIONS",
    )
    # prog= spares argparse a HelpFormatter (and its `import shutil`) on every start.
    verbs = parser.add_subparsers(dest="verb", metavar="VERB", prog="quizzer")

    count = verbs.add_parser(
        "count",
        help="parameter, memory and FLOP breakdown of a real model",
        description="Break a model down part by part: parameters, weights, KV cache, FLOPs.",
    )
    count.add_argument("model", nargs="?", help="a preset name (see --list) or a path to a config.json")
    count.add_argument("--list", action="store_true", help="list the model presets and exit")
    count.add_argument("--dtype", default="bf16", help="dtype of weights and KV cache (default: bf16)")
    count.add_argument(
        "--seq-len",
        type=int,
        default=0,
        metavar="N",
        help="context length: adds the KV cache for N tokens and attention FLOPs at N",
    )
    count.add_argument(
        "--batch", type=int, default=1, metavar="B", help="sequences in the KV cache (default: 1)"
    )
    count.add_argument("--json", action="store_true", help="print JSON instead of a table")

    listing = verbs.add_parser("list", parents=[packs], help="list the question templates")
    listing.add_argument("--topic", help="only this topic")
    listing.add_argument("--json", action="store_true", help="print JSON")

    show = verbs.add_parser(
        "show", parents=[packs], help="print a question, its answer and worked explanation"
    )
    show.add_argument("id", metavar="ID[#SEED]", help="a template id, optionally with #seed")
    show.add_argument("--seed", type=int, help="the instance seed (default: the #SEED, else a random one)")
    show.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="fix a variable")
    show.add_argument("--no-answer", action="store_true", help="print the question only")
    show.add_argument("--json", action="store_true", help="print JSON")

    grade = verbs.add_parser("grade", parents=[packs], help="grade an answer to one instance")
    grade.add_argument("id", metavar="ID[#SEED]", help="a template id, optionally with #seed")
    grade.add_argument("answer", help='the answer as you would write it, e.g. "16.4M" or "15.6 GiB"')
    grade.add_argument("--seed", type=int, help="the instance seed (or ID#SEED)")
    grade.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="fix a variable")
    grade.add_argument("--json", action="store_true", help="print JSON")

    plain = verbs.add_parser("plain", parents=[packs], help="a line-based drill for any terminal or a pipe")
    plain.add_argument(
        "--count", type=int, default=0, metavar="N", help="stop after N questions (default: EOF)"
    )
    plain.add_argument("--topic", help="only this topic")
    plain.add_argument("--seed", type=int, help="the same seed gives the same questions")

    check = verbs.add_parser("check", parents=[packs], help="check question templates (for authors)")
    check.add_argument(
        "paths", nargs="*", metavar="PATH", help="folders or files (default: every loaded pack)"
    )
    check.add_argument(
        "--seeds", type=int, default=200, metavar="N", help="instances per template (default 200)"
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the quizzer command line; returns the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.verb is None:
        parser.print_help()
        return 0
    try:
        module = import_module(f"quizzer.commands.{VERBS[args.verb]}")
        return int(module.run(args, parser))
    except QuizzerError as exc:
        print(f"quizzer {args.verb}: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `quizzer list | head`
        return 0
