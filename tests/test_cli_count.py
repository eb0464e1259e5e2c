"""`quizzer count`: JSON shape, table, bad input (exit 2, one line, no traceback)."""

from __future__ import annotations

import json
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
    t5 = tmp_path / "t5.json"
    t5.write_text('{"model_type": "t5"}')
    proc = run("count", str(t5))
    assert proc.returncode == 2
    assert "unsupported model_type 't5'; supported:" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_module_entry_point_prints_help() -> None:
    proc = run()
    assert proc.returncode == 0
    assert "count" in proc.stdout
