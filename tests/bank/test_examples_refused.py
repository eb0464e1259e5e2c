"""Issue #15's published numbers that five templates refused, posed now: PaLM's narrow attention, KV
caches outside 1 GiB to 2 TiB, long steps on any accelerator, NVLink groups of 2 to 72, data-parallel meshes.

Every expected value is worked out here from the problem's own numbers, never read back from the template.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from quizzer.bank.errors import TemplateError
from quizzer.bank.generate.render import OUTSIDE_RANGE, Instance
from quizzer.bank.loader import Bank
from quizzer.core.hardware import ACCELERATORS
from quizzer.core.presets import preset_names, preset_spec
from quizzer.session.chain import grade_question, part_of
from quizzer.session.drill import grade_instance
from tests.builtin_bank import builtin_bank

PUBLISHED = Path(__file__).resolve().parent.parent / "data" / "published" / "existing-topics.json"
RIGHT = ("exact", "correct", "imprecise")
GIB, TIB = 2**30, 2**40


@cache
def bank() -> Bank:
    return builtin_bank()  # one load per process, shared (tests/builtin_bank.py)


def pose(template_id: str, seed: int = 1, **overrides: Any) -> Instance:
    return bank().generate(template_id, seed, {k: str(v) for k, v in overrides.items()})


def texts(instance: Instance) -> str:
    return "\n".join([instance.prompt, *instance.conventions, instance.explanation, instance.tldr])


def problems() -> list[dict[str, Any]]:
    return json.loads(PUBLISHED.read_text(encoding="utf-8"))


# --- every published problem of this file is posed as printed: no warning ---------------------------------


@pytest.mark.parametrize("problem", problems(), ids=[p["id"] for p in problems()])
def test_a_published_problem_poses_without_a_warning(problem: dict[str, Any]) -> None:
    instance = bank().generate(problem["template"], 1, problem["set"])
    assert instance.warnings == (), (problem["id"], instance.warnings)
    for name, value in problem["set"].items():
        assert str(instance.variables[name]).lower() == value.lower() or float(
            instance.variables[name]
        ) == float(value), (problem["id"], name)


def test_the_file_poses_every_refused_template() -> None:
    refused = {
        "llama-total-params",
        "kv-cache-bytes",
        "mfu-from-throughput",
        "nvlink-allgather-time",
        "dp-critical-batch-per-gpu",
    }
    assert refused <= {p["template"] for p in problems()}
    assert len(problems()) >= 8


# --- llama-total-params: attention narrower or wider than d_model -----------------------------------------


def llama_count(V: int, d: int, L: int, H: int, K: int, hd: int, F: int, tied: bool) -> int:
    """Two RMSNorm vectors per layer and a final one, as the template's prompt states."""
    return L * (2 * d * H * hd + 2 * d * K * hd + 3 * d * F + 2 * d) + V * d * (1 if tied else 2) + d


PALM = dict(
    vocab_size=256000,
    d_model=18432,
    n_layers=118,
    n_heads=48,
    n_kv_heads=1,
    head_dim=256,
    d_ff=73728,
    tied=True,
)


def test_palm_540b_is_posed_and_its_narrow_attention_explained() -> None:
    instance = pose("llama-total-params", **PALM)
    assert instance.warnings == ()
    assert instance.value == llama_count(256000, 18432, 118, 48, 1, 256, 73728, True) == 540_358_649_856
    assert "Attention narrower than the stream" in instance.explanation
    assert "0.667 × d_model" in instance.explanation.replace("**", "")
    assert grade_instance(instance, "540.36B").kind in RIGHT
    square = instance.value + 118 * (4 * 18432**2 - (2 * 18432 * 12288 + 2 * 18432 * 256))
    assert grade_instance(instance, str(square)).mistake == "attention-miscounted"


def test_a_model_with_attention_as_wide_as_d_model_has_no_width_paragraph() -> None:
    instance = pose(
        "llama-total-params",
        vocab_size=32000, d_model=4096, n_layers=32, n_heads=32, n_kv_heads=32, head_dim=128, d_ff=11008,
        tied=False,
    )  # fmt: skip
    assert instance.value == 6_738_415_616  # Llama-2-7B
    assert "than the stream" not in instance.explanation


DENSE_GATED = [n for n in preset_names() if not preset_spec(n).n_experts and preset_spec(n).mlp == "gated"]


def test_the_dense_gated_presets_are_many() -> None:
    assert len(DENSE_GATED) >= 15
    assert {"llama-2-7b", "gemma-7b", "qwen3-0.6b", "gemma-3-1b"} <= set(DENSE_GATED)


@pytest.mark.parametrize("name", DENSE_GATED)
def test_every_dense_gated_preset_poses_without_a_warning(name: str) -> None:
    s = preset_spec(name)
    shapes = (
        s.vocab_size,
        s.d_model,
        s.n_layers,
        s.n_heads,
        s.n_kv_heads,
        s.head_dim,
        s.d_ff,
        s.tie_embeddings,
    )
    keys = ("vocab_size", "d_model", "n_layers", "n_heads", "n_kv_heads", "head_dim", "d_ff", "tied")
    instance = pose("llama-total-params", **dict(zip(keys, shapes, strict=True)))
    assert instance.warnings == (), (name, instance.warnings)
    assert instance.value == llama_count(*shapes)


def test_a_shape_no_decoder_has_still_warns() -> None:
    wide = pose(
        "llama-total-params", **{**PALM, "n_heads": 192}
    )  # 49,152-wide heads on 18,432: 2.7 × d_model
    assert OUTSIDE_RANGE + "3 * n_heads * head_dim >= 2 * d_model and n_heads * head_dim <= 2 * d_model" in (
        wide.warnings
    )


# --- kv-cache-bytes: no floor, a cap past any serving system ----------------------------------------------

LLAMA2_13B = dict(n_layers=40, n_heads=40, n_kv_heads=40, head_dim=128)


def test_one_token_of_one_sequence_is_a_cache_without_a_warning() -> None:
    instance = pose("kv-cache-bytes", **LLAMA2_13B, seq_len=1, batch=1, dtype="fp16")  # vLLM's OPT-13B
    assert instance.warnings == ()
    assert instance.value == 2 * 40 * 40 * 128 * 2 == 800 * 1024
    assert grade_instance(instance, "800 KiB").kind in RIGHT
    assert "may be given in KiB or MiB" in instance.prompt


def test_a_million_token_cache_above_the_old_cap_is_posed_and_explained() -> None:
    instance = pose(
        "kv-cache-bytes",
        n_layers=80,
        n_heads=64,
        n_kv_heads=64,
        head_dim=128,
        seq_len=2**20,
        batch=1,
        dtype="bf16",
    )
    assert instance.warnings == ()
    assert instance.value == 2 * 80 * 64 * 128 * 2 * 2**20 == 2.5 * TIB > 2**41
    assert grade_instance(instance, "2.5 TiB").kind in RIGHT
    assert "At a million tokens" in instance.explanation
    assert (
        "At a million tokens" not in pose("kv-cache-bytes", **LLAMA2_13B, seq_len=8192, batch=64).explanation
    )


def test_a_cache_larger_than_any_serving_system_still_warns() -> None:
    instance = pose("kv-cache-bytes", **LLAMA2_13B, seq_len=2**20, batch=64, dtype="fp32")  # 200 TiB
    assert instance.value == 2 * 40 * 40 * 128 * 4 * 2**20 * 64
    assert instance.warnings == (
        OUTSIDE_RANGE + "kv_cache_bytes(n_layers, n_kv_heads, head_dim, seq_len, batch, dtype) <= 2 ** 44",
    )


def test_palm_width_is_not_called_d_model_in_the_cache_prompt() -> None:
    instance = pose(
        "kv-cache-bytes", n_layers=118, n_heads=48, n_kv_heads=1, head_dim=256, seq_len=2048, batch=1
    )
    assert instance.warnings == ()
    assert "d_model" not in instance.prompt
    assert "12,288 channels" in instance.prompt


# --- mfu-from-throughput: any accelerator, any step time ---------------------------------------------------


def mfu(n_params: float, tokens_per_step: int, step_s: float, n_chips: int, peak: float) -> float:
    return 6 * n_params * tokens_per_step / step_s / (n_chips * peak)


def test_the_mtnlg_60_1_s_step_is_posed() -> None:
    instance = pose(
        "mfu-from-throughput",
        n_params=530e9, gpu="a100-80gb", n_gpus=2240, batch_seqs=1920, seq_len=2048, step_time=60.1,
    )  # fmt: skip
    assert instance.warnings == ()
    assert instance.value == pytest.approx(mfu(530e9, 1920 * 2048, 60.1, 2240, 312e12), rel=1e-12)
    assert round(100 * instance.value, 1) == 29.8
    assert grade_instance(instance, "29.8").kind in RIGHT


@pytest.mark.parametrize(
    ("gpu", "peak", "name"),
    [
        ("tpu-v4", 275e12, "TPU v4"),
        ("tpu-v5e", 197e12, "TPU v5e"),
        ("tpu-v5p", 459e12, "TPU v5p"),
        ("tpu-v6e", 918e12, "TPU v6e"),
        ("h200", 989.4e12, "H200"),
        ("mi300x", 1307.4e12, "MI300X"),
        ("b200", 2.25e15, "B200"),
    ],
)
def test_each_accelerator_is_named_with_its_own_peak(gpu: str, peak: float, name: str) -> None:
    instance = pose(
        "mfu-from-throughput",
        n_params=70e9,
        gpu=gpu,
        n_gpus=4096,
        batch_seqs=1024,
        seq_len=4096,
        step_time=8.0,
    )
    assert instance.variables["peak"] == peak
    assert name in instance.prompt
    assert instance.value == pytest.approx(mfu(70e9, 1024 * 4096, 8.0, 4096, peak), rel=1e-12)
    offered = {m.name for m in instance.mistakes}
    assert ("sparse-peak" in offered) == (not gpu.startswith("tpu"))


def test_every_drawn_accelerator_is_in_the_hardware_table() -> None:
    choices = {v.name: v for v in bank().get("mfu-from-throughput").main.variables}["gpu"].spec
    assert set(choices) <= set(ACCELERATORS)
    assert {"tpu-v4", "tpu-v5e", "tpu-v5p", "tpu-v6e", "mi300x", "h200", "b200"} <= set(choices)


def test_a_log_slower_than_a_minute_poses_and_an_impossible_one_warns() -> None:
    slow = pose(
        "mfu-from-throughput",
        n_params=405e9, gpu="h100-sxm", n_gpus=2048, batch_seqs=4096, seq_len=8192, step_time=240.0,
    )  # fmt: skip
    assert slow.warnings == ()
    assert slow.variables["target_mfu"] == pytest.approx(slow.value)  # the old name: the MFU the log implies
    busy = pose(
        "mfu-from-throughput",
        n_params=405e9, gpu="h100-sxm", n_gpus=2048, batch_seqs=4096, seq_len=8192, step_time=45.0,
    )  # fmt: skip
    assert busy.value == pytest.approx(mfu(405e9, 4096 * 8192, 45.0, 2048, 989.4e12), rel=1e-12)
    assert 0.7 < busy.value < 1  # possible, beyond any reported run: a warning
    assert busy.warnings == (OUTSIDE_RANGE + "mfu_pct >= 0.15 and mfu_pct <= 0.7",)
    with pytest.raises(TemplateError, match="exceeds 1"):  # faster than the peak: refused by the core
        pose(
            "mfu-from-throughput",
            n_params=405e9, gpu="h100-sxm", n_gpus=2048, batch_seqs=4096, seq_len=8192, step_time=1.0,
        )  # fmt: skip


# --- nvlink-allgather-time: groups of 2 to 72 -------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 8, 36, 72])
def test_an_nvl72_group_of_any_size_is_posed(n: int) -> None:
    instance = pose("nvlink-allgather-time", gpu="b200", n_gpus=n, dtype="bf16", rows=4096, cols=16384)
    assert instance.warnings == ()
    array = 4096 * 16384 * 2
    assert instance.value == pytest.approx((n - 1) / n * array / 900e9, rel=1e-12)
    assert ("GB200 NVL72" in instance.prompt) == (n > 8)
    assert ("own-shard-only" in {m.name for m in instance.mistakes}) == (n > 2)  # at 2 it is the answer


@pytest.mark.parametrize(("gpu", "link"), [("a100-80gb", 300e9), ("h100-sxm", 450e9), ("h200", 450e9)])
def test_the_link_is_the_gpus_own_and_a_hopper_node_stops_at_eight(gpu: str, link: float) -> None:
    instance = pose("nvlink-allgather-time", gpu=gpu, n_gpus=4, dtype="fp8", rows=1024, cols=8192)
    assert instance.value == pytest.approx(3 / 4 * 1024 * 8192 / link, rel=1e-12)
    beyond = pose("nvlink-allgather-time", gpu=gpu, n_gpus=16)
    assert OUTSIDE_RANGE + "n_gpus >= 2 and n_gpus <= domain_size" in beyond.warnings


# --- dp-critical-batch-per-gpu: TPU axes and a data x fsdp x pipeline mesh --------------------------------


def test_three_ici_axes_triple_the_bandwidth() -> None:
    one = pose("dp-critical-batch-per-gpu", gpu="tpu-v5p", ici_axes=1)
    three = pose("dp-critical-batch-per-gpu", gpu="tpu-v5p", ici_axes=3)
    link = 1.2e12 / 2 / 6  # Google: 1,200 GB/s bidirectional over 6 links; a ring along an axis uses 2
    assert one.value == pytest.approx(4.59e14 / (2 * link), rel=1e-12)
    assert three.value == pytest.approx(one.value / 3, rel=1e-12)
    # one axis for three (3×) lies in the ×1.5 band of the one-way ring (2×): one mistake names both
    one_axis = grade_instance(three, str(3 * three.value))
    assert one_axis.mistake == "ici-one-direction"
    assert "one of the three torus axes instead of all three, 3× too large" in str(one_axis.feedback)
    assert "chips" in three.prompt
    assert "GPU" not in three.prompt


MESH = dict(gpu="h100-sxm", cross_node="true", n_gpus=1024, mesh_fsdp=8, mesh_pipe=4, global_batch=4194304)


def test_the_pipeline_axis_does_not_divide_the_batch() -> None:
    instance = pose("dp-critical-batch-per-gpu", **MESH)
    assert instance.variables["mesh_data"] == 1024 // (8 * 4)
    per_chip = part_of(instance, 3)
    assert per_chip.value == 4194304 / (32 * 8)
    assert grade_question(per_chip, str(4194304 / 1024)).mistake == "divided-by-all-chips"
    assert grade_question(per_chip, str(4194304 / 32)).mistake == "fsdp-not-a-data-axis"


def test_the_smallest_batch_counts_data_and_fsdp_and_each_omission_is_named() -> None:
    instance = pose("dp-critical-batch-per-gpu", **{**MESH, "mesh_fsdp": 2, "mesh_pipe": 8, "n_gpus": 256})
    threshold = 989.4e12 / 400e9
    smallest = part_of(instance, 4)
    assert smallest.value == pytest.approx(threshold * 16 * 2, rel=1e-12)
    # leaving out the 2-way fsdp axis is a factor 2: close under a factor-1.5 band, so a mistake names it
    verdict = grade_question(smallest, str(threshold * 16))
    assert verdict.mistake == "fsdp-axis-left-out"
    assert "fsdp axis (2)" in (verdict.feedback or "")
    assert grade_question(smallest, str(threshold * 256)).mistake == "pipeline-chips-counted"


def test_llama3_on_v5p_spreads_16m_tokens_over_18823_chips() -> None:
    instance = pose(
        "dp-critical-batch-per-gpu",
        gpu="tpu-v5p", ici_axes=3, bw_given_gbs=540, n_gpus=8960, mesh_fsdp=8960, mesh_pipe=1,
        global_batch=16000000,
    )  # fmt: skip
    assert instance.value == pytest.approx(4.59e14 / 5.4e11, rel=1e-12) == 850
    assert part_of(instance, 5).value == 16_000_000 // 850 == 18823
    assert "the figure stated for this system" in instance.prompt


def test_an_in_node_question_is_still_eight_gpus_and_a_tpu_slice_never_is_a_node() -> None:
    for seed in range(60):
        v = pose("dp-critical-batch-per-gpu", seed).variables
        if v["is_tpu"]:
            assert v["cross_node"], seed
            assert v["ici_axes"] <= (3 if v["gpu"] in ("tpu-v4", "tpu-v5p") else 2), seed
        elif not v["cross_node"]:
            assert v["n_gpus"] == 8, seed
        assert v["mesh_data"] * v["mesh_fsdp"] * v["mesh_pipe"] == v["n_gpus"], seed
