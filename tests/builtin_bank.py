"""The built-in bank (questions/), loaded and validated once per test process and shared by the modules."""

from __future__ import annotations

from functools import cache

from quizzer.bank.generate.render import Instance, generate
from quizzer.bank.loader import Bank, load_bank
from quizzer.paths import questions_dir


@cache
def builtin_bank() -> Bank:
    """The built-in bank with every template validated, the same object for every caller in this process
    (each xdist worker loads it once, not once per test module). Read it, never add to it: a test that
    needs a bank of its own, or counts what a fresh bank parses, calls ``load_bank`` itself."""
    bank = load_bank([questions_dir()])
    bank.templates()
    return bank


@cache
def builtin_instance(template_id: str, seed: int) -> Instance:
    """``generate(builtin_bank().get(template_id), seed)``, made once per process for every test that reads
    it (the formula, hint and own-numbers checks read the same first seeds). Exact: generation is
    deterministic and an Instance is immutable (tests/test_question_bank.py checks the one, Record the
    other); read its ``variables``, never change them. A test of generation itself calls ``generate``."""
    return generate(builtin_bank().get(template_id), seed)
