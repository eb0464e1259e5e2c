"""`quizzer check`: the authoring check; exit 0 when clean, 1 with every problem listed."""

from __future__ import annotations

import argparse
import os
import sys
import time

from quizzer.bank.check.registry import chosen
from quizzer.bank.check.run import check_bank
from quizzer.bank.loader import Bank, load_bank
from quizzer.commands.pack_sources import Pack, full_bank, loaded_packs, pack_of, paths_and_problems
from quizzer.core.words import counted


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    if getattr(args, "lints", False):
        from quizzer.bank.check.registry import LINTS

        for lint in LINTS:
            print(f"{lint.name:<18} {lint.finds}")
        return 0
    packs = loaded_packs(args.questions)
    paths = args.paths or paths_and_problems(packs)[0]
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
    bank = full_bank(packs) if not args.paths else _with_collisions(load_bank(paths), packs)
    report = check_bank(bank, seeds_per_template=args.seeds, lints=lints, workers=jobs, paths=paths)
    elapsed = time.perf_counter() - start
    for problem in report.problems:
        print(problem)
    summary = (
        f"{counted(report.templates, 'template')}, {counted(report.instances, 'instance')} checked in "
        f"{elapsed:.1f} s: {counted(len(report.problems), 'problem')}"
    )
    print(summary)
    return 1 if report.problems else 0


def _with_collisions(bank: Bank, packs: list[Pack]) -> Bank:
    """``bank`` (the paths checked) with a problem for each id it shares with the ``packs`` every verb loads
    (the built-in bank, config.toml's, the installed ones...), naming the other file and its pack's source:
    a pack checked on its own must not find out in the app that the built-in bank shadows a template."""
    from quizzer.bank.collisions import collisions

    def where(path: str) -> str:
        pack = pack_of(packs, path)
        return f"{path} ({pack.label})" if pack is not None else path

    bank.file_problems.extend(collisions(bank, full_bank(packs), where))
    return bank
