"""Every architecture in tests/data/reference/real_models.json matches, in total and in every listed part."""

from __future__ import annotations

from typing import Any

import pytest

from quizzer.commands.count import count_report
from quizzer.core.flops import forward_flops_per_token
from quizzer.core.hf import from_hf_config
from quizzer.core.memory import kv_cache_bytes_per_token
from quizzer.core.model import model_active_params, model_params, param_breakdown
from quizzer.core.presets import preset_spec

REFERENCE_NAMES = [
    "gpt2",
    "gpt2-medium",
    "opt-125m",
    "pythia-160m",
    "llama-2-7b",
    "llama-3-8b",
    "mistral-7b",
    "mixtral-8x7b",
    "qwen2.5-0.5b",
    "gemma-2b",
    "phi-3-mini-4k",
    "bert-base-uncased",
]


def test_reference_lists_the_models_we_check(real_models: dict[str, Any]) -> None:
    assert sorted(real_models) == sorted(REFERENCE_NAMES)


@pytest.mark.parametrize("name", REFERENCE_NAMES)
def test_every_part_matches(name: str, real_models: dict[str, Any]) -> None:
    ref = real_models[name]
    params = ref["params"]
    parts = param_breakdown(from_hf_config(ref["config_json"]))
    emb = params["embedding"]
    assert parts.total == params["total"]
    assert parts.token_embedding == emb["token"]
    assert parts.position == emb["position"]
    assert parts.token_type == emb["token_type"]
    assert parts.embedding_norm == emb["embedding_norm"]
    assert parts.final_norm == params["final_norm"]
    assert parts.lm_head == params["lm_head"]
    assert parts.other == params["other"]
    for group in params["layer_groups"]:
        assert group["count"] == parts.n_layers
        assert parts.attention_per_layer == group["attention"]
        assert parts.mlp_per_layer == group["mlp"]
        assert parts.norm_per_layer == group["norm"]
        assert parts.per_layer == group["total"]
    assert (
        parts.total - parts.embedding - parts.position - parts.embedding_norm - parts.lm_head
        == (params["non_embedding_total"])
    )
    assert model_params(from_hf_config(ref["config_json"])).value == params["total"]


@pytest.mark.parametrize("name", REFERENCE_NAMES)
def test_moe_active_matches(name: str, real_models: dict[str, Any]) -> None:
    ref = real_models[name]
    spec = from_hf_config(ref["config_json"])
    expected = (ref["params"].get("moe_active") or {}).get("active_params_per_token", ref["params"]["total"])
    assert model_active_params(spec).value == expected
    assert param_breakdown(spec).active == expected


@pytest.mark.parametrize("name", REFERENCE_NAMES)
def test_forward_flops_match_flop_counter(name: str, real_models: dict[str, Any]) -> None:
    """FlopCounterMode over a whole forward at seq_len S = S × our per-token count at context S."""
    ref = real_models[name]
    flops = ref["flops_forward"]
    spec = from_hf_config(ref["config_json"])
    seq_len = flops["seq_len"]
    # "other" is what lies outside the layers and head (rotary inv_freq outer product, BERT's pooler).
    assert seq_len * forward_flops_per_token(spec, seq_len).value == flops["total"] - flops["other"]
    assert seq_len * forward_flops_per_token(spec).value == flops["layers_matmul"] + flops["lm_head"]


@pytest.mark.parametrize("name", REFERENCE_NAMES)
def test_kv_cache_per_token(name: str, real_models: dict[str, Any]) -> None:
    ref = real_models[name]
    spec = from_hf_config(ref["config_json"])
    kv = ref["kv_cache"]
    per_token = kv_cache_bytes_per_token(spec.n_layers, spec.n_kv_heads, spec.head_dim, "bf16").value
    if kv["applicable"]:
        assert per_token == kv["bytes_per_token"]
        assert count_report(name, spec, "bf16", 0, 1)["kv_cache_bytes_per_token"] == kv["bytes_per_token"]
    else:  # encoder-only (BERT): no cache at inference, though the would-be size still follows the formula
        assert per_token == kv["formula_if_cached"]
        assert count_report(name, spec, "bf16", 0, 1)["kv_cache_bytes_per_token"] == 0


@pytest.mark.parametrize(
    ("preset_name", "reference_name"),
    [
        ("gpt2", "gpt2"),
        ("gpt2-medium", "gpt2-medium"),
        ("opt-125m", "opt-125m"),
        ("pythia-160m", "pythia-160m"),
        ("llama-2-7b", "llama-2-7b"),
        ("llama-3-8b", "llama-3-8b"),
        ("mistral-7b", "mistral-7b"),
        ("mixtral-8x7b", "mixtral-8x7b"),
        ("qwen2.5-0.5b", "qwen2.5-0.5b"),
        ("gemma-2b", "gemma-2b"),
        ("phi-3-mini", "phi-3-mini-4k"),
        ("bert-base", "bert-base-uncased"),
    ],
)
def test_presets_equal_the_reference_configs(
    preset_name: str, reference_name: str, real_models: dict[str, Any]
) -> None:
    assert preset_spec(preset_name) == from_hf_config(real_models[reference_name]["config_json"])
