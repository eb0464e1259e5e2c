"""What the MCP server's tools compute, without the SDK: the verbs' own functions, given plain values."""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from typing import Any

from quizzer.bank.generate.instance import Instance, Part
from quizzer.bank.loader import Bank
from quizzer.bank.read.overrides import settable_rows
from quizzer.bank.read.schema import Template
from quizzer.commands.common import UsageError, find_template, pose, resolve
from quizzer.commands.count import count_report, load_model
from quizzer.commands.grade import grade_answer, graded_json
from quizzer.commands.listing import template_row
from quizzer.commands.show import instance_json, question_only_json
from quizzer.core.errors import QuizzerError, UnknownNameError
from quizzer.core.presets import preset_names

#: A value of ``set``: what ``--set NAME=VALUE`` takes, as JSON gives it.
SetValue = str | int | float | bool


def set_pairs(values: Mapping[str, SetValue] | None) -> list[str]:
    """``values`` as the ``NAME=VALUE`` pairs of ``--set`` (a JSON true or false as the word).

    >>> set_pairs({"seq_len": 4096, "tied": False, "dtype": "fp8"})
    ['seq_len=4096', 'tied=false', 'dtype=fp8']
    """
    return [f"{name}={str(v).lower() if isinstance(v, bool) else v}" for name, v in (values or {}).items()]


def _args(
    ref: str, values: Mapping[str, SetValue] | None, model: str | None, **more: Any
) -> argparse.Namespace:
    """The arguments `quizzer show` or `quizzer grade` would parse for ``ref`` with ``--set`` and
    ``--model``: the tools run the verbs' own functions on them, so they say what the verbs say."""
    return argparse.Namespace(id=ref, seed=None, set=set_pairs(values), model=model or None, **more)


def _posed(bank: Bank, args: argparse.Namespace, *, seed_required: bool) -> tuple[Template, Instance]:
    """(template, instance) for ``args`` as `quizzer show` poses it; without a seed, a random one (as
    `quizzer show` draws it: the instance's id names it)."""
    template_id, seed = resolve(args.id, None, seed_required=seed_required)
    if seed is None:
        seed = int.from_bytes(os.urandom(3), "big")
    template = find_template(bank, template_id)
    return template, pose(bank, template, seed, args)


def _need_seed(ref: str) -> None:
    """A UsageError unless ``ref`` names its seed: ID alone would be a new instance, not the one asked."""
    if "#" not in ref:
        raise UsageError(
            f"{ref!r} names no instance: give ID#SEED as pose returned it (its 'instance'); "
            "ID alone would be a different question"
        )


def list_templates(bank: Bank, topic: str | None = None) -> dict[str, Any]:
    """The templates (of ``topic``), each as `quizzer list --json` gives it plus its number of parts, and
    every topic; an unknown topic is a UsageError naming them."""
    templates = bank.templates()
    topics = sorted({t.topic for t in templates})
    if topic and topic not in topics:
        raise UsageError(f"no templates in topic {topic!r}; the topics: {', '.join(topics)}")
    rows = [template_row(t) | {"parts": len(t.parts)} for t in templates if not topic or t.topic == topic]
    return {"templates": rows, "topics": topics}


def pose_question(
    bank: Bank, ref: str, values: Mapping[str, SetValue] | None = None, model: str | None = None
) -> dict[str, Any]:
    """The question of ``ref`` (ID or ID#SEED) without its answer: `quizzer show --json --no-answer` (no
    variable computed from the drawn ones: some are the answer or a step to it), plus the unit each part
    is answered in and the arguments that grade it."""
    args = _args(ref, values, model)
    template, instance = _posed(bank, args, seed_required=False)
    data = question_only_json(instance, template)
    settable = settable_rows(template)
    data["answer_unit"] = _answer_unit(instance.main)
    for part, question in zip(data["parts"], instance.later_parts, strict=True):
        part["answer_unit"] = _answer_unit(question)
    data["settable"] = settable
    data["grade_with"] = {"ref": instance.id} | ({"set": dict(values)} if values else {})
    return data


def _answer_unit(question: Part) -> dict[str, str]:
    """What an answer to ``question`` is: its kind of unit (any unit of that kind is read, "15.6 GiB" as
    bytes) and the unit a bare number is read in."""
    return {"unit": question.unit, "bare_number": question.display_unit or question.unit}


def grade(
    bank: Bank,
    ref: str,
    answer: str,
    *,
    part: int = 1,
    given: Mapping[int, str | int | float] | None = None,
    values: Mapping[str, SetValue] | None = None,
    model: str | None = None,
) -> dict[str, Any]:
    """``answer`` to part ``part`` of ``ref`` (ID#SEED) graded: what `quizzer grade --json` prints, an
    answer that cannot be read included (the verdict "unparsed", its message saying what was understood:
    the candidate's answer, not the agent's mistake)."""
    _need_seed(ref)
    pairs = [f"{k}={v}" for k, v in (given or {}).items()]
    args = _args(ref, values, model, answer=answer, part=str(part), given=pairs)
    number, graded = grade_answer(bank, args)
    return graded_json(number, graded)


def explain(
    bank: Bank, ref: str, values: Mapping[str, SetValue] | None = None, model: str | None = None
) -> dict[str, Any]:
    """Everything about ``ref`` (ID#SEED): what `quizzer show --json` prints (answer, derivation,
    explanation, mistakes, each part's)."""
    _need_seed(ref)
    template, instance = _posed(bank, _args(ref, values, model), seed_required=True)
    return instance_json(instance) | {"settable": settable_rows(template)}


def count_model(
    model: str,
    dtype: str = "bf16",
    seq_len: int = 0,
    batch: int = 1,
    state_dtype: str = "fp32",
    mtp: bool = False,
) -> dict[str, Any]:
    """What `quizzer count MODEL --json` prints; an unknown preset's error lists the presets."""
    try:
        name, spec, _ = load_model(model, mtp)
    except UnknownNameError as exc:
        raise UsageError(f"{exc}; the presets: {', '.join(preset_names())}") from None
    return count_report(name, spec, dtype, seq_len, batch, state_dtype)


__all__ = [
    "QuizzerError",
    "SetValue",
    "count_model",
    "explain",
    "grade",
    "list_templates",
    "pose_question",
    "set_pairs",
]
