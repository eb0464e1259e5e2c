"""Issue 14's chains in the parallelism, training, quantization, LoRA and MoE files, pinned by hand.

Every expected value is worked out by hand from the instance's given numbers (the formulas the prompts and
conventions state), never read back from the template's expressions. A part's own draws (a link, a group
size) are inputs: the tests look for a seed that drew the case they work, then check the arithmetic.
"""

from __future__ import annotations

import math
from functools import cache
from typing import Any

from quizzer.bank.generate.render import Instance
from quizzer.bank.loader import Bank
from quizzer.session.chain import grade_part
from tests.builtin_bank import builtin_bank

RIGHT = {"exact", "correct"}
GIB = 2**30


@cache
def bank() -> Bank:
    return builtin_bank()  # one load per process, shared (tests/builtin_bank.py)


def first(template_id: str, wanted: dict[str, Any], **overrides: object) -> Instance:
    """The first seed's instance (with ``overrides`` set) whose parts drew every value in ``wanted``."""
    for seed in range(200):
        instance = bank().generate(template_id, seed, {k: str(v) for k, v in overrides.items()})
        drawn = {k: v for part in instance.later_parts for k, v in part.variables.items()}
        if all(drawn.get(k) == v for k, v in wanted.items()):
            return instance
    raise AssertionError(f"no seed of {template_id} drew {wanted}")


def grade(template_id: str, instance: Instance, number: int, text: str, **earlier: float) -> Any:
    given = {int(k.removeprefix("p")): v for k, v in earlier.items()}
    return grade_part(bank().get(template_id), instance, number, text, given or None)


def test_llama_2_7b_all_reduce_chain_on_one_nvlink_node() -> None:
    inst = first("allreduce-bytes-per-gpu", {"link": "nvlink4"}, n_params=6738415616, dtype="bf16", n_gpus=8)
    buffer = 6_738_415_616 * 2  # 13,476,831,232 bytes of bf16 gradients
    assert inst.value == 2 * 7 * buffer // 8 == 23_584_454_656  # 2 × 7/8 × buffer
    time, doubled = inst.later_parts
    assert math.isclose(time.value, 23_584_454_656 / 450e9)  # 52.41 ms at 450 GB/s one-way
    assert math.isclose(doubled.value, 2 * 15 / 16 * buffer)  # 16 GPUs: 25,269,058,560 bytes
    assert grade("allreduce-bytes-per-gpu", inst, 2, "52.4 ms").verdict.kind in RIGHT
    assert grade("allreduce-bytes-per-gpu", inst, 3, "25.27 GB").verdict.kind in RIGHT
    # Part 1 answered with the large-n limit 2 × buffer (26.95 GB): its time, 59.9 ms, is consistent.
    carried = grade("allreduce-bytes-per-gpu", inst, 2, "59.9 ms", p1=2 * buffer)
    assert carried.verdict.kind == "consistent"
    assert carried.carried == {"1": 2 * buffer}
    # The 400 Gb/s slip on a NIC is not possible here; doubling the traffic with the GPUs is named.
    slip = grade("allreduce-bytes-per-gpu", inst, 3, "47.2 GB")
    assert slip.verdict.mistake == "doubled-with-the-gpus"


def test_eight_stage_pipeline_chain() -> None:
    inst = first("pipeline-bubble-fraction", {"v": 2, "target_pct": 5}, n_stages=8, n_microbatches=48)
    assert math.isclose(inst.value, 7 / 48)  # 14.58%
    interleaved, microbatches = inst.later_parts
    assert math.isclose(interleaved.value, 7 / 96)  # 7.29%
    assert microbatches.value == 140  # 7 / m <= 5% needs m >= 140
    assert grade("pipeline-bubble-fraction", inst, 2, "7.29").verdict.kind in RIGHT
    assert grade("pipeline-bubble-fraction", inst, 3, "140").verdict.kind in RIGHT
    # 7 / (m + 7) <= 5% gives 133: the share-of-step reading, named.
    share = grade("pipeline-bubble-fraction", inst, 3, "133")
    assert share.verdict.mistake == "target-as-share-of-step"


def test_llama_2_70b_int4_fit_chain_on_two_rtx_4090s() -> None:
    inst = bank().generate(
        "quantized-model-fit", 1, {"model": "llama-2-70b", "dtype": "int4", "gpu": "rtx-4090", "n_gpus": "2"}
    )
    budget = 1.2 * 68_976_648_192 * 0.5  # 41.39 GB, split over 2 GPUs
    assert math.isclose(inst.value, budget / 2)
    fewest, bf16 = inst.later_parts
    assert fewest.value == 2  # 41.39 GB / 25.77 GB (24 GiB) = 1.61
    assert bf16.value == 7  # 165.5 GB / 25.77 GB = 6.42
    assert grade("quantized-model-fit", inst, 3, "7").verdict.kind in RIGHT
    # The int4 count kept for bf16 is named.
    assert grade("quantized-model-fit", inst, 3, "2").verdict.mistake == "quantized-count-kept"


def test_mixtral_chain_carries_a_two_times_7b_active_count() -> None:
    inst = bank().generate("mixtral-total-vs-active", 1, {"ask": "active"})
    expert = 3 * 4096 * 14336  # 176,160,768 parameters: gate, up, down
    assert inst.value == 12_879_925_248
    memory, expert_bytes = inst.later_parts
    assert memory.value == 2 * 46_702_792_704  # every expert resident: 93.4 GB
    assert expert_bytes.value == 2 * 2 * expert  # two experts in bf16: 704,643,072 bytes
    assert grade("mixtral-total-vs-active", inst, 2, "93.4 GB").verdict.kind in RIGHT
    # "2 × 7B = 14B" for part 1: the total from it is 14B + 32 × 6 experts, 95.6 GB in bf16.
    own_total = 14_000_000_000 + 32 * 6 * expert
    carried = grade("mixtral-total-vs-active", inst, 2, f"{2 * own_total / 1e9:.2f} GB", p1=14e9)
    assert carried.verdict.kind == "consistent"
    # Reading all 8 experts of the layer (2 × 8 × 176,160,768 bytes) is named.
    assert grade("mixtral-total-vs-active", inst, 3, "2819 MB").verdict.mistake == "all-experts-read"


def test_qlora_65b_chain_at_qloras_own_setting() -> None:
    inst = first("qlora-double-quant-overhead", {"model_b": 65_000_000_000}, block_size=64, dq_group=256)
    bits = 8 / 64 + 32 / (64 * 256)  # 0.126953125 bits per weight
    assert math.isclose(inst.value, bits)
    memory, saving = inst.later_parts
    assert math.isclose(memory.value, 65e9 * (4 + bits) / 8)  # 33.53 GB
    assert math.isclose(saving.value, 65e9 * (32 / 64 - bits) / 8)  # 3.03 GB
    assert grade("qlora-double-quant-overhead", inst, 2, "33.53 GB").verdict.kind in RIGHT
    assert grade("qlora-double-quant-overhead", inst, 3, "3.03 GB").verdict.kind in RIGHT
    assert grade("qlora-double-quant-overhead", inst, 3, "4.06 GB").verdict.mistake == "fp32-constants-total"
