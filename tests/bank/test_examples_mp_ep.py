"""The model-parallel and expert-parallel templates, pinned on instances worked out by hand.

Expected values come from the models' config.json widths, the spec sheets (H100 989.4 TFLOP/s dense bf16,
450 GB/s one-way NVLink; A100 312 TFLOP/s, 300 GB/s) and the formulas of the papers the templates cite,
never from the templates or the core.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from quizzer.bank.generate.render import Instance
from quizzer.bank.loader import Bank, load_bank
from quizzer.paths import questions_dir
from quizzer.session.chain import grade_part, grade_question, part_of

H100_FLOPS, H100_NVLINK = 989.4e12, 450e9
A100_FLOPS, A100_NVLINK = 312e12, 300e9
DEEPSEEK_EXPERT = 3 * 7168 * 2048  # one routed expert: gate, up and down, 7,168 × 2,048 each


@cache
def bank() -> Bank:
    root = Path(questions_dir())
    return load_bank([str(root / "model-parallel.toml"), str(root / "expert-parallel.toml")])


def pose(template_id: str, seed: int = 1, **overrides: str) -> Instance:
    return bank().generate(template_id, seed, overrides)


def value(instance: Instance, number: int) -> float:
    return part_of(instance, number).value


def test_the_two_topics_have_four_templates_each_with_hard_and_estimate() -> None:
    templates = bank().templates()
    assert bank().problems() == []
    by_topic: dict[str, list[str]] = {}
    for t in templates:
        by_topic.setdefault(t.topic, []).append(t.difficulty + "/" + t.kind)
    assert sorted(by_topic) == ["expert-parallel", "model-parallel"]
    assert all(len(v) == 4 for v in by_topic.values())
    assert all(any(d.startswith("hard") for d in v) for v in by_topic.values())
    assert any(d.endswith("estimate") for d in by_topic["expert-parallel"])
    assert all(t.later_parts for t in templates)


def test_megatron_sends_four_ring_all_reduces_per_layer() -> None:
    # Llama 3 70B (h = 8,192), b = 4, s = 8,192, t = 8: 4 × 2·7/8 × (4·8192·8192·2 bytes).
    instance = pose(
        "model-parallel-tp-allreduce-bytes",
        model="llama-3-70b",
        tp="8",
        micro_batch="4",
        seq_len="8192",
        gpu="h100-sxm",
    )
    buffer = 4 * 8192 * 8192 * 2
    assert value(instance, 1) == pytest.approx(4 * 2 * 7 / 8 * buffer)
    assert value(instance, 2) == pytest.approx(4 * 2 * 7 / 8 * buffer / H100_NVLINK)


def test_mi300x_groups_smaller_than_the_node_get_only_their_peer_links() -> None:
    instance = pose(
        "model-parallel-tp-allreduce-bytes",
        model="llama-3.1-8b",
        tp="4",
        micro_batch="1",
        seq_len="4096",
        gpu="mi300x",
    )
    sent = 4 * 2 * 3 / 4 * (4096 * 4096 * 2)
    assert value(instance, 2) == pytest.approx(sent / (3 * 64e9))  # 3 peer links of 64 GB/s, not 448
    assert grade_question(part_of(instance, 2), f"{sent / 448e9 * 1e3:.4g} ms").mistake == "whole-mesh"


def test_sequence_parallelism_divides_everything_and_sends_the_same_bytes() -> None:
    # GPT-3 175B: h 12,288, a 96; s 2,048, b 1, t 8: 5as/h = 80.
    instance = pose(
        "model-parallel-sequence-parallel-activations",
        config="gpt-3-175b",
        seq_len="2048",
        micro_batch="1",
        tp="8",
    )
    sbh = 2048 * 12288
    assert value(instance, 1) == pytest.approx(sbh * (34 + 80) / 8)
    assert value(instance, 2) == pytest.approx(sbh * (10 + 24 / 8 + 80 / 8))
    assert value(instance, 3) == pytest.approx(80 / 114)
    assert value(instance, 4) == pytest.approx(4 * 2 * 7 / 8 * 2 * sbh)  # four ring all-reduces' bytes


def test_tp_only_answer_that_drops_the_split_block_interiors_is_named() -> None:
    instance = pose(
        "model-parallel-sequence-parallel-activations",
        config="gpt-1t",
        seq_len="8192",
        micro_batch="4",
        tp="8",
    )
    sbh, coeff = 8192 * 4 * 25600, 5 * 160 * 8192 / 25600
    verdict = grade_question(part_of(instance, 2), f"{sbh * (10 + coeff / 8):.6e} bytes")
    assert verdict.mistake == "block-interiors-left-out", verdict.message


def test_ring_attention_break_even_block_is_the_gqa_share_of_flops_over_bandwidth() -> None:
    # Llama 3 70B: 64 query heads, 8 KV heads; H100 in one node.
    instance = pose(
        "model-parallel-ring-attention-overlap", model="llama-3-70b", gpu="h100-sxm", cp="8", seq_len="262144"
    )
    c = 262144 // 8
    assert value(instance, 1) == c * 2 * 8 * 128 * 2
    assert value(instance, 4) == pytest.approx(8 / 64 * H100_FLOPS / H100_NVLINK)
    mha_rule = grade_question(part_of(instance, 4), f"{H100_FLOPS / H100_NVLINK:.5g} tokens")
    assert mha_rule.mistake == "mha-rule", mha_rule.message


def test_ring_attention_across_nodes_runs_at_the_nic() -> None:
    instance = pose(
        "model-parallel-ring-attention-overlap",
        model="llama-2-7b",
        gpu="a100-80gb",
        cp="16",
        nic_gbps="200",
        seq_len="131072",
    )
    block = 8192 * 2 * 32 * 128 * 2
    assert value(instance, 2) == pytest.approx(block / 25e9)
    assert value(instance, 4) == pytest.approx(A100_FLOPS / 25e9)
    assert grade_question(part_of(instance, 2), f"{block / A100_NVLINK * 1e3:.4g} ms").mistake == (
        "nvlink-across-nodes"
    )


def test_tp_crossover_is_width_over_critical_intensity() -> None:
    plain = pose("model-parallel-tp-max-degree", d_ff="28672", gated="false", gpu="h100-sxm", d_model="8192")
    gated = pose("model-parallel-tp-max-degree", d_ff="28672", gated="true", gpu="h100-sxm", d_model="8192")
    assert value(plain, 1) == pytest.approx(28672 * H100_NVLINK / H100_FLOPS)
    assert value(gated, 1) == pytest.approx(1.5 * value(plain, 1))
    assert value(gated, 4) == pytest.approx(8 * 2 * H100_FLOPS / (3 * H100_NVLINK))


def test_tp_crossover_mistakes_are_named() -> None:
    gated = pose("model-parallel-tp-max-degree", d_ff="28672", gated="true", gpu="h100-sxm", d_model="8192")
    plain_value = 28672 * H100_NVLINK / H100_FLOPS
    assert grade_question(gated, f"{plain_value:.5g}").mistake == "gate-ignored"
    assert grade_question(gated, f"{1 + 1.5 * plain_value:.5g}").mistake == "ring-factor-kept"


def test_deepep_dispatch_counts_fp8_scales_and_every_copy() -> None:
    instance = pose(
        "expert-parallel-alltoall-bytes", model="deepseek-v3", tokens="128", ep="8", dispatch_dtype="fp8"
    )
    dispatch = 128 * 8 * (7168 + 4 * 7168 // 128)
    combine = 128 * 8 * 7168 * 2
    assert value(instance, 1) == dispatch
    assert value(instance, 2) == pytest.approx((dispatch + combine) * 7 / 8)
    backward = 2 * combine * 7 / 8
    assert value(instance, 3) == pytest.approx(58 * ((dispatch + combine) * 7 / 8 + backward))
    assert grade_question(instance, f"{128 * 8 * 7168} bytes").mistake == "scales-left-out"


def test_backward_local_copies_are_named() -> None:
    instance = pose(
        "expert-parallel-alltoall-bytes", model="qwen3-30b-a3b", tokens="8192", ep="8", dispatch_dtype="bf16"
    )
    forward = 2 * 8192 * 8 * 2048 * 2 * 7 / 8
    wrong = 48 * (forward + 2 * 8192 * 8 * 2048 * 2)
    assert grade_question(part_of(instance, 3), f"{wrong:.6e} bytes").mistake == "backward-local-counted"


def test_alltoall_time_inside_and_across_nodes() -> None:
    instance = pose(
        "expert-parallel-alltoall-time",
        model="deepseek-v3",
        tokens="4096",
        gpu="h100-sxm",
        nic_gbps="400",
        n_nodes="4",
        max_nodes="4",
    )
    logical = 4096 * 8 * 7168 * 2
    inside, across = logical * 7 / 8 / H100_NVLINK, logical * 24 / 32 / 50e9
    assert value(instance, 1) == pytest.approx(inside)
    assert value(instance, 2) == pytest.approx(across)
    assert value(instance, 3) == pytest.approx(across / inside)
    assert value(instance, 4) == pytest.approx(across * 4 / 8)
    assert value(instance, 5) == pytest.approx(H100_NVLINK / 50e9)
    once = grade_question(part_of(instance, 4), f"{across / 8 * 1e6:.4g} µs")
    assert once.mistake == "one-copy-per-token", once.message


def test_two_node_values_for_bytes_and_all_over_ib_are_named() -> None:
    instance = pose(
        "expert-parallel-alltoall-time",
        model="qwen3-30b-a3b",
        tokens="2048",
        gpu="b200",
        nic_gbps="400",
        n_nodes="2",
        max_nodes="2",
    )
    logical = 2048 * 8 * 2048 * 2
    half = grade_question(part_of(instance, 2), f"{logical / 2 * 8 / 16 / 50e9 * 1e6:.4g} µs")
    assert half.mistake == "values-for-bytes", half.message
    all_ib = grade_question(part_of(instance, 2), f"{logical * 15 / 16 / 50e9 * 1e6:.4g} µs")
    assert all_ib.mistake == "all-over-ib", all_ib.message


def test_capacity_drops_and_buffers() -> None:
    instance = pose("expert-parallel-capacity-factor", model="deepseek-v3", tokens="8192", cf="1.25", ep="32")
    capacity = 320  # 1.25 × 8,192 × 8 / 256
    assert value(instance, 1) == capacity
    hot = part_of(instance, 2).variables["hot_load"]
    assert value(instance, 2) == hot - capacity
    assert value(instance, 3) == capacity * 8 * 7168 * 2
    assert grade_question(instance, "256").mistake == "factor-ignored"


def test_deepseek_v3_weights_per_gpu_under_ep32() -> None:
    instance = pose("expert-parallel-memory-per-gpu", model="deepseek-v3", ep="32", dtype="fp8")
    routed = 58 * 256 * DEEPSEEK_EXPERT
    total = instance.variables["total"]
    assert 671e9 < total < 672e9
    assert value(instance, 1) == pytest.approx(total - routed + routed / 32)
    assert value(instance, 3) == pytest.approx(
        part_of(instance, 3).variables["redundant"] * 58 * DEEPSEEK_EXPERT
    )
    everything = grade_question(instance, f"{total / 32:.6e} bytes")
    assert everything.mistake == "everything-split", everything.message


def test_carried_credit_flows_through_the_alltoall_chain() -> None:
    template = bank().get("expert-parallel-alltoall-time")
    instance = pose(
        "expert-parallel-alltoall-time",
        model="deepseek-v3",
        tokens="4096",
        gpu="h100-sxm",
        nic_gbps="400",
        n_nodes="4",
        max_nodes="4",
    )
    wrong_part2 = 3 * value(instance, 2)  # off by 3×: wrong, yet not trivial
    consistent = wrong_part2 * 4 / 8
    graded = grade_part(template, instance, 4, f"{consistent * 1e6:.4g} µs", {2: wrong_part2})
    assert graded.verdict.kind == "consistent", graded.verdict.message
