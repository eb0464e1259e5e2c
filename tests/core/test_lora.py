"""LoRA parameter counts and PEFT's trainable%: golden problem, sizing-notes 4.10 and properties."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quizzer.core.errors import SpecError
from quizzer.core.lora import lora_all_linear_params, lora_params, lora_qv_params, trainable_percent
from quizzer.core.units import Unit
from tests.golden import assert_golden


def _shapes(config: dict[str, Any]) -> dict[str, int]:
    """Llama/Mistral projection sizes from a config.json (head_dim falls back to hidden / heads)."""
    d, n_heads = config["hidden_size"], config["num_attention_heads"]
    head_dim = config.get("head_dim") or d // n_heads
    return {
        "d": d,
        "layers": config["num_hidden_layers"],
        "q": n_heads * head_dim,
        "kv": config["num_key_value_heads"] * head_dim,
        "ff": config["intermediate_size"],
    }


def _all_linear_from_lora_params(config: dict[str, Any], rank: int) -> int:
    """Sum lora_params over q, k, v, o, gate, up, down with the model's real shapes."""
    s = _shapes(config)
    matrices = [
        (s["d"], s["q"]),  # q_proj
        (s["d"], s["kv"]),  # k_proj
        (s["d"], s["kv"]),  # v_proj
        (s["q"], s["d"]),  # o_proj
        (s["d"], s["ff"]),  # gate_proj
        (s["d"], s["ff"]),  # up_proj
        (s["ff"], s["d"]),  # down_proj
    ]
    return sum(int(lora_params(rank, d_in, d_out, 1, s["layers"]).value) for d_in, d_out in matrices)


# --- golden problem --------------------------------------------------------------------------------------


def test_lora01_llama2_7b_q_v_rank_8(
    problems: dict[str, dict[str, Any]], real_models: dict[str, dict[str, Any]]
) -> None:
    result = lora_qv_params(4096, 32, 8)
    assert result.unit == Unit.PARAMS
    assert_golden(problems["LORA-01"], result.value)
    assert lora_params(8, 4096, 4096, 2, 32).value == result.value
    # PEFT prints "all params: 6,742,609,920 || trainable%: 0.0622": the denominator includes the adapters.
    base = real_models["llama-2-7b"]["params"]["total"]
    assert base + result.value == 6_742_609_920
    percent = trainable_percent(result.value, base)
    assert percent.unit == Unit.RATIO
    assert round(percent.value, 4) == 0.0622


def test_trainable_percent_against_base_only_is_the_trap() -> None:
    # With the base alone as denominator, 1,000 of 99,000 would read 1.0101%; PEFT prints 1%.
    assert trainable_percent(1_000, 99_000).value == pytest.approx(1.0)


# --- sizing-notes 4.10 -----------------------------------------------------------------------------------


def test_all_linear_rank_16_llama2_7b(real_models: dict[str, dict[str, Any]]) -> None:
    config = real_models["llama-2-7b"]["config_json"]
    assert _all_linear_from_lora_params(config, 16) == 39_976_960
    assert lora_all_linear_params(4096, 32, 16, 11008, 32, 32, 128).value == 39_976_960


def test_all_linear_rank_16_mistral_7b(real_models: dict[str, dict[str, Any]]) -> None:
    # GQA k, v (8 KV heads) and F = 14,336 make Mistral's count differ from Llama-2-7B's.
    config = real_models["mistral-7b"]["config_json"]
    assert _all_linear_from_lora_params(config, 16) == 41_943_040
    assert lora_all_linear_params(4096, 32, 16, 14336, 32, 8, 128).value == 41_943_040


def test_single_matrix_has_one_step() -> None:
    result = lora_params(4, 10, 20)
    assert result.value == 120
    assert len(result.steps) == 1


# --- validation ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: lora_params(0, 4096, 4096), "rank"),
        (lambda: lora_params(8, 4096, 4096.5), "d_out"),
        (lambda: lora_qv_params(4096, 0, 8), "n_layers"),
        (lambda: lora_all_linear_params(4096, 32, 16, 11008, 32, 0, 128), "n_kv_heads"),
        (lambda: trainable_percent(0, 1_000), "trainable_params"),
        (lambda: trainable_percent(10, -5), "base_params"),
    ],
)
def test_bad_inputs_are_rejected(call: Any, message: str) -> None:
    with pytest.raises(SpecError, match=message):
        call()


# --- properties ------------------------------------------------------------------------------------------

dims = st.integers(min_value=1, max_value=65_536)
ranks = st.integers(min_value=1, max_value=512)
small = st.integers(min_value=1, max_value=128)


@given(ranks, st.integers(min_value=2, max_value=16), dims, dims, small, small)
def test_linear_in_rank(r: int, k: int, d_in: int, d_out: int, m: int, layers: int) -> None:
    assert (
        lora_params(k * r, d_in, d_out, m, layers).value == k * lora_params(r, d_in, d_out, m, layers).value
    )


@given(ranks, dims, dims, small, small)
def test_multiplies_by_matrices_and_layers(r: int, d_in: int, d_out: int, m: int, layers: int) -> None:
    one = lora_params(r, d_in, d_out).value
    assert lora_params(r, d_in, d_out, m, layers).value == one * m * layers
    assert lora_params(r, d_in, d_out).value == lora_params(r, d_out, d_in).value  # A and B swap roles


@given(st.integers(1, 64).map(lambda h: h * 64), small, ranks)
def test_qv_is_two_square_matrices(d: int, layers: int, r: int) -> None:
    assert lora_qv_params(d, layers, r).value == 2 * layers * r * 2 * d


@given(st.integers(1, 10**9), st.integers(1, 10**12))
def test_trainable_percent_bounds(trainable: int, base: int) -> None:
    percent = trainable_percent(trainable, base).value
    assert 0 < percent < 100
    assert percent < 100 * trainable / base  # the adapters in the denominator always lower it
    assert trainable_percent(trainable + 1, base).value >= percent  # float rounding can tie near 100


@given(ranks, small, st.integers(1, 32), st.integers(1, 8), st.integers(1, 4).map(lambda x: 64 * x), dims)
def test_last_step_carries_the_value(
    r: int, layers: int, heads: int, group: int, head_dim: int, ff: int
) -> None:
    d = heads * head_dim
    results = [
        lora_params(r, d, ff, 2, layers),
        lora_params(r, d, ff),
        lora_qv_params(d, layers, r),
        lora_all_linear_params(d, layers, r, ff, heads, max(1, heads // group), head_dim),
        trainable_percent(r * d, 1_000_000),
    ]
    for result in results:
        assert result.steps[-1].value == result.value
        assert result.steps[-1].unit == result.unit
