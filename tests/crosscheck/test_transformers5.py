"""Cross-check against transformers 5.23 (`make crosscheck`, its second environment): every preset of a type
new in 2025-26 and a small config of every such type, built by transformers on the meta device and measured
the way tests/data/reference/real_models_2026.json was (tests/crosscheck/measure_2026.py): parameters part by
part and group by group, the active count, and the KV growth and fixed state read off Hugging Face's real
cache objects after forwards of 5 and 9 tokens.

Skipped unless torch and transformers 5 are installed; `make crosscheck` makes that environment (.venv-tf5)
with torch 2.13.0 (CPU) and transformers 5.23.0. No weights are downloaded: models are built from configs.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

from quizzer.core import hf_2026
from quizzer.core.hf import from_hf_config
from quizzer.core.kv_model import model_kv_bytes_per_token
from quizzer.core.mixers import mixer_state
from quizzer.core.model import param_breakdown
from quizzer.core.presets import preset, preset_names

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

pytestmark = [
    pytest.mark.crosscheck,
    pytest.mark.filterwarnings("ignore"),
    pytest.mark.skipif(
        int(transformers.__version__.split(".")[0]) < 5, reason="the 2026 types need transformers 5"
    ),
]


def _measure_module() -> Any:
    path = Path(__file__).with_name("measure_2026.py")
    spec = importlib.util.spec_from_file_location("measure_2026", path)
    assert spec
    assert spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


MEASURE = _measure_module()
NEW_TYPES = set(hf_2026.BUILDERS)
PRESETS = [name for name in preset_names() if preset(name).config["model_type"] in NEW_TYPES]

T = dict(vocab_size=128, hidden_size=64, intermediate_size=96, num_attention_heads=4, pad_token_id=0)
#: A small config of every new type with the features its builder reads switched on.
SMALL: dict[str, dict[str, Any]] = {
    "qwen3_next": dict(
        T,
        model_type="qwen3_next",
        num_hidden_layers=4,
        num_key_value_heads=2,
        head_dim=32,
        linear_num_key_heads=2,
        linear_num_value_heads=4,
        linear_key_head_dim=16,
        linear_value_head_dim=8,
        num_experts=4,
        num_experts_per_tok=2,
        moe_intermediate_size=16,
        shared_expert_intermediate_size=24,
        mlp_only_layers=[0],
    ),
    "deepseek_v32": dict(
        T,
        model_type="deepseek_v32",
        num_hidden_layers=3,
        num_key_value_heads=4,
        kv_lora_rank=16,
        q_lora_rank=24,
        qk_rope_head_dim=8,
        qk_nope_head_dim=16,
        v_head_dim=8,
        n_routed_experts=4,
        num_experts_per_tok=2,
        n_shared_experts=1,
        moe_intermediate_size=16,
        first_k_dense_replace=1,
        n_group=1,
        topk_group=1,
        index_n_heads=4,
        index_head_dim=16,
        index_topk=4,
    ),
    "glm4_moe": dict(
        T,
        model_type="glm4_moe",
        num_hidden_layers=3,
        num_key_value_heads=2,
        head_dim=32,
        attention_bias=True,
        use_qk_norm=True,
        n_routed_experts=4,
        num_experts_per_tok=2,
        n_shared_experts=1,
        moe_intermediate_size=16,
        first_k_dense_replace=1,
        n_group=1,
        topk_group=1,
    ),
    "minimax_m2": dict(
        T,
        model_type="minimax_m2",
        num_hidden_layers=2,
        num_key_value_heads=2,
        head_dim=16,
        num_local_experts=4,
        num_experts_per_tok=2,
    ),
    "smollm3": dict(
        T, model_type="smollm3", num_hidden_layers=4, num_key_value_heads=2, no_rope_layer_interval=2
    ),
    "olmo3": dict(T, model_type="olmo3", num_hidden_layers=4, num_key_value_heads=2, sliding_window=16),
    "ernie4_5_moe": dict(
        T,
        model_type="ernie4_5_moe",
        num_hidden_layers=3,
        num_key_value_heads=2,
        moe_num_experts=4,
        moe_k=2,
        moe_num_shared_experts=2,
        moe_intermediate_size=16,
        moe_layer_start_index=1,
        moe_layer_end_index=2,
    ),
    "seed_oss": dict(T, model_type="seed_oss", num_hidden_layers=2, num_key_value_heads=2, head_dim=16),
    "exaone4": dict(
        T,
        model_type="exaone4",
        num_hidden_layers=4,
        num_key_value_heads=2,
        sliding_window=16,
        sliding_window_pattern=2,
    ),
    "apertus": dict(T, model_type="apertus", num_hidden_layers=2, num_key_value_heads=2),
    "lfm2": dict(
        T,
        model_type="lfm2",
        num_hidden_layers=4,
        num_key_value_heads=2,
        full_attn_idxs=[1, 3],
        conv_L_cache=3,
    ),
    "nemotron_h": dict(
        T,
        model_type="nemotron_h",
        hybrid_override_pattern="M-*-M",
        num_key_value_heads=2,
        head_dim=16,
        mamba_num_heads=4,
        mamba_head_dim=8,
        n_groups=2,
        ssm_state_size=8,
        conv_kernel=4,
    ),
    "kimi_linear": dict(
        T,
        model_type="kimi_linear",
        num_hidden_layers=4,
        num_key_value_heads=4,
        kv_lora_rank=16,
        qk_rope_head_dim=8,
        qk_nope_head_dim=16,
        v_head_dim=8,
        num_experts=4,
        num_experts_per_token=2,
        num_shared_experts=1,
        moe_intermediate_size=16,
        linear_attn_config={"full_attn_layers": [2, 4], "kda_layers": [1, 3], "head_dim": 8, "num_heads": 4},
    ),
    "falcon_h1": dict(
        T,
        model_type="falcon_h1",
        num_hidden_layers=2,
        num_key_value_heads=2,
        head_dim=16,
        mamba_d_ssm=64,
        mamba_n_heads=8,
        mamba_d_head=8,
        mamba_n_groups=2,
        mamba_d_state=8,
        mamba_rms_norm=True,
    ),
    "granitemoehybrid": dict(
        T,
        model_type="granitemoehybrid",
        num_hidden_layers=2,
        num_key_value_heads=2,
        layer_types=["mamba", "attention"],
        mamba_n_heads=8,
        mamba_d_head=16,
        mamba_d_state=8,
        mamba_n_groups=1,
        num_local_experts=4,
        num_experts_per_tok=2,
        shared_intermediate_size=40,
    ),
}


def test_every_new_type_has_a_small_config() -> None:
    assert set(SMALL) == NEW_TYPES


def _compare(config: dict[str, Any]) -> None:
    measured = MEASURE.measure(dict(config))
    spec = from_hf_config(config)
    parts = param_breakdown(spec)
    params, kv = measured["params"], measured["kv_cache"]
    assert parts.total == params["total"]
    active = params["moe_active"]["active_params_per_token"] if params.get("moe_active") else params["total"]
    assert parts.active == active
    theirs = {g["layers"]: g for g in params["layer_groups"]}
    assert sorted(g.layer_range for g in parts.groups) == sorted(theirs)
    for group in parts.groups:
        ref = theirs[group.layer_range]
        fields = ("attention", "mixer", "mlp", "norm")
        assert tuple(getattr(group, f) for f in fields) == tuple(ref.get(f, 0) for f in fields), (
            group.layer_range
        )
    assert model_kv_bytes_per_token(spec).value == kv["bytes_per_token"]
    state = mixer_state(spec, "bf16")
    assert state.total_bytes == kv.get("state_bytes_fixed", 0)
    for kind, detail in (kv.get("state_detail") or {}).items():
        ours = {"conv_states": state.conv_bytes, "recurrent_states": state.recurrent_bytes}[kind]
        assert ours == detail["bytes"], kind


@pytest.mark.parametrize("model_type", sorted(SMALL))
def test_a_small_config_of_every_new_type(model_type: str) -> None:
    _compare(SMALL[model_type])


@pytest.mark.parametrize("name", PRESETS)
def test_every_new_preset(name: str) -> None:
    _compare(dict(preset(name).config))
