"""The slips lint (#25 class 9): every classic slip a derivation makes possible is named by some mistake.

The numbers are worked by hand: a KV cache per token of 2 (K and V) × 32 layers × 8 KV heads × 128 × 2
bytes (bf16) = 131,072 bytes = 128 KiB, so 40 GiB of free HBM (42,949,672,960 bytes) holds 327,680 tokens;
forgetting the ×2 for K and V gives 655,360. At 4,096 tokens and a batch of 2 that cache is 1 GiB.
Llama 3 8B has the same shape (32 layers, 8 KV heads of 128) and 32 query heads.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from quizzer.bank.check.registry import chosen
from quizzer.bank.check.run import check_template
from quizzer.bank.errors import TemplateError
from quizzer.bank.loader import Bank, load_bank
from quizzer.grading.grade import Verdict
from quizzer.session.chain import grade_question
from quizzer.session.drill import grade_instance
from tests.builtin_bank import builtin_bank

HEAD = """
[[template]]
id = "{tid}"
title = "Slips fixture"
topic = "fixtures"
difficulty = "easy"
minutes = 2
kind = "exact"
explanation = "{{derivation}}"
tldr = "{{answer}}."
"""

#: Tokens of KV cache that fit in 40 GiB: a floor of a quotient, so no built-in slip can name the ×2.
TOKENS_FIT = """
prompt = "A bf16 KV cache of 32 layers, 8 KV heads of 128: how many tokens fit in 40 GiB?"
[template.answer]
expr = "floor(40 * 2 ** 30 / kv_cache_bytes_per_token(32, 8, 128, 'bf16'))"
unit = "tokens"
{mistakes}
"""

FORGOT_KV = """
[[template.mistakes]]
name = "cache-halved"
title = "Cache per token halved"
answer = "floor(40 * 2 ** 30 / (32 * 8 * 128 * 2))"
feedback = "That counts one of K and V."
{family}
"""


def _load(tmp_path: Path, body: str, tid: str = "slip") -> tuple[str, Bank]:
    path = tmp_path / "pack.toml"
    path.write_text(HEAD.format(tid=tid) + body, encoding="utf-8")
    bank = load_bank([str(path)])
    assert bank.problems() == []
    return str(path), bank


def _findings(
    tmp_path: Path, body: str, tid: str = "slip", seeds: int = 2
) -> tuple[str, list[TemplateError]]:
    path, bank = _load(tmp_path, body, tid)
    problems, count = check_template(bank.get(tid), range(seeds), lints=chosen(only=("slips",)))
    assert count == seeds
    return path, problems


# --- the lint -------------------------------------------------------------------------------------------


def _kv_pair(problems: list[TemplateError]) -> list[TemplateError]:
    return [p for p in problems if '"kv-pair"' in p.message]


def test_a_slip_inside_a_floor_with_no_mistake_to_name_it_is_found(tmp_path: Path) -> None:
    path, problems = _findings(tmp_path, TOKENS_FIT.replace("{mistakes}", ""))
    (problem,) = _kv_pair(problems)
    assert (problem.path, problem.template_id, problem.field) == (path, "slip", "answer.expr")
    assert problem.message.startswith("seed 0: the step 'KV cache per token (K and V, every layer)' ")
    assert "forgetting the ×2 for K and V gets 655,360 tokens" in problem.message
    assert 'family = "kv-pair"' in problem.message
    # the step's other factors make their slips too: one layer of 32, bf16's neighbours
    others = sorted(p.message.split('family = "')[1].split('"')[0] for p in problems if p is not problem)
    assert others == ["dtype", "per-layer"]
    assert {p.field for p in problems} == {"answer.expr"}


def test_a_mistake_of_its_family_names_it(tmp_path: Path) -> None:
    mistakes = FORGOT_KV.replace("{family}", 'family = "kv-pair"')
    assert _kv_pair(_findings(tmp_path, TOKENS_FIT.replace("{mistakes}", mistakes))[1]) == []


def test_a_mistake_that_gives_it_but_names_no_family_is_asked_for_one(tmp_path: Path) -> None:
    path, problems = _findings(tmp_path, TOKENS_FIT.replace("{mistakes}", FORGOT_KV.replace("{family}", "")))
    (problem,) = _kv_pair(problems)
    assert (problem.path, problem.field) == (path, "mistakes[0].family")
    assert problem.message.startswith("seed 0: gives 655,360 tokens (655k), what the ×2 for K and V gives")
    assert "(on every instance drawn where both apply)" in problem.message
    assert 'add family = "kv-pair"' in problem.message


def test_a_mistake_said_to_be_its_own_is_left_alone(tmp_path: Path) -> None:
    mistakes = FORGOT_KV.replace("{family}", 'family = "own"')
    assert _kv_pair(_findings(tmp_path, TOKENS_FIT.replace("{mistakes}", mistakes))[1]) == []


def test_a_family_no_mistake_has_is_a_load_error(tmp_path: Path) -> None:
    path = tmp_path / "pack.toml"
    body = TOKENS_FIT.replace("{mistakes}", FORGOT_KV.replace("{family}", 'family = "kv-pairs"'))
    path.write_text(HEAD.format(tid="slip") + body, encoding="utf-8")
    (problem,) = load_bank([str(path)]).problems()
    assert problem.field == "mistakes[0].family"
    assert "did you mean 'kv-pair'?" in problem.message


#: The cache itself as a calculator's answer: its last step names every factor, the grader makes the slips.
CACHE = """
prompt = "A bf16 KV cache of 32 layers, 8 KV heads of 128, 4,096 tokens, batch 2: how many GiB?"
[template.answer]
expr = "kv_cache_bytes(32, 8, 128, 4096, 2, 'bf16')"
unit = "bytes"
display = "GiB"
"""


def test_the_slips_of_a_calculator_that_is_the_answer_are_built_in(tmp_path: Path) -> None:
    assert _findings(tmp_path, CACHE)[1] == []


#: A later part whose derivation holds the step: its finding is named under parts[0].
CHAIN = (
    CACHE
    + """
[[template.parts]]
prompt = "How many tokens of it fit in 40 GiB?"
explanation = "{derivation}"
answer = { expr = "floor(40 * 2 ** 30 / kv_cache_bytes_per_token(32, 8, 128, 'bf16'))", unit = "tokens" }
"""
)


def test_a_later_part_is_named_as_such(tmp_path: Path) -> None:
    path, problems = _findings(tmp_path, CHAIN)
    (problem,) = _kv_pair(problems)
    assert (problem.path, problem.template_id, problem.field) == (path, "slip", "parts[0].answer.expr")
    assert {p.field for p in problems} == {"parts[0].answer.expr"}  # part 1's slips are all built in


#: The attention block: the K and V projections use the KV heads, and the block is a sum of projections.
ATTENTION = """
prompt = "Llama 3 8B's attention: {model_n_heads} heads, {model_n_kv_heads} KV heads. How many parameters?"
[template.variables]
model = { preset = ["llama-3-8b"] }
[template.answer]
expr = "attention_params(model_d_model, model_n_heads, model_n_kv_heads, model_head_dim)"
unit = "params"
{mistakes}
"""

MHA_COUNT = """
[[template.mistakes]]
name = "mha-count"
answer = "attention_params(model_d_model, model_n_heads, model_n_heads, model_head_dim)"
feedback = "That gives K and V a head per query head."
family = "kv-heads"
"""


def test_a_step_inside_a_sum_asks_for_a_mistake_of_its_family(tmp_path: Path) -> None:
    path, problems = _findings(tmp_path, ATTENTION.replace("{mistakes}", ""))
    (problem,) = problems
    assert (problem.path, problem.field) == (path, "answer.expr")
    assert "the step 'Key projection W_k'" in problem.message
    assert 'using the 32 query heads for the 8 KV heads gets a bare "wrong"' in problem.message
    assert 'family = "kv-heads"' in problem.message


def test_the_sum_is_covered_by_a_mistake_of_its_family(tmp_path: Path) -> None:
    assert _findings(tmp_path, ATTENTION.replace("{mistakes}", MHA_COUNT))[1] == []


# --- the grader names each family on a template that has the step and no mistake written for it -----------


def _grade(tmp_path: Path, body: str, answer: str, tid: str = "slip") -> Verdict:
    _, bank = _load(tmp_path, body, tid)
    return grade_instance(bank.generate(tid, 0), answer)


FAMILY_CASES = [
    # K and V ×2 forgotten: 0.5 GiB of the 1 GiB cache
    (CACHE, "0.5 GiB", "kv-pair", "K and V ×2 forgotten"),
    # the query heads for the KV heads: 4 × 1 GiB (Llama 3 8B's cache, 32 heads for 8)
    (
        """
prompt = "Llama 3 8B, {model_n_heads} heads, {model_n_kv_heads} KV heads: its cache at 4,096 tokens, batch 2?"
[template.variables]
model = { preset = ["llama-3-8b"] }
[template.answer]
expr = "model_kv_cache_bytes_of(model, 4096, 2, 'bf16')"
unit = "bytes"
display = "GiB"
""",
        "4 GiB",
        "kv-heads",
        "Query heads for the KV heads",
    ),
    # one layer for all: a latent of 61 × (512 + 64) × 2 = 70,272 bytes, one layer's is 1,152
    (
        """
prompt = "An MLA cache per token: 61 layers, rank 512, rope 64, bf16. How many bytes?"
[template.variables]
depth = { choices = [61] }
[template.answer]
expr = "mla_kv_bytes_per_token(depth, 512, 64, 'bf16')"
unit = "bytes"
""",
        "1152 bytes",
        "per-layer",
        "One layer for all",
    ),
    # a neighbouring dtype on a time: 7B bf16 weights (14 GB) read at 2 TB/s is 7 ms; fp32's 28 GB is 14 ms
    (
        """
prompt = "A 7B bf16 model on one GPU of 2 TB/s: the memory-bound decode step, in ms?"
[template.answer]
expr = "decode_step_time(7000000000, 'bf16', 1, 2e12)"
unit = "s"
display = "ms"
""",
        "14 ms",
        "dtype",
        "fp32 bytes for bf16",
    ),
    # MACs for FLOPs on GPU-hours: 6 × 1e9 × 1.8e10 at 1e14 × 0.5 is 600 GPU-hours; MACs give 300
    (
        """
prompt = "GPU-hours to train 1B parameters on 18B tokens at 100 TFLOP/s and 50% MFU?"
[template.answer]
expr = "gpu_hours(1000000000, 18000000000, 1e14, 0.5)"
unit = "GPU-hours"
""",
        "300",
        "macs-flops",
        "MACs for FLOPs",
    ),
    # a scale word left off: 32,000 × 512 = 16,384,000 parameters typed as "16.4"
    (
        """
prompt = "An embedding table of 32,000 tokens × 512: how many parameters?"
[template.answer]
expr = "embedding_params(32000, 512)"
unit = "params"
""",
        "16.4",
        "scale-word",
        "Scale word left off",
    ),
]


@pytest.mark.parametrize(
    ("body", "answer", "family", "title"), FAMILY_CASES, ids=[c[2] for c in FAMILY_CASES]
)
def test_each_family_is_named_with_no_mistake_written(
    tmp_path: Path, body: str, answer: str, family: str, title: str
) -> None:
    verdict = _grade(tmp_path, body, answer)
    assert verdict.kind == "wrong", verdict.message
    assert (verdict.mistake_family, verdict.mistake_title) == (family, title)
    assert verdict.feedback
    assert _findings(tmp_path, body)[1] == []  # and the lint agrees that the family is named


# --- the bank's examples -----------------------------------------------------------------------------------


def test_sliding_window_half_the_cache_is_k_and_v_forgotten() -> None:
    """The issue's #310570 (1.46 GiB typed for 2.93 GiB got a bare "wrong"). Its draw now keeps the window
    binding (9,000 + 2,000 tokens > W): Mistral 7B's 2 × 32 × 8 × 128 × 2 = 131,072 bytes a token ×
    4,096 kept × 64 sequences = 32 GiB; without the ×2 for K and V, 16 GiB."""
    instance = builtin_bank().generate("sliding-window-kv-cache", 310570)
    assert instance.display == "32 GiB"
    verdict = grade_question(instance.parts[0], "16 GiB")
    assert (verdict.kind, verdict.mistake_title, verdict.mistake_family) == (
        "wrong",
        "K and V ×2 forgotten",
        "kv-pair",
    )
    assert "×2 for K and V is missing" in str(verdict.feedback)


def test_a_written_mistakes_family_reaches_the_verdict(tmp_path: Path) -> None:
    """The family a template gives its mistake is the verdict's (Stats and the slip drills read it);
    one that names none is "own". 40 GiB ÷ (32 × 8 × 128 × 2 bytes) = 655,360 tokens counts one of K, V."""
    for family, expected in (('family = "kv-pair"', "kv-pair"), ("", "own")):
        body = TOKENS_FIT.replace("{mistakes}", FORGOT_KV.replace("{family}", family))
        verdict = _grade(tmp_path, body, "655360")
        assert (verdict.mistake, verdict.mistake_family) == ("cache-halved", expected)
