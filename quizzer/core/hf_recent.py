"""from_hf_config builders for 2024-26 decoders: Qwen3, Gemma 2/3, OLMo, Granite, gpt-oss, Llama 4, DeepSeek.

Each follows the transformers 4.57 config class and model of its type: the defaults below are that class's,
so a config.json that leaves a field out gets what transformers would build.
"""

from __future__ import annotations

from typing import Any

from quizzer.core.errors import ConfigError
from quizzer.core.hf_fields import Builder, Config, get, layer_types, sliding_every, windowed


def _base(c: Config, tie_default: bool = False, head_dim: Any = None) -> dict[str, Any]:
    """Llama-style fields: RMSNorm, gated MLP, rotary, attention_bias on q, k, v and o."""
    n_heads = get(c, "num_attention_heads")
    bias = bool(c.get("attention_bias", False))
    return dict(
        vocab_size=get(c, "vocab_size"),
        d_model=get(c, "hidden_size"),
        n_layers=get(c, "num_hidden_layers"),
        n_heads=n_heads,
        n_kv_heads=c.get("num_key_value_heads") or n_heads,
        head_dim=c.get("head_dim", head_dim),  # the class default when absent; null: hidden_size / heads
        d_ff=get(c, "intermediate_size"),
        qkv_bias=bias,
        out_bias=bias,
        mlp_bias=bool(c.get("mlp_bias", False)),
        tie_embeddings=c.get("tie_word_embeddings", tie_default),
    )


def qwen_layer_types(c: Config, n_layers: int) -> tuple[str, ...]:
    """Qwen2/Qwen3: with use_sliding_window, layers from max_window_layers (default 28) on slide."""
    if c.get("layer_types"):
        return layer_types(c, n_layers)
    if not c.get("use_sliding_window", False) or c.get("sliding_window") is None:
        return ()
    start = c.get("max_window_layers", 28)
    return tuple("sliding" if i >= start else "full" for i in range(n_layers))


def _qwen3(c: Config) -> dict[str, Any]:
    """Qwen3: per-head q/k RMSNorms, head_dim 128 by default (not hidden_size / heads)."""
    spec = _base(c, head_dim=128)
    spec["qk_norm"] = "head"
    window = c.get("sliding_window") if c.get("use_sliding_window", False) else None
    return windowed(spec, qwen_layer_types(c, spec["n_layers"]), window)


def _qwen3_moe(c: Config) -> dict[str, Any]:
    """Qwen3-MoE: experts on every decoder_sparse_step-th layer except mlp_only_layers; no shared expert."""
    spec = _base(c)
    n_layers = spec["n_layers"]
    step = c.get("decoder_sparse_step", 1) or 1
    dense = set(c.get("mlp_only_layers") or ())
    moe = [i for i in range(n_layers) if i not in dense and (i + 1) % step == 0]
    if c.get("use_sliding_window", False) and c.get("sliding_window"):
        spec["sliding_window"] = c["sliding_window"]  # no layer_types: transformers slides every layer
    if not moe or not c.get("num_experts", 128):
        return spec
    spec.update(
        qk_norm="head",
        n_experts=c.get("num_experts", 128),
        experts_per_token=c.get("num_experts_per_tok", 8),
        d_ff_expert=c.get("moe_intermediate_size", 768),
    )
    if dense:
        spec["moe_layers"] = tuple(moe)
    else:
        spec["moe_layer_step"] = step
    return spec


def _gemma(pattern: int, qk_norm: str) -> Builder:
    def build(c: Config) -> dict[str, Any]:
        """Gemma 2/3: sandwich norms (four per layer), tied head, head_dim 256, every pattern-th full."""
        spec = _base(c, tie_default=True, head_dim=256)
        spec.update(norm_placement="sandwich", qk_norm=qk_norm)
        every = c.get("sliding_window_pattern", c.get("_sliding_window_pattern", pattern))
        window = c.get("sliding_window", 4096)
        if window and c.get("use_bidirectional_attention"):
            window = window // 2 + 1  # as Gemma3TextConfig does
        kinds = layer_types(c, spec["n_layers"], sliding_every(every))
        return windowed(spec, kinds, window) if window else spec

    return build


def _olmo(c: Config) -> dict[str, Any]:
    """OLMo (v1): LayerNorms without weight or bias."""
    spec = _base(c)
    spec["norm"] = "nonparametric"
    return spec


def _olmo2(c: Config) -> dict[str, Any]:
    """OLMo 2: norms after attention and MLP (no pre-norm), q/k RMSNorms over the whole projections."""
    spec = _base(c)
    spec.update(norm_placement="post", qk_norm="projection")
    return spec


def _gpt_oss(c: Config) -> dict[str, Any]:
    """gpt-oss: alternating sliding (128) and full layers, attention sinks, biases on everything."""
    spec = _base(c, head_dim=64)
    spec.update(
        qkv_bias=True,  # GptOssConfig sets attention_bias = True whatever the file says
        out_bias=True,
        attention_sinks=True,
        n_experts=c.get("num_local_experts", 128),
        experts_per_token=c.get("num_experts_per_tok", 4),
        router_bias=True,
        expert_bias=True,
    )
    kinds = layer_types(c, spec["n_layers"], sliding_every(2))
    return windowed(spec, kinds, c.get("sliding_window", 128))


def _llama4_text(c: Config) -> dict[str, Any]:
    """Llama 4 (text): chunked attention on the rotary layers, NoPE full attention on every 4th, a shared
    expert beside the routed ones, experts on every interleave_moe_layer_step-th layer."""
    spec = _base(c, head_dim=128)
    n_layers = spec["n_layers"]
    interval = c.get("no_rope_layer_interval", 4)
    rope = c.get("no_rope_layers") or [int((i + 1) % interval != 0) for i in range(n_layers)]
    if len(rope) != n_layers:
        raise ConfigError(f"no_rope_layers has {len(rope)} entries for {n_layers} layers")
    step = c.get("interleave_moe_layer_step", 1)
    moe = c.get("moe_layers")
    moe = list(range(step - 1, n_layers, step)) if moe is None else list(moe)
    spec.update(
        qkv_bias=False,  # Llama4TextConfig fixes attention_bias = False
        out_bias=False,
        d_ff=c.get("intermediate_size_mlp", 16384),
        nope_layers=tuple(i for i, uses_rope in enumerate(rope) if not uses_rope),
        qk_norm="l2" if c.get("use_qk_norm", True) else "none",
    )
    if moe:
        spec.update(
            d_ff_expert=c["intermediate_size"],
            n_experts=c.get("num_local_experts", 16),
            experts_per_token=c.get("num_experts_per_tok", 1),
            n_shared_experts=1,  # Llama4TextMoe always has its shared expert
            moe_layers=tuple(moe),
        )
    kinds = layer_types(c, n_layers, lambda i: "chunked" if rope[i] else "full")
    if "chunked" in kinds:
        spec.update(layer_types=kinds, attention_chunk_size=c.get("attention_chunk_size", 8192))
    elif "sliding" in kinds:
        raise ConfigError("llama4_text with sliding_attention layers is not supported")
    return spec


def _deepseek(defaults: dict[str, Any]) -> Builder:
    def build(c: Config) -> dict[str, Any]:
        """DeepSeek-V2/V3 (and Kimi K2): MLA, dense first layers, routed plus shared experts."""
        c = {**defaults, **c}
        spec = _base(c)
        spec.update(
            n_kv_heads=spec["n_heads"],  # MLA: every head has its own decompressed K and V
            head_dim=None,
            kv_lora_rank=get(c, "kv_lora_rank"),
            q_lora_rank=c["q_lora_rank"] or 0,  # null: queries are projected directly (DeepSeek-V2-Lite)
            qk_rope_head_dim=get(c, "qk_rope_head_dim"),
            qk_nope_head_dim=get(c, "qk_nope_head_dim"),
            v_head_dim=get(c, "v_head_dim"),
        )
        first_dense = c.get("first_k_dense_replace") or 0
        if c.get("n_routed_experts") and first_dense < spec["n_layers"]:
            spec.update(
                n_experts=c["n_routed_experts"],
                experts_per_token=get(c, "num_experts_per_tok"),
                n_shared_experts=c.get("n_shared_experts") or 0,
                d_ff_expert=get(c, "moe_intermediate_size"),
                first_dense_layers=first_dense,
            )
        return spec

    return build


#: DeepseekV2Config / DeepseekV3Config defaults of the fields that are not sizes (transformers 4.57).
_DEEPSEEK_V2 = dict(
    kv_lora_rank=512,
    q_lora_rank=1536,
    qk_nope_head_dim=128,
    qk_rope_head_dim=64,
    v_head_dim=128,
    n_routed_experts=64,
    n_shared_experts=2,
    moe_intermediate_size=1407,
    first_k_dense_replace=0,
)
_DEEPSEEK_V3 = dict(
    kv_lora_rank=512,
    q_lora_rank=1536,
    qk_nope_head_dim=128,
    qk_rope_head_dim=64,
    v_head_dim=128,
    n_routed_experts=256,
    n_shared_experts=1,
    moe_intermediate_size=2048,
    num_experts_per_tok=8,
    first_k_dense_replace=3,
)

BUILDERS: dict[str, Builder] = {
    "qwen3": _qwen3,
    "qwen3_moe": _qwen3_moe,
    "gemma2": _gemma(2, "none"),
    "gemma3_text": _gemma(6, "head"),
    "olmo": _olmo,
    "olmo2": _olmo2,
    "granite": lambda c: _base(c),
    "gpt_oss": _gpt_oss,
    "llama4_text": _llama4_text,
    "deepseek_v2": _deepseek(_DEEPSEEK_V2),
    "deepseek_v3": _deepseek(_DEEPSEEK_V3),
    "kimi_k2": _deepseek(_DEEPSEEK_V3),  # Kimi K2 ships DeepseekV3ForCausalLM with its own model_type
}
