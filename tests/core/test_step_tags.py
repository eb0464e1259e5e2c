"""Derivation steps name the factors their value is proportional to (#25 class 9).

Two properties pin the tags: a step that is a product of named factors equals their product, and doubling
the input behind a named factor doubles both the factor and the value (halving bytes halves them). The
rest pins what the grader's slips read: the query heads beside the KV heads, no ×2 for MLA's latent.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quizzer.core.flops import forward_flops_per_token, inference_flops, training_flops
from quizzer.core.inference import decode_step_time, prefill_time
from quizzer.core.kv import mla_kv_bytes_per_token, windowed_kv_cache_bytes
from quizzer.core.kv_model import model_kv_bytes_per_token, model_kv_cache_bytes
from quizzer.core.memory import (
    inference_memory_bytes,
    kv_cache_bytes,
    kv_cache_bytes_per_token,
    weights_bytes,
)
from quizzer.core.params import attention_params
from quizzer.core.presets import preset_spec
from quizzer.core.trace import ROLES, Result, Step, tags
from quizzer.core.training import gpu_hours, mfu_from_gpu_hours, training_time
from quizzer.core.vit import vit_forward_flops

POWERS = st.sampled_from([1, 2, 4, 8, 16, 32, 64, 128])


def product(step: Step) -> float:
    return math.prod(f.value for f in step.factors)


def roles(result: Result) -> dict[str, float]:
    return {f.role: f.value for f in result.factors}


def test_a_role_outside_the_vocabulary_is_refused() -> None:
    with pytest.raises(ValueError, match="'heads_kv' is not a factor role"):
        tags(heads_kv=8)


@given(layers=POWERS, kv_heads=POWERS, head_dim=POWERS, seq=POWERS, batch=POWERS)
def test_the_kv_cache_is_the_product_of_its_named_factors(
    layers: int, kv_heads: int, head_dim: int, seq: int, batch: int
) -> None:
    for dtype in ("fp32", "bf16", "fp8", "int4"):
        result = kv_cache_bytes(layers, kv_heads, head_dim, seq, batch, dtype)
        per_token, whole = result.steps
        assert product(per_token) == per_token.value
        assert product(whole) == whole.value == result.value
        assert roles(result) == {
            "kv": 2,
            "layers": layers,
            "kv_heads": kv_heads,
            "head_dim": head_dim,
            "bytes_per_value": {"fp32": 4, "bf16": 2, "fp8": 1, "int4": 0.5}[dtype],
            "tokens": seq,
            "batch": batch,
        }


#: (calculator, its arguments, the argument behind each role): doubling the argument doubles the role's
#: factor and the value; for bytes per value, fp8 -> bf16 doubles them.
PROPORTIONAL: list[tuple[Callable[..., Result], dict[str, Any], dict[str, str]]] = [
    (
        kv_cache_bytes_per_token,
        {"n_layers": 32, "n_kv_heads": 8, "head_dim": 128, "dtype": "fp8"},
        {"layers": "n_layers", "kv_heads": "n_kv_heads", "head_dim": "head_dim"},
    ),
    (
        kv_cache_bytes,
        {"n_layers": 32, "n_kv_heads": 8, "head_dim": 128, "seq_len": 4096, "batch": 2, "dtype": "fp8"},
        {"layers": "n_layers", "kv_heads": "n_kv_heads", "tokens": "seq_len", "batch": "batch"},
    ),
    (
        windowed_kv_cache_bytes,
        {
            "n_full_layers": 5,
            "n_window_layers": 29,
            "window": 1024,
            "n_kv_heads": 4,
            "head_dim": 256,
            "seq_len": 32768,
            "batch": 3,
            "dtype": "fp8",
        },
        {"kv_heads": "n_kv_heads", "head_dim": "head_dim", "batch": "batch"},
    ),
    (
        mla_kv_bytes_per_token,
        {"n_layers": 61, "kv_lora_rank": 512, "qk_rope_head_dim": 64, "dtype": "fp8"},
        {},
    ),
    (weights_bytes, {"n_params": 7_000_000_000, "dtype": "fp8"}, {"params": "n_params"}),
    (
        training_flops,
        {"n_params": 10**9, "n_tokens": 2 * 10**10},
        {"params": "n_params", "tokens": "n_tokens"},
    ),
    (inference_flops, {"n_params": 10**9, "n_tokens": 512}, {"params": "n_params", "tokens": "n_tokens"}),
    (
        decode_step_time,
        {"n_params": 7_000_000_000, "dtype": "fp8", "n_gpus": 1, "bandwidth": 2e12},
        {"params": "n_params"},
    ),
    (
        prefill_time,
        {"n_params": 10**9, "n_tokens": 4096, "n_gpus": 2, "peak_flops": 1e15, "mfu": 0.5},
        {"params": "n_params", "tokens": "n_tokens"},
    ),
    (
        gpu_hours,
        {"n_params": 10**9, "n_tokens": 18 * 10**9, "peak_flops": 1e14, "mfu": 0.5},
        {"params": "n_params", "tokens": "n_tokens"},
    ),
    (
        training_time,
        {"n_params": 10**9, "n_tokens": 10**10, "n_gpus": 10, "peak_flops": 1e14, "mfu": 0.5},
        {"params": "n_params", "tokens": "n_tokens"},
    ),
    (  # 6 × 1e9 × 3e9 = 1.8e19 of 100 GPU-hours at 2e14 (7.2e19): an MFU of 0.25
        mfu_from_gpu_hours,
        {"n_params": 10**9, "n_tokens": 3 * 10**9, "gpu_hours": 100, "peak_flops": 2e14},
        {"params": "n_params", "tokens": "n_tokens"},
    ),
]


@pytest.mark.parametrize(
    ("calculator", "arguments", "behind"), PROPORTIONAL, ids=lambda c: getattr(c, "__name__", "")
)
def test_doubling_the_input_behind_a_factor_doubles_the_answer(
    calculator: Callable[..., Result], arguments: dict[str, Any], behind: dict[str, str]
) -> None:
    base = calculator(**arguments)
    for role, argument in behind.items():
        doubled = calculator(**{**arguments, argument: 2 * arguments[argument]})
        assert roles(doubled)[role] == 2 * roles(base)[role], role
        assert doubled.value == pytest.approx(2 * base.value), role
    if "dtype" in arguments:  # fp8 -> bf16: one byte per value to two
        assert roles(base)["bytes_per_value"] == 1
        wider = calculator(**{**arguments, "dtype": "bf16"})
        assert roles(wider)["bytes_per_value"] == 2
        assert wider.value == pytest.approx(2 * base.value)
    assert set(roles(base)) <= set(ROLES)


def test_the_flops_name_two_per_multiply_add() -> None:
    assert roles(training_flops(10**9, 10**10))["flops_per_mac"] == 2
    assert roles(training_flops(10**9, 10**10))["passes"] == 3
    assert roles(inference_flops(10**9, 10))["flops_per_mac"] == 2
    assert roles(vit_forward_flops(224, 16, 768, 12, 3072, 1000)) == {"flops_per_mac": 2}
    weights = forward_flops_per_token(preset_spec("llama-3-8b")).steps[-1]
    assert (weights.label, weights.factor("flops_per_mac").value) == ("Weight matmuls", 2)  # type: ignore[union-attr]


def test_the_kv_heads_carry_the_query_heads_where_the_calculator_knows_them() -> None:
    llama = preset_spec("llama-3-8b")  # 32 query heads, 8 KV heads
    (step,) = model_kv_bytes_per_token(llama).steps
    kv_heads = step.factor("kv_heads")
    assert kv_heads is not None
    assert (kv_heads.value, kv_heads.instead) == (8, 32)
    assert product(step) == step.value
    key = next(s for s in attention_params(4096, 32, 8, 128).steps if s.label == "Key projection W_k")
    assert key.factor("kv_heads").instead == 32  # type: ignore[union-attr]
    assert product(key) == key.value
    assert kv_cache_bytes_per_token(32, 8, 128).steps[0].factor("kv_heads").instead is None  # type: ignore[union-attr]


def test_a_cache_of_one_kind_of_layer_names_its_layers_and_tokens() -> None:
    result = model_kv_cache_bytes(preset_spec("llama-3-8b"), 4096, 2)
    assert roles(result) == {
        "layers": 32,
        "tokens": 4096,
        "kv": 2,
        "kv_heads": 8,
        "head_dim": 128,
        "batch": 2,
        "bytes_per_value": 2,
    }
    assert product(result.steps[-1]) == result.value
    gemma = model_kv_cache_bytes(preset_spec("gemma-3-4b"), 32768)  # sliding and full layers: a sum
    assert "layers" not in roles(gemma)
    assert "tokens" not in roles(gemma)


def test_no_k_and_v_pair_where_there_is_none() -> None:
    assert "kv" not in roles(mla_kv_bytes_per_token(61, 512, 64))  # one latent serves K and V
    assert "kv" not in roles(model_kv_bytes_per_token(preset_spec("deepseek-v3")))
    assert roles(attention_params(4096, 32, 8, 128)) == {}  # a sum of projections names nothing


def test_the_rule_of_thumb_keeps_the_weights_factors() -> None:
    assert roles(inference_memory_bytes(70_000_000_000, "bf16")) == {
        "params": 70_000_000_000,
        "bytes_per_value": 2,
    }
    assert roles(decode_step_time(7_000_000_000, "bf16", 1, 2e12, kv_cache_bytes=10**9)) == {}  # a sum
