"""Architecture-family calculators for templates: GPT-2, Llama, MoE, GQA and the 12·L·d² rule of thumb."""

from __future__ import annotations

from typing import Any

from quizzer.core.model import model_active_params, model_params
from quizzer.core.params import attention_params, embedding_params
from quizzer.core.spec import ModelSpec
from quizzer.core.trace import Result, Trace, num
from quizzer.core.units import Unit

P = Unit.PARAMS


def gpt_total_params(vocab_size: int, n_positions: int, d_model: int, n_layers: int) -> Result:
    """GPT-2-style total: learned positions, biases everywhere, LayerNorm, 4·d GELU MLP, tied head.

    Per layer 12·d² + 13·d; plus V·d + T·d + 2·d for the final LayerNorm (Radford et al. 2019).

    >>> gpt_total_params(50257, 1024, 768, 12).value
    124439808
    """
    # Head count does not change an MHA layer's size; 64-wide heads make the derivation read naturally.
    n_heads = d_model // 64 if d_model % 64 == 0 else 1
    spec = ModelSpec(
        vocab_size=vocab_size,
        d_model=d_model,
        n_layers=n_layers,
        n_heads=n_heads,
        d_ff=4 * d_model,
        mlp="gelu",
        norm="layernorm",
        qkv_bias=True,
        out_bias=True,
        mlp_bias=True,
        tie_embeddings=True,
        positions="learned",
        n_positions=n_positions,
    )
    return model_params(spec)


def llama_total_params(
    vocab_size: int,
    d_model: int,
    n_layers: int,
    n_heads: int,
    n_kv_heads: int,
    head_dim: int,
    d_ff: int,
    tied: bool = False,
) -> Result:
    """Llama-style total: RMSNorm, gated MLP, no biases, rotary positions.

    L·(2·d·N·H + 2·d·K·H + 3·d·F + 2·d) + V·d (+ V·d untied head) + d.

    >>> llama_total_params(128256, 4096, 32, 32, 8, 128, 14336).value
    8030261248
    """
    spec = ModelSpec(
        vocab_size=vocab_size,
        d_model=d_model,
        n_layers=n_layers,
        n_heads=n_heads,
        n_kv_heads=n_kv_heads,
        head_dim=head_dim,
        d_ff=d_ff,
        tie_embeddings=tied,
    )
    return model_params(spec)


def _moe_spec(tied: bool, **shapes: int) -> ModelSpec:
    """A Llama-style MoE spec from the calculators' arguments (``tied`` names the head tying)."""
    fields: dict[str, Any] = shapes  # ints for int fields: mypy cannot match a dict's keys to ModelSpec's
    return ModelSpec(**fields, tie_embeddings=tied)


def moe_total_params(
    vocab_size: int,
    d_model: int,
    n_layers: int,
    n_heads: int,
    n_kv_heads: int,
    head_dim: int,
    d_ff: int,
    tied: bool,
    n_experts: int,
    experts_per_token: int,
) -> Result:
    """Llama-style mixture of experts, every MLP a set of gated experts with a bias-free router: all params.

    >>> moe_total_params(32000, 4096, 32, 32, 8, 128, 14336, False, 8, 2).value
    46702792704
    """
    return model_params(_moe_spec(**locals()))


def moe_active_params(
    vocab_size: int,
    d_model: int,
    n_layers: int,
    n_heads: int,
    n_kv_heads: int,
    head_dim: int,
    d_ff: int,
    tied: bool,
    n_experts: int,
    experts_per_token: int,
) -> Result:
    """Same model, the parameters one token uses (router and top-k experts per layer).

    >>> moe_active_params(32000, 4096, 32, 32, 8, 128, 14336, False, 8, 2).value
    12879925248
    """
    return model_active_params(_moe_spec(**locals()))


def gqa_attention_params(d_model: int, n_heads: int, n_kv_heads: int, head_dim: int) -> Result:
    """One grouped-query attention layer without biases: 2·d·N·H + 2·d·K·H.

    >>> gqa_attention_params(8192, 64, 8, 128).value
    150994944
    """
    return attention_params(d_model, n_heads, n_kv_heads, head_dim)


def approx_params(n_layers: int, d_model: int, vocab_size: int = 0) -> Result:
    """The rule of thumb 12·L·d² (+ V·d for one embedding table): 4d² attention, 8d² for a 4x MLP per layer.

    Ignores biases, norms and positions (Kaplan et al. 2020; kipply's "LLM Parameter Counting").

    >>> approx_params(64, 8192, 65536).value
    52076478464
    """
    t = Trace()
    layers = t.step(
        "Layers (4d² attention + 8d² MLP)",
        "12 × n_layers × d_model²",
        f"12 × {num(n_layers)} × {num(d_model)}²",
        12 * n_layers * d_model**2,
        P,
    )
    if not vocab_size:
        return t.done(layers, P, "approximation: biases, norms and embeddings left out")
    emb = t.use(embedding_params(vocab_size, d_model))
    value = t.step("Approximate total", "12·L·d² + V·d", f"{num(layers)} + {num(emb)}", layers + emb, P)
    return t.done(value, P, "approximation: biases, norms and positions left out; one embedding table")
