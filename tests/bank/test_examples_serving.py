"""Issue #11's examples in the serving group (inference, KV cache, activations, parallelism, scaling), pinned.

Every expected value here is worked out by hand from the instance's inputs (layers, heads, bytes per
value...), never read back from the template's own answer.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

import pytest

from quizzer.bank.generate.hints import hint_steps
from quizzer.bank.generate.render import Instance
from quizzer.bank.loader import Bank
from quizzer.cli import main
from quizzer.core.trace import Step, num
from quizzer.session.drill import grade_instance
from tests.builtin_bank import builtin_bank

GIB = 2**30
SERVING = [
    "decode-step-time",
    "prefill-time",
    "critical-batch-size",
    "generate-step-time",
    "kv-cache-bytes",
    "preset-kv-bytes-per-token",
    "kv-tokens-fit-in-hbm",
    "sliding-window-kv-cache",
    "activation-memory-full-recompute",
    "activation-memory-no-recompute",
    "activation-memory-selective-recompute",
    "activation-memory-tensor-parallel",
    "activation-checkpoint-memory",
    "allreduce-bytes-per-gpu",
    "pipeline-bubble-fraction",
    "nvlink-allgather-time",
    "zero3-comm-bytes",
    "dp-critical-batch-per-gpu",
    "chinchilla-tokens",
    "chinchilla-params-for-compute",
    "chinchilla-compute-for-model",
    "tokens-per-param-real-runs",
]


@cache
def bank() -> Bank:
    return builtin_bank()  # one load per process, shared (tests/builtin_bank.py)


def pose(template_id: str, seed: int = 1, **overrides: Any) -> Instance:
    return bank().generate(template_id, seed, {k: str(v) for k, v in overrides.items()})


def texts(instance: Instance) -> str:
    """Everything a student reads of an instance."""
    follow_ups = [part for pair in instance.follow_ups for part in pair]
    return "\n".join(
        [
            instance.prompt,
            *instance.conventions,
            instance.explanation,
            instance.tldr,
            instance.memory_aid,
            *follow_ups,
        ]
    )


# --- the fp8 KV cache: a 2x answer is told bf16 vs fp8 -----------------------------------------------

FP8_CACHE = {
    "n_layers": 32,
    "n_heads": 32,
    "n_kv_heads": 8,
    "head_dim": 128,
    "seq_len": 8192,
    "batch": 16,
    "dtype": "fp8",
}


def test_the_fp8_cache_instance_is_the_one_worked_by_hand() -> None:
    instance = pose("kv-cache-bytes", **FP8_CACHE)
    # 2 (K and V) x 32 layers x 8 KV heads x 128 x 1 byte = 65,536 bytes a token; x 8,192 x 16 = 8 GiB
    assert instance.value == 2 * 32 * 8 * 128 * 1 * 8192 * 16 == 8 * GIB
    assert instance.dtype == "fp8"


@pytest.mark.parametrize("answer", ["16", "16 GiB"])
def test_an_fp8_cache_twice_too_big_is_told_bf16_against_fp8(answer: str) -> None:
    verdict = grade_instance(pose("kv-cache-bytes", **FP8_CACHE), answer)
    assert verdict.kind == "wrong"
    assert verdict.feedback is not None
    assert "fp8" in verdict.feedback
    assert "bf16" in verdict.feedback
    assert "fp32" not in verdict.feedback


# --- tensor parallelism: one GPU holds 3 of the 105 layers ---------------------------------------------

MT_NLG_STAGE = {"model_name": "530B (MT-NLG)", "tp": 8, "seq_len": 4096, "batch": 4}


def mt_nlg_layer_bytes() -> int:
    s, b, h, a, t = 4096, 4, 20480, 128, 8
    return s * b * h * (10 + 24 // t) + 5 * a * s * s * b // t  # s·b·h·(10 + 24/t + 5·a·s/(h·t))


def test_the_mt_nlg_stage_holds_three_of_105_layers() -> None:
    instance = pose("activation-memory-tensor-parallel", **MT_NLG_STAGE)
    assert instance.variables["n_layers"] == 105
    assert instance.variables["stage_layers"] == 3
    assert instance.value == 3 * mt_nlg_layer_bytes()
    assert round(mt_nlg_layer_bytes() / 1e9, 2) == 9.73
    assert instance.layers == 3
    assert instance.layers_label == "the 3 layers one GPU holds"


def test_one_layer_of_the_stage_gets_the_one_layer_feedback() -> None:
    verdict = grade_instance(pose("activation-memory-tensor-parallel", **MT_NLG_STAGE), "9.73")
    assert verdict.feedback is not None
    assert "one layer" in verdict.feedback
    assert "the 3 layers one GPU holds" in verdict.feedback


def test_a_105th_of_the_answer_is_not_told_it_is_one_layer() -> None:
    instance = pose("activation-memory-tensor-parallel", **MT_NLG_STAGE)
    verdict = grade_instance(instance, f"{3 * mt_nlg_layer_bytes() / 105 / 1e9:.4g}")
    assert verdict.kind == "wrong"
    assert "layer" not in (verdict.feedback or "")


def test_all_105_layers_are_named_as_the_whole_model() -> None:
    verdict = grade_instance(pose("activation-memory-tensor-parallel", **MT_NLG_STAGE), f"{105 * 9.731:.5g}")
    assert verdict.mistake == "whole-model-layers"


# --- a follow-up that applied Llama-3-8B's 1,900 tokens per parameter to any model --------------------


def follow_up(instance: Instance, words: str) -> tuple[str, str] | None:
    return next((pair for pair in instance.follow_ups if words in pair[0]), None)


def test_a_small_model_is_asked_to_train_llama_3_style() -> None:
    instance = pose("chinchilla-tokens", n_params="7e9")
    pair = follow_up(instance, "Llama-3 style")
    assert pair is not None
    assert "13.3T" in pair[1]  # 1,900 x 7B


def test_a_540b_model_is_told_what_1900_tokens_per_parameter_would_mean() -> None:
    instance = pose("chinchilla-tokens", n_params="540e9")
    assert follow_up(instance, "Llama-3 style") is None
    pair = follow_up(instance, "1,900 tokens per parameter")
    assert pair is not None
    question, answer = pair
    assert "540B" in question
    assert "1.03P" in answer  # 1,900 x 540B tokens
    assert "68.4×" in answer  # against Llama 3's 15T


def test_a_model_near_chinchilla_is_not_asked_why_labs_overtrain() -> None:
    near = pose("tokens-per-param-real-runs", model="llama-2-70b")  # 2T / 69B: 29 tokens per parameter
    far = pose("tokens-per-param-real-runs", model="llama-3-8b")  # 15T / 8B: about 1,870
    assert follow_up(near, "wasteful") is None
    assert follow_up(far, "wasteful") is not None


# --- a per-token cache posed with the user's own numbers --------------------------------------------


def test_a_per_token_cache_poses_without_a_warning_and_reads_right() -> None:
    instance = pose("kv-cache-bytes", seed=5, seq_len=1, batch=1)
    assert not instance.warnings  # one token of one sequence is a physical cache (issue 15)
    read = texts(instance).replace("**", "")
    prompt = instance.prompt.replace("**", "")
    assert "a batch of 1 sequence; it has 1 token already in the cache" in prompt
    assert "may be given in KiB or MiB" in prompt
    for slip in ("1 sequences", "1 tokens", "1-token sequences", "every sequence has 1"):
        assert slip not in read, slip


def test_show_poses_a_per_token_cache(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", "kv-cache-bytes", "--set", "seq_len=1", "--set", "batch=1"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert "1 sequences" not in out
    assert "1 tokens" not in out


def test_an_instance_whose_sequences_do_not_fit_says_so() -> None:
    # 2 x 60 layers x 8 KV heads x 256 x 2 bytes x 131,072 tokens = 60 GiB a sequence: none fit in 40 GiB
    instance = pose(
        "kv-cache-bytes",
        n_layers=60,
        n_heads=16,
        n_kv_heads=8,
        head_dim=256,
        seq_len=131072,
        batch=4,
        dtype="bf16",
    )
    answer = follow_up(instance, "40 GiB")
    assert answer is not None
    assert "Not even one" in answer[1]
    assert "0 sequences" not in texts(instance)


# --- hints teach before they tell ---------------------------------------------------------------------


@pytest.mark.parametrize("template_id", SERVING)
def test_the_first_hints_are_nudges_without_the_answer(template_id: str) -> None:
    for seed in (3, 41, 977):
        instance = pose(template_id, seed)
        hints = hint_steps(instance)
        assert 1 <= len(instance.nudges) <= 3
        assert hints[: len(instance.nudges)] == instance.nudges
        for nudge in instance.nudges:
            assert nudge.endswith("?"), nudge
        answer = num(instance.value)
        for hint in hints:
            shown = hint if isinstance(hint, str) else f"{hint.formula} {hint.substituted} {num(hint.value)}"
            assert answer not in shown, (seed, hint)
        assert not isinstance(hints[-1], Step)


def test_the_one_step_ratio_question_does_not_open_with_its_solution() -> None:
    instance = pose("tokens-per-param-real-runs", model="llama-2-7b")
    hints = hint_steps(instance)
    assert len(hints) >= 3
    assert not re.search(r"\d", str(hints[0]))  # a question, not "Answer: real_tokens / n_params = ..."
    assert "153" not in " ".join(map(str, hints))
    assert "296" not in " ".join(map(str, hints))  # 2T / 6.74B


# --- omissions resolved with a mistake: the omitted value is named ----------------------------------


def test_generate_step_without_the_weights_is_named() -> None:
    instance = pose(
        "generate-step-time",
        model="llama-3-8b",
        dtype="bf16",
        kv_dtype="bf16",
        batch=32,
        context_len=4096,
        chip="h100-sxm",
        n_gpus=1,
    )
    assert not instance.warnings
    kv_bytes = 32 * 4096 * (2 * 32 * 8 * 128 * 2)  # batch x context x per token (2 x L x KV heads x 128 x 2)
    kv_only_ms = kv_bytes / 3.35e12 * 1e3  # H100 SXM: 3.35 TB/s
    verdict = grade_instance(instance, f"{kv_only_ms:.4g} ms")
    assert verdict.kind in ("close", "wrong")
    assert verdict.mistake == "weights-ignored"
    assert verdict.feedback is not None
    assert "weights" in verdict.feedback


def test_a_sliding_window_cache_without_the_prompt_is_named() -> None:
    instance = pose("sliding-window-kv-cache", prompt_len=1000, gen_len=4000, batch=16, dtype="bf16")
    per_token = 2 * 32 * 8 * 128 * 2  # Mistral 7B: 32 layers, 8 KV heads of 128, bf16
    assert instance.value == per_token * 4096 * 16  # 5,000 tokens so far, capped at W = 4,096
    verdict = grade_instance(instance, f"{per_token * 4000 * 16 / GIB:.4g}")  # the 4,000 generated only
    assert verdict.kind == "close"
    assert verdict.mistake == "generated-only"
    assert verdict.feedback is not None
    assert "prompt" in verdict.feedback


def test_checkpoints_without_the_down_projection_are_named() -> None:
    instance = pose(
        "activation-checkpoint-memory", model="llama-2-7b", n_tokens=16000000, policy="mlp-outputs"
    )
    width = 2 * 11008 + 4096  # gate and up (d_ff each) and down (d_model)
    assert instance.value == 2 * 16_000_000 * 32 * width
    verdict = grade_instance(instance, f"{2 * 16_000_000 * 32 * 2 * 11008 / 1e12:.4g}")
    assert verdict.kind == "close"  # no longer inside the band
    assert verdict.mistake == "down-projection-left-out"
    assert verdict.feedback is not None
    assert "down" in verdict.feedback


# --- the slips that fit the instance --------------------------------------------------------------------


def test_a_token_count_per_layer_is_named_and_not_told_to_multiply_by_the_layers() -> None:
    instance = pose("kv-tokens-fit-in-hbm", model="llama-3-8b", gpu="a100-80gb", n_gpus=1, kv_dtype="bf16")
    free = 80 * GIB - 2 * instance.variables["n_params"]
    per_token = 2 * 32 * 8 * 128 * 2
    assert instance.value == free // per_token
    assert instance.layers == 1  # the answer divides by the per-token cost: no "multiply by the layers"
    verdict = grade_instance(instance, str(free // (per_token // 32)))
    assert verdict.mistake == "per-token-one-layer"
    too_few = grade_instance(instance, str(free // per_token // 32))
    assert "multiply by" not in (too_few.feedback or "")


def test_a_bubble_typed_as_a_bare_number_is_a_percentage() -> None:
    instance = pose("pipeline-bubble-fraction", n_stages=8, n_microbatches=48)  # 7 / 48 = 14.58%
    assert grade_instance(instance, "14.6").kind == "correct"
    assert grade_instance(instance, "14.6%").kind == "correct"
    fraction = grade_instance(instance, "0.1458")
    assert fraction.kind == "wrong"
    assert fraction.feedback is not None
    assert "percentage" in fraction.feedback


def test_an_in_node_data_parallel_question_has_eight_gpus() -> None:
    for seed in range(40):
        instance = pose("dp-critical-batch-per-gpu", seed)
        if not instance.variables["cross_node"]:
            assert instance.variables["n_gpus"] == 8, seed
            assert "With 8 GPUs" in instance.explanation
            assert "node's egress" not in instance.explanation
