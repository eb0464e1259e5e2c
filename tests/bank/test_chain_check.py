"""`quizzer check` on chains: malformed parts named by file, template and ``parts[i].`` field; every part
generated, checked and linted for omissions like the main answer."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from quizzer.bank.check.lints import OmissionLint, scope
from quizzer.bank.check.omissions import omissions
from quizzer.bank.check.registry import chosen
from quizzer.bank.check.run import check_bank, check_template
from quizzer.bank.generate.render import generate
from quizzer.bank.loader import load_bank
from quizzer.bank.read.schema import Template

CHAINS = Path(__file__).resolve().parent.parent / "data" / "chains"
BAD = CHAINS / "bad"
PART_OMISSION = (CHAINS / "lint" / "part_omission.toml").read_text(encoding="utf-8")

#: Each malformed fixture: its template id, the field named and a phrase the message must hold.
MALFORMED = {
    "unknown_key.toml": ("chain-bad-unknown-key", "parts[0].promt", "unknown key (did you mean 'prompt'?)"),
    "later_part.toml": (
        "chain-bad-later-part",
        "parts[0].answer.expr",
        "'part3' is not known in part 2: a part may use only the answers of earlier parts (part1)",
    ),
    "missing_answer.toml": ("chain-bad-no-answer", "parts[0].answer", "is required"),
    "shadowed_variable.toml": (
        "chain-bad-shadow",
        "parts[0].variables.racks",
        "'racks' is already a variable of the template; pick another name",
    ),
    "mistake_without_feedback.toml": (
        "chain-bad-mistake-feedback",
        "parts[0].mistakes[0].feedback",
        "is required",
    ),
    "template_key_after_parts.toml": (
        "chain-bad-template-key",
        "parts[0].memory_aid",
        "'memory_aid' is a field of the template, not of a part",
    ),
}


def test_every_malformed_fixture_is_listed() -> None:
    assert sorted(p.name for p in BAD.glob("*.toml")) == sorted(MALFORMED)


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_a_malformed_part_gives_one_message_naming_file_template_and_field(name: str) -> None:
    tid, field, phrase = MALFORMED[name]
    path = str(BAD / name)
    bank = load_bank([path])
    (problem,) = bank.problems()
    assert (problem.path, problem.template_id, problem.field) == (path, tid, field)
    assert phrase in problem.message
    assert str(problem).startswith(f"{path}: template {tid!r}: field {field!r}: ")
    assert bank.templates() == []  # the broken template is skipped, never half-loaded


def test_a_malformed_chain_leaves_the_other_templates_of_its_file_loading(tmp_path: Path) -> None:
    bad = (BAD / "later_part.toml").read_text(encoding="utf-8")
    (tmp_path / "pack.toml").write_text((CHAINS / "chain.toml").read_text(encoding="utf-8") + bad)
    bank = load_bank([str(tmp_path / "pack.toml")])
    assert [(p.template_id, p.field) for p in bank.problems()] == [
        ("chain-bad-later-part", "parts[0].answer.expr")
    ]
    assert [t.id for t in bank.templates()] == ["chain-arithmetic", "chain-part-variables", "chain-no-carry"]


def _quizzer(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "quizzer", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ),
    )


def test_quizzer_check_prints_each_malformed_part_on_one_line_without_a_traceback() -> None:
    """One process over the folder (each file is its own problem), then one file on its own."""
    proc = _quizzer("check", str(BAD), "--seeds", "3")
    assert proc.returncode == 1
    assert "Traceback" not in proc.stdout + proc.stderr
    lines = proc.stdout.strip().splitlines()
    assert lines[-1].endswith(f"{len(MALFORMED)} problems")
    for name, (tid, field, phrase) in MALFORMED.items():
        (line,) = [line for line in lines if line.startswith(str(BAD / name))]
        assert f"template {tid!r}: field {field!r}: " in line
        assert phrase in line
    single = _quizzer("check", str(BAD / "later_part.toml"))
    assert single.returncode == 1
    assert "Traceback" not in single.stdout + single.stderr
    first, summary = single.stdout.strip().splitlines()
    assert first.startswith(f"{BAD / 'later_part.toml'}: template 'chain-bad-later-part': field 'parts[0]")
    assert summary.endswith(": 1 problem")


def test_the_example_chains_pass_the_check_with_the_omission_lint() -> None:
    """The fixture chains (plain arithmetic for the grading tests, not teaching text) under the omission
    lint; the teaching lints have their own packs."""
    report = check_bank(load_bank([str(CHAINS)]), seeds_per_template=30, lints=chosen(only=("omissions",)))
    assert report.problems == ()
    assert (report.templates, report.instances) == (3, 90)


def load(tmp_path: Path, text: str = PART_OMISSION) -> Template:
    (tmp_path / "pack.toml").write_text(text, encoding="utf-8")
    bank = load_bank([str(tmp_path / "pack.toml")])
    assert bank.problems() == []
    (template,) = bank.templates()
    return template


def checked(tmp_path: Path, text: str = PART_OMISSION, *, omissions: bool = True) -> list[tuple[str, str]]:
    # without the omission lint, the base checks and the tolerance sentence's (the teaching lints: own packs)
    only = ("omissions", "tolerance-text") if omissions else ("tolerance-text",)
    problems, count = check_template(load(tmp_path, text), range(10), lints=chosen(only=only))
    assert count == 10
    return [(str(p.field), p.message) for p in problems]


def test_a_part_omission_inside_the_band_and_an_unnamed_close_one_name_the_part(tmp_path: Path) -> None:
    problems = checked(tmp_path)
    assert [field for field, _ in problems] == ["parts[0].answer.expr", "parts[0].answer.expr"]
    silent, unnamed = (message for _, message in problems)
    assert silent.startswith(
        "leaving out '1.005' (a factor, set to 1) still grades correct at seed 0 (value "
    )
    assert unnamed.startswith("leaving out 'extra' (a term, set to 0) grades close at seed 0 (value ")
    assert checked(tmp_path, omissions=False) == []


def test_the_steps_of_a_part_stop_at_earlier_answers_and_at_what_its_prompt_shows(tmp_path: Path) -> None:
    """part1 is shown to the student (never looked inside: no n or b of the main answer), and so is
    ``extra``; a derived variable the prompt does not show is looked inside."""
    lint = OmissionLint(load(tmp_path), 2)
    assert [(o.step, o.how) for o in lint.omissions] == [
        ("1.005 * part1 * copies", "a term, set to 0"),
        ("1.005", "a factor, set to 1"),
        ("part1", "a factor, set to 1"),
        ("copies", "a factor, set to 1"),
        ("extra", "a term, set to 0"),
    ]
    hidden = load(tmp_path, PART_OMISSION.replace("and {extra} bytes of metadata", "and metadata"))
    steps = {(o.step, o.how) for o in OmissionLint(hidden, 2).omissions}
    assert ("50", "a divisor in variables.extra, set to 1") in steps
    assert not any(step in ("n", "b") for step, _ in steps)


def test_a_part_declares_its_own_omissions(tmp_path: Path) -> None:
    declared = 'omissions_ok = [{ step = "1.005", why = "the overhead is a footnote" }]\n'
    # at the template's top level it does not cover the part, and names no step of the main answer
    top = PART_OMISSION.replace('prompt = "A model', declared + 'prompt = "A model')
    problems = checked(tmp_path, top)
    assert ("parts[0].answer.expr", "leaving out '1.005'") in [(f, m[:19]) for f, m in problems]
    assert "omissions_ok[0].step" in [f for f, _ in problems]
    # in the part it does
    own = PART_OMISSION.replace("[template.parts.variables]", declared + "\n[template.parts.variables]")
    assert [m[:19] for _, m in checked(tmp_path, own)] == ["leaving out 'extra'"]
    # and a part's declaration that names no step of the part is reported against the part
    typo = own.replace('step = "1.005"', 'step = "1.05"')
    (typo_problem,) = [p for p in checked(tmp_path, typo) if p[0] == "parts[0].omissions_ok[0].step"]
    assert typo_problem[1].startswith(
        "'1.05' is no step of the answer's derivation; the steps are: '1.005', "
    )


def test_a_part_mistake_names_the_close_omission(tmp_path: Path) -> None:
    text = PART_OMISSION + (
        '\n[[template.parts.mistakes]]\nname = "no-metadata"\nanswer = "1.005 * part1 * copies"\n'
        'feedback = "You left out the {extra} bytes of metadata."\n'
    )
    assert [m[:19] for _, m in checked(tmp_path, text)] == ["leaving out '1.005'"]


def test_the_part_lint_grades_against_the_part_not_the_main_answer(tmp_path: Path) -> None:
    template = load(tmp_path)
    main, part = OmissionLint(template), OmissionLint(template, 2)
    for seed in range(3):
        instance = generate(template, seed)
        main.visit(instance, seed)
        part.visit(instance, seed)
    assert main.problems() == []  # n * b: leaving out either is a factor of 2 at least
    assert [p.field for p in part.problems()] == ["parts[0].answer.expr"] * 2
    assert [o.step for o in omissions(scope(template, 1))] == ["n", "b"]


CLEAN = PART_OMISSION.replace("1.005 * part1 * copies + extra", "part1 * copies").replace(
    " with a 0.5% overhead and {extra} bytes of metadata", ""
)


def test_the_clean_variant_is_clean(tmp_path: Path) -> None:
    assert checked(tmp_path, CLEAN) == []


@pytest.mark.parametrize(
    ("change", "field", "phrase"),
    [
        (
            (
                "[template.parts.variables]",
                '[[template.parts.mistakes]]\nname = "one-percent-more"\n'
                'answer = "1.004 * part1 * copies"\nfeedback = "Nearly."\n\n[template.parts.variables]',
            ),
            "parts[0].mistakes[0].answer",
            "inside the tolerance of the answer ",
        ),
        (
            ('"part1 * copies"', '"part1 * copies - part1 * copies"'),
            "parts[0].answer.expr",
            "seed 0: the answer 0 is not finite and positive",
        ),
        (
            ('"part1 * copies", unit = "bytes"', '"weights_bytes(part1, \'bf16\')", unit = "params"'),
            "parts[0].answer.unit",
            "is 'params' but the calculator returns 'bytes'",
        ),
        (
            ("How many bytes in all?", "How many bytes in all (within 1%)?"),
            "parts[0].prompt",
            "states the tolerance by hand ('within 1%'); every part is shown with a sentence generated",
        ),
    ],
    ids=["mistake-inside", "not-positive", "calculator-unit", "hand-tolerance"],
)
def test_each_part_is_checked_like_the_main_answer(
    tmp_path: Path, change: tuple[str, str], field: str, phrase: str
) -> None:
    assert change[0] in CLEAN
    problems = checked(tmp_path, CLEAN.replace(*change), omissions=False)
    assert len(problems) == 1, problems  # reported once, at its first seed, not once per seed
    assert problems[0][0] == field
    assert phrase in problems[0][1]
    inside = re.fullmatch(
        r"seed 0: the mistake gives ([0-9.]+), inside the tolerance of the answer ([0-9]+): the grader could "
        r"never tell them apart",
        problems[0][1],
    )
    if field.startswith("parts[0].mistakes"):
        assert inside
        assert float(inside.group(1)) == pytest.approx(1.004 * int(inside.group(2)))


def test_the_main_answer_names_its_calculator_unit_too(tmp_path: Path) -> None:
    text = CLEAN.replace(
        'expr = "n * b"\nunit = "bytes"', 'expr = "weights_bytes(n, \'bf16\')"\nunit = "params"'
    )
    assert checked(tmp_path, text, omissions=False) == [
        ("answer.unit", "is 'params' but the calculator returns 'bytes'")
    ]


def test_a_part_that_cannot_be_generated_names_the_part_and_the_seed(tmp_path: Path) -> None:
    text = CLEAN.replace(
        "[template.parts.variables]", 'constraints = ["copies > 5"]\n\n[template.parts.variables]'
    )
    problems, count = check_template(load(tmp_path, text), range(10))
    assert count == 0
    assert [(p.field, p.message) for p in problems] == [
        ("parts[0].constraints", "seed 0: no draw in 1000 satisfied every constraint")
    ]
