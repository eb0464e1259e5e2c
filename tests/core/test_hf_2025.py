"""from_hf_config for the model types of issue 13, on tiny configs whose totals transformers 4.57.6 measured
(``sum(p.numel())`` on the meta device, written down by hand here) and whose parts are derived by hand."""

from __future__ import annotations

from typing import Any

import pytest

from quizzer.core.errors import ConfigError
from quizzer.core.hf import BUILDERS, from_hf_config
from quizzer.core.kv_model import cross_attention_kv_bytes_per_source_token, kv_kinds, model_kv_cache_bytes
from quizzer.core.model import param_breakdown

NEW_TYPES = {
    "qwen3",
    "qwen3_moe",
    "gemma2",
    "gemma3_text",
    "deepseek_v2",
    "deepseek_v3",
    "kimi_k2",
    "gpt_oss",
    "llama4_text",
    "olmo2",
    "olmo",
    "granite",
    "phi",
    "falcon",
    "gptj",
    "bloom",
    "stablelm",
    "t5",
}

TINY = dict(vocab_size=100, hidden_size=64, intermediate_size=96, num_hidden_layers=2, num_attention_heads=4)

#: (config, total measured by transformers 4.57.6 on the meta device)
MEASURED: dict[str, tuple[dict[str, Any], int]] = {
    "qwen3_moe": (
        dict(
            TINY,
            model_type="qwen3_moe",
            num_key_value_heads=2,
            head_dim=32,
            moe_intermediate_size=24,
            num_experts=4,
            num_experts_per_tok=2,
        ),
        99776,
    ),
    "gemma2": (dict(TINY, model_type="gemma2", num_key_value_heads=2, head_dim=32), 92992),
    "gemma3_text": (dict(TINY, model_type="gemma3_text", num_key_value_heads=2, head_dim=32), 93120),
    "deepseek_v2": (
        dict(
            TINY,
            model_type="deepseek_v2",
            q_lora_rank=None,
            kv_lora_rank=16,
            qk_nope_head_dim=8,
            qk_rope_head_dim=4,
            v_head_dim=12,
            n_routed_experts=4,
            n_shared_experts=2,
            moe_intermediate_size=24,
            num_experts_per_tok=2,
            first_k_dense_replace=1,
            attention_bias=True,
        ),
        77064,
    ),
    "deepseek_v3": (
        dict(
            TINY,
            model_type="deepseek_v3",
            q_lora_rank=32,
            kv_lora_rank=16,
            qk_nope_head_dim=8,
            qk_rope_head_dim=4,
            v_head_dim=12,
            n_routed_experts=4,
            n_shared_experts=2,
            moe_intermediate_size=24,
            num_experts_per_tok=2,
            first_k_dense_replace=1,
            n_group=2,
            topk_group=1,
            attention_bias=True,
        ),
        78216,
    ),
    "olmo": (dict(TINY, model_type="olmo"), 82432),
    "olmo2": (dict(TINY, model_type="olmo2", num_key_value_heads=2), 74752),
    "granite": (dict(TINY, model_type="granite", attention_bias=True, mlp_bias=True), 83776),
    "gpt_oss": (
        dict(
            TINY,
            model_type="gpt_oss",
            intermediate_size=48,
            num_key_value_heads=2,
            head_dim=16,
            num_local_experts=4,
            num_experts_per_tok=2,
        ),
        113616,
    ),
    "llama4_text": (
        dict(
            TINY,
            model_type="llama4_text",
            intermediate_size=48,
            intermediate_size_mlp=96,
            num_hidden_layers=4,
            num_key_value_heads=2,
            head_dim=16,
            num_local_experts=4,
            num_experts_per_tok=1,
            interleave_moe_layer_step=2,
        ),
        192064,
    ),
    "phi": (dict(TINY, model_type="phi", qk_layernorm=True), 71588),
    "stablelm": (
        dict(TINY, model_type="stablelm", num_key_value_heads=2, qk_layernorm=True, use_qkv_bias=True),
        75328,
    ),
    "falcon": (
        dict(model_type="falcon", vocab_size=100, hidden_size=64, num_hidden_layers=2, num_attention_heads=4),
        92800,
    ),
    "falcon-new": (
        dict(
            model_type="falcon",
            vocab_size=100,
            hidden_size=64,
            num_hidden_layers=2,
            num_attention_heads=4,
            num_kv_heads=2,
            new_decoder_architecture=True,
            bias=True,
        ),
        98176,
    ),
    "falcon-sequential-alibi": (
        dict(
            model_type="falcon",
            vocab_size=100,
            hidden_size=64,
            num_hidden_layers=2,
            num_attention_heads=4,
            parallel_attn=False,
            multi_query=False,
            alibi=True,
            bias=True,
        ),
        106496,
    ),
    "gptj": (dict(model_type="gptj", vocab_size=100, n_embd=64, n_layer=2, n_head=4, rotary_dim=8), 112228),
    "bloom": (dict(model_type="bloom", vocab_size=100, hidden_size=64, n_layer=2, n_head=4), 106624),
    "t5": (
        dict(
            model_type="t5",
            vocab_size=100,
            d_model=64,
            d_kv=8,
            d_ff=96,
            num_layers=2,
            num_decoder_layers=3,
            num_heads=4,
            feed_forward_proj="gated-gelu",
            tie_word_embeddings=False,
        ),
        171712,
    ),
}


def test_every_required_model_type_is_supported() -> None:
    assert NEW_TYPES <= set(BUILDERS)


@pytest.mark.parametrize("name", sorted(MEASURED))
def test_tiny_configs_match_transformers(name: str) -> None:
    config, total = MEASURED[name]
    parts = param_breakdown(from_hf_config(config))
    assert parts.total == total
    assert sum(parts.parts().values()) == total


def test_falcon_7b_layout_by_hand() -> None:
    """Falcon-7B: multi-query (1 KV head), fused QKV of (71 + 2) × 64 rows, parallel attention behind one
    LayerNorm, no biases, tied head."""
    spec = from_hf_config(
        {
            "model_type": "falcon",
            "vocab_size": 65024,
            "hidden_size": 4544,
            "num_hidden_layers": 32,
            "num_attention_heads": 71,
        }
    )
    parts = param_breakdown(spec)
    assert (spec.n_kv_heads, spec.norms_per_layer, spec.tie_embeddings) == (1, 1, True)
    assert parts.attention_per_layer == 4544 * (71 + 2) * 64 + 4544 * 4544
    assert parts.mlp_per_layer == 2 * 4544 * 4 * 4544
    assert parts.total == 6_921_720_704  # the Falcon-7B model card's 7B; 6.92B by sum(numel)


def test_falcon_40b_new_layout_reads_num_kv_heads() -> None:
    spec = from_hf_config(
        {
            "model_type": "falcon",
            "vocab_size": 65024,
            "hidden_size": 8192,
            "num_hidden_layers": 60,
            "num_attention_heads": 128,
            "num_kv_heads": 8,
            "new_decoder_architecture": True,
        }
    )
    assert (spec.n_kv_heads, spec.norms_per_layer) == (8, 2)  # ln_attn and ln_mlp


def test_bloom_uses_alibi_and_an_embedding_norm() -> None:
    spec = from_hf_config(MEASURED["bloom"][0])
    parts = param_breakdown(spec)
    assert spec.positions == "alibi"
    assert parts.position == 0
    assert parts.embedding_norm == 2 * 64


def test_gptj_and_phi_have_a_biased_head() -> None:
    assert param_breakdown(from_hf_config(MEASURED["gptj"][0])).lm_head == 100 * 64 + 100
    phi = param_breakdown(from_hf_config(MEASURED["phi"][0]))
    assert phi.lm_head == 100 * 64 + 100
    # one LayerNorm(d) per layer + q and k LayerNorms (weight and bias) of head_dim 16
    assert phi.norm_per_layer == 2 * 64 + 2 * 2 * 16


def test_stablelm_per_head_norms_count_like_a_projection_norm() -> None:
    spec = from_hf_config(MEASURED["stablelm"][0])
    assert param_breakdown(spec).norm_per_layer == 2 * 2 * 64 + (4 + 2) * 16


def test_olmo_norms_have_no_parameters() -> None:
    parts = param_breakdown(from_hf_config(MEASURED["olmo"][0]))
    assert parts.norm == 0


def test_t5_stacks_cross_attention_and_bias_tables_by_hand() -> None:
    spec = from_hf_config(MEASURED["t5"][0])
    parts = param_breakdown(spec)
    encoder, decoder = parts.groups
    attention = 4 * 64 * 32  # q, k, v, o: 64 × (4 heads × d_kv 8)
    mlp = 3 * 64 * 96  # gated-gelu: wi_0, wi_1, wo
    assert (encoder.stack, encoder.count, decoder.stack, decoder.count) == ("encoder", 2, "decoder", 3)
    assert (encoder.attention, encoder.mlp, encoder.norm) == (attention, mlp, 2 * 64)
    assert (decoder.attention, decoder.cross_attention, decoder.norm) == (2 * attention, attention, 3 * 64)
    assert parts.position == 2 * 32 * 4  # a 32-bucket table per stack, one column per head
    assert parts.final_norm == 2 * 64
    assert parts.lm_head == 100 * 64
    assert cross_attention_kv_bytes_per_source_token(spec) == 3 * 2 * 32 * 2  # 3 layers, K and V, bf16


def test_t5_defaults_tie_the_head() -> None:
    config = {k: v for k, v in MEASURED["t5"][0].items() if k != "tie_word_embeddings"}
    assert param_breakdown(from_hf_config(config)).lm_head == 0


def test_gemma2_alternates_and_gemma3_has_five_to_one() -> None:
    gemma2 = from_hf_config(dict(MEASURED["gemma2"][0], num_hidden_layers=4))
    assert gemma2.attention_kinds == ("sliding", "full", "sliding", "full")
    assert (gemma2.sliding_window, gemma2.norms_per_layer) == (4096, 4)
    gemma3 = from_hf_config(dict(MEASURED["gemma3_text"][0], num_hidden_layers=13, sliding_window=512))
    assert [i for i, k in enumerate(gemma3.attention_kinds) if k == "full"] == [5, 11]


def test_qwen3_moe_mlp_only_layers_are_dense() -> None:
    spec = from_hf_config(dict(MEASURED["qwen3_moe"][0], num_hidden_layers=4, mlp_only_layers=[0, 2]))
    assert spec.moe_flags == (False, True, False, True)
    assert [(g.mlp_kind, g.layer_range) for g in param_breakdown(spec).groups] == [
        ("dense", "0,2"),
        ("moe", "1,3"),
    ]


def test_llama4_interleaves_experts_and_nope_layers() -> None:
    spec = from_hf_config(MEASURED["llama4_text"][0])
    assert spec.moe_flags == (False, True, False, True)
    assert spec.nope_layers == (3,)
    assert spec.attention_kinds == ("chunked", "chunked", "chunked", "full")
    dense, moe = param_breakdown(spec).groups
    assert dense.mlp == 3 * 64 * 96  # intermediate_size_mlp
    assert moe.mlp == 4 * 3 * 64 * 48 + 4 * 64 + 3 * 64 * 48  # experts + router + shared expert
    assert moe.mlp_active == 3 * 64 * 48 + 4 * 64 + 3 * 64 * 48


def test_deepseek_v2_lite_projects_queries_directly() -> None:
    spec = from_hf_config(MEASURED["deepseek_v2"][0])
    assert (spec.q_lora_rank, spec.head_dim, spec.v_head_dim) == (0, 12, 12)
    kv = {k.kind: k.elements_per_token_per_layer for k in kv_kinds(spec)}
    assert kv == {"full": 16 + 4}
    assert kv_kinds(spec, "decompressed")[0].elements_per_token_per_layer == 4 * (12 + 12)


def test_kimi_k2_uses_the_deepseek_v3_layout() -> None:
    config = dict(MEASURED["deepseek_v3"][0], model_type="kimi_k2")
    assert param_breakdown(from_hf_config(config)).total == MEASURED["deepseek_v3"][1]


def test_gpt_oss_window_conventions_by_hand() -> None:
    """Layers 0 and 2 slide over 128 tokens, 1 and 3 are full; 2 KV heads of 16: 64 elements per token."""
    spec = from_hf_config(dict(MEASURED["gpt_oss"][0], num_hidden_layers=4))
    per_layer = 2 * 2 * 16 * 2  # K and V, 2 heads, head_dim 16, bf16
    assert model_kv_cache_bytes(spec, 1000).value == per_layer * (2 * 1000 + 2 * 128)
    assert model_kv_cache_bytes(spec, 1000, convention="hf").value == per_layer * (2 * 1000 + 2 * 127)
    assert model_kv_cache_bytes(spec, 100, convention="hf").value == per_layer * 4 * 100


def test_null_head_dim_falls_back_to_hidden_over_heads() -> None:
    assert from_hf_config(dict(MEASURED["gpt_oss"][0], head_dim=None)).head_dim == 16
    assert from_hf_config({k: v for k, v in MEASURED["gpt_oss"][0].items() if k != "head_dim"}).head_dim == 64


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({**TINY, "model_type": "gemma3_text", "layer_types": ["sliding_attention", "local"]}, "'local'"),
        ({**TINY, "model_type": "llama4_text", "no_rope_layers": [1]}, "no_rope_layers has 1 entries"),
        ({**TINY, "model_type": "t5"}, "missing 'num_layers'"),
        (
            {
                **TINY,
                "model_type": "t5",
                "num_layers": 2,
                "num_heads": 4,
                "d_model": 64,
                "d_ff": 96,
                "feed_forward_proj": "gelu-gated",
            },
            "feed_forward_proj",
        ),
        ({**TINY, "model_type": "deepseek_v2", "n_routed_experts": 4}, "missing 'num_experts_per_tok'"),
    ],
)
def test_bad_configs_are_named(config: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        from_hf_config(config)
