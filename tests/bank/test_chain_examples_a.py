"""Issue 14, group A: follow-ups turned into graded parts, pinned on instances worked out by hand.

Every expected value is computed here from the instance's inputs (layers, heads, bytes, vocabulary...),
never read back from a template's answer.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from quizzer.bank.generate.render import Instance
from quizzer.bank.loader import Bank
from quizzer.session.chain import grade_part
from tests.builtin_bank import builtin_bank

GIB = 2**30


@cache
def bank() -> Bank:
    return builtin_bank()  # one load per process, shared (tests/builtin_bank.py)


def pose(template_id: str, seed: int = 1, **overrides: Any) -> Instance:
    return bank().generate(template_id, seed, {k: str(v) for k, v in overrides.items()})


FP8_CACHE = {
    "n_layers": 32,
    "n_heads": 32,
    "n_kv_heads": 8,
    "head_dim": 128,
    "seq_len": 8192,
    "batch": 16,
    "dtype": "fp8",
}


def test_the_fp8_cache_chain_per_token_then_sequences_that_fit() -> None:
    instance = pose("kv-cache-bytes", **FP8_CACHE)
    assert instance.value == 8 * GIB  # 2 x 32 x 8 x 128 x 1 byte x 8,192 x 16
    per_token, fit = instance.later_parts
    assert per_token.value == 65536  # 2 x 32 x 8 x 128 x 1 byte: 64 KiB
    assert per_token.display == "64 KiB"
    # one sequence: 64 KiB x 8,192 = 512 MiB, so one GPU's free memory holds two sequences per GiB
    assert fit.variables["n_gpus"] == 1
    assert fit.variables["free_gib"] in (40, 60, 70)
    assert fit.value == 2 * fit.variables["free_gib"]


def test_a_one_sequence_slip_in_part_1_carries_into_the_per_token_part() -> None:
    instance = pose("kv-cache-bytes", **FP8_CACHE)
    wrong = GIB // 2  # one sequence's cache, 512 MiB, given for the batch's
    graded = grade_part(bank().get("kv-cache-bytes"), instance, 2, "4 KiB", {1: wrong})
    assert graded.verdict.kind == "consistent"  # 512 MiB / (8,192 x 16 tokens) = 4 KiB
    assert graded.carried == {"1": wrong}
    right = grade_part(bank().get("kv-cache-bytes"), instance, 2, "64 KiB", {1: wrong})
    assert right.verdict.kind in ("exact", "correct")


GPT2_SMALL = {"vocab_size": 50257, "n_positions": 1024, "d_model": 768, "n_layers": 12}


def test_gpt2_small_as_nanogpt_prints_it_and_untied() -> None:
    instance = pose("gpt-total-params", **GPT2_SMALL)
    assert instance.value == 124_439_808
    nanogpt, untied = instance.later_parts
    assert nanogpt.value == 124_439_808 - 1024 * 768 == 123_653_376  # nanoGPT's "123.65M"
    assert untied.value == 124_439_808 + 50257 * 768 == 163_037_184


def test_vit_b16_at_224_scores_and_half_patches() -> None:
    instance = pose("vit-patch-count", image_size=224, patch_size=16)
    assert instance.value == 196  # (224 / 16)^2
    scores, halved = instance.later_parts
    assert scores.value == 197 * 197 == 38_809  # 196 patches + the class token, squared
    assert halved.value == (224 // 8) ** 2 == 784


def test_doubling_gpt2s_vocabulary_raises_its_share_by_less_than_double() -> None:
    instance = pose("embedding-share-estimate", model="gpt2")
    table = 50257 * 768  # tied: one vocabulary matrix
    total = 124_439_808
    rule, doubled = instance.later_parts
    assert abs(instance.value - table / total) < 1e-12  # 31.0%
    # 12 x 12 x 768^2 = 84,934,656 in the layers by the shortcut
    assert abs(rule.value - table / (12 * 12 * 768**2 + table)) < 1e-12  # 31.2%
    assert abs(doubled.value - 2 * table / (total + table)) < 1e-12  # 47.3%, not 62%
    assert round(100 * doubled.value, 1) == 47.3
