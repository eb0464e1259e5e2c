"""Issue #11's examples in the quantization, LoRA, training-memory and training templates, pinned.

Every expected value here is worked out by hand from the instance's given numbers (the formulas the prompts
and conventions state), never read back from the template's own expressions.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from functools import cache

import pytest

from quizzer.bank.check.run import check_template
from quizzer.bank.generate.hints import hint_steps
from quizzer.bank.generate.render import Instance, grade_context
from quizzer.bank.loader import Bank
from quizzer.core.presets import preset
from quizzer.grading.display import unit_factor
from quizzer.grading.slips import slips
from quizzer.session.drill import grade_instance
from tests.builtin_bank import builtin_bank
from tests.sampling import sampled

RIGHT = {"exact", "correct"}
GB = 10**9
H100_BYTES = 80 * 2**30  # an H100 SXM holds 80 GiB = 85.9 GB
FILES = ("quantization", "lora", "training-memory", "training")
UNIT_SLIPS = ("gb-vs-gib", "bytes-vs-prefixed", "time-unit", "percent-vs-fraction")


@cache
def bank() -> Bank:
    return builtin_bank()  # one load per process, shared (tests/builtin_bank.py)


def my_templates() -> list[str]:
    return sorted(t.id for t in bank().templates() if t.path.replace("\\", "/").split("/")[-1][:-5] in FILES)


def make(template_id: str, seed: int = 1, **values: object) -> Instance:
    """An instance with ``values`` fixed, as ``--set`` gives them (text)."""
    text = {k: (str(v).lower() if isinstance(v, bool) else str(v)) for k, v in values.items()}
    return bank().generate(template_id, seed, text)


def given(inst: Instance) -> dict[str, object]:
    """The instance's variables and its model's config (``model_d_model``...), as the prompt shows them."""
    found = dict(inst.variables)
    for field, value in preset(inst.variables["model"]).spec.as_dict().items():
        found[f"model_{field}"] = value
    return found


def in_gb(value: float) -> str:
    """A bare number of GB, to six figures (the display unit of these questions)."""
    return f"{value / GB:.6g}"


def in_percent(ratio: float) -> str:
    return f"{100 * ratio:.6g}"


def graded_as(instance: Instance, answer: str, mistake: str) -> str:
    """Grade ``answer``; assert it is not right and matches ``mistake``; return the feedback."""
    verdict = grade_instance(instance, answer)
    assert verdict.kind not in RIGHT, verdict.message
    assert verdict.mistake == mistake, verdict.message
    assert verdict.feedback
    return verdict.feedback


def ceil_bytes(n_params: int, bits: Fraction) -> int:
    return math.ceil(n_params * bits / 8)


def kv_cache(inst: Instance, dtype_bytes: int) -> int:
    v = given(inst)
    per_token = 2 * v["model_n_layers"] * v["model_n_kv_heads"] * v["model_head_dim"] * dtype_bytes
    return per_token * v["seq_len"] * v["batch"]


def all_linear(v: dict[str, object], kv_heads: object = None) -> int:
    """All-linear LoRA parameters from the config numbers: r · Σ(d_in + d_out) over the seven projections."""
    d, r, heads, hd = v["model_d_model"], v["rank"], v["model_n_heads"], v["model_head_dim"]
    kv = (v["model_n_kv_heads"] if kv_heads is None else kv_heads) * hd  # type: ignore[operator]
    per_layer = r * (2 * (d + heads * hd) + 2 * (d + kv) + 3 * (d + v["model_d_ff"]))  # type: ignore[operator]
    return per_layer * v["model_n_layers"]  # type: ignore[operator]


# --- the check: 0 problems with the omission lint on ------------------------------------------------------


@pytest.mark.parametrize("template_id", sampled(my_templates()))  # a third in the dev run (tests/sampling.py)
def test_the_omission_lint_finds_nothing(template_id: str) -> None:
    problems, count = check_template(bank().get(template_id), range(60))
    assert count == 60
    assert [p.message for p in problems] == []


def test_these_files_hold_sixteen_templates() -> None:
    assert len(my_templates()) == 20  # 16, the three byte conventions of training-memory (issue 15), and the
    # training FLOP-count conventions (#27)


# --- text that must fit the draw --------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["fp32", "fp16", "bf16", "fp8", "int8", "int4"])
def test_the_quantize_to_int4_follow_up_is_left_out_on_int4(dtype: str) -> None:
    inst = make("inference-memory-rule-of-thumb", dtype=dtype, n_params=70_000_000_000)
    asks = [q for q, _ in inst.follow_ups if "int4" in q]
    assert bool(asks) == (dtype != "int4"), inst.follow_ups


@pytest.mark.parametrize("template_id", my_templates())
def test_no_follow_up_asks_to_quantize_to_the_dtype_the_instance_has(template_id: str) -> None:
    for seed in range(25):
        inst = bank().generate(template_id, seed)
        own = {str(inst.variables[k]) for k in ("dtype", "base_dtype") if k in inst.variables}
        if template_id == "int4-weights-kv-cache-memory":
            own.add("int4")  # its weights are always int4
        for question, _ in inst.follow_ups:
            for target in re.findall(r"quantiz\w*(?: the weights)? to (\w+)", question):
                assert target not in own, (seed, question)


def test_the_h100_follow_up_says_gib_and_computes_with_it() -> None:
    for seed in range(20):
        inst = bank().generate("int4-weights-kv-cache-memory", seed)
        (question, answer) = next((q, a) for q, a in inst.follow_ups if "H100" in q)
        assert "80 GiB (85.9 GB)" in question
        assert "80 GB" not in question + answer
        assert "/ 85.9 GB)" in answer
        shown = int(re.search(r"\) = (\d+)\.", answer).group(1))  # type: ignore[union-attr]
        assert shown == math.ceil(inst.value / H100_BYTES), (seed, answer)


@pytest.mark.parametrize("template_id", my_templates())
def test_an_h100_is_never_called_80_gb(template_id: str) -> None:
    for seed in range(5):
        inst = bank().generate(template_id, seed)
        text = " ".join(
            [inst.prompt, inst.explanation, inst.memory_aid, *(q + a for q, a in inst.follow_ups)]
        )
        assert not re.search(r"80 GB (?:H100|GPU)", text), (seed, text)


@pytest.mark.parametrize("block", [32, 64, 128, 256])
def test_the_qlora_memory_aid_quotes_this_instance_block(block: int) -> None:
    inst = make("qlora-double-quant-overhead", block_size=block, dq_group=64)
    assert f"32/{block} to about 8/{block}" in inst.memory_aid
    if block != 64:
        assert "/64" not in inst.memory_aid


def test_the_qlora_setting_is_called_this_one_only_when_it_is() -> None:
    own = make("qlora-double-quant-overhead", block_size=64, dq_group=256)
    other = make("qlora-double-quant-overhead", block_size=32, dq_group=256)
    assert "This is QLoRA's own setting" in own.explanation
    assert "This is QLoRA's own setting" not in other.explanation
    assert "QLoRA's own setting (block 64, groups of 256) gives" in other.explanation


def test_the_all_linear_percentage_is_of_the_denominator_beside_it() -> None:
    """The issue's "0.8826% of the model's 494,032,768" (4,399,104 / 494,032,768 is 0.8904%)."""
    inst = make("lora-all-linear-params", model="qwen2.5-0.5b", rank=8)
    assert inst.value == all_linear(given(inst)) == 4_399_104
    assert "0.8904% of the model's 494,032,768 parameters" in inst.explanation
    follow = next(a for q, a in inst.follow_ups if "trainable%" in q)
    assert follow.startswith("0.8826%: 4,399,104 / (494,032,768 + 4,399,104)")
    assert round(100 * 4_399_104 / (494_032_768 + 4_399_104), 4) == 0.8826


def test_every_all_linear_percentage_matches_its_denominator() -> None:
    for seed in range(40):
        inst = bank().generate("lora-all-linear-params", seed)
        pct, base = re.search(r"([\d.]+)% of the model's ([\d,]+) parameters", inst.explanation).groups()  # type: ignore[union-attr]
        assert abs(float(pct) - 100 * inst.value / int(base.replace(",", ""))) < 6e-5, (seed, pct, base)


def test_peft_prints_the_share_of_the_all_params_it_prints() -> None:
    for seed in range(40):
        inst = bank().generate("lora-peft-trainable-percent", seed)
        text = inst.explanation.replace("\n", " ")
        found = re.search(
            r"trainable params: ([\d,]+) \|\| all params: ([\d,]+) \|\| trainable%: ([\d.]+)", text
        )
        assert found, text
        trainable, all_params, printed = (found.group(1), found.group(2), found.group(3))
        trainable_n, all_n = int(trainable.replace(",", "")), int(all_params.replace(",", ""))
        assert float(printed) == round(100 * trainable_n / all_n, 4), (seed, found.group(0))
        assert abs(inst.value - trainable_n / all_n) <= 1e-12


def test_no_peft_hint_prints_the_percentage() -> None:
    """A hint step in percent (8.67 for 0.0867) would tell the answer: the derivation has none."""
    for seed in range(30):
        inst = bank().generate("lora-peft-trainable-percent", seed)
        for hint in hint_steps(inst):
            if not isinstance(hint, str):
                assert abs(hint.value - 100 * inst.value) > 0.01 * 100 * inst.value, (seed, hint)


# --- MFU answers are percentages ---------------------------------------------------------------------------


@pytest.mark.parametrize("template_id", ["mfu-from-gpu-hours", "mfu-from-throughput"])
def test_mfu_answers_are_shown_and_read_as_percentages(template_id: str) -> None:
    for seed in range(10):
        inst = bank().generate(template_id, seed)
        assert inst.display_unit == "%"
        assert inst.display.endswith("%"), inst.display
        assert any("A bare number is read as a percentage" in c for c in inst.conventions)
        assert grade_instance(inst, in_percent(inst.value)).kind in RIGHT
        feedback = graded_as(inst, f"{inst.value:.6g}", "percent-vs-fraction")
        assert "as a fraction" in feedback
        assert "a bare number here is a percentage" in feedback


def test_52_is_right_and_0_52_gets_the_fraction_feedback() -> None:
    """The issue's "52" typed on an MFU question: bare numbers are percentages now, so 52 is the answer and
    0.52 is the fraction typed where a percentage is read."""
    inst = make("mfu-from-gpu-hours", n_params=7e9, n_tokens=2e12, gpu_hours=143_820, peak_flops=312e12)
    mfu = 6 * 7e9 * 2e12 / (143_820 * 3600 * 312e12)
    assert abs(inst.value - mfu) < 1e-12
    assert round(100 * mfu) == 52
    assert grade_instance(inst, "52").kind in RIGHT
    assert grade_instance(inst, "52%").kind in RIGHT
    feedback = graded_as(inst, "0.52", "percent-vs-fraction")
    assert "(0.52)" in feedback
    assert "52%" in feedback


def test_mfu_from_throughput_by_hand() -> None:
    inst = bank().generate("mfu-from-throughput", 977)
    v = inst.variables
    mfu = 6 * v["n_params"] * v["batch_seqs"] * v["seq_len"] / v["step_time"] / (v["n_gpus"] * v["peak"])
    assert abs(inst.value - mfu) < 1e-9
    graded_as(inst, f"{mfu:.4f}", "percent-vs-fraction")  # not "sequences as tokens": nothing else is there


@pytest.mark.parametrize("template_id", my_templates())
def test_a_bare_number_in_a_sibling_unit_gets_that_unit_feedback(template_id: str) -> None:
    for seed in range(40):
        inst = bank().generate(template_id, seed)
        per = unit_factor(inst.unit, inst.display_unit) if inst.display_unit else 1
        for slip in slips(inst.value, inst.unit, grade_context(inst), tolerance=inst.tolerance):
            if slip.name in UNIT_SLIPS:
                verdict = grade_instance(inst, f"{slip.value / per:.10g}")
                assert verdict.mistake == slip.name, (seed, verdict.message)


# --- omissions the lint found, each named by a mistake -----------------------------------------------------


def qwb(**values: object) -> Instance:
    return make("quantized-weights-bytes", **values)


def test_quantized_weights_zero_point_left_out() -> None:
    """Was inside the 1% band (0.7% here): now the band is 0.2% and a mistake names it."""
    inst = qwb(model="llama-2-7b", bits=4, group_size=128, zero_point=True)
    n_linear, n_rest = inst.variables["n_linear"], inst.variables["n_rest"]
    assert inst.value == ceil_bytes(n_linear, Fraction(4) + Fraction(16 + 4, 128)) + 2 * n_rest
    no_zp = ceil_bytes(n_linear, Fraction(4) + Fraction(16, 128)) + 2 * n_rest
    assert abs(no_zp - inst.value) / inst.value > 0.005  # it used to grade correct
    feedback = graded_as(inst, in_gb(no_zp), "zero-point-left-out")
    assert "a zero point of 4 bits per group of 128" in feedback


def test_quantized_weights_bf16_tensors_left_out_or_at_one_byte() -> None:
    inst = qwb(model="gemma-7b", bits=4, group_size=128, zero_point=False)
    n_linear, n_rest = inst.variables["n_linear"], inst.variables["n_rest"]
    packed = ceil_bytes(n_linear, Fraction(4) + Fraction(16, 128))
    assert inst.value == packed + 2 * n_rest
    left_out = graded_as(inst, in_gb(packed), "bf16-tensors-left-out")
    assert f"{n_rest:,} parameters kept in bf16" in left_out
    one_byte = graded_as(inst, in_gb(packed + n_rest), "bf16-at-one-byte")
    assert "2 bytes per parameter" in one_byte


def test_quantized_weights_scales_left_out() -> None:
    inst = qwb(model="llama-3-8b", bits=8, group_size=128, zero_point=False)
    n_linear, n_rest = inst.variables["n_linear"], inst.variables["n_rest"]
    no_scales = n_linear * 8 // 8 + 2 * n_rest  # group_size left out: no per-group constants
    feedback = graded_as(inst, in_gb(no_scales), "scales-ignored")
    assert "16-bit scale" in feedback
    assert "0.125 bits per weight more" in feedback


def test_int4_weights_scales_left_out() -> None:
    """The group size 128 (or the 16-bit scale) left out: 0.45% to 2.6% of the total, once inside the band."""
    for seed in (1, 3, 11):
        inst = bank().generate("int4-weights-kv-cache-memory", seed)
        n_params = inst.variables["n_params"]
        kv = kv_cache(inst, 2 if inst.variables["kv_dtype"] == "bf16" else 1)
        assert inst.value == ceil_bytes(n_params, Fraction(4) + Fraction(16, 128)) + kv
        feedback = graded_as(inst, in_gb(ceil_bytes(n_params, Fraction(4)) + kv), "scales-ignored")
        assert "16/128 = 0.125 bits per weight" in feedback


def test_int4_weights_cache_for_one_layer() -> None:
    inst = bank().generate("int4-weights-kv-cache-memory", 3)
    v = given(inst)
    kv = kv_cache(inst, 2 if v["kv_dtype"] == "bf16" else 1)
    weights = ceil_bytes(v["n_params"], Fraction(4) + Fraction(16, 128))
    feedback = graded_as(inst, in_gb(weights + kv / v["model_n_layers"]), "cache-for-one-layer")
    assert f"{v['model_n_layers']} layers" in feedback


def test_all_linear_kv_sized_as_one_head() -> None:
    inst = make("lora-all-linear-params", model="qwen2.5-0.5b", rank=16)
    one_head = all_linear(given(inst), kv_heads=1)
    assert abs(one_head - inst.value) / inst.value > 0.005
    feedback = graded_as(inst, f"{one_head:,}", "kv-sized-as-one-head")
    assert "896 → 128" in feedback
    assert "2 key/value heads of 64" in feedback


def test_peft_percent_kv_sized_as_one_head() -> None:
    inst = make("lora-peft-trainable-percent", model="qwen2.5-0.5b", targets="all-linear", rank=8)
    base = inst.variables["base"]
    one_head = all_linear(given(inst), kv_heads=1)
    feedback = graded_as(inst, in_percent(one_head / (base + one_head)), "kv-sized-as-one-head")
    assert "2 key/value heads" in feedback


def test_lora_training_memory_adapters_left_out() -> None:
    """The issue's example: leaving out the adapters (1.2% here) graded correct under a x1.5 band."""
    inst = make("lora-training-memory", model="llama-3-70b", base_dtype="bf16", rank=8)
    v = given(inst)
    adapters = all_linear(v)
    assert v["adapters"] == adapters
    frozen = 2 * v["base"]
    assert inst.value == frozen + 16 * adapters
    assert grade_instance(inst, in_gb(inst.value)).kind in RIGHT
    feedback = graded_as(inst, in_gb(frozen), "frozen-weights-only")
    assert f"{adapters:,}" in feedback
    assert "16 bytes each" in feedback
    # the adapters' bf16 weights alone (2 bytes each) are 0.15% of the frozen weights here, inside the band
    # of frozen-weights-only: that mistake names it (its feedback asks for 16 bytes per adapter parameter)
    graded_as(inst, in_gb(frozen + 2 * adapters), "frozen-weights-only")


def test_lora_training_memory_adapter_weights_only() -> None:
    """Where the adapters are large enough to tell apart (rank 64 on Mistral 7B: about 2% of the base),
    counting only their bf16 weights, 2 bytes of the 16, is its own mistake."""
    inst = make("lora-training-memory", model="mistral-7b", base_dtype="bf16", rank=64)
    v = given(inst)
    adapters = all_linear(v)
    frozen = 2 * v["base"]
    assert inst.value == frozen + 16 * adapters
    weights_only = graded_as(inst, in_gb(frozen + 2 * adapters), "adapter-weights-only")
    assert "16 bytes per adapter parameter" in weights_only


def test_lora_training_memory_nf4_adapters_left_out() -> None:
    inst = make("lora-training-memory", model="mistral-7b", base_dtype="nf4", rank=16)
    v = inst.variables
    frozen = v["base"] // 2  # half a byte per parameter (the count is even)
    assert inst.value == frozen + 16 * v["adapters"]
    graded_as(inst, in_gb(frozen), "frozen-weights-only")


def test_rule_of_thumb_without_its_margin_is_not_correct() -> None:
    """The issue's example: the 1.2x asked about must not be swallowed by the band."""
    inst = make("inference-memory-rule-of-thumb", n_params=70_000_000_000, dtype="bf16")
    assert inst.value == pytest.approx(1.2 * 140 * GB)
    assert grade_instance(inst, "168").kind in RIGHT
    feedback = graded_as(inst, "140", "margin-left-out")
    assert "1.2×" in feedback
    assert "bf16" in feedback


def test_quantized_model_fit_without_its_margin_is_not_correct() -> None:
    inst = make("quantized-model-fit", model="llama-2-70b", dtype="int4", gpu="h100-sxm", n_gpus=1)
    weights = inst.variables["n_params"] / 2
    assert inst.value == pytest.approx(1.2 * weights)
    feedback = graded_as(inst, in_gb(weights), "margin-left-out")
    assert "int4 weights alone" in feedback


def test_training_cost_price_left_out() -> None:
    for seed in range(12):
        inst = bank().generate("training-cost", seed)
        v = inst.variables
        gpu_hours = 6 * v["n_params"] * v["n_tokens"] / (v["peak"] * v["mfu"] * 3600)
        assert inst.value == pytest.approx(gpu_hours * v["price"])
        feedback = graded_as(inst, f"{gpu_hours:.6g}", "price-left-out")
        assert f"{round(gpu_hours):,}" in feedback
