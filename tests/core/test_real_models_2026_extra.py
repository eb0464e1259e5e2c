"""The architectures the issue keeps aside, measured by us the same way (tests/crosscheck/measure_2026.py with
transformers 5.23 on real config.json files found for Kimi Linear, Nemotron-H, MiniMax-M2, GLM-4.6,
Seed-OSS, EXAONE 4, Apertus and Granite 4.0-H): every supported one exact, through the config.json as the
Hub writes it and as transformers 5.23 rewrites it; the ones quizzer does not build refused with the list."""

from __future__ import annotations

import json
from typing import Any

import pytest

from quizzer.core.errors import ConfigError
from quizzer.core.hf import BUILDERS, from_hf_config
from quizzer.core.kv_model import model_kv_bytes_per_token
from quizzer.core.mixers import mixer_state
from quizzer.core.model import param_breakdown
from quizzer.core.presets import preset_spec
from tests.conftest import REFERENCE_DIR

#: Our own measurement (not a copy of the team's reference): the file keeps its script's format.
_EXTRA = json.loads((REFERENCE_DIR / "real_models_2026_extra.json").read_text(encoding="utf-8"))
MODELS = {m["name"]: m for m in _EXTRA["models"]}
SUPPORTED = sorted(name for name, m in MODELS.items() if m["model_type"] in BUILDERS)
#: Measured, not built by quizzer: Gemma 3n's text model adds per-layer embeddings, AltUp, LAuReL and KV
#: shared across layers (the issue names it optional).
UNSUPPORTED = {"gemma3n_text"}


def test_the_kept_aside_types_are_all_supported() -> None:
    kept_aside = {"kimi_linear", "nemotron_h", "minimax_m2", "glm4_moe", "seed_oss", "exaone4", "apertus"}
    types = {m["model_type"] for m in MODELS.values()}
    assert kept_aside <= types
    assert {m["model_type"] for m in MODELS.values() if m["model_type"] not in BUILDERS} == UNSUPPORTED
    assert {"granitemoehybrid", "falcon_h1"} <= {MODELS[name]["model_type"] for name in SUPPORTED}


@pytest.mark.parametrize("name", sorted(n for n, m in MODELS.items() if m["model_type"] in UNSUPPORTED))
def test_unsupported_types_are_refused_with_the_list(name: str) -> None:
    with pytest.raises(ConfigError, match=r"unsupported model_type .*supported: apertus, bert"):
        from_hf_config(MODELS[name]["config_json"])


@pytest.mark.parametrize("name", SUPPORTED)
def test_every_spelling_of_the_config_builds_the_same_model(name: str) -> None:
    """The file as found (hybrid_override_pattern, linear_attn_config, rope_theta...) and transformers 5.23's
    rewrite of it (layers_block_type, layer_types, defaults filled in) give one spec."""
    model = MODELS[name]
    found = model.get("config_json_as_found") or model["config_json"]
    assert from_hf_config(found) == from_hf_config(model["config_json"])


@pytest.mark.parametrize("name", SUPPORTED)
def test_parts_groups_active_cache_and_state(name: str) -> None:
    model: dict[str, Any] = MODELS[name]
    params, kv = model["params"], model["kv_cache"]
    spec = from_hf_config(model["config_json"])
    parts = param_breakdown(spec)
    assert parts.total == params["total"]
    active = params["moe_active"]["active_params_per_token"] if params.get("moe_active") else params["total"]
    assert parts.active == active
    assert parts.token_embedding == params["embedding"]["token"]
    assert parts.lm_head == params["lm_head"]
    ref_groups = {g["layers"]: g for g in params["layer_groups"]}
    assert sorted(g.layer_range for g in parts.groups) == sorted(ref_groups)
    for group in parts.groups:
        ref = ref_groups[group.layer_range]
        fields = ("attention", "mixer", "mlp", "norm", "total")
        assert tuple(getattr(group, f) for f in fields) == tuple(ref.get(f, 0) for f in fields), (
            group.layer_range
        )
    assert model_kv_bytes_per_token(spec).value == kv["bytes_per_token"]
    state = mixer_state(spec, "bf16")
    assert state.total_bytes == kv.get("state_bytes_fixed", 0)
    for kind, detail in (kv.get("state_detail") or {}).items():
        ours = {"conv_states": state.conv_bytes, "recurrent_states": state.recurrent_bytes}[kind]
        assert ours == detail["bytes"], kind


#: The presets made from these configs (EXAONE-4.0-1.2B has none: its layer kinds were not in the copy found).
PRESETS = {
    "kimi-linear-48b-a3b-instruct": "kimi-linear-48b-a3b",
    "nemotron-nano-9b-v2": "nemotron-nano-9b-v2",
    "minimax-m2": "minimax-m2",
    "glm-4.6": "glm-4.6",
    "seed-oss-36b-instruct": "seed-oss-36b",
    "apertus-8b-2509": "apertus-8b",
    "granite-4.0-h-tiny": "granite-4.0-h-tiny",
}


@pytest.mark.parametrize(("name", "preset"), sorted(PRESETS.items()))
def test_the_preset_is_the_measured_config(name: str, preset: str) -> None:
    assert preset_spec(preset) == from_hf_config(MODELS[name]["config_json"])
