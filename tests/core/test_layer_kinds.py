"""Properties of the 2025-26 spec parts: windows, layer patterns, MLA, shared experts (Hypothesis)."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from quizzer.core.experts import moe_parts
from quizzer.core.flops import forward_flops_per_token
from quizzer.core.kv import (
    mla_decompressed_kv_bytes_per_token,
    mla_kv_bytes_per_token,
    windowed_kv_cache_bytes,
)
from quizzer.core.kv_model import (
    model_kv_bytes_per_token,
    model_kv_cache_bytes,
    model_kv_growth_bytes_per_token,
    model_kv_window_cap_bytes,
)
from quizzer.core.memory import kv_cache_bytes, kv_cache_bytes_per_token
from quizzer.core.model import model_active_params, model_params, param_breakdown
from quizzer.core.params import mlp_params
from quizzer.core.spec import ModelSpec

DTYPES = st.sampled_from(["bf16", "fp32", "fp8", "int4"])
CONVENTIONS = st.sampled_from(["paper", "hf"])


@st.composite
def windowed_specs(draw: st.DrawFn) -> ModelSpec:
    """A decoder whose layers mix full, sliding and chunked attention, given as a pattern or a full list."""
    n_kv = draw(st.sampled_from([1, 2, 4]))
    n_heads = n_kv * draw(st.sampled_from([1, 2]))
    head_dim = draw(st.sampled_from([16, 64, 128]))
    n_layers = draw(st.integers(1, 24))
    pattern = draw(st.lists(st.sampled_from(["full", "sliding", "chunked"]), min_size=1, max_size=n_layers))
    return ModelSpec(
        vocab_size=draw(st.integers(1, 1000)),
        d_model=n_heads * head_dim,
        n_layers=n_layers,
        n_heads=n_heads,
        n_kv_heads=n_kv,
        head_dim=head_dim,
        d_ff=draw(st.integers(1, 512)),
        layer_types=tuple(pattern),
        sliding_window=draw(st.integers(2, 4096)),
        attention_chunk_size=draw(st.integers(2, 8192)),
    )


def _all_full(spec: ModelSpec) -> ModelSpec:
    return spec.replace(layer_types=(), sliding_window=None, attention_chunk_size=None)


@given(windowed_specs(), st.data(), DTYPES, CONVENTIONS, st.integers(1, 4))
def test_a_window_at_least_as_long_as_the_context_is_full_attention(
    spec: ModelSpec, data: st.DataObject, dtype: str, convention: str, batch: int
) -> None:
    windows = [w for w in (spec.sliding_window, spec.attention_chunk_size) if w is not None]
    longest = min(windows) - (1 if convention == "hf" else 0)
    seq_len = data.draw(st.integers(1, longest))
    full = _all_full(spec)
    total = model_kv_cache_bytes(spec, seq_len, batch, dtype, convention).value
    assert total == model_kv_cache_bytes(full, seq_len, batch, dtype, convention).value
    assert total == kv_cache_bytes(spec.n_layers, spec.n_kv_heads, spec.head_dim, seq_len, batch, dtype).value


@given(windowed_specs(), st.integers(1, 20_000), st.integers(1, 20_000), CONVENTIONS)
def test_the_total_is_monotone_in_the_context(spec: ModelSpec, a: int, b: int, convention: str) -> None:
    lo, hi = sorted((a, b))
    assert model_kv_cache_bytes(spec, lo, convention=convention).value <= (
        model_kv_cache_bytes(spec, hi, convention=convention).value
    )


@given(windowed_specs(), st.integers(0, 10_000), st.integers(1, 10_000), CONVENTIONS, st.integers(1, 3))
def test_beyond_every_window_the_total_is_linear(
    spec: ModelSpec, extra: int, step: int, convention: str, batch: int
) -> None:
    past = max(spec.sliding_window or 0, spec.attention_chunk_size or 0) + extra
    growth = model_kv_growth_bytes_per_token(spec).value
    cap = model_kv_window_cap_bytes(spec, convention=convention).value
    at = model_kv_cache_bytes(spec, past, batch, convention=convention).value
    assert (
        model_kv_cache_bytes(spec, past + step, batch, convention=convention).value - at
        == step * growth * batch
    )
    assert at == batch * (past * growth + cap)


@given(windowed_specs(), st.integers(1, 50_000))
def test_the_two_window_readings_differ_by_one_token_per_windowed_layer(
    spec: ModelSpec, seq_len: int
) -> None:
    paper = model_kv_cache_bytes(spec, seq_len).value
    hf = model_kv_cache_bytes(spec, seq_len, convention="hf").value
    per_layer = 2 * 2 * spec.n_kv_heads * spec.head_dim  # bf16, K and V
    short = sum(1 for kind in spec.attention_kinds if kind != "full" and seq_len >= spec.window_of(kind))
    assert paper - hf == short * per_layer


@given(windowed_specs(), DTYPES)
def test_per_token_figures_add_up(spec: ModelSpec, dtype: str) -> None:
    """Within every window every layer grows: the old formula, whatever the pattern."""
    expected = kv_cache_bytes_per_token(spec.n_layers, spec.n_kv_heads, spec.head_dim, dtype).value
    assert model_kv_bytes_per_token(spec, dtype).value == expected
    n_full = spec.attention_kinds.count("full")
    assert (
        model_kv_growth_bytes_per_token(spec, "bf16").value
        == 2 * 2 * n_full * spec.n_kv_heads * spec.head_dim
    )


@given(windowed_specs(), st.integers(1, 40_000), CONVENTIONS, st.integers(1, 3))
def test_one_window_size_matches_the_plain_calculator(
    spec: ModelSpec, seq_len: int, convention: str, batch: int
) -> None:
    one = spec.replace(
        attention_chunk_size=None,
        layer_types=tuple(k if k == "full" else "sliding" for k in spec.layer_types),
    )
    n_full = one.attention_kinds.count("full")
    expected = windowed_kv_cache_bytes(
        n_full,
        one.n_layers - n_full,
        one.sliding_window,
        one.n_kv_heads,
        one.head_dim,
        seq_len,
        batch,
        convention=convention,
    )
    assert model_kv_cache_bytes(one, seq_len, batch, convention=convention).value == expected.value


@st.composite
def plain_kwargs(draw: st.DrawFn) -> dict[str, Any]:
    n_kv = draw(st.sampled_from([1, 2, 4, 8]))
    n_heads = n_kv * draw(st.sampled_from([1, 2, 4]))
    head_dim = draw(st.sampled_from([16, 32, 64, 128]))
    n_experts = draw(st.sampled_from([0, 0, 4, 16]))
    kwargs: dict[str, Any] = dict(
        vocab_size=draw(st.integers(1, 100_000)),
        d_model=draw(st.integers(8, 4096)),
        n_layers=draw(st.integers(1, 48)),
        n_heads=n_heads,
        n_kv_heads=n_kv,
        head_dim=head_dim,
        d_ff=draw(st.integers(1, 8192)),
        mlp=draw(st.sampled_from(["gelu", "gated"])),
        norm=draw(st.sampled_from(["layernorm", "rmsnorm"])),
        qkv_bias=draw(st.booleans()),
        tie_embeddings=draw(st.booleans()),
    )
    if n_experts:
        kwargs.update(n_experts=n_experts, experts_per_token=draw(st.integers(1, n_experts)))
    return kwargs


@given(plain_kwargs(), st.integers(1, 8), st.integers(1, 9000))
def test_an_all_full_pattern_is_the_old_spec(kwargs: dict[str, Any], repeat: int, seq_len: int) -> None:
    old = ModelSpec(**kwargs)
    pattern = ModelSpec(**kwargs, layer_types=("full",) * min(repeat, old.n_layers))
    listed = ModelSpec(**kwargs, layer_types=("full",) * old.n_layers)
    for new in (pattern, listed):
        assert param_breakdown(new).parts() == param_breakdown(old).parts()
        assert model_params(new).value == model_params(old).value
        assert model_active_params(new).value == model_active_params(old).value
        assert forward_flops_per_token(new, seq_len).value == forward_flops_per_token(old, seq_len).value
        assert (
            model_kv_cache_bytes(new, seq_len).value
            == model_kv_cache_bytes(old, seq_len).value
            == (kv_cache_bytes(old.n_layers, old.n_kv_heads, old.head_dim, seq_len, 1).value)
        )


@given(
    st.integers(1, 96),
    st.sampled_from([1, 2, 8, 64, 128]),
    st.sampled_from([16, 64, 128, 192]),
    st.integers(1, 127),
    DTYPES,
)
def test_mla_with_a_latent_as_wide_as_k_and_v_is_mha(
    n_layers: int, n_heads: int, head_dim: int, rope: int, dtype: str
) -> None:
    """A latent of 2·H·head_dim (rotary part included) caches what MHA caches; decompressing MLA with value
    heads as wide as the q/k heads caches exactly MHA's K and V."""
    mha = kv_cache_bytes_per_token(n_layers, n_heads, head_dim, dtype).value
    width = 2 * n_heads * head_dim
    rope = min(rope, width - 1)
    assert mla_kv_bytes_per_token(n_layers, width - rope, rope, dtype).value == mha
    nope = head_dim - min(rope, head_dim - 1) if head_dim > 1 else 1
    qk_rope = head_dim - nope
    if qk_rope:
        assert (
            mla_decompressed_kv_bytes_per_token(n_layers, n_heads, nope, qk_rope, head_dim, dtype).value
            == mha
        )
        spec = ModelSpec(
            vocab_size=8,
            d_model=64,
            n_layers=n_layers,
            n_heads=n_heads,
            d_ff=8,
            kv_lora_rank=width - qk_rope,
            qk_rope_head_dim=qk_rope,
            qk_nope_head_dim=nope,
        )
        assert model_kv_bytes_per_token(spec, dtype).value == mha
        assert model_kv_bytes_per_token(spec, dtype, "decompressed").value == mha


@given(
    plain_kwargs(),
    st.integers(1, 3),
    st.one_of(st.none(), st.integers(1, 4096)),
    st.booleans(),
    st.integers(0, 3),
)
def test_shared_experts_add_exactly_their_parameters(
    kwargs: dict[str, Any], n_shared: int, d_ff_shared: int | None, expert_bias: bool, first_dense: int
) -> None:
    kwargs = {**kwargs, "n_experts": kwargs.get("n_experts") or 8, "experts_per_token": 2}
    kwargs["first_dense_layers"] = min(first_dense, kwargs["n_layers"] - 1)
    kwargs["expert_bias"] = expert_bias
    without = ModelSpec(**kwargs)
    shared = ModelSpec(**kwargs, n_shared_experts=n_shared, d_ff_shared=d_ff_shared)
    width = without.d_ff_expert if d_ff_shared is None else d_ff_shared
    one = mlp_params(without.d_model, width, without.mlp == "gated", expert_bias).value
    added = n_shared * one * sum(shared.moe_flags)
    assert param_breakdown(shared).total - param_breakdown(without).total == added
    assert param_breakdown(shared).active - param_breakdown(without).active == added
    assert model_params(shared).value - model_params(without).value == added
    assert model_active_params(shared).value - model_active_params(without).value == added
    parts = moe_parts(
        without.d_model,
        without.d_ff_expert,
        8,
        2,
        without.mlp == "gated",
        n_shared,
        d_ff_shared=d_ff_shared,
        expert_bias=expert_bias,
    )
    assert parts.total - parts.active == (8 - 2) * parts.expert


@given(plain_kwargs(), st.integers(0, 5), st.integers(1, 4))
def test_dense_layers_and_steps_partition_the_layers(kwargs: dict[str, Any], first: int, step: int) -> None:
    kwargs = {**kwargs, "n_experts": kwargs.get("n_experts") or 4, "experts_per_token": 1}
    n = kwargs["n_layers"]
    moe = [i for i in range(n) if i >= first and (i + 1) % step == 0]
    if not moe:
        return
    spec = ModelSpec(**kwargs, first_dense_layers=first, moe_layer_step=step)
    listed = ModelSpec(**kwargs, moe_layers=tuple(moe))
    parts = param_breakdown(spec)
    assert parts == param_breakdown(listed)
    assert sorted(i for g in parts.groups for i in g.layers) == list(range(n))
    assert [i for g in parts.groups if g.mlp_kind == "moe" for i in g.layers] == moe
    assert parts.total == model_params(spec).value
    assert parts.active == model_active_params(spec).value
