"""Issue #11's examples in the parameter-count group (mlp-moe, model-params, embeddings, attention), pinned.

Every expected value is worked out here from the instance's shapes (vocabulary, widths, heads, experts),
never read back from the template's own answer or mistakes.
"""

from __future__ import annotations

import re
import tomllib
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from quizzer.bank.generate.render import Instance
from quizzer.bank.loader import Bank
from quizzer.paths import questions_dir
from quizzer.session.drill import grade_instance
from tests.builtin_bank import builtin_bank

FILES = ("mlp-moe.toml", "model-params.toml", "embeddings.toml", "attention.toml")
RIGHT = ("exact", "correct", "imprecise")


@cache
def bank() -> Bank:
    return builtin_bank()  # one load per process, shared (tests/builtin_bank.py)


def pose(template_id: str, seed: int = 1, **overrides: Any) -> Instance:
    return bank().generate(template_id, seed, {k: str(v) for k, v in overrides.items()})


def llama_like(v: dict[str, Any], active: bool = False, **changed: int) -> int:
    """A Llama-style decoder's parameters from its shapes (an MoE when it has experts; ``active``: the
    parameters one token uses), with some shapes replaced: the answer with one step left out."""
    s = {**v, **changed}
    d, hd = s["d_model"], s["head_dim"]
    attn = 2 * d * s["n_heads"] * hd + 2 * d * s["n_kv_heads"] * hd
    if "n_experts" in s:
        used = s["experts_per_token"] if active else s["n_experts"]
        mlp = used * 3 * d * s["d_ff"] + d * s["n_experts"]
    else:
        mlp = 3 * d * s["d_ff"]
    vocab = s["vocab_size"] * v["d_model"] * (1 if s["tied"] else 2)
    return s["n_layers"] * (attn + mlp + 2 * d) + vocab + d


def texts(instance: Instance) -> str:
    """Everything a student reads of an instance."""
    follow_ups = [part for pair in instance.follow_ups for part in pair]
    return "\n".join(
        [
            instance.prompt,
            *instance.conventions,
            instance.explanation,
            instance.tldr,
            instance.memory_aid,
            *follow_ups,
        ]
    )


# --- precision: "1.3B" for GPT-3 XL is right to 2 figures, and the question needs 4 ----------------------

GPT3_XL = {"vocab_size": 50257, "n_positions": 2048, "d_model": 2048, "n_layers": 24}
GPT2_SMALL = {"vocab_size": 50257, "n_positions": 1024, "d_model": 768, "n_layers": 12}


def test_gpt3_xl_typed_as_1_3b_is_imprecise_and_names_the_figures_needed() -> None:
    instance = pose("gpt-total-params", **GPT3_XL)
    assert instance.value == 1_315_723_264  # the published count (GPT-3 paper's 1.3B model, tied head)
    verdict = grade_instance(instance, "1.3B")
    assert verdict.kind == "imprecise"
    assert "right to 2 significant figures" in verdict.feedback
    assert "needs 4 (1.316B)" in verdict.feedback
    assert "four significant figures" in instance.tolerance_text
    assert grade_instance(instance, "1.316B").kind == "correct"
    assert grade_instance(instance, "1,315,723,264").kind == "exact"


def test_gpt2_small_typed_as_124m_is_imprecise() -> None:
    instance = pose("gpt-total-params", **GPT2_SMALL)
    assert instance.value == 124_439_808
    verdict = grade_instance(instance, "124M")
    assert verdict.kind == "imprecise"
    assert "right to 3 significant figures" in verdict.feedback
    assert "needs 4 (124.4M)" in verdict.feedback
    assert grade_instance(instance, "124.4M").kind == "correct"


# --- omissions the lint found, each now outside the band and named by a mistake -------------------------

#: template -> (shape left out, its neutral value, words the feedback must use to name what was left out)
OMISSIONS = {
    "moe-total-params": [
        ("vocab_size", 1, ("token table", "vocabulary matrices")),
        ("n_kv_heads", 1, ("single key/value head", "one key/value head")),
        ("head_dim", 1, ("head_dim",)),
    ],
    "moe-active-params": [
        ("vocab_size", 1, ("token table", "vocabulary matrices")),
        ("n_kv_heads", 1, ("single key/value head", "one key/value head")),
    ],
    "llama-total-params": [
        ("vocab_size", 1, ("token table", "vocabulary matrices")),
        ("n_kv_heads", 1, ("single key/value head", "one key/value head")),
    ],
}
CASES = [(t, *o) for t, found in OMISSIONS.items() for o in found]


@pytest.mark.parametrize(("template_id", "shape", "neutral", "words"), CASES)
def test_an_omission_is_outside_the_band_and_named(
    template_id: str, shape: str, neutral: int, words: tuple[str, ...]
) -> None:
    named = 0
    for seed in range(50):
        instance = pose(template_id, seed)
        v, active = instance.variables, template_id == "moe-active-params"
        assert instance.value == llama_like(v, active), seed
        if v[shape] == neutral:
            continue  # nothing left out (a model with one key/value head)
        left_out = llama_like(v, active, **{shape: neutral})
        verdict = grade_instance(instance, str(left_out))
        assert verdict.kind not in RIGHT, (seed, verdict.message)
        if verdict.kind == "close":
            assert verdict.mistake is not None, (seed, verdict.message)
        if verdict.mistake is not None:
            assert any(w in verdict.feedback for w in words), (seed, verdict.feedback)
            named += 1
    assert named >= 20


MIXTRAL_8X7B = {
    "vocab_size": 32000,
    "d_model": 4096,
    "n_layers": 32,
    "n_heads": 32,
    "n_kv_heads": 8,
    "head_dim": 128,
    "d_ff": 14336,
    "tied": False,
    "n_experts": 8,
    "experts_per_token": 2,
}


def mixtral(template_id: str) -> Instance:
    return pose(template_id, 1, **{k: str(v).lower() for k, v in MIXTRAL_8X7B.items()})


def test_mixtral_shapes_left_without_their_tables_or_kv_heads_are_named() -> None:
    """The lint found vocab_size and n_kv_heads left out of moe-total-params grading correct on huge draws
    (a 65M table in a 2.4T model); the draws are now as realistic as Mixtral, where both matter."""
    instance = mixtral("moe-total-params")
    assert instance.value == 46_702_792_704  # Mistral's 46.7B
    for shape, words in [("vocab_size", "token table"), ("n_kv_heads", "single key/value head")]:
        verdict = grade_instance(instance, str(llama_like(MIXTRAL_8X7B, **{shape: 1})))
        assert verdict.kind == "close", verdict.message
        assert words in verdict.feedback


def test_a_router_left_out_of_the_active_count_is_named_wherever_it_is_outside_the_band() -> None:
    named = inside = 0
    for seed in range(80):
        instance = pose("moe-active-params", seed)
        v = instance.variables
        router = v["n_layers"] * v["d_model"] * v["n_experts"]
        verdict = grade_instance(instance, str(instance.value - router))
        if router * 2000 > instance.value:  # more than the 0.05% band
            assert verdict.kind == "close", (seed, verdict.message)
            assert verdict.mistake == "router-left-out", (seed, verdict.message)
            assert f"{router:,}" in verdict.feedback
            named += 1
        else:  # a few coarse experts, as in Mixtral: inside the band (declared in omissions_ok)
            assert verdict.kind == "correct", (seed, verdict.message)
            inside += 1
    assert named >= 10
    assert inside >= 10


def test_mixtrals_active_count_and_its_router() -> None:
    instance = mixtral("moe-active-params")
    assert instance.value == llama_like(MIXTRAL_8X7B, True) == 12_879_925_248  # Mistral's 12.9B
    router = 32 * 4096 * 8
    assert router == 1_048_576
    assert grade_instance(instance, str(instance.value - router)).kind == "correct"  # 0.008%: in the band
    kv_one = grade_instance(instance, str(llama_like(MIXTRAL_8X7B, True, n_kv_heads=1)))
    assert kv_one.mistake == "kv-one-head"


def test_attention_left_out_of_an_moe_is_named_with_its_size() -> None:
    instance = pose("moe-total-params", 3)
    v = instance.variables
    attn = v["n_layers"] * (2 * v["d_model"] * (v["n_heads"] + v["n_kv_heads"]) * v["head_dim"])
    verdict = grade_instance(instance, str(instance.value - attn))
    assert verdict.mistake == "attention-left-out"
    assert f"{attn:,}" in verdict.feedback


# --- text that fits the draw -----------------------------------------------------------------------------


def test_the_v5e_anchor_uses_the_hardware_tables_819_gb_per_s() -> None:
    by_hand = round(197e12 / 819e9 * 1 / 2 * 256 / 8)  # int8 experts, 256 experts, top-8
    assert by_hand == 3849
    for hardware in ("tpu-v5e", "h100-sxm"):
        text = pose("moe-critical-batch", 1, hardware=hardware).explanation
        assert "819 GB/s" in text
        assert f"gives {by_hand:,}" in text
        assert "8.1e11" not in text
        assert "3,891" not in text


def test_only_bf16_experts_are_told_to_lower_their_precision() -> None:
    bf16 = pose("moe-critical-batch", 1, hardware="h100-sxm", weight_dtype="bf16").explanation
    int8 = pose("moe-critical-batch", 1, hardware="h100-sxm", weight_dtype="int8").explanation
    assert "lower-precision weights" in bf16
    assert "lower-precision weights" not in int8
    assert "The int8 weights here already help" in int8


def test_the_kv_projection_savings_derivation_tells_its_two_blocks_apart() -> None:
    instance = pose("gqa-kv-projection-savings", 3)
    last = instance.derivation[-1]
    match = re.fullmatch(r"n_layers × \((.+) - (.+)\)", last.formula)
    assert match, last.formula
    before, after = match.groups()
    assert before != after
    assert "before" in before
    assert "after" in after
    v = instance.variables
    mha = 4 * v["d_model"] * v["n_heads"] * v["head_dim"]
    gqa = 2 * v["d_model"] * v["n_heads"] * v["head_dim"] + 2 * v["d_model"] * v["n_kv_heads"] * v["head_dim"]
    assert last.substituted == f"{v['n_layers']:,} × ({mha:,} - {gqa:,})"


def test_one_layer_of_attention_flops_times_the_layers_is_told_it_is_all_of_them() -> None:
    instance = pose("attention-score-flops", 3)
    v = instance.variables
    per_layer = 4 * v["seq_len"] ** 2 * v["n_heads"] * v["head_dim"]
    assert instance.value == per_layer
    verdict = grade_instance(instance, str(per_layer * v["n_layers"]))
    assert "one layer" in verdict.feedback
    assert "multiply by" not in verdict.feedback


def test_a_one_kv_head_draw_reads_head_not_heads() -> None:
    instance = pose("attention-score-flops", 3, n_kv_heads=1, n_heads=32)
    assert "1 key/value head of head_dim" in instance.prompt.replace("**", "")
    assert "multi-query attention" in instance.explanation
    assert "grouped-query attention (1" not in instance.explanation


def test_embedding_tables_are_never_told_to_multiply_by_the_layers() -> None:
    for template_id in ("preset-embedding-head-params", "learned-position-params"):
        for seed in range(10):
            instance = pose(template_id, seed)
            layers = instance.n_layers
            assert layers is not None
            assert layers > 1
            verdict = grade_instance(instance, str(instance.value / layers))
            assert verdict.mistake != "per-layer", (template_id, seed)


def test_the_tying_follow_up_asks_about_the_other_case_only() -> None:
    for tied in (True, False):
        instance = pose("embedding-table-params", 1, tied=str(tied).lower())
        questions = [q for q, _ in instance.follow_ups]
        other = "were untied" if tied else "were tied"
        assert sum(other in q for q in questions) == 1
        assert not any(("were tied" if tied else "were untied") in q for q in questions)


def test_the_vocabulary_share_follow_up_uses_this_instances_vocabulary() -> None:
    instance = pose("embedding-table-params", 1, vocab_size=151936, d_model=1024)
    share_512 = 151936 * 512 / (151936 * 512 + 32 * 12 * 512**2)
    answers = " ".join(a for _, a in instance.follow_ups)
    assert f"{100 * share_512:.4g}%" in answers  # 43.59%
    assert "32,000 vocabulary" not in answers


def test_the_swiglu_width_is_written_with_separators_and_an_exact_width_is_not_rounded() -> None:
    odd = pose("swiglu-mlp-params", 1, d_model=2560).explanation
    assert "8/3 × 2,560 = 6,826.67, truncated to 6,826 and rounded up" in odd
    even = pose("swiglu-mlp-params", 1, d_model=3072).explanation
    assert "8/3 × 3,072 = 8,192; 8,192 is already a multiple of 256" in even


def test_mha_layers_are_not_told_they_save_zero() -> None:
    instance = pose("gqa-attention-params", 1, n_heads=16, n_kv_heads=16, head_dim=128, d_model=2048)
    text = texts(instance)
    assert "saves 0" not in text
    assert "n_heads / n_kv_heads = 1" not in text
    assert "one key/value head would save 7,864,320 parameters" in text  # 2 × 2,048 × (2,048 − 128)


def test_the_opt_seats_appear_only_for_opt() -> None:
    assert "ushers" in pose("learned-position-params", 1, model="opt-125m").memory_aid
    assert "ushers" not in pose("learned-position-params", 1, model="gpt2").memory_aid


# --- every mistake in these files has a title, every template nudges ------------------------------------


@pytest.mark.parametrize("name", FILES)
def test_every_mistake_has_a_title_and_every_template_nudges(name: str) -> None:
    data = tomllib.loads((Path(questions_dir()) / name).read_text(encoding="utf-8"))
    for template in data["template"]:
        assert 1 <= len(template.get("nudges", [])) <= 3, template["id"]
        for mistake in template.get("mistakes", []):
            title = mistake.get("title", "")
            assert title, (template["id"], mistake.get("name"))
            assert len(title) <= 80, title
