"""`quizzer check`: the authoring check; exit 0 when clean, 1 with every problem listed."""

from __future__ import annotations

import argparse
import os
import sys
import time

from quizzer.bank.check.registry import chosen
from quizzer.bank.check.run import check_bank
from quizzer.bank.loader import load_bank
from quizzer.core.words import counted
from quizzer.paths import question_paths


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    if getattr(args, "lints", False):
        from quizzer.bank.check.registry import LINTS

        for lint in LINTS:
            print(f"{lint.name:<18} {lint.finds}")
        return 0
    paths = args.paths or question_paths(args.questions)
    start = time.perf_counter()
    skip = set(args.skip or ())
    if getattr(args, "no_omissions", False):  # the older spelling of --skip omissions
        skip.add("omissions")
    try:
        lints = chosen(skip, set(args.only or ()))
    except ValueError as exc:
        print(f"quizzer check: {exc}", file=sys.stderr)
        return 2
    jobs = getattr(args, "jobs", None)
    jobs = min(os.cpu_count() or 1, 8) if jobs is None else jobs
    if jobs < 1:
        print("quizzer check: --jobs must be at least 1", file=sys.stderr)
        return 2
    report = check_bank(
        load_bank(paths), seeds_per_template=args.seeds, lints=lints, workers=jobs, paths=paths
    )
    elapsed = time.perf_counter() - start
    for problem in report.problems:
        print(problem)
    summary = (
        f"{counted(report.templates, 'template')}, {counted(report.instances, 'instance')} checked in "
        f"{elapsed:.1f} s: {counted(len(report.problems), 'problem')}"
    )
    print(summary)
    return 1 if report.problems else 0
