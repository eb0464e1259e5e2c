"""What the question verbs share: loading the packs, resolving ID#SEED and --set."""

from __future__ import annotations

import argparse
import sys
from typing import Literal, overload

from quizzer.bank.errors import TemplateError
from quizzer.bank.generate.render import Instance
from quizzer.bank.loader import Bank, suggest_id
from quizzer.bank.read.schema import Template
from quizzer.core.errors import QuizzerError


class UsageError(QuizzerError):
    """A command-line mistake: exit 2 with the message."""


def open_bank(args: argparse.Namespace) -> Bank:
    """The built-in bank, QUIZZER_QUESTIONS and --questions packs, then config.toml's and the installed
    packs when first needed (commands/pack_sources.py)."""
    from quizzer.commands.pack_sources import open_packs

    return open_packs(getattr(args, "questions", []))


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
    for problem in bank.known_problems():  # another pack's copy of this id, skipped: say so
        if problem.template_id == template_id and problem.field == "id":
            print(f"quizzer: warning: {problem}", file=sys.stderr)
    return bank.get(template_id)


@overload
def resolve(ref: str, seed: int | None, *, seed_required: Literal[True]) -> tuple[str, int]: ...
@overload
def resolve(ref: str, seed: int | None, *, seed_required: bool) -> tuple[str, int | None]: ...
def resolve(ref: str, seed: int | None, *, seed_required: bool) -> tuple[str, int | None]:
    """(template id, seed) from ``ID#SEED`` and ``--seed`` (``model_of`` reads an ``@MODEL`` after it)."""
    template_id, _, seed_text = ref.partition("@")[0].partition("#")
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


def overrides(pairs: list[str], template: Template | None = None, model: str | None = None) -> dict[str, str]:
    """``--set name=value`` pairs (a config.json path as a value is read and registered as a model), and
    ``model`` (``--model``, or the ``@MODEL`` of ``ID#SEED@MODEL``) as the value of the template's model
    variable; a UsageError for a template that takes no model."""
    import os

    from quizzer.bank.read.model_files import model_name

    out: dict[str, str] = {}
    if model:
        from quizzer.bank.model_bank import model_variable

        variable = model_variable(template) if template is not None else None
        if variable is None:
            which = template.id if template is not None else "this template"
            raise UsageError(
                f"--model: {which} takes no model; `quizzer list --model MODEL` lists those that do"
            )
        out[variable] = model_name(model)
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise UsageError(f"--set {pair!r}: write NAME=VALUE")
        value = value.strip()
        if "." not in name and (value.endswith(".json") or (os.sep in value and os.path.exists(value))):
            value = model_name(value)
        out[name.strip()] = value
    return out


def pose(bank: Bank, template: Template, seed: int, args: argparse.Namespace) -> Instance:
    """The instance ``show`` and ``grade`` ask: ``--set`` values and ``--model`` applied; its id names the
    model (``ID#SEED@MODEL``) so that it can be replayed."""
    model = model_of(args.id, getattr(args, "model", None))
    given = overrides(args.set, template, model)
    if not model:
        return bank.generate(template.id, seed, given)
    from quizzer.bank.model_bank import model_variable, posed_for

    name = given.pop(str(model_variable(template)))
    return posed_for(bank, template.id, seed, name, given)


def for_model(bank: Bank, model: str | None, *, quiet: bool = False) -> Bank:
    """``bank``, or with ``--model`` the bank of the templates that take a model, posed for it; says on
    stderr how many are posed and how many are skipped (``quizzer list --model`` says why)."""
    if not model:
        return bank
    from quizzer.bank.model_bank import ModelBank
    from quizzer.bank.read.model_files import model_name

    posed = ModelBank(bank, model_name(model))
    if not posed.posed():
        raise UsageError(
            f"--model {model}: no question can be asked about it; `quizzer list --model` says why"
        )
    if not quiet:
        skipped = sum(reason != "takes no model" for reason in posed.skipped.values())
        print(
            f"quizzer: {len(posed.posed())} questions about {model}; {skipped} that take a model do not "
            f"apply (`quizzer list --model {model}` says why)",
            file=sys.stderr,
        )
    return posed


def model_of(ref: str, model: str | None) -> str | None:
    """The model of ``ID#SEED@MODEL`` or ``--model``; a UsageError when both are given and differ."""
    named = ref.partition("@")[2] or None
    if named and model and named != model:
        raise UsageError(f"{ref!r} and --model {model} disagree")
    return named or model


__all__ = [
    "TemplateError",
    "UsageError",
    "find_template",
    "for_model",
    "model_of",
    "open_bank",
    "overrides",
    "pose",
    "resolve",
    "warn_instance",
    "warn_problems",
]
