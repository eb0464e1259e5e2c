"""Issue 27's presets: DeepSeek-V2 and -Lite, Gemma 3 27B, Llama 4 Maverick, Qwen3-235B-A22B, Llama 3.1 405B.

Every parameter figure is checked EXACTLY against our own measurement (tests/data/reference/presets_27.json:
each config.json as found in public copies, built with transformers 5.23 on the meta device by
tests/crosscheck/measure_2026.py --no-cache, `sum(p.numel())`), then against the published rounded figure
within its printed rounding. The KV cache was not measured (no forward of a 236-405B model on the shared
machine): each figure is recomputed by hand below, the arithmetic written out.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from quizzer.core.hf import from_hf_config
from quizzer.core.kv_model import (
    kv_kinds,
    model_kv_bytes_per_token,
    model_kv_cache_bytes,
    model_kv_growth_bytes_per_token,
    model_kv_window_cap_bytes,
)
from quizzer.core.model import non_embedding_params, param_breakdown
from quizzer.core.presets import preset, preset_names, preset_spec
from tests.conftest import REFERENCE_DIR

_MEASURED = json.loads((REFERENCE_DIR / "presets_27.json").read_text(encoding="utf-8"))
MODELS: dict[str, dict[str, Any]] = {m["name"]: m for m in _MEASURED["models"]}

#: The presets this file checks (each measured under its preset name).
PRESETS_27 = (
    "deepseek-v2",
    "deepseek-v2-lite",
    "gemma-3-27b",
    "llama-4-maverick",
    "qwen3-235b-a22b",
    "llama-3.1-405b",
)


def test_the_presets_ship_and_were_all_measured() -> None:
    assert set(PRESETS_27) <= set(preset_names())
    assert set(MODELS) == set(PRESETS_27)
    for name in PRESETS_27:
        assert preset(name).source.startswith("https://"), name
    assert _MEASURED["generated_with"]["transformers"] == "5.23.0"


def test_aliases() -> None:
    assert preset("gemma-3-27b-text").name == "gemma-3-27b"
    assert preset("llama-4-maverick-17b-128e").name == "llama-4-maverick"
    assert preset("Qwen3-235B").name == "qwen3-235b-a22b"


@pytest.mark.parametrize("name", PRESETS_27)
def test_the_preset_is_the_config_found(name: str) -> None:
    """The preset's fields build the same model as the config.json found. Gemma 3's text_config leaves out
    vocab_size, which transformers takes from Gemma3TextConfig (262208) and quizzer asks for."""
    model = MODELS[name]
    assert preset_spec(name) == from_hf_config(
        {**model.get("transformers_defaults", {}), **model["config_json"]}
    )


@pytest.mark.parametrize("name", PRESETS_27)
def test_parts_and_groups_equal_the_measurement(name: str) -> None:
    params = MODELS[name]["params"]
    parts = param_breakdown(preset_spec(name))
    assert parts.total == params["total"]
    active = params["moe_active"]["active_params_per_token"] if params.get("moe_active") else params["total"]
    assert parts.active == active
    assert parts.token_embedding == params["embedding"]["token"]
    assert parts.lm_head == params["lm_head"]
    ref_groups = {g["layers"]: g for g in params["layer_groups"]}
    assert sorted(g.layer_range for g in parts.groups) == sorted(ref_groups)
    for group in parts.groups:
        ref = ref_groups[group.layer_range]
        fields = ("attention", "mlp", "norm", "total")
        assert tuple(getattr(group, f) for f in fields) == tuple(ref[f] for f in fields), group.layer_range


# The exact counts (total, active), typed in from the measurement: the JSON alone cannot move them.
EXACT = {
    "deepseek-v2": (235_741_434_880, 21_375_800_320),
    "deepseek-v2-lite": (15_706_484_224, 2_661_150_208),
    "gemma-3-27b": (27_009_346_304, 27_009_346_304),
    "llama-4-maverick": (400_711_848_960, 17_184_691_200),
    "qwen3-235b-a22b": (235_093_634_560, 22_190_763_520),
    "llama-3.1-405b": (405_853_388_800, 405_853_388_800),
}


@pytest.mark.parametrize("name", PRESETS_27)
def test_exact_total_and_active(name: str) -> None:
    parts = param_breakdown(preset_spec(name))
    assert (parts.total, parts.active) == EXACT[name]


def _published(name: str) -> dict[str, int]:
    parts = param_breakdown(preset_spec(name))
    return {
        "total": parts.total,
        "active": parts.active,
        "active_minus_input_embedding": parts.active - parts.token_embedding,
        "non_embedding": int(non_embedding_params(preset_spec(name)).value),
    }


# Published figures. A figure printed as "236B" is met when |ours - 236e9| <= 0.5e9 (half its last digit);
# the exceptions are said on their line.
PUBLISHED: list[tuple[str, str, int, int, str]] = [
    # DeepSeek-V2 paper (arXiv 2405.04434), abstract: "236B total parameters, of which 21B are activated".
    ("deepseek-v2", "total", 236_000_000_000, 500_000_000, "235.74B"),
    ("deepseek-v2", "active", 21_000_000_000, 500_000_000, "21.38B"),
    # Same paper, appendix B: "15.7B parameters in total, where 2.4B are activated".
    ("deepseek-v2-lite", "total", 15_700_000_000, 50_000_000, "15.706B"),
    # Gemma 3 report (arXiv 2503.19786), Table 1, 27B: 25,600M non-embedding (printed to 1M: ±0.5M).
    ("gemma-3-27b", "non_embedding", 25_600_000_000, 500_000, "25,599.7M"),
    ("gemma-3-27b", "total", 27_000_000_000, 500_000_000, "27.01B, text model"),
    # Llama 4 model card: "17B active", "400B total". 400B is read to 2 significant digits (±5B): the card's
    # total is the multimodal model's (vision encoder included); the text model alone is 400.71B.
    ("llama-4-maverick", "active", 17_000_000_000, 500_000_000, "17.18B"),
    ("llama-4-maverick", "total", 400_000_000_000, 5_000_000_000, "400.71B, text model"),
    # Qwen3-235B-A22B model card: 235B in total, 22B activated, 234B non-embedding.
    ("qwen3-235b-a22b", "total", 235_000_000_000, 500_000_000, "235.09B"),
    ("qwen3-235b-a22b", "active", 22_000_000_000, 500_000_000, "22.19B"),
    ("qwen3-235b-a22b", "non_embedding", 234_000_000_000, 500_000_000, "233.85B"),
]


@pytest.mark.parametrize(("name", "what", "published", "tolerance", "ours"), PUBLISHED)
def test_published_figures(name: str, what: str, published: int, tolerance: int, ours: str) -> None:
    assert abs(_published(name)[what] - published) <= tolerance, ours


def test_figures_published_truncated() -> None:
    """Two figures are truncated, not rounded: DeepSeek-V2-Lite's '2.4B activated' is 2.451B without the input
    embedding (2.661B with it); Llama 3.1 405B is 405.85B as built."""
    assert 2_400_000_000 <= _published("deepseek-v2-lite")["active_minus_input_embedding"] < 2_500_000_000
    assert 405_000_000_000 <= _published("llama-3.1-405b")["total"] < 406_000_000_000


# KV cache by hand, bf16 (2 bytes per element).
# MLA keeps one latent per layer and token: (kv_lora_rank + qk_rope_head_dim) elements, no K/V pair.
# The other attention keeps K and V: 2 × kv_heads × head_dim elements per layer and token.
KV_BYTES_PER_TOKEN = {
    "deepseek-v2": 60 * (512 + 64) * 2,  # 69,120
    "deepseek-v2-lite": 27 * (512 + 64) * 2,  # 31,104
    "gemma-3-27b": 62 * 2 * 16 * 128 * 2,  # 507,904 while the context is within the 1024-token window
    "llama-4-maverick": 48 * 2 * 8 * 128 * 2,  # 196,608 while the context is within the 8192-token chunk
    "qwen3-235b-a22b": 94 * 2 * 4 * 128 * 2,  # 192,512
    "llama-3.1-405b": 126 * 2 * 8 * 128 * 2,  # 516,096
}


@pytest.mark.parametrize("name", PRESETS_27)
def test_kv_bytes_per_token_by_hand(name: str) -> None:
    assert model_kv_bytes_per_token(preset_spec(name)).value == KV_BYTES_PER_TOKEN[name]


def test_mla_decompressed_reading_by_hand() -> None:
    """What transformers 4.x cached for DeepSeek-V2: every head's K (128 + 64) and V (128)."""
    spec = preset_spec("deepseek-v2")
    assert model_kv_bytes_per_token(spec, mla_cache="decompressed").value == 60 * 128 * (192 + 128) * 2


def test_gemma_3_27b_sliding_and_global_layers_by_hand() -> None:
    """62 layers: every 6th global (5, 11, ..., 59: 10 layers), the other 52 slide over 1024 tokens."""
    spec = preset_spec("gemma-3-27b")
    sliding, full = kv_kinds(spec)
    assert (sliding.kind, sliding.n_layers, sliding.window) == ("sliding", 52, 1024)
    assert (full.kind, full.layers) == ("full", tuple(range(5, 62, 6)))
    per_layer = 2 * 16 * 128 * 2  # 8,192 bytes per token and layer
    assert model_kv_growth_bytes_per_token(spec).value == 10 * per_layer  # 81,920 beyond the window
    assert model_kv_window_cap_bytes(spec).value == 52 * 1024 * per_layer  # 436,207,616
    # transformers keeps W - 1 tokens in a sliding layer
    assert model_kv_window_cap_bytes(spec, convention="hf").value == 52 * 1023 * per_layer
    # At 32,768 tokens: the sliding layers hold 1024 tokens, the global ones all of them.
    expected = (52 * 1024 + 10 * 32768) * per_layer  # 3,120,562,176
    assert model_kv_cache_bytes(spec, 32768).value == expected


def test_llama_4_maverick_layers_by_hand() -> None:
    """48 layers: experts on the odd ones (interleave step 2), NoPE full attention on every 4th
    (3, 7, ..., 47), chunked attention over 8192 tokens on the other 36."""
    spec = preset_spec("llama-4-maverick")
    parts = param_breakdown(spec)
    dense = 5120 * (40 * 128) * 2 + 5120 * (8 * 128) * 2 + 3 * 5120 * 16384 + 2 * 5120  # attn + MLP + 2 norms
    expert = 3 * 5120 * 8192
    moe = dense - 3 * 5120 * 16384 + 128 * expert + expert + 5120 * 128  # routed + shared expert + router
    embedding = 202048 * 5120
    assert parts.total == 24 * dense + 24 * moe + 5120 + 2 * embedding
    assert parts.active == parts.total - 24 * 127 * expert
    chunked, full = kv_kinds(spec)
    assert (chunked.kind, chunked.n_layers, chunked.window) == ("chunked", 36, 8192)
    assert full.layers == tuple(range(3, 48, 4))
    per_layer = 2 * 8 * 128 * 2  # 4,096 bytes per token and layer
    assert model_kv_growth_bytes_per_token(spec).value == 12 * per_layer  # 49,152 beyond the chunk
    assert model_kv_window_cap_bytes(spec).value == 36 * 8192 * per_layer  # 1,207,959,552


def test_deepseek_v2_lite_projects_queries_directly() -> None:
    """q_lora_rank is null in the Lite config: q_proj maps hidden straight to 16 heads × (128 + 64)."""
    spec = preset_spec("deepseek-v2-lite")
    assert spec.q_lora_rank == 0
    groups = {g.layer_range: g for g in param_breakdown(spec).groups}
    q = 2048 * 16 * (128 + 64)
    kv_a = 2048 * (512 + 64)
    kv_b = 512 * 16 * (128 + 128)
    o = 16 * 128 * 2048
    assert groups["0"].attention == q + kv_a + kv_b + o  # 13,762,560 (its kv_a norm counts with the norms)
