"""Speculative decoding and encoder-decoder templates, pinned by hand.

Every expected value is worked out here from the formula or the published config (Leviathan et al. 2023;
the T5 and Flan-T5 config.json files; Whisper's and BART's configs), never read back from the template.
The T5 counts are also checked against the counting core's from_hf_config, an independent implementation.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from quizzer.bank.generate.render import Instance
from quizzer.bank.loader import Bank, load_bank
from quizzer.core.hf import from_hf_config
from quizzer.core.model import param_breakdown
from quizzer.paths import questions_dir
from quizzer.session.chain import part_of
from quizzer.session.drill import grade_instance

FILES = ("speculative-decoding.toml", "encoder-decoder.toml")


@cache
def bank() -> Bank:
    return load_bank([str(Path(questions_dir()) / name) for name in FILES])


def pose(template_id: str, **overrides: str) -> Instance:
    return bank().generate(template_id, 1, overrides)


def value(instance: Instance, part: int = 1) -> float:
    return part_of(instance, part).value


def tokens_per_call(alpha: float, gamma: int) -> float:
    return sum(alpha**i for i in range(gamma + 1))  # 1 + α + … + α^γ, summed term by term


def test_the_files_load_clean() -> None:
    assert bank().problems() == []
    assert {t.topic for t in bank().templates()} == {"speculative-decoding", "encoder-decoder"}


# --- speculative decoding ---------------------------------------------------------------------------------


def test_tokens_per_call_alpha_08_gamma_5() -> None:
    instance = pose("speculative-expected-tokens", alpha="0.8", gamma="5")
    assert value(instance) == pytest.approx(1 + 0.8 + 0.64 + 0.512 + 0.4096 + 0.32768)  # 3.68928
    n_out = part_of(instance, 2).variables["n_out"]
    assert value(instance, 2) == pytest.approx(n_out / 3.68928, rel=1e-6)
    assert value(instance, 3) == pytest.approx(5 * n_out / 3.68928, rel=1e-6)


def test_the_bonus_token_slip_is_named() -> None:
    instance = pose("speculative-expected-tokens", alpha="0.8", gamma="5")
    verdict = grade_instance(instance, "3.3616")  # 1 + 0.8 + 0.64 + 0.512 + 0.4096: one term short
    assert verdict.mistake == "bonus-token-left-out"


def test_speedup_t5_small_draft() -> None:
    # Leviathan et al. Table 4: T5-XXL with T5-small, EnDe greedy: alpha 0.75, gamma 7, c 0.02.
    instance = pose("speculative-speedup", alpha="0.75", gamma="7", c="0.02")
    assert value(instance) == pytest.approx(tokens_per_call(0.75, 7) / 1.14)  # 3.1575
    verdict = grade_instance(instance, "3.60")  # tokens per round: the draft's time left out
    assert verdict.mistake == "draft-cost-ignored"


def test_arithmetic_factor_follows_theorem_3_11() -> None:
    instance = pose("speculative-speedup", alpha="0.75", gamma="7", c="0.02")
    c_hat = part_of(instance, 2).variables["c_hat"]
    expected = (1 - 0.75) * (7 * c_hat + 7 + 1) / (1 - 0.75**8)
    assert value(instance, 2) == pytest.approx(expected)


def test_best_gamma_by_hand() -> None:
    # alpha 0.8, c 0.05: speed-ups 3.082 (7), 3.092 (8), 3.078 (9): the peak is at 8.
    speedups = {g: tokens_per_call(0.8, g) / (1 + 0.05 * g) for g in range(1, 11)}
    assert max(speedups, key=speedups.__getitem__) == 8
    instance = pose("speculative-best-gamma", alpha="0.8", c="0.05")
    assert value(instance) == 8
    assert value(instance, 2) == pytest.approx(speedups[8])
    assert grade_instance(instance, "10").mistake == "longest-draft"
    assert grade_instance(instance, "1").mistake == "round-without-target-pass"


def test_tokens_from_a_measured_rate() -> None:
    # 30 ms target step, 0.8 ms draft step, gamma 4; alpha 0.75 gives 3.0508 tokens per round, so the
    # stream runs at 3.0508 / 33.2 ms = 91.9 tokens/s (as shown), and 91.9 × 33.2 ms = 3.05108 tokens.
    instance = pose(
        "speculative-tokens-from-speedup", target_ms="30", draft_ms="0.8", gamma="4", alpha_true="0.75"
    )
    assert instance.variables["spec_rate"] == 91.9
    assert value(instance) == pytest.approx(91.9 * 0.0332)
    assert value(instance, 2) == pytest.approx((91.9 * 0.0332 - 1) / 4)  # vLLM's accepted / proposed
    assert instance.variables["alpha_implied"] == pytest.approx(0.75, abs=0.002)
    assert grade_instance(instance, "2.757").mistake == "draft-time-ignored"  # the measured speed-up


def test_decode_rate_llama3_70b_with_8b_draft_on_h200() -> None:
    # Llama 3 70B: 70,553,706,496 parameters; Llama 3 8B: 8,030,261,248 (safetensors totals); fp8 weights;
    # H200 4.8 TB/s; alpha 0.8 and gamma 5 give 3.69 tokens per call (rounded as shown).
    instance = pose(
        "speculative-decode-rate-estimate",
        target="llama-3-70b",
        draft="llama-3-8b",
        gpu="h200",
        dtype="fp8",
        gamma="5",
        alpha="0.8",
    )
    round_bytes = 70_553_706_496 + 5 * 8_030_261_248
    assert value(instance) == pytest.approx(3.69 * 4.8e12 / round_bytes)  # about 160 tokens/s
    assert value(instance, 2) == pytest.approx(3.69 * 70_553_706_496 / round_bytes)
    plain = 4.8e12 / 70_553_706_496
    assert grade_instance(instance, f"{3.69 * plain:.1f} tokens/s").mistake == "draft-reads-ignored"


# --- encoder-decoder ----------------------------------------------------------------------------------------

T5 = {  # config: (d_model, d_ff, layers, heads, d_kv, gated and untied)
    "t5-small": (512, 2048, 6, 8, 64, False),
    "t5-base": (768, 3072, 12, 12, 64, False),
    "t5-large": (1024, 4096, 24, 16, 64, False),
    "t5-3b": (1024, 16384, 24, 32, 128, False),
    "t5-11b": (1024, 65536, 24, 128, 128, False),
    "flan-t5-small": (512, 1024, 8, 6, 64, True),
    "flan-t5-base": (768, 2048, 12, 12, 64, True),
    "flan-t5-large": (1024, 2816, 24, 16, 64, True),
    "flan-t5-xl": (2048, 5120, 24, 32, 64, True),
    "flan-t5-xxl": (4096, 10240, 24, 64, 64, True),
}
COUNTS = {  # sum(numel) of the released checkpoints, hand-added below and published on the model cards
    "t5-small": 60_506_624,
    "t5-base": 222_903_552,
    "t5-large": 737_668_096,
    "t5-3b": 2_851_598_336,
    "t5-11b": 11_307_321_344,
    "flan-t5-small": 76_961_152,
    "flan-t5-base": 247_577_856,
    "flan-t5-large": 783_150_080,
    "flan-t5-xl": 2_849_757_184,
    "flan-t5-xxl": 11_135_332_352,
}


def t5_by_hand(config: str) -> tuple[int, int]:
    """(total, encoder-only) of a T5 config: stacks, cross-attention, one shared table, 2 bias tables."""
    d, d_ff, layers, heads, d_kv, v11 = T5[config]
    vocab, inner = 32128, heads * d_kv
    attn, ffn = 4 * d * inner, (3 if v11 else 2) * d * d_ff
    encoder = vocab * d + layers * (attn + ffn + 2 * d) + 32 * heads + d
    decoder = layers * (2 * attn + ffn + 3 * d) + 32 * heads + d
    return encoder + decoder + (vocab * d if v11 else 0), encoder


@pytest.mark.parametrize("config", sorted(T5))
def test_t5_counts_by_hand_and_by_the_core(config: str) -> None:
    total, encoder = t5_by_hand(config)
    assert total == COUNTS[config]
    d, d_ff, layers, heads, d_kv, v11 = T5[config]
    hf = {"model_type": "t5", "vocab_size": 32128, "d_model": d, "d_ff": d_ff, "num_layers": layers}
    hf.update(num_heads=heads, d_kv=d_kv)
    if v11:
        hf.update(feed_forward_proj="gated-gelu", tie_word_embeddings=False)
    assert param_breakdown(from_hf_config(hf)).total == total  # an independent implementation agrees
    instance = pose("encdec-t5-params", config=config)
    assert value(instance) == total
    assert value(instance, 3) == encoder
    cross = layers * 4 * d * heads * d_kv
    assert value(instance, 2) == pytest.approx(cross / total)


def test_t5_double_counted_table_is_named() -> None:
    instance = pose("encdec-t5-params", config="t5-small")
    verdict = grade_instance(instance, "76,956,160")  # Wikipedia's table: encoder + decoder columns
    assert verdict.mistake == "vocab-matrix-twice"
    assert grade_instance(instance, "54,214,656").mistake == "cross-attention-left-out"  # 6 × 1,048,576 less


def test_flan_t5_head_and_gate_slips_are_named() -> None:
    instance = pose("encdec-t5-params", config="flan-t5-base")
    assert grade_instance(instance, "222,903,552").mistake == "head-left-out"
    assert grade_instance(instance, "209,829,888").mistake == "two-matrix-gated-ffn"  # 2·12·768·2048 less


def test_cross_attention_flops_whisper_large_v3() -> None:
    # 32 decoder layers, width 1,280, 1,500 encoder frames, 448 tokens.
    kv_once = 4 * 1500 * 1280 * 1280
    per_token = 4 * 1280 * 1280 + 4 * 1500 * 1280
    instance = pose("encdec-cross-attention-flops", model="whisper-large-v3", tgt="448")
    assert value(instance) == 32 * (kv_once + 448 * per_token)  # 518,625,689,600
    assert value(instance, 2) == 32 * 4 * 1280 * 1280
    assert value(instance, 3) == pytest.approx(
        32 * (kv_once + 448 * per_token) / (2 * 32 * 4 * 1280 * 1280 * 448)
    )
    recomputed = 32 * 448 * (kv_once + per_token)
    assert grade_instance(instance, f"{recomputed:.6e} FLOPs").mistake == "kv-recomputed-per-token"


def test_kv_cache_whisper_large_v3() -> None:
    per_position = 2 * 32 * 1280 * 2  # K and V, 32 decoder layers, width 1,280, fp16
    instance = pose("encdec-kv-cache", model="whisper-large-v3", batch="8", dtype="fp16")
    total = per_position * (1500 + 448) * 8
    assert value(instance) == total  # 2,553,282,560 bytes
    assert value(instance, 2) == pytest.approx(per_position * 1500 * 8)
    assert value(instance, 3) == pytest.approx(2 * total)
    assert grade_instance(instance, f"{2 * total} bytes").mistake == "encoder-layers-cached"
    assert grade_instance(instance, f"{per_position * 448 * 8} bytes").mistake == "cross-attention-left-out"


def test_training_flops_t5_11b_final_run() -> None:
    # Encoder: 24 × (4·1024·16384 + 2·1024·65536); decoder: 24 × (8·1024·16384 + 2·1024·65536) + head.
    encoder = 24 * (4 * 1024 * 16384 + 2 * 1024 * 65536)
    decoder = 24 * (8 * 1024 * 16384 + 2 * 1024 * 65536) + 32128 * 1024
    instance = pose("encdec-training-flops-estimate", config="t5-11b", regime="final")
    expected = 6 * 1_000_000 * 2048 * (512 * encoder + 114 * decoder)  # about 3.95e22
    assert value(instance) == expected
    naive = 6 * 1_000_000 * 2048 * 512 * (encoder + decoder)
    assert grade_instance(instance, f"{naive:.4e} FLOPs").mistake == "all-weights-at-input-length"
