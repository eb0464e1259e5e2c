"""`quizzer count`: JSON shape, table, bad input (exit 2, one line, no traceback)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from quizzer.cli import main


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "quizzer", *args], capture_output=True, text=True, timeout=60
    )


def count_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    assert main(["count", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_json_shape_for_llama_3_8b(capsys: pytest.CaptureFixture[str]) -> None:
    report = count_json(capsys, "llama-3-8b")
    assert report["model"] == "llama-3-8b"
    params = report["params"]
    assert set(params) >= {
        "total",
        "active",
        "embedding",
        "position",
        "attention",
        "mlp",
        "norm",
        "lm_head",
        "other",
    }
    assert all(isinstance(v, int) for v in params.values())
    parts = ("embedding", "position", "attention", "mlp", "norm", "lm_head", "other")
    assert sum(params[p] for p in parts) == params["total"] == 8_030_261_248
    assert params["active"] == params["total"]
    assert params["embedding"] == params["lm_head"] == 128256 * 4096
    assert params["norm"] == 65 * 4096  # two per layer and the final one
    assert report["kv_cache_bytes_per_token"] == 2 * 32 * 8 * 128 * 2
    assert report["weights_bytes"] == 2 * 8_030_261_248
    assert isinstance(report["flops_per_token"]["forward"], int)


def test_json_mixtral_active(capsys: pytest.CaptureFixture[str]) -> None:
    params = count_json(capsys, "mixtral-8x7b")["params"]
    assert params["active"] == 12_879_925_248 < params["total"] == 46_702_792_704


def test_json_bert_parts(capsys: pytest.CaptureFixture[str]) -> None:
    params = count_json(capsys, "bert-base")["params"]
    assert params["embedding"] == 30522 * 768 + 2 * 768  # token + token type
    assert params["other"] == 768 * 768 + 768  # pooler
    assert params["norm"] == 12 * 2 * 1536 + 1536  # in the layers + after the embeddings


def test_dtype_seq_len_and_batch(capsys: pytest.CaptureFixture[str]) -> None:
    report = count_json(capsys, "llama-2-7b", "--dtype", "int4", "--seq-len", "4096", "--batch", "2")
    assert report["weights_bytes"] == 6_738_415_616 // 2
    assert report["kv_cache"]["bytes"] == 2 * 32 * 32 * 128 * 4096 * 2 // 2
    assert report["flops_per_token"]["context"] == 4096


def test_sliding_window_caps_the_cache(capsys: pytest.CaptureFixture[str]) -> None:
    report = count_json(capsys, "mistral-7b", "--seq-len", "32768")
    assert report["kv_cache"]["tokens_cached"] == 4096


def test_config_json_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = {
        "model_type": "gpt2",
        "vocab_size": 50257,
        "n_embd": 768,
        "n_layer": 12,
        "n_head": 12,
        "n_positions": 1024,
    }
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    assert count_json(capsys, str(path))["params"]["total"] == 124_439_808
    assert count_json(capsys, str(tmp_path))["params"]["total"] == 124_439_808


def test_table_reads_well(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["count", "gpt2"]) == 0
    out = capsys.readouterr().out
    assert "124,439,808" in out
    assert "lm head (tied)" in out
    assert "MiB" in out  # 248,879,616 bytes = 237.4 MiB


def test_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["count", "--list"]) == 0
    out = capsys.readouterr().out
    assert "llama-3-8b" in out
    assert "Llama 3 8B" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["count", "no/such/config.json"], "no such file"),
        (["count", "llama-3-80b"], "unknown model preset 'llama-3-80b' (did you mean"),
        (["count", "gpt2", "--dtype", "fp64"], "unknown dtype 'fp64'"),
        (["count", "gpt2", "--batch", "0"], "--batch (0)"),
    ],
)
def test_bad_input_exits_2_with_one_line(args: list[str], message: str) -> None:
    proc = run(*args)
    assert proc.returncode == 2
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_invalid_json_and_unsupported_type(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"model_type": "gpt2",\n  oops}')
    proc = run("count", str(bad))
    assert proc.returncode == 2
    assert "invalid JSON at line 2 column 3" in proc.stderr
    mamba = tmp_path / "mamba.json"
    mamba.write_text('{"model_type": "mamba"}')
    proc = run("count", str(mamba))
    assert proc.returncode == 2
    assert "unsupported model_type 'mamba'; supported:" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_module_entry_point_prints_help() -> None:
    proc = run()
    assert proc.returncode == 0
    assert "count" in proc.stdout


def test_json_deepseek_v3_layer_groups_and_mla(capsys: pytest.CaptureFixture[str]) -> None:
    report = count_json(capsys, "deepseek-v3", "--seq-len", "4096")
    dense, moe = report["layer_groups"]
    assert (dense["kind"], dense["layers"], dense["count"]) == ("dense", "0-2", 3)
    assert (moe["kind"], moe["layers"], moe["count"]) == ("moe", "3-60", 58)
    assert dense["mlp"] == 3 * 7168 * 18432
    expert = 3 * 7168 * 2048
    assert moe["moe"]["params_per_expert"] == expert
    assert moe["mlp"] == 7168 * 256 + 256 * expert + expert  # router + routed + shared
    assert moe["mlp_active"] == 7168 * 256 + 8 * expert + expert
    mla = report["kv"]["mla"]
    assert mla["latent_bytes_per_token"] == report["kv_cache_bytes_per_token"] == 61 * (512 + 64) * 2
    assert mla["decompressed_bytes_per_token"] == 61 * 128 * (128 + 64 + 128) * 2
    assert report["kv_cache"]["bytes"] == 61 * (512 + 64) * 2 * 4096
    assert report["kv_cache"]["mla_decompressed_bytes"]["hf"] == 61 * 128 * 320 * 2 * 4096


def test_json_gemma_3_kv_by_layer_kind(capsys: pytest.CaptureFixture[str]) -> None:
    report = count_json(capsys, "gemma-3-4b", "--seq-len", "32768", "--batch", "2")
    per_layer = 2 * 4 * 256 * 2  # K and V, 4 KV heads of 256, bf16
    assert [(k["kind"], k["count"], k["window"]) for k in report["attention_layers"]] == [
        ("sliding", 29, 1024),
        ("full", 5, None),
    ]
    kv = report["kv"]
    assert kv["bytes_per_token"] == 34 * per_layer
    assert kv["bytes_per_token_beyond_windows"] == 5 * per_layer
    assert kv["window_cap_bytes"] == {"paper": 29 * 1024 * per_layer, "hf": 29 * 1023 * per_layer}
    cache = report["kv_cache"]
    assert cache["tokens_cached"] == 32768
    assert cache["bytes"] == 2 * per_layer * (5 * 32768 + 29 * 1024)
    assert cache["bytes_hf"] == 2 * per_layer * (5 * 32768 + 29 * 1023)
    assert {k["kind"]: k["tokens_cached"]["hf"] for k in cache["by_kind"]} == {"sliding": 1023, "full": 32768}


def test_json_keeps_the_old_keys_for_new_models(capsys: pytest.CaptureFixture[str]) -> None:
    report = count_json(capsys, "llama-4-scout", "--seq-len", "16384")
    assert set(report) >= {
        "model",
        "params",
        "per_layer",
        "flops_per_token",
        "kv_cache_bytes_per_token",
        "weights_bytes",
        "dtype",
        "kv_cache",
    }
    assert set(report["kv_cache"]) >= {"seq_len", "batch", "tokens_cached", "bytes"}
    assert report["nope_layers"] == ",".join(str(i) for i in range(3, 48, 4))
    assert report["params"]["active"] < report["params"]["total"]
    chunked, full = report["kv"]["by_kind"]
    assert (chunked["kind"], chunked["layers"], chunked["window"], full["layers"]) == (
        "chunked",
        36,
        8192,
        12,
    )


def test_new_dtypes_are_accepted(capsys: pytest.CaptureFixture[str]) -> None:
    bf16 = count_json(capsys, "gpt-oss-20b")["weights_bytes"]
    assert count_json(capsys, "gpt-oss-20b", "--dtype", "fp8_e4m3")["weights_bytes"] * 2 == bf16
    assert count_json(capsys, "gpt-oss-20b", "--dtype", "mxfp4")["weights_bytes"] < bf16 // 3


def test_encoder_only_has_no_kv_block(capsys: pytest.CaptureFixture[str]) -> None:
    report = count_json(capsys, "bert-base", "--seq-len", "128")
    assert "kv" not in report
    assert "kv_cache" not in report
    assert report["kv_cache_bytes_per_token"] == 0


def test_table_shows_layer_kinds(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["count", "deepseek-v3", "--seq-len", "1024"]) == 0
    out = capsys.readouterr().out
    assert "3-60 moe" in out
    assert "0-2 dense" in out
    assert "decompressed K and V" in out
    assert main(["count", "gemma-3-4b", "--seq-len", "32768"]) == 0
    out = capsys.readouterr().out
    assert "sliding attention: 29 layers, window 1,024" in out
    assert "121,516,032 in transformers" in out  # 29 layers × 1,023 tokens × 4,096 bytes
    assert "792,723,456 bytes" in out
    assert "792,604,672 bytes" in out


def test_t5_config_counts_both_stacks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = {
        "model_type": "t5",
        "vocab_size": 32128,
        "d_model": 512,
        "d_kv": 64,
        "d_ff": 2048,
        "num_layers": 6,
        "num_heads": 8,
    }
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    report = count_json(capsys, str(path))
    assert report["params"]["total"] == 60_506_624  # t5-small, sum(numel) with the tied head
    assert [g["stack"] for g in report["layer_groups"]] == ["encoder", "decoder"]
    assert report["kv"]["cross_attention_bytes_per_source_token"] == 6 * 2 * 8 * 64 * 2


def test_a_hybrids_table_has_its_mixer_state_and_crossover(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["count", "qwen3-next-80b-a3b", "--seq-len", "32768"]) == 0
    out = capsys.readouterr().out
    assert "mixer (36 gated DeltaNet layers)        1,213,860,096" in out
    assert "attention (12 layers)" in out
    assert "(2 × 12 softmax-attention layers × 2 kv heads × 256 head_dim × bytes)" in out
    assert "fixed state per sequence (36 gated DeltaNet layers): 77,856,768 bytes" in out
    assert "conv 2,359,296 (bf16) + recurrent 75,497,472 (fp32)" in out
    assert "the KV cache overtakes the fixed state at 3,168 tokens" in out
    assert "with the fixed state: 883,163,136 bytes" in out
    # the rows of the parts table add up to the total
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("part "))
    end = next(i for i, line in enumerate(lines) if line.startswith("total "))
    rows = [re.search(r"\s(\d[\d,]*)(\s|$)", line) for line in lines[start + 1 : end]]
    assert sum(int(m.group(1).replace(",", "")) for m in rows if m) == 79_674_391_296


def test_state_dtype_model_keeps_the_recurrent_state_in_the_dtype(capsys: pytest.CaptureFixture[str]) -> None:
    report = count_json(capsys, "qwen3-next-80b-a3b", "--state-dtype", "model")
    assert report["kv"]["state_detail"]["recurrent_states"] == {
        "bytes": 75_497_472 // 2,
        "dtype": "bf16",
        "layers": 36,
        "elements_per_layer": 32 * 128 * 128,
    }


def test_a_model_without_softmax_layers_caches_no_kv(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = dict(
        model_type="nemotron_h",
        vocab_size=1000,
        hidden_size=256,
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=64,
        intermediate_size=512,
        hybrid_override_pattern="M-M-M-",
        mamba_num_heads=8,
        mamba_head_dim=32,
        n_groups=1,
        ssm_state_size=16,
        conv_kernel=4,
    )
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    assert main(["count", str(path), "--seq-len", "1000"]) == 0
    out = capsys.readouterr().out
    assert "KV cache: none (no softmax-attention layer caches K and V)" in out
    assert "window" not in out
    # 3 layers × (conv (8·32 + 2·16) × 4 bf16 + 8 × 32 × 16 fp32)
    assert "fixed state per sequence (3 Mamba-2 layers): 56,064 bytes" in out
