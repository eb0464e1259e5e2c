"""Command-line entry point: argparse verbs; only the TUI verb may import textual."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from quizzer import __version__
from quizzer.core.errors import QuizzerError


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="quizzer",
        description="Practise ML-systems sizing questions: parameters, FLOPs, memory, KV cache, latency.",
    )
    parser.add_argument("--version", action="version", version=f"quizzer {__version__}")
    verbs = parser.add_subparsers(dest="verb", metavar="VERB")

    count = verbs.add_parser(
        "count",
        help="parameter, memory and FLOP breakdown of a real model",
        description="Break a model down part by part: parameters, weights, KV cache, forward FLOPs.",
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
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the quizzer command line; returns the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.verb is None:
        parser.print_help()
        return 0
    try:
        if args.verb == "count":
            from quizzer.count import run_count

            return run_count(args, parser=parser)
    except QuizzerError as exc:
        print(f"quizzer {args.verb}: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `quizzer count ... | head`
        return 0
    parser.error(f"unknown verb {args.verb!r}")
    return 2
