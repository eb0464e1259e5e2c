"""Hypothesis properties of the parameter and FLOP counts over arbitrary valid specs."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from quizzer.core.flops import forward_flops_per_token, training_flops
from quizzer.core.memory import kv_cache_bytes
from quizzer.core.model import model_active_params, model_params, param_breakdown
from quizzer.core.params import router_params
from quizzer.core.spec import ModelSpec
from tests.strategies import model_specs, spec_kwargs


@given(model_specs())
def test_total_is_the_sum_of_parts_and_of_the_derivation(spec: ModelSpec) -> None:
    parts = param_breakdown(spec)
    assert parts.total == sum(parts.parts().values())
    result = model_params(spec)
    assert result.value == parts.total
    assert result.steps[-1].value == result.value
    assert isinstance(result.value, int)
    assert model_active_params(spec).value == parts.active <= parts.total


@given(spec_kwargs())
def test_tying_removes_exactly_one_table(kwargs: dict[str, Any]) -> None:
    untied = ModelSpec(**{**kwargs, "lm_head": True, "tie_embeddings": False})
    tied = untied.replace(tie_embeddings=True)
    assert param_breakdown(untied).total - param_breakdown(tied).total == untied.vocab_size * untied.d_model


@given(spec_kwargs(moe=False))
def test_gqa_with_all_heads_is_mha(kwargs: dict[str, Any]) -> None:
    explicit = ModelSpec(**{**kwargs, "n_kv_heads": kwargs["n_heads"]})
    default = ModelSpec(**{k: v for k, v in kwargs.items() if k != "n_kv_heads"})
    assert param_breakdown(explicit) == param_breakdown(default)


@given(spec_kwargs(moe=False), st.booleans())
def test_one_expert_top1_is_dense_plus_router(kwargs: dict[str, Any], router_bias: bool) -> None:
    dense = ModelSpec(**kwargs)
    moe = dense.replace(n_experts=1, experts_per_token=1, router_bias=router_bias, mlp_bias=False)
    dense_nobias = dense.replace(mlp_bias=False)
    router = router_params(dense.d_model, 1, router_bias).value
    assert param_breakdown(moe).total == param_breakdown(dense_nobias).total + dense.n_layers * router
    assert param_breakdown(moe).active == param_breakdown(moe).total


@given(spec_kwargs(), st.integers(1, 8))
def test_params_linear_in_layers(kwargs: dict[str, Any], k: int) -> None:
    one = param_breakdown(ModelSpec(**{**kwargs, "n_layers": 1}))
    many = param_breakdown(ModelSpec(**{**kwargs, "n_layers": k}))
    assert many.total - one.total == (k - 1) * one.per_layer
    assert many.per_layer == one.per_layer


@given(spec_kwargs(), st.sampled_from(["n_layers", "d_model", "vocab_size"]))
def test_params_strictly_increase(kwargs: dict[str, Any], field: str) -> None:
    grown = {**kwargs, field: kwargs[field] + 1}
    if field == "d_model":  # keep head_dim explicit so the spec stays valid
        grown["head_dim"] = kwargs["head_dim"]
    assert param_breakdown(ModelSpec(**grown)).total > param_breakdown(ModelSpec(**kwargs)).total


@given(model_specs(), st.integers(1, 10**12))
def test_training_is_three_forwards(spec: ModelSpec, n_tokens: int) -> None:
    """6·N·D = 3 × 2·N·D, and the per-token forward without attention is 2 × matmul params."""
    forward = forward_flops_per_token(spec).value
    assert forward % 2 == 0
    matmul_params = forward // 2
    assert training_flops(matmul_params, n_tokens).value == 3 * forward * n_tokens


@given(model_specs(), st.integers(1, 65536))
def test_attention_term_grows_linearly_with_context(spec: ModelSpec, context: int) -> None:
    base = forward_flops_per_token(spec).value
    one = forward_flops_per_token(spec, 1).value - base
    assert forward_flops_per_token(spec, context).value - base == context * one
    assert one == 4 * spec.n_layers * spec.n_heads * spec.head_dim


def test_attention_equals_projections_at_twice_d_model() -> None:
    """FL-03 (scaling book Q5): with N·H = D, attention FLOPs match the QKVO projections at T = 2·D."""
    spec = ModelSpec(vocab_size=1, d_model=4096, n_layers=1, n_heads=32, d_ff=1, lm_head=False)
    attention_at = forward_flops_per_token(spec, 8192).value - forward_flops_per_token(spec).value
    projections = 2 * 4 * spec.d_model * spec.n_heads * spec.head_dim
    assert attention_at == projections


@given(model_specs(), st.integers(1, 64), st.integers(1, 4096))
def test_kv_cache_uses_kv_heads(spec: ModelSpec, batch: int, seq_len: int) -> None:
    kv = kv_cache_bytes(spec.n_layers, spec.n_kv_heads, spec.head_dim, seq_len, batch, "bf16").value
    assert kv == 2 * spec.n_layers * spec.n_kv_heads * spec.head_dim * 2 * seq_len * batch
