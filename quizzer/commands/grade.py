"""`quizzer grade`: grade one answer to one instance (or one part of a chain); exit 0 whatever the verdict."""

from __future__ import annotations

import argparse
import json

from quizzer.bank.generate.plaintext import markdown_to_text
from quizzer.bank.generate.render import Instance
from quizzer.bank.loader import Bank
from quizzer.commands.common import (
    UsageError,
    find_template,
    open_bank,
    pose,
    resolve,
    warn_instance,
)
from quizzer.grading.grade import Verdict
from quizzer.grading.parse import ParseError, parse_answer
from quizzer.session.chain import PartGrade, grade_part, part_of


def verdict_json(verdict: Verdict) -> dict[str, object]:
    """The documented JSON shape of a verdict; the message and feedback keep their Markdown."""
    given = None if verdict.given is None else {"value": verdict.given.value, "unit": verdict.given.unit}
    return {
        "verdict": verdict.kind,
        "given": given,
        "expected": {"value": verdict.expected, "unit": verdict.unit},
        "relative_error": verdict.rel_error,
        "mistake": verdict.mistake,
        "feedback": verdict.feedback,
        "diagnosis": list(verdict.diagnosis),
        "message": verdict.message,
    }


def part_number(instance: Instance, text: str) -> int:
    """The part ``--part`` names (1 is the main question); a UsageError unless it is 1..part_count."""
    count = instance.part_count
    which = "only part 1" if count == 1 else f"parts 1 to {count}"
    try:
        number = int(text.strip())
    except ValueError:
        raise UsageError(f"--part {text!r}: give a part number ({instance.id} has {which})") from None
    if not 1 <= number <= count:
        raise UsageError(f"--part {number}: {instance.id} has {which}")
    return number


def earlier_answers(instance: Instance, number: int, pairs: list[str]) -> dict[int, int | float]:
    """The ``--given K=ANSWER`` earlier answers of part ``number``, each read in part K's unit (a bare
    number in its display unit); a UsageError names the first one that is not an earlier part or cannot
    be read."""
    if pairs and number == 1:
        raise UsageError(
            f"--given {pairs[0]!r}: part 1 has no earlier part; --given goes with --part 2 or later"
        )
    out: dict[int, int | float] = {}
    for pair in pairs:
        k_text, sep, text = pair.partition("=")
        try:
            k = int(k_text.strip()) if sep else None
        except ValueError:
            k = None
        if k is None:
            raise UsageError(f"--given {pair!r}: write K=ANSWER, K the number of an earlier part")
        if not 1 <= k < number:
            before = "part 1" if number == 2 else f"parts 1 to {number - 1}"
            raise UsageError(f"--given {pair!r}: part {k} is not before part {number} (give {before})")
        if k in out:
            raise UsageError(f"--given {pair!r}: part {k} is given twice")
        question = part_of(instance, k)
        try:
            out[k] = parse_answer(text, question.unit, question.display_unit).value
        except ParseError as exc:
            raise UsageError(f"--given {pair!r}: part {k}'s answer: {exc.message}") from None
    return out


def grade_answer(bank: Bank, args: argparse.Namespace) -> tuple[int, PartGrade]:
    """(part number, its grade): ``args.answer`` graded as part ``args.part`` of the instance ``args.id``
    names (``--seed``, ``--set``, ``--model``, ``--given`` applied); the instance's warnings go to stderr.
    `quizzer grade` and the MCP server's ``grade`` tool both grade through it."""
    template_id, seed = resolve(args.id, args.seed, seed_required=True)
    template = find_template(bank, template_id)
    instance = pose(bank, template, seed, args)
    warn_instance(instance)
    number = part_number(instance, args.part)
    earlier = earlier_answers(instance, number, args.given)
    return number, grade_part(template, instance, number, args.answer, earlier)


def graded_json(number: int, graded: PartGrade) -> dict[str, object]:
    """What `quizzer grade --json` prints: the verdict's JSON, the part and the carried-forward credit."""
    return verdict_json(graded.verdict) | {"part": number, "carried": graded.carried}


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    resolve(args.id, args.seed, seed_required=True)  # a bad ID#SEED is said before the bank is read
    number, graded = grade_answer(open_bank(args), args)
    verdict = graded.verdict
    if args.json:
        print(json.dumps(graded_json(number, graded), indent=2))
    else:
        print(
            markdown_to_text(verdict.message)
        )  # the message ends with the mistake's feedback when one matched
    return 0
