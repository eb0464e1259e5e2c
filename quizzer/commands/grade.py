"""`quizzer grade`: grade one answer to one instance; exit 0 whatever the verdict."""

from __future__ import annotations

import argparse
import json

from quizzer.bank.plaintext import markdown_to_text
from quizzer.commands.common import find_template, open_bank, overrides, resolve, warn_instance
from quizzer.grading.grade import Verdict
from quizzer.session.drill import grade_instance


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
        "message": verdict.message,
    }


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    template_id, seed = resolve(args.id, args.seed, seed_required=True)
    bank = open_bank(args)
    find_template(bank, template_id)
    instance = bank.generate(template_id, seed, overrides(args.set))
    warn_instance(instance)
    verdict = grade_instance(instance, args.answer)
    if args.json:
        print(json.dumps(verdict_json(verdict), indent=2))
    else:
        print(
            markdown_to_text(verdict.message)
        )  # the message ends with the mistake's feedback when one matched
    return 0
