"""Every architecture of tests/data/reference/real_models_2025.json matches exactly through from_hf_config
and `quizzer count CONFIG --json`: totals, every part, layer groups, MoE active, FLOPs, KV by layer kind."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from quizzer.cli import main
from quizzer.core.flops import forward_flops_per_token, matmul_params_per_token
from quizzer.core.hf import from_hf_config
from quizzer.core.kv_model import (
    kv_kinds,
    model_kv_bytes_per_token,
    model_kv_cache_bytes,
    model_kv_growth_bytes_per_token,
    model_kv_window_cap_bytes,
)
from quizzer.core.model import model_active_params, model_params, non_embedding_params, param_breakdown
from quizzer.core.presets import preset_spec

NAMES = [
    "qwen3-8b",
    "qwen3-30b-a3b",
    "gemma-3-4b-text",
    "llama-3.1-8b",
    "mistral-nemo-12b",
    "deepseek-v3",
    "gpt-oss-20b",
    "olmo-2-7b",
    "phi-4",
    "llama-4-scout-text",
]
#: reference record -> the preset that ships its config.json
PRESETS = {
    "qwen3-8b": "qwen3-8b",
    "qwen3-30b-a3b": "qwen3-30b-a3b",
    "gemma-3-4b-text": "gemma-3-4b",
    "llama-3.1-8b": "llama-3.1-8b",
    "mistral-nemo-12b": "mistral-nemo-12b",
    "deepseek-v3": "deepseek-v3",
    "gpt-oss-20b": "gpt-oss-20b",
    "olmo-2-7b": "olmo-2-7b",
    "phi-4": "phi-4",
    "llama-4-scout-text": "llama-4-scout",
}
HF_KIND = {"full_attention": "full", "sliding_attention": "sliding", "chunked_attention": "chunked"}


def test_reference_lists_the_models_we_check(real_models_2025: dict[str, Any]) -> None:
    assert sorted(real_models_2025) == sorted(NAMES)


@pytest.fixture(scope="module")
def cli_reports(real_models_2025: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """`quizzer count CONFIG --json` for each record, at no context and at 2K/8K/32K/128K tokens."""
    import contextlib
    import io

    reports: dict[str, Any] = {}
    folder = tmp_path_factory.mktemp("configs")
    for name, ref in real_models_2025.items():
        path = folder / f"{name}.json"
        path.write_text(json.dumps(ref["config_json"]), encoding="utf-8")
        for seq_len in (0, 2048, 8192, 32768, 131072):
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                assert main(["count", str(path), "--json", "--seq-len", str(seq_len)]) == 0
            reports[name, seq_len] = json.loads(out.getvalue())
    return reports


@pytest.mark.parametrize("name", NAMES)
def test_every_part_matches(name: str, real_models_2025: dict[str, Any], cli_reports: dict[str, Any]) -> None:
    ref = real_models_2025[name]
    params = ref["params"]
    spec = from_hf_config(ref["config_json"])
    parts = param_breakdown(spec)
    emb = params["embedding"]
    assert parts.total == model_params(spec).value == params["total"]
    assert parts.token_embedding == emb["token"]
    assert parts.position == emb["position"]
    assert parts.token_type == emb["token_type"]
    assert parts.embedding_norm == emb["embedding_norm"]
    assert parts.final_norm == params["final_norm"]
    assert parts.lm_head == params["lm_head"]
    assert parts.other == params["other"]
    assert parts.total - parts.embedding - parts.lm_head - parts.final_norm == params["layers_total"]
    assert non_embedding_params(spec).value == params["non_embedding_total"]
    cli = cli_reports[name, 0]["params"]
    assert cli["total"] == params["total"]
    assert cli["embedding"] == emb["total"]
    assert cli["lm_head"] == params["lm_head"]
    assert cli["other"] == params["other"]
    assert (
        sum(cli[p] for p in ("embedding", "position", "attention", "mlp", "norm", "lm_head", "other"))
        == (params["total"])
    )


@pytest.mark.parametrize("name", NAMES)
def test_layer_groups_match(name: str, real_models_2025: dict[str, Any], cli_reports: dict[str, Any]) -> None:
    ref_groups = real_models_2025[name]["params"]["layer_groups"]
    groups = param_breakdown(from_hf_config(real_models_2025[name]["config_json"])).groups
    cli_groups = cli_reports[name, 0]["layer_groups"]
    assert len(groups) == len(ref_groups) == len(cli_groups)
    for group, cli, ref in zip(groups, cli_groups, ref_groups, strict=True):
        assert (group.stack, group.layer_range, group.count) == (ref["stack"], ref["layers"], ref["count"])
        assert (group.attention, group.mlp, group.norm, group.total) == (
            ref["attention"],
            ref["mlp"],
            ref["norm"],
            ref["total"],
        )
        assert {k: cli[k] for k in ("layers", "count", "attention", "mlp", "norm", "total")} == {
            k: ref[k] for k in ("layers", "count", "attention", "mlp", "norm", "total")
        }
        if "moe" in ref:
            moe = ref["moe"]
            assert (group.expert, group.routed_experts, group.router, group.shared_experts) == (
                moe["params_per_expert"],
                moe["routed_experts_total"],
                moe["router"],
                moe["shared_experts"],
            )
            for key in (
                "num_experts",
                "params_per_expert",
                "routed_experts_total",
                "router",
                "shared_experts",
            ):
                assert cli["moe"][key] == moe[key], key
        else:
            assert group.mlp_kind == "dense"
            assert "moe" not in cli


@pytest.mark.parametrize("name", NAMES)
def test_norms_inside_attention(name: str, real_models_2025: dict[str, Any]) -> None:
    """q/k norms (per head, per projection, none for Llama 4's L2) and MLA's latent norms count as norms."""
    ref = real_models_2025[name]
    spec = from_hf_config(ref["config_json"])
    for group, ref_group in zip(param_breakdown(spec).groups, ref["params"]["layer_groups"], strict=True):
        detail = ref_group["norm_detail"]
        in_layer = spec.norms_per_layer * spec.d_model  # every reference model uses RMSNorm
        assert in_layer == detail["in_layer"]
        assert group.norm - in_layer == detail["inside_attention"] + detail["inside_mlp"]


@pytest.mark.parametrize("name", NAMES)
def test_moe_active_matches(name: str, real_models_2025: dict[str, Any], cli_reports: dict[str, Any]) -> None:
    ref = real_models_2025[name]
    spec = from_hf_config(ref["config_json"])
    moe = ref["params"].get("moe_active")
    expected = moe["active_params_per_token"] if moe else ref["params"]["total"]
    parts = param_breakdown(spec)
    assert (
        model_active_params(spec).value
        == parts.active
        == cli_reports[name, 0]["params"]["active"]
        == expected
    )
    if moe:
        assert (
            parts.active - parts.token_embedding == moe["active_params_per_token_excluding_input_embeddings"]
        )
        assert parts.total - parts.active == moe["inactive_routed_expert_params"]


@pytest.mark.parametrize("name", NAMES)
def test_forward_flops_match_flop_counter(
    name: str, real_models_2025: dict[str, Any], cli_reports: dict[str, Any]
) -> None:
    """FlopCounterMode over a forward of S tokens = S × our per-token count at context S (routed experts at
    top-k, as the reference counts them; every layer's scores over the full S × S)."""
    ref = real_models_2025[name]
    flops = ref["flops_forward"]
    spec = from_hf_config(ref["config_json"])
    s = flops["seq_len"]
    assert s * forward_flops_per_token(spec, s).value == flops["total"] - flops["other"]
    assert s * forward_flops_per_token(spec).value == flops["layers_matmul"] + flops["lm_head"]
    assert 2 * s * matmul_params_per_token(spec).value == flops["layers_matmul"] + flops["lm_head"]
    assert (
        s * (forward_flops_per_token(spec, s).value - forward_flops_per_token(spec).value)
        == (flops["attention_score"])
    )
    assert s * cli_reports[name, 2048]["flops_per_token"]["forward"] == flops["total"] - flops["other"]


@pytest.mark.parametrize("name", NAMES)
def test_kv_bytes_per_token_by_kind(
    name: str, real_models_2025: dict[str, Any], cli_reports: dict[str, Any]
) -> None:
    ref = real_models_2025[name]
    kv = ref["kv_cache"]
    spec = from_hf_config(ref["config_json"])
    cli = cli_reports[name, 0]["kv"]
    hf_cache = "decompressed" if spec.is_mla else "latent"  # what transformers' cache holds
    assert model_kv_bytes_per_token(spec, "bf16", hf_cache).value == kv["bytes_per_token"]
    kinds = {k.kind: k for k in kv_kinds(spec, hf_cache)}
    assert {kind: k.n_layers for kind, k in kinds.items()} == {
        HF_KIND[k]: n for k, n in kv["layer_kinds"].items()
    }
    for kind, per_layer in kv["measured"]["bytes_per_token_per_layer_by_kind"].items():
        assert 2 * kinds[HF_KIND[kind]].elements_per_token_per_layer == per_layer  # bf16: 2 bytes
    if spec.is_mla:
        assert model_kv_bytes_per_token(spec).value == cli["bytes_per_token"] == kv["mla_latent_formula"]
        assert cli["mla"]["decompressed_bytes_per_token"] == kv["hf_decompressed_formula"]
        assert cli_reports[name, 0]["kv_cache_bytes_per_token"] == kv["mla_latent_formula"]
    else:
        assert (
            cli["bytes_per_token"]
            == cli_reports[name, 0]["kv_cache_bytes_per_token"]
            == kv["bytes_per_token"]
        )
        assert {row["kind"]: row["bytes_per_token_per_layer"] for row in cli["by_kind"]} == {
            HF_KIND[k]: v for k, v in kv["measured"]["bytes_per_token_per_layer_by_kind"].items()
        }


WINDOWED = ["gemma-3-4b-text", "gpt-oss-20b", "llama-4-scout-text"]


@pytest.mark.parametrize("name", WINDOWED)
def test_windowed_layers(name: str, real_models_2025: dict[str, Any], cli_reports: dict[str, Any]) -> None:
    """Beyond the window only the full layers grow; the sliding/chunked layers stop at W − 1 tokens (HF)."""
    kv = real_models_2025[name]["kv_cache"]
    spec = from_hf_config(real_models_2025[name]["config_json"])
    assert model_kv_growth_bytes_per_token(spec).value == kv["bytes_per_token_beyond_window"]
    assert model_kv_window_cap_bytes(spec, convention="hf").value == kv["sliding_layers_cap_bytes"]
    (windowed,) = (k for k in kv_kinds(spec) if k.window is not None)
    assert (windowed.kind, windowed.window, windowed.n_layers) == (
        HF_KIND[kv["window_kind"]],
        kv["window"],
        kv["sliding_layers"],
    )
    assert windowed.cap_tokens("hf") == kv["sliding_layer_cap_tokens"]
    cli = cli_reports[name, 0]["kv"]
    assert cli["bytes_per_token_beyond_windows"] == kv["bytes_per_token_beyond_window"]
    assert cli["window_cap_bytes"]["hf"] == kv["sliding_layers_cap_bytes"]
    (row,) = (r for r in cli["by_kind"] if r["window"] is not None)
    assert row["cap_tokens"]["hf"] == kv["sliding_layer_cap_tokens"]
    assert row["cap_bytes"]["hf"] == kv["sliding_layers_cap_bytes"]


@pytest.mark.parametrize("name", WINDOWED)
@pytest.mark.parametrize("seq_len", [2048, 8192, 32768, 131072])
def test_total_at_context(
    name: str, seq_len: int, real_models_2025: dict[str, Any], cli_reports: dict[str, Any]
) -> None:
    expected = real_models_2025[name]["kv_cache"]["total_bytes_at_context"][str(seq_len)]
    spec = from_hf_config(real_models_2025[name]["config_json"])
    assert model_kv_cache_bytes(spec, seq_len, convention="hf").value == expected
    assert cli_reports[name, seq_len]["kv_cache"]["bytes_hf"] == expected


@pytest.mark.parametrize("name", [n for n in NAMES if n not in WINDOWED])
@pytest.mark.parametrize("seq_len", [2048, 131072])
def test_full_attention_totals_are_per_token_times_tokens(
    name: str, seq_len: int, real_models_2025: dict[str, Any], cli_reports: dict[str, Any]
) -> None:
    kv = real_models_2025[name]["kv_cache"]
    per_token = kv["mla_latent_formula"] if "mla_latent_formula" in kv else kv["bytes_per_token"]
    cache = cli_reports[name, seq_len]["kv_cache"]
    assert cache["bytes"] == cache["bytes_hf"] == per_token * seq_len
    if "hf_decompressed_formula" in kv:
        assert cache["mla_decompressed_bytes"]["hf"] == kv["hf_decompressed_formula"] * seq_len


def test_mla_latent_against_decompressed(real_models_2025: dict[str, Any]) -> None:
    kv = real_models_2025["deepseek-v3"]["kv_cache"]
    spec = from_hf_config(real_models_2025["deepseek-v3"]["config_json"])
    latent = model_kv_bytes_per_token(spec).value
    decompressed = model_kv_bytes_per_token(spec, mla_cache="decompressed").value
    assert round(decompressed / latent, 3) == kv["hf_over_latent_ratio"]
    assert decompressed // spec.n_layers == kv["bytes_per_token_per_layer"]


@pytest.mark.parametrize("name", NAMES)
def test_presets_equal_the_reference_configs(name: str, real_models_2025: dict[str, Any]) -> None:
    assert preset_spec(PRESETS[name]) == from_hf_config(real_models_2025[name]["config_json"])


def test_cli_reads_a_folder(
    real_models_2025: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "config.json").write_text(json.dumps(real_models_2025["gpt-oss-20b"]["config_json"]))
    assert main(["count", str(tmp_path), "--json"]) == 0
    assert (
        json.loads(capsys.readouterr().out)["params"]["total"]
        == real_models_2025["gpt-oss-20b"]["params"]["total"]
    )
