"""Every architecture of tests/data/reference/real_models_2026.json (measured with transformers 5.23) matches
exactly through from_hf_config, the presets and `quizzer count CONFIG --json`: total, active, every part
(attention, mixer, MLP, norms, embeddings, head), every layer group, the KV growth per token, the fixed state
(conv and recurrent, with their dtypes) and the cache at 2K-128K tokens."""

from __future__ import annotations

import contextlib
import io
import json
from typing import Any

import pytest

from quizzer.cli import main
from quizzer.core.flops import forward_flops_per_token, matmul_params_per_token
from quizzer.core.hf import from_hf_config
from quizzer.core.kv_model import model_kv_bytes_per_token, model_kv_growth_bytes_per_token
from quizzer.core.mixers import mixer_state
from quizzer.core.model import model_active_params, model_params, param_breakdown
from quizzer.core.presets import preset_spec
from tests.conftest import load_reference

MODELS = {m["name"]: m for m in load_reference("real_models_2026.json")}
NAMES = [
    "qwen3-next-80b-a3b",
    "deepseek-v3.2-exp",
    "glm-4.5-air",
    "smollm3-3b",
    "olmo-3-7b",
    "ernie-4.5-21b-a3b",
    "lfm2-1.2b",
]
CONTEXTS = (2048, 8192, 32768, 131072)


def test_reference_lists_the_models_we_check() -> None:
    assert sorted(MODELS) == sorted(NAMES)


@pytest.fixture(scope="module")
def cli_reports(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, int], Any]:
    """`quizzer count CONFIG --json` for each record, at no context and at 2K/8K/32K/128K tokens."""
    reports: dict[tuple[str, int], Any] = {}
    folder = tmp_path_factory.mktemp("configs")
    for name, ref in MODELS.items():
        path = folder / f"{name}.json"
        path.write_text(json.dumps(ref["config_json"]), encoding="utf-8")
        for seq_len in (0, *CONTEXTS):
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                assert main(["count", str(path), "--json", "--seq-len", str(seq_len)]) == 0
            reports[name, seq_len] = json.loads(out.getvalue())
    return reports


@pytest.mark.parametrize("name", NAMES)
def test_the_preset_is_the_reference_config(name: str) -> None:
    assert preset_spec(name) == from_hf_config(MODELS[name]["config_json"])


@pytest.mark.parametrize("name", NAMES)
def test_total_active_and_every_part(name: str, cli_reports: dict[tuple[str, int], Any]) -> None:
    ref = MODELS[name]
    params = ref["params"]
    spec = from_hf_config(ref["config_json"])
    parts = param_breakdown(spec)
    emb = params["embedding"]
    assert parts.total == model_params(spec).value == params["total"]
    active = params["moe_active"]["active_params_per_token"] if params.get("moe_active") else params["total"]
    assert parts.active == model_active_params(spec).value == active
    assert parts.token_embedding == emb["token"]
    assert parts.position == emb["position"] == 0
    assert parts.lm_head == params["lm_head"]
    assert parts.other == params["other"] == 0
    over = params["parts_over_all_layers"]
    assert (parts.attention, parts.mixer, parts.mlp) == (over["attention"], over["mixer"], over["mlp"])
    # LFM2's last norm is the module transformers calls embedding_norm, applied after the layers (a final
    # norm by what it does): the reference files it under embeddings, quizzer under the final norm.
    outside = emb["embedding_norm"] + params["final_norm"]
    assert parts.norm == over["norm"] + outside
    assert parts.embedding_norm + parts.final_norm == outside
    cli = cli_reports[name, 0]["params"]
    assert (cli["total"], cli["active"]) == (params["total"], active)
    assert (cli["attention"], cli["mixer"], cli["mlp"]) == (over["attention"], over["mixer"], over["mlp"])
    assert cli["embedding"] == emb["token"]
    assert cli["lm_head"] == params["lm_head"]
    assert cli["norm"] == over["norm"] + outside
    assert sum(v for k, v in cli.items() if k != "active" and k != "total") == params["total"]


@pytest.mark.parametrize("name", NAMES)
def test_layer_groups_match(name: str, cli_reports: dict[tuple[str, int], Any]) -> None:
    ref_groups = MODELS[name]["params"]["layer_groups"]
    groups = param_breakdown(from_hf_config(MODELS[name]["config_json"])).groups
    cli_groups = cli_reports[name, 0]["layer_groups"]
    assert len(groups) == len(ref_groups) == len(cli_groups)
    for group, cli, ref in zip(groups, cli_groups, ref_groups, strict=True):
        assert (group.layer_range, group.count) == (ref["layers"], ref["count"])
        fields = ("attention", "mixer", "mlp", "norm", "total")
        assert tuple(getattr(group, f) for f in fields) == tuple(ref[f] for f in fields)
        assert tuple(cli[f] for f in fields) == tuple(ref[f] for f in fields)
        assert cli["token_mixer"] == ("linear" if ref["kind"].startswith("mixer:") else "attention")
        moe = ref.get("moe")
        if moe:
            assert (group.expert, group.router, group.shared_experts, group.routed_experts) == (
                moe["params_per_expert"],
                moe["router"],
                moe["shared_experts"],
                moe["routed_experts_total"],
            )


@pytest.mark.parametrize("name", NAMES)
def test_cache_growth_and_fixed_state(name: str, cli_reports: dict[tuple[str, int], Any]) -> None:
    ref = MODELS[name]["kv_cache"]
    spec = from_hf_config(MODELS[name]["config_json"])
    assert model_kv_bytes_per_token(spec).value == ref["bytes_per_token"]
    state = mixer_state(spec, "bf16")
    assert state.total_bytes == ref["state_bytes_fixed"]
    for kind, detail in ref["state_detail"].items():
        ours = {"conv_states": state.conv_bytes, "recurrent_states": state.recurrent_bytes}[kind]
        assert ours == detail["bytes"], kind
        assert state.layers == detail["layers"]
    kv = cli_reports[name, 0]["kv"]
    assert kv["bytes_per_token"] == ref["bytes_per_token"]
    if ref["state_bytes_fixed"]:
        assert kv["state_bytes_fixed"] == ref["state_bytes_fixed"]
        dtypes = {k: v["dtype"] for k, v in kv["state_detail"].items()}
        assert dtypes == {
            k: {"bfloat16": "bf16", "float32": "fp32"}[v["dtype"]] for k, v in ref["state_detail"].items()
        }
        growth = model_kv_growth_bytes_per_token(spec).value
        assert kv["crossover_tokens"] == -(-ref["state_bytes_fixed"] // growth)
    else:
        assert "state_bytes_fixed" not in kv


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("seq_len", CONTEXTS)
def test_cache_at_context(name: str, seq_len: int, cli_reports: dict[tuple[str, int], Any]) -> None:
    """The reference's cache at T tokens is state + what HF's layers hold (sliding layers: W − 1 tokens)."""
    expected = MODELS[name]["kv_cache"]["total_bytes_at_context"][str(seq_len)]
    cache = cli_reports[name, seq_len]["kv_cache"]
    assert cache.get("total_bytes_hf", cache["bytes_hf"]) == expected


def test_deepseek_v32_gives_both_mla_readings(cli_reports: dict[tuple[str, int], Any]) -> None:
    """transformers 5 caches the latent, the rope key and the indexer's key; 4.57 cached the decompressed K
    and V of DeepSeek-V3 (the 2025 file's 4,997,120 bytes per token)."""
    ref = MODELS["deepseek-v3.2-exp"]["kv_cache"]
    mla = cli_reports["deepseek-v3.2-exp", 0]["kv"]["mla"]
    assert mla["latent_bytes_per_token"] == ref["mla_latent_plus_indexer"] == 85888
    assert mla["indexer_key_bytes_per_token"] == ref["indexer_key_formula"]
    assert mla["decompressed_bytes_per_token"] == ref["hf_decompressed_formula"]
    v3 = {m["name"]: m for m in load_reference("real_models_2025.json")}["deepseek-v3"]
    assert mla["decompressed_bytes_per_token"] == v3["kv_cache"]["bytes_per_token"]


@pytest.mark.parametrize("name", NAMES)
def test_published_totals_are_judged_as_the_reference_judges_them(name: str) -> None:
    """A published total is sometimes a name ("21B" for 21.83B): the reference says which ones match."""
    check = MODELS[name]["published_check"]
    total = param_breakdown(from_hf_config(MODELS[name]["config_json"])).total
    assert total == check["measured_total"]
    assert (abs(total - check["published_total"]) <= check["precision"] / 2) == check["match"]


@pytest.mark.parametrize("name", NAMES)
def test_forward_flops_match_the_counted_matmuls(name: str) -> None:
    """2 × the matmul parameters per token is the layers' and the head's matmuls, the attention term the
    scores (and the indexer's); the mixers' inner work is the reference's mixer_internal, left out."""
    flops = MODELS[name]["flops_forward"]
    spec = from_hf_config(MODELS[name]["config_json"])
    seq = flops["seq_len"]
    matmul = 2 * matmul_params_per_token(spec).value
    assert matmul * seq == flops["layers_matmul"] + flops["lm_head"]
    attention = forward_flops_per_token(spec, seq).value - matmul
    assert attention * seq == flops["attention_score"] + flops["attention_score_indexer"]
