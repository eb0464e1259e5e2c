"""What the question verbs share: loading the packs, resolving ID#SEED and --set."""

from __future__ import annotations

import argparse
import sys
from typing import Literal, overload

from quizzer.bank.errors import TemplateError
from quizzer.bank.generate.render import Instance
from quizzer.bank.loader import Bank, load_bank, suggest_id
from quizzer.bank.read.schema import Template
from quizzer.core.errors import QuizzerError
from quizzer.paths import question_paths


class UsageError(QuizzerError):
    """A command-line mistake: exit 2 with the message."""


def open_bank(args: argparse.Namespace) -> Bank:
    """The built-in bank plus QUIZZER_QUESTIONS and --questions packs."""
    return load_bank(question_paths(getattr(args, "questions", [])))


def warn_problems(bank: Bank) -> None:
    """Every load problem (syntax errors, duplicate ids, invalid templates skipped) goes to stderr."""
    for problem in bank.problems():
        print(f"quizzer: warning: {problem}", file=sys.stderr)


def warn_instance(instance: Instance) -> None:
    """Each warning of an instance (a constraint the user's own numbers break) as one line on stderr."""
    for warning in instance.warnings:
        print(f"quizzer: warning: {warning}", file=sys.stderr)


def find_template(bank: Bank, template_id: str) -> Template:
    """The valid template ``template_id``; raises the TemplateError that names why it cannot be used (its
    file unreadable, the template invalid), or a UsageError for an unknown id."""
    if template_id not in bank:
        problem = bank.why_missing(template_id)
        if problem is not None:
            raise problem
        raise UsageError(f"no template {template_id!r}{suggest_id(bank, template_id)}; see `quizzer list`")
    return bank.get(template_id)


@overload
def resolve(ref: str, seed: int | None, *, seed_required: Literal[True]) -> tuple[str, int]: ...
@overload
def resolve(ref: str, seed: int | None, *, seed_required: bool) -> tuple[str, int | None]: ...
def resolve(ref: str, seed: int | None, *, seed_required: bool) -> tuple[str, int | None]:
    """(template id, seed) from ``ID#SEED`` and ``--seed``."""
    template_id, _, seed_text = ref.partition("#")
    if seed_text:
        try:
            from_ref = int(seed_text)
        except ValueError:
            raise UsageError(f"{ref!r}: the seed after # must be a whole number") from None
        if seed is not None and seed != from_ref:
            raise UsageError(f"{ref!r} and --seed {seed} disagree")
        seed = from_ref
    if seed is None and seed_required:
        raise UsageError("give the seed as ID#SEED or --seed N (the same question every time)")
    return template_id, seed


def overrides(pairs: list[str]) -> dict[str, str]:
    """``--set name=value`` pairs."""
    out: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise UsageError(f"--set {pair!r}: write NAME=VALUE")
        out[name.strip()] = value.strip()
    return out


__all__ = [
    "TemplateError",
    "UsageError",
    "find_template",
    "open_bank",
    "overrides",
    "resolve",
    "warn_instance",
    "warn_problems",
]
