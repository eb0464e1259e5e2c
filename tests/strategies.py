"""Hypothesis strategies shared by the suite: valid model specs built directly, never filtered."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from quizzer.core.spec import ModelSpec


@st.composite
def spec_kwargs(draw: st.DrawFn, moe: bool | None = None) -> dict[str, Any]:
    """Keyword arguments of a valid ModelSpec: n_kv_heads divides n_heads by construction."""
    n_kv_heads = draw(st.sampled_from([1, 2, 4, 8]))
    n_heads = n_kv_heads * draw(st.sampled_from([1, 2, 4]))
    head_dim = draw(st.sampled_from([16, 32, 64, 128]))
    d_model = draw(st.one_of(st.just(n_heads * head_dim), st.integers(8, 4096)))
    positions = draw(st.sampled_from(["learned", "rotary", "none"]))
    lm_head = draw(st.booleans())
    kwargs: dict[str, Any] = dict(
        vocab_size=draw(st.integers(1, 200_000)),
        d_model=d_model,
        n_layers=draw(st.integers(1, 96)),
        n_heads=n_heads,
        n_kv_heads=n_kv_heads,
        head_dim=head_dim,
        d_ff=draw(st.integers(1, 16384)),
        mlp=draw(st.sampled_from(["gelu", "gated"])),
        norm=draw(st.sampled_from(["layernorm", "rmsnorm"])),
        qkv_bias=draw(st.booleans()),
        out_bias=draw(st.booleans()),
        mlp_bias=draw(st.booleans()),
        lm_head=lm_head,
        tie_embeddings=lm_head and draw(st.booleans()),
        positions=positions,
        n_positions=draw(st.integers(1, 8192)) if positions == "learned" else 0,
        type_vocab_size=draw(st.sampled_from([0, 0, 2])),
        embedding_norm=draw(st.booleans()),
        final_norm=draw(st.booleans()),
        pooler=draw(st.booleans()),
    )
    if moe is None:
        moe = draw(st.booleans())
    if moe:
        n_experts = draw(st.integers(1, 64))
        kwargs.update(
            n_experts=n_experts,
            experts_per_token=draw(st.integers(1, n_experts)),
            n_shared_experts=draw(st.sampled_from([0, 0, 1, 2])),
            router_bias=draw(st.booleans()),
        )
    return kwargs


def model_specs(moe: bool | None = None) -> st.SearchStrategy[ModelSpec]:
    """Valid ModelSpecs (dense, MoE or either)."""
    return spec_kwargs(moe).map(lambda kw: ModelSpec(**kw))
