"""Published problems posed through the canonical templates with --set overrides, and the bank's shape."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from quizzer.bank.loader import Bank, load_bank
from quizzer.commands.listing import practice_table
from quizzer.paths import questions_dir
from tests.golden import assert_golden

ROOT = Path(__file__).resolve().parent.parent
DAY = 86400

#: problem id -> (template id, --set overrides, divisor to the problem's units, why)
POSED: dict[str, tuple[str, dict[str, str], float, str]] = {
    "PC-01": (
        "gpt-total-params",
        {"vocab_size": "50257", "n_positions": "1024", "d_model": "768", "n_layers": "12"},
        1,
        "GPT-2 small",
    ),
    "PC-03": (
        "llama-total-params",
        {
            "vocab_size": "32000",
            "d_model": "4096",
            "n_layers": "32",
            "n_heads": "32",
            "n_kv_heads": "32",
            "head_dim": "128",
            "d_ff": "11008",
            "tied": "false",
        },
        1,
        "Llama-2-7B",
    ),
    "PC-06": (
        "llama-total-params",
        {
            "vocab_size": "128256",
            "d_model": "4096",
            "n_layers": "32",
            "n_heads": "32",
            "n_kv_heads": "8",
            "head_dim": "128",
            "d_ff": "14336",
            "tied": "false",
        },
        1,
        "Llama-3-8B",
    ),
    "PC-08": (
        "llama-total-params",
        {
            "vocab_size": "32000",
            "d_model": "4096",
            "n_layers": "32",
            "n_heads": "32",
            "n_kv_heads": "8",
            "head_dim": "128",
            "d_ff": "14336",
            "tied": "false",
        },
        1,
        "Mistral-7B",
    ),
    "FL-06": ("training-flops", {"n_params": "175e9", "n_tokens": "300e9"}, 1, "GPT-3"),
    "MEM-01": (
        "training-state-memory",
        {"n_params": "7.5e9"},
        1e9,
        "ZeRO's 16 bytes/param, as the problem states",
    ),
    "MEM-02": (
        "zero-memory-per-gpu",
        {"n_params": "7.5e9", "n_gpus": "64", "zero_stage": "1"},
        1e9,
        "ZeRO-1",
    ),
    "MEM-09": (
        "activation-memory-full-recompute",
        {"seq_len": "2048", "batch": "1", "d_model": "4096", "n_layers": "32"},
        1,
        "MEM-08's shapes are not in the file; these give 2·s·b·h·L = 2^29, the stated answer",
    ),
    "KV-01": (
        "kv-cache-bytes",
        {
            "n_layers": "32",
            "n_heads": "32",
            "n_kv_heads": "32",
            "head_dim": "128",
            "seq_len": "4096",
            "batch": "1",
            "dtype": "bf16",
        },
        1,
        "Llama-2-7B, 4,096 tokens",
    ),
    "KV-07": (
        "kv-cache-bytes",
        {
            "n_layers": "64",
            "n_heads": "64",
            "n_kv_heads": "64",
            "head_dim": "128",
            "seq_len": "8192",
            "batch": "1",
            "dtype": "int8",
        },
        1,
        "K·H = 8,192, int8",
    ),
    "INF-01": (
        "critical-batch-size",
        {"peak_flops": "312e12", "bandwidth": "1.5e12", "weight_dtype": "bf16"},
        1,
        "kipply's A100 figures",
    ),
    "INF-02": (
        "decode-step-time",
        {"n_params": "52e9", "dtype": "bf16", "n_gpus": "4", "bandwidth": "1.5e12"},
        1,
        "52B on 4 A100s",
    ),
    "INF-08": (
        "prefill-time",
        {"n_params": "70e9", "n_tokens": "8192", "n_gpus": "16", "chip": "tpu-v5e", "mfu": "0.4"},
        1,
        "TPU v5e (the table's 1.97e14 bf16 FLOP/s; chip.bf16= sets another)",
    ),
    "INF-13": (
        "decode-step-time",
        {"n_params": "200e9", "dtype": "bf16", "n_gpus": "32", "bandwidth": "1.23e12"},
        1,
        "TPU v4p",
    ),
    "TR-01": (
        "training-time",
        {"n_params": "7e10", "n_tokens": "1.5e13", "n_gpus": "8960", "peak_flops": "4.59e14", "mfu": "0.4"},
        DAY,
        "6.3e24 FLOPs posed as 6 × 70B × 15T",
    ),
    "CH-01": ("chinchilla-tokens", {"n_params": "70e9"}, 1, "Chinchilla 70B"),
    "LORA-01": (
        "lora-qv-params",
        {"d_model": "4096", "n_layers": "32", "rank": "8"},
        1,
        "Llama-2-7B q,v r=8",
    ),
    "VIT-01": ("vit-patch-count", {"image_size": "224", "patch_size": "16"}, 1, "ViT-B/16"),
}


@cache
def bank() -> Bank:
    return load_bank([questions_dir()])


@pytest.mark.parametrize("problem_id", sorted(POSED))
def test_published_problem_through_its_template(problem_id: str, problems: dict[str, Any]) -> None:
    template_id, overrides, divisor, _why = POSED[problem_id]
    instance = bank().generate(template_id, 1, overrides)
    assert_golden(problems[problem_id], instance.value / divisor)


def test_chinchilla_params_for_compute_recovers_70b() -> None:
    """Sizing notes 4.7: Chinchilla's own budget, 6 × 70e9 × 1.4e12 = 5.88e23 FLOPs, gives N = 70B."""
    instance = bank().generate("chinchilla-params-for-compute", 1, {"compute_flops": "5.88e23"})
    assert instance.value == pytest.approx(70e9, rel=1e-6)


CANONICAL = {
    "embedding-table-params": {"vocab_size", "d_model", "tied"},
    "gpt-total-params": {"vocab_size", "n_positions", "d_model", "n_layers"},
    "llama-total-params": {
        "vocab_size",
        "d_model",
        "n_layers",
        "n_heads",
        "n_kv_heads",
        "head_dim",
        "d_ff",
        "tied",
    },
    "gqa-attention-params": {"d_model", "n_heads", "n_kv_heads", "head_dim"},
    "moe-total-params": {
        "vocab_size",
        "d_model",
        "n_layers",
        "n_heads",
        "n_kv_heads",
        "head_dim",
        "d_ff",
        "tied",
        "n_experts",
        "experts_per_token",
    },
    "moe-active-params": {
        "vocab_size",
        "d_model",
        "n_layers",
        "n_heads",
        "n_kv_heads",
        "head_dim",
        "d_ff",
        "tied",
        "n_experts",
        "experts_per_token",
    },
    "training-flops": {"n_params", "n_tokens"},
    "training-state-memory": {"n_params"},
    "zero-memory-per-gpu": {"n_params", "n_gpus", "zero_stage"},
    "activation-memory-full-recompute": {"seq_len", "batch", "d_model", "n_layers"},
    "kv-cache-bytes": {"n_layers", "n_kv_heads", "head_dim", "seq_len", "batch", "dtype"},
    "decode-step-time": {"n_params", "dtype", "n_gpus", "bandwidth"},
    "prefill-time": {"n_params", "n_tokens", "n_gpus", "chip", "mfu"},  # a chip since #27 (chip.bf16=...)
    "critical-batch-size": {"peak_flops", "bandwidth", "weight_dtype"},
    "training-time": {"n_params", "n_tokens", "n_gpus", "peak_flops", "mfu"},
    "mfu-from-gpu-hours": {"n_params", "n_tokens", "gpu_hours", "peak_flops"},
    "chinchilla-tokens": {"n_params"},
    "chinchilla-params-for-compute": {"compute_flops"},
    "allreduce-bytes-per-gpu": {"n_params", "dtype", "n_gpus"},
    "pipeline-bubble-fraction": {"n_stages", "n_microbatches"},
    "weights-bytes": {"n_params", "dtype"},
    "lora-qv-params": {"d_model", "n_layers", "rank"},
    "vit-patch-count": {"image_size", "patch_size"},
}


@pytest.mark.parametrize("template_id", sorted(CANONICAL))
def test_canonical_ids_and_variables(template_id: str) -> None:
    template = bank().get(template_id)
    drawn = {v.name for v in template.main.variables if v.expr is None}
    assert CANONICAL[template_id] <= drawn


def test_dtype_variables_take_the_dtype_names() -> None:
    names = {"fp32", "fp16", "bf16", "fp8", "int8", "int4"}
    for template_id, variable in [
        ("weights-bytes", "dtype"),
        ("decode-step-time", "dtype"),
        ("critical-batch-size", "weight_dtype"),
        ("allreduce-bytes-per-gpu", "dtype"),
    ]:
        for dtype in names:
            instance = bank().generate(template_id, 1, {variable: dtype})
            assert instance.variables[variable] == dtype


def test_the_bank_has_the_required_shape() -> None:
    templates = bank().templates()
    assert bank().problems() == []
    topics: dict[str, int] = {}
    for template in templates:
        topics[template.topic] = topics.get(template.topic, 0) + 1
    assert len(templates) >= 60
    assert len(topics) >= 12
    assert min(topics.values()) >= 3, topics
    assert sum(t.difficulty == "hard" for t in templates) >= 15
    assert sum(t.kind == "estimate" for t in templates) >= 10
    assert sum(any(v.kind == "preset" for v in t.main.variables) for t in templates) >= 10
    files = {Path(t.path).stem for t in templates}
    assert files == set(topics), "one file per topic, named after it"


def test_every_template_teaches() -> None:
    for template in bank().templates():
        where = template.id
        assert template.conventions, where
        assert len(template.main.mistakes) >= 2, where
        assert all(m.feedback.strip() for m in template.main.mistakes), where
        assert template.main.explanation.strip(), where
        assert template.main.tldr.strip(), where
        assert template.memory_aid.strip(), where
        # what an interviewer asks next: text or graded
        assert template.follow_ups or template.later_parts, where
        assert all(f.question.strip() and f.answer.strip() for f in template.follow_ups), where
        for part in template.parts:
            assert part.prompt.strip(), (where, part.number)
            assert part.explanation.strip(), (where, part.number)
        assert template.references, where
        assert all(re.match(r"https?://", r.url) for r in template.references), where


def test_readme_table_is_generated_from_the_bank() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert practice_table(bank().templates()) in readme, "run `make readme-table` and paste its output"
