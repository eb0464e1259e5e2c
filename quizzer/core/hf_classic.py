"""from_hf_config builders for earlier layouts: Phi-2, Falcon, GPT-J, BLOOM, StableLM, the T5 encoder-decoder.

Defaults follow the transformers 4.57 config classes; older key names (``n_layer``, ``n_head``, ``n_embed``)
are read too.
"""

from __future__ import annotations

from typing import Any

from quizzer.core.errors import ConfigError
from quizzer.core.hf_fields import Builder, Config, get


def _phi(c: Config) -> dict[str, Any]:
    """Phi-2: parallel attention and MLP behind one LayerNorm, biases everywhere (the LM head too)."""
    n_heads = get(c, "num_attention_heads")
    qk = bool(c.get("qk_layernorm", False))
    return dict(
        vocab_size=get(c, "vocab_size"),
        d_model=get(c, "hidden_size"),
        n_layers=get(c, "num_hidden_layers"),
        n_heads=n_heads,
        n_kv_heads=c.get("num_key_value_heads") or n_heads,
        d_ff=get(c, "intermediate_size"),
        mlp="gelu",
        norm="layernorm",
        qkv_bias=True,
        out_bias=True,
        mlp_bias=True,
        norms_per_layer=1,
        parallel_attention=True,
        lm_head_bias=True,
        tie_embeddings=c.get("tie_word_embeddings", False),
        qk_norm="head" if qk else "none",
        qk_norm_bias=qk,  # one LayerNorm(head_dim) for q and one for k, with biases
    )


def _falcon(c: Config) -> dict[str, Any]:
    """Falcon: fused QKV, multi-query (7B) or grouped KV heads in the new decoder layout (40B, 180B), parallel
    attention behind one or two LayerNorms, ALiBi or rotary, tied head."""
    d = get(c, "hidden_size", ..., "n_embed")
    n_heads = get(c, "num_attention_heads", ..., "n_head")
    new = bool(c.get("new_decoder_architecture", False))
    if new:
        n_kv = c.get("num_kv_heads") or n_heads
    else:  # num_kv_heads is ignored by the old layout
        n_kv = 1 if c.get("multi_query", True) else n_heads
    parallel = bool(c.get("parallel_attn", True))
    n_ln = c.get("num_ln_in_parallel_attn") or (2 if new else 1)
    bias = bool(c.get("bias", False))
    return dict(
        vocab_size=get(c, "vocab_size"),
        d_model=d,
        n_layers=get(c, "num_hidden_layers", ..., "n_layer"),
        n_heads=n_heads,
        n_kv_heads=n_kv,
        d_ff=c.get("ffn_hidden_size") or 4 * d,
        mlp="gelu",
        norm="layernorm",
        qkv_bias=bias,
        out_bias=bias,
        mlp_bias=bias,
        norms_per_layer=(2 if n_ln == 2 else 1) if parallel else 2,
        parallel_attention=parallel,
        positions="alibi" if c.get("alibi", False) else "rotary",
        tie_embeddings=c.get("tie_word_embeddings", True),
    )


def _gptj(c: Config) -> dict[str, Any]:
    """GPT-J: parallel attention and MLP behind one LayerNorm, no attention biases, a biased untied head."""
    d = get(c, "n_embd", ..., "hidden_size")
    return dict(
        vocab_size=get(c, "vocab_size"),
        d_model=d,
        n_layers=get(c, "n_layer", ..., "num_hidden_layers"),
        n_heads=get(c, "n_head", ..., "num_attention_heads"),
        d_ff=c.get("n_inner") or 4 * d,
        mlp="gelu",
        norm="layernorm",
        mlp_bias=True,
        norms_per_layer=1,
        parallel_attention=True,
        lm_head_bias=True,
        tie_embeddings=c.get("tie_word_embeddings", False),
    )


def _bloom(c: Config) -> dict[str, Any]:
    """BLOOM: ALiBi (no position parameters), a LayerNorm after the embeddings, biases everywhere, tied."""
    d = get(c, "hidden_size", ..., "n_embed")
    return dict(
        vocab_size=get(c, "vocab_size"),
        d_model=d,
        n_layers=get(c, "n_layer", ..., "num_hidden_layers"),
        n_heads=get(c, "n_head", ..., "num_attention_heads"),
        d_ff=4 * d,
        mlp="gelu",
        norm="layernorm",
        qkv_bias=True,
        out_bias=True,
        mlp_bias=True,
        positions="alibi",
        embedding_norm=True,
        tie_embeddings=c.get("tie_word_embeddings", True),
    )


def _stablelm(c: Config) -> dict[str, Any]:
    """StableLM (2): LayerNorms with biases, optional q/k/v biases, optional per-head q/k LayerNorms (one per
    head, without bias: the count of a norm over the whole projection), optional parallel residual."""
    parallel = bool(c.get("use_parallel_residual", False))
    qkv_bias = bool(c.get("use_qkv_bias", False))
    return dict(
        vocab_size=get(c, "vocab_size"),
        d_model=get(c, "hidden_size"),
        n_layers=get(c, "num_hidden_layers"),
        n_heads=get(c, "num_attention_heads"),
        n_kv_heads=c.get(
            "num_key_value_heads", 32
        ),  # StableLmConfig's default is 32, not num_attention_heads
        d_ff=get(c, "intermediate_size"),
        norm="layernorm",
        qkv_bias=qkv_bias,
        norms_per_layer=1 if parallel else 2,
        parallel_attention=parallel,
        qk_norm="projection" if c.get("qk_layernorm", False) else "none",
        tie_embeddings=c.get("tie_word_embeddings", False),
    )


def _t5(c: Config) -> dict[str, Any]:
    """T5 (and T5 v1.1 / Flan-T5): encoder and decoder stacks, cross-attention, a relative-position bias
    table per stack, weight-only norms, no biases; the head is tied unless tie_word_embeddings is false."""
    proj = c.get("feed_forward_proj", "relu")
    parts = proj.split("-")
    if len(parts) > 2 or (len(parts) == 2 and parts[0] != "gated"):
        raise ConfigError(f"feed_forward_proj ({proj!r}) must be 'ACT' or 'gated-ACT'")
    n_layers = get(c, "num_layers")
    return dict(
        vocab_size=get(c, "vocab_size"),
        d_model=get(c, "d_model"),
        n_layers=c.get("num_decoder_layers") or n_layers,
        n_encoder_layers=n_layers,
        n_heads=get(c, "num_heads"),
        head_dim=c.get("d_kv", 64),
        d_ff=get(c, "d_ff"),
        mlp="gated" if parts[0] == "gated" else "gelu",
        norm="rmsnorm",
        positions="relative",
        relative_attention_buckets=c.get("relative_attention_num_buckets", 32),
        tie_embeddings=c.get("tie_word_embeddings", True),
    )


BUILDERS: dict[str, Builder] = {
    "phi": _phi,
    "falcon": _falcon,
    "gptj": _gptj,
    "bloom": _bloom,
    "stablelm": _stablelm,
    "t5": _t5,
}
