"""The "Common mistakes" section: every mistake's title and feedback, with the numbers that would give an
answer of the question (or of a part) away hidden, whole and readable, and nothing else hidden."""

from __future__ import annotations

import re
from functools import cache
from types import SimpleNamespace as NS

import pytest

from quizzer.bank.generate.common_mistakes import HIDDEN, common_mistakes, hide_answers
from quizzer.bank.loader import Bank
from quizzer.grading.grade import Tolerance, is_within
from tests.builtin_bank import builtin_bank, builtin_instance


@cache
def bank() -> Bank:
    return builtin_bank()  # one load per process, shared (tests/builtin_bank.py)


def question(value: float, unit: str = "bytes", display: str | None = None, rel: float = 0.01) -> NS:
    return NS(value=value, unit=unit, display_unit=display, tolerance=Tolerance("rel", rel))


def test_an_answer_is_hidden_in_any_unit_it_is_written_in_with_its_unit() -> None:
    q = question(240 * 2**30, display="GiB")
    text = "That is one sequence (7.5 GiB); all 32 take 240 GiB, or 257.7 GB, or 2.577e11 bytes."
    assert hide_answers(text, [q]) == (
        f"That is one sequence (7.5 GiB); all 32 take {HIDDEN}, or {HIDDEN}, or {HIDDEN}."
    )


def test_only_answers_are_hidden_and_exponents_never() -> None:
    count = question(12, unit="count")
    text = "You read the 70 GiB as 70 × 10^9 bytes; 12 sequences fit, not 13."
    assert (
        hide_answers(text, [count])
        == f"You read the 70 GiB as 70 × 10^9 bytes; {HIDDEN} sequences fit, not 13."
    )


def test_a_single_digit_tells_nothing_alone() -> None:
    """ "stage 2", "2 + 2 + 12": a one-digit answer is in every text; hiding it would garble them all."""
    assert (
        hide_answers("Stage 2 keeps 2 + 2 bytes.", [question(2, unit="count")])
        == "Stage 2 keeps 2 + 2 bytes."
    )


def test_a_bare_number_of_three_figures_counts_in_the_display_unit() -> None:
    q = question(1.25e-3, unit="s", display="ms")
    assert hide_answers("a step of 1.25, not 3", [q]) == f"a step of {HIDDEN}, not 3"
    # two figures beside a time in ms: "12 layers", "12," are no 12 ms
    assert hide_answers("12 layers, 12, 12 ms", [question(12e-3, unit="s", display="ms")]) == (
        f"12 layers, 12, {HIDDEN}"
    )


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("ZeRO's 32-bit mixed-precision Adam", question(32e9, display="GB")),  # a dtype's width
        ("bf16 is a 16-bit float", question(16, unit="bits/param")),  # not 16 bits a parameter
        ("an H100 in fp8 serving Llama-3-8B beside GPT-2", question(8e9, unit="params")),
        ("on a ViT-B/16 with the 2:4-sparse peak", question(16, unit="count")),
        ("it reaches 80-90% of the bandwidth", question(0.8, unit="ratio", display="%")),
        ("every 6th layer, 6·N FLOPs per token, N × 6", question(6, unit="ratio")),
        ("step 3 of part 3", question(3, unit="count")),
        ("an NVIDIA GeForce RTX 4090 24GB", question(4096, unit="count")),  # a product's name
        ("the shortcut R·w ÷ 16 tokens", question(16, unit="count")),  # a coefficient of a symbol
        ("(18 × 32,768 + 18 × 128) × 2,048 bytes", question(2304, unit="count")),  # a term of a sum
        ("⌈10 ÷ 4⌉ = 3 workers", question(2.5, unit="ratio")),  # rounded up: the 2.5 is not stated
        ("Transformer Math 101's rule", question(101e9, display="GB")),  # a name
        ("30–50% is the usual range", question(0.5, unit="ratio", display="%")),  # a range
    ],
)
def test_a_number_in_a_name_or_a_formula_is_never_hidden(text: str, answer: NS) -> None:
    assert hide_answers(text, [answer]) == text


def test_the_mask_takes_the_whole_token_never_part_of_a_word_or_unit() -> None:
    """The old mask gave "…/s" (989 TFLOP/s) and "costs …/512" (114/512): now the token, or the whole
    quotient it is in, is one "…"."""
    peak = question(989e12, unit="FLOP/s")
    assert hide_answers("the dense peak, 989 TFLOP/s per GPU", [peak]) == f"the dense peak, {HIDDEN} per GPU"
    hours = question(114 * 3600, unit="s", display="hours")
    text = "so the decoder side costs 114/512 of what 6·N·D charges it."
    assert hide_answers(text, [hours]) == f"so the decoder side costs {HIDDEN} of what 6·N·D charges it."


def test_a_product_written_out_is_hidden_with_its_result() -> None:
    """ "12 × 12" is 144 (vit-patch-count); "2 × 15,377,539,072" the FLOPs of vit-forward-flops#281."""
    patches = question(144, unit="patches")
    assert hide_answers("a square grid, 12 × 12, so square it", [patches]) == (
        f"a square grid, {HIDDEN}, so square it"
    )
    flops = question(30_755_078_144, unit="FLOPs", rel=0.0005)
    text = "so the forward pass is 2 × 15,377,539,072 = 30,755,078,144 FLOPs."
    assert hide_answers(text, [flops]) == f"so the forward pass is {HIDDEN}."
    assert hide_answers("That is the MAC count, 15,377,539,072 MACs.", [flops]) == (
        f"That is the MAC count, {HIDDEN}."  # read as the grader reads it: 1 MAC = 2 FLOPs
    )
    assert (
        hide_answers("512 + 64 = 576 values", [question(576, unit="count")]) == f"512 + 64 = {HIDDEN} values"
    )


def test_a_share_is_hidden_as_its_rest_to_100_percent_too() -> None:
    saved = question(0.75, unit="ratio", display="%")
    assert hide_answers("25% is what remains; the saving is the other 75%.", [saved]) == (
        f"{HIDDEN} is what remains; the saving is the other {HIDDEN}."
    )


def test_the_walkthrough_hides_the_numbers_one_step_from_an_answer() -> None:
    """walkthrough-dense-gqa#8178 part 3 is ⌊71,239,838,720 / 102,400⌋ tokens: its feedback gave both
    (66.3 GiB free, 102,400 bytes a token); the given 80 GiB and 40 query heads stay."""
    text = "\n".join(f for _, f in common_mistakes(builtin_instance("walkthrough-dense-gqa", 8178)))
    assert "66.3 GiB" not in text
    assert "102,400" not in text
    assert "You filled all 80 GiB with cache" in text
    assert "the 40 query heads" in text


def test_after_answering_the_section_is_shown_whole() -> None:
    instance = builtin_instance("walkthrough-dense-gqa", 8178)
    assert "66.3 GiB" in "\n".join(f for _, f in common_mistakes(instance, hidden=False))


SAMPLE = [(t.id, seed) for t in bank().templates() for seed in (3, 41)]


@pytest.mark.parametrize(("template_id", "seed"), SAMPLE)
def test_no_section_prints_an_answer_as_shown(template_id: str, seed: int) -> None:
    instance = builtin_instance(template_id, seed)
    rows = common_mistakes(instance)
    slips = [m for q in instance.parts for m in q.mistakes if not is_within(m.value, q.value, q.tolerance)]
    assert len(rows) == len(slips)
    text = "\n".join(f for _, f in rows)
    prompts = "\n".join(p.masked_prompt or p.prompt for p in instance.parts)
    for shown in (p.display for p in instance.parts):
        figure = shown.split(" (")[0]  # "240 GiB", "16,384,000 params"
        number = re.match(r"[$~]?([\d,.]+)", figure)
        assert number is not None, shown
        if len(number.group(1).replace(",", "").replace(".", "")) < 3:
            continue  # "8 GPUs": a small count may be a given number too
        if re.search(rf"(?<![\d.,]){re.escape(number.group(1))}(?![\d])", prompts):
            continue  # the question states it (fp8-block-scales: the answer 128 is the block's side)
        assert not re.search(rf"(?<![\d.,]){re.escape(figure)}(?![\d])", text), (instance.id, figure)


def test_no_section_cuts_into_a_word_or_a_unit() -> None:
    """The mask never leaves "…" glued to letters, a unit, a slash or a hyphen ("ZeRO's …-bit",
    "…/s", "costs …/512"), over two seeds of every template."""
    glued = re.compile(rf"[\w/-]{HIDDEN}|{HIDDEN}[\w/²-]")
    for template_id, seed in SAMPLE:
        for _, feedback in common_mistakes(builtin_instance(template_id, seed)):
            assert not glued.search(feedback), (template_id, seed, feedback)
