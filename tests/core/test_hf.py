"""from_hf_config: supported model types, defaults, and clear errors."""

from __future__ import annotations

import pytest

from quizzer.core.errors import ConfigError
from quizzer.core.hf import BUILDERS, from_hf_config
from quizzer.core.model import param_breakdown

REQUIRED_TYPES = {"gpt2", "gpt_neox", "opt", "llama", "mistral", "mixtral", "qwen2", "gemma", "phi3", "bert"}


def test_required_model_types_are_supported() -> None:
    assert REQUIRED_TYPES <= set(BUILDERS)


def test_unknown_type_lists_supported() -> None:
    with pytest.raises(
        ConfigError, match=r"unsupported model_type 'mamba'; supported: apertus, bert, bloom, deepseek_v2"
    ) as caught:
        from_hf_config({"model_type": "mamba", "hidden_size": 8})
    for new in ("qwen3_next", "kimi_linear", "nemotron_h", "lfm2", "deepseek_v32", "minimax_m2"):
        assert new in str(caught.value)


def test_missing_type() -> None:
    with pytest.raises(ConfigError, match="unsupported model_type None"):
        from_hf_config({"hidden_size": 8})


def test_missing_field_names_it() -> None:
    with pytest.raises(ConfigError, match=r"model_type 'llama' is missing 'intermediate_size'"):
        from_hf_config(
            {
                "model_type": "llama",
                "vocab_size": 10,
                "hidden_size": 64,
                "num_hidden_layers": 2,
                "num_attention_heads": 4,
            }
        )


def test_not_an_object() -> None:
    with pytest.raises(ConfigError, match="must hold a JSON object, not list"):
        from_hf_config([1, 2])  # type: ignore[arg-type]


def test_invalid_shapes_become_config_errors() -> None:
    with pytest.raises(ConfigError, match=r"n_heads \(32\) must be divisible by n_kv_heads \(6\)"):
        from_hf_config(
            {
                "model_type": "mistral",
                "vocab_size": 10,
                "hidden_size": 4096,
                "num_hidden_layers": 2,
                "num_attention_heads": 32,
                "num_key_value_heads": 6,
                "intermediate_size": 10,
            }
        )


def test_opt_projection_is_refused_clearly() -> None:
    with pytest.raises(ConfigError, match="word_embed_proj_dim"):
        from_hf_config(
            {
                "model_type": "opt",
                "vocab_size": 10,
                "hidden_size": 1024,
                "word_embed_proj_dim": 512,
                "num_hidden_layers": 1,
                "num_attention_heads": 16,
                "ffn_dim": 4096,
                "max_position_embeddings": 2048,
            }
        )


def test_opt_position_table_has_two_extra_rows() -> None:
    spec = from_hf_config(
        {
            "model_type": "opt",
            "vocab_size": 10,
            "hidden_size": 64,
            "num_hidden_layers": 1,
            "num_attention_heads": 4,
            "ffn_dim": 256,
            "max_position_embeddings": 2048,
        }
    )
    assert spec.n_positions == 2050


def test_qwen2_biases_on_qkv_not_o() -> None:
    spec = from_hf_config(
        {
            "model_type": "qwen2",
            "vocab_size": 10,
            "hidden_size": 64,
            "num_hidden_layers": 1,
            "num_attention_heads": 4,
            "num_key_value_heads": 2,
            "intermediate_size": 128,
        }
    )
    assert spec.qkv_bias
    assert not spec.out_bias


def test_gemma_ties_by_default_llama_does_not() -> None:
    common = {
        "vocab_size": 10,
        "hidden_size": 64,
        "num_hidden_layers": 1,
        "num_attention_heads": 4,
        "intermediate_size": 128,
    }
    assert from_hf_config({"model_type": "gemma", **common}).tie_embeddings
    assert not from_hf_config({"model_type": "llama", **common}).tie_embeddings


def test_gpt2_n_inner_defaults_to_four_d() -> None:
    spec = from_hf_config(
        {
            "model_type": "gpt2",
            "vocab_size": 10,
            "n_embd": 64,
            "n_layer": 1,
            "n_head": 4,
            "n_positions": 16,
            "n_inner": None,
        }
    )
    assert spec.d_ff == 256


def test_bert_has_pooler_and_no_head() -> None:
    spec = from_hf_config(
        {
            "model_type": "bert",
            "vocab_size": 10,
            "hidden_size": 64,
            "num_hidden_layers": 1,
            "num_attention_heads": 4,
            "intermediate_size": 256,
            "max_position_embeddings": 16,
        }
    )
    parts = param_breakdown(spec)
    assert parts.lm_head == 0
    assert parts.other == 64 * 64 + 64
    assert parts.token_type == 2 * 64
