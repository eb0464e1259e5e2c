"""from_hf_config builders for the architectures of late 2025 and 2026: hybrids with fixed-state mixers
(Qwen3-Next, Kimi Linear, Nemotron-H, LFM2), DeepSeek-V3.2's indexer, and the new dense and MoE decoders
(GLM-4.5, MiniMax-M2, SmolLM3, OLMo 3, ERNIE 4.5, Seed-OSS, EXAONE 4, Apertus).

Each follows the transformers 5.23 config class and model of its type: a field the file leaves out takes
that class's default, so a config.json gets what transformers would build.
"""

from __future__ import annotations

from typing import Any

from quizzer.core.errors import ConfigError
from quizzer.core.hf_fields import Builder, Config, get, layer_types, sliding_every, windowed
from quizzer.core.hf_recent import _DEEPSEEK_V3, _base, _deepseek


def _moe_layers(n_layers: int, dense: set[int], step: int = 1) -> tuple[int, ...]:
    """Layers with experts: every step-th layer (i + 1) % step == 0, except the listed dense ones."""
    return tuple(i for i in range(n_layers) if i not in dense and (i + 1) % step == 0)


def _kinds(c: Config, n_layers: int, full_every: int) -> tuple[str, ...]:
    """Layer kinds from ``layer_types``, else every ``full_attention_interval``-th layer full, the rest the
    mixer's ('linear')."""
    interval = c.get("full_attention_interval", full_every)
    return layer_types(c, n_layers, lambda i: "full" if (i + 1) % interval == 0 else "linear")


def _qwen3_next(c: Config) -> dict[str, Any]:
    """Qwen3-Next: gated DeltaNet layers with every 4th gated softmax attention (q_proj doubled for the output
    gate, per-head q/k norms, partial RoPE); 512 experts top-10 and a gated shared expert."""
    spec = _base(c, head_dim=256)
    n = spec["n_layers"]
    spec.update(
        qk_norm="head",
        attention_output_gate=True,
        layer_types=_kinds(c, n, 4),
        mixer="gated_deltanet",
        mixer_heads=c.get("linear_num_value_heads", 32),
        mixer_key_heads=c.get("linear_num_key_heads", 16),
        mixer_key_dim=c.get("linear_key_head_dim", 128),
        mixer_value_dim=c.get("linear_value_head_dim", 128),
        mixer_conv_kernel=c.get("linear_conv_kernel_dim", 4),
    )
    experts = c.get("num_experts", 512)
    moe = _moe_layers(n, set(c.get("mlp_only_layers") or ()), c.get("decoder_sparse_step", 1) or 1)
    if experts and moe:
        shared = c.get("shared_expert_intermediate_size", 512)
        spec.update(
            n_experts=experts,
            experts_per_token=c.get("num_experts_per_tok", 10),
            d_ff_expert=c.get("moe_intermediate_size", 512),
            moe_layers=moe,
        )
        if shared:
            spec.update(n_shared_experts=1, d_ff_shared=shared, shared_expert_gate=True)
    return spec


#: DeepseekV32Config's defaults (transformers 5.23) for the fields that are not sizes: DeepSeek-V3's.
_DEEPSEEK_V32 = _DEEPSEEK_V3


def _deepseek_v32(c: Config) -> dict[str, Any]:
    """DeepSeek-V3.2: DeepSeek-V3 (MLA, shared expert, dense first layers) plus the lightning indexer of
    DeepSeek Sparse Attention in every layer."""
    spec = _deepseek(_DEEPSEEK_V32)(c)
    spec.update(
        index_n_heads=c.get("index_n_heads", 64),
        index_head_dim=c.get("index_head_dim", 128),
        index_topk=c.get("index_topk", 2048),
    )
    return spec


def _glm4_moe(c: Config) -> dict[str, Any]:
    """GLM-4.5/4.6: biases on q, k and v (not o), optional per-head q/k norms, routed + shared experts after
    first_k_dense_replace dense layers (the router's correction bias is a buffer, not a parameter)."""
    spec = _base(c, head_dim=None)
    bias = bool(c.get("attention_bias", False))
    spec.update(qkv_bias=bias, out_bias=False)
    if c.get("use_qk_norm", False):
        spec["qk_norm"] = "head"
    first_dense = c.get("first_k_dense_replace", 1)
    experts = c.get("n_routed_experts", 128)
    if experts and first_dense < spec["n_layers"]:
        spec.update(
            n_experts=experts,
            experts_per_token=c.get("num_experts_per_tok", 8),
            n_shared_experts=c.get("n_shared_experts", 1),
            d_ff_expert=c.get("moe_intermediate_size", 1408),
            first_dense_layers=first_dense,
        )
    return spec


def _minimax_m2(c: Config) -> dict[str, Any]:
    """MiniMax-M2: q/k RMSNorms over the whole projections, 256 experts top-8 in every layer, no shared expert
    (the router's correction bias is a buffer)."""
    spec = _base(c, head_dim=128)
    spec.update(
        qk_norm="projection",
        n_experts=c.get("num_local_experts", 256),
        experts_per_token=c.get("num_experts_per_tok", 8),
        d_ff_expert=spec["d_ff"],
    )
    return spec


def _smollm3(c: Config) -> dict[str, Any]:
    """SmolLM3: Llama-shaped, tied; no rotary positions on every no_rope_layer_interval-th layer."""
    spec = _base(c, tie_default=True)
    n = spec["n_layers"]
    flags = c.get("no_rope_layers")
    if flags is None:
        interval = c.get("no_rope_layer_interval", 4)
        flags = [int((i + 1) % interval != 0) for i in range(n)]
    if len(flags) != n:
        raise ConfigError(f"no_rope_layers has {len(flags)} entries for {n} layers")
    spec["nope_layers"] = tuple(i for i, uses_rope in enumerate(flags) if not uses_rope)
    window = c.get("sliding_window") if c.get("use_sliding_window", False) else None
    return windowed(spec, layer_types(c, n), window) if window else spec


def _olmo3(c: Config) -> dict[str, Any]:
    """OLMo 3: OLMo 2 (norms after attention and MLP, q/k norms over the projections) with three sliding
    layers to one full."""
    spec = _base(c)
    spec.update(norm_placement="post", qk_norm="projection")
    kinds = layer_types(c, spec["n_layers"], sliding_every(4))
    return windowed(spec, kinds, c.get("sliding_window", 4096))


def _ernie4_5_moe(c: Config) -> dict[str, Any]:
    """ERNIE 4.5 MoE: experts from moe_layer_start_index every moe_layer_interval layers, shared experts of
    moe_intermediate_size each, a router whose correction bias is a parameter (n_experts more); use_bias puts
    biases on every projection and the head."""
    spec = _base(c, tie_default=True)
    bias = bool(c.get("use_bias", False))
    spec.update(qkv_bias=bias, out_bias=bias, mlp_bias=bias, lm_head_bias=bias)
    n = spec["n_layers"]
    start, end = c.get("moe_layer_start_index", 1), c.get("moe_layer_end_index", n - 1)
    interval = c.get("moe_layer_interval", 1)
    if isinstance(start, list | tuple) or isinstance(end, list | tuple):
        raise ConfigError("ernie4_5_moe with per-modality moe_layer_start_index lists is not supported")
    end = n - 1 if end in (-1, None) else end
    moe = tuple(i for i in range(n) if (i + 1) % interval == 0 and start <= i <= end)
    experts = c.get("moe_num_experts", 64)
    if experts and moe:
        shared = c.get("moe_num_shared_experts", 2)
        spec.update(
            n_experts=experts,
            experts_per_token=c.get("moe_k", 6),
            d_ff_expert=c.get("moe_intermediate_size", 1536),
            n_shared_experts=shared,
            router_bias=True,  # e_score_correction_bias: an nn.Parameter in Ernie4_5_MoeStatics
            expert_bias=bias,
        )
        if moe == tuple(range(moe[0], n)):  # dense first layers, then experts everywhere (as DeepSeek's rule)
            spec["first_dense_layers"] = moe[0]
        else:
            spec["moe_layers"] = moe
    return spec


def _seed_oss(c: Config) -> dict[str, Any]:
    """Seed-OSS: biases on q, k and v (attention_bias), on o only with attention_out_bias."""
    spec = _base(c, head_dim=128)
    spec.update(
        qkv_bias=bool(c.get("attention_bias", True)), out_bias=bool(c.get("attention_out_bias", False))
    )
    return spec


def _exaone4(c: Config) -> dict[str, Any]:
    """EXAONE 4: norms after attention and MLP (none before), per-head q/k norms, every
    sliding_window_pattern-th layer full (the pattern may be a string such as 'LLLG')."""
    spec = _base(c)
    spec.update(norm_placement="post", qk_norm="head")
    window = c.get("sliding_window", 4096)
    pattern = c.get("sliding_window_pattern", 4)
    if isinstance(pattern, str):
        kinds = layer_types(
            c, spec["n_layers"], lambda i: "full" if pattern[i % len(pattern)] == "G" else "sliding"
        )
    elif window and pattern:
        kinds = layer_types(c, spec["n_layers"], sliding_every(pattern))
    else:
        kinds = layer_types(c, spec["n_layers"])
    return windowed(spec, kinds, window) if window else spec


def _apertus(c: Config) -> dict[str, Any]:
    """Apertus: a non-gated MLP (up, down) whose xIELU activation learns two scalars per layer; per-head q/k
    norms."""
    spec = _base(c)
    spec.update(mlp="gelu", qk_norm="head")
    if c.get("hidden_act", "xielu") == "xielu":
        spec["mlp_activation_params"] = 2
    return spec


def _lfm2(c: Config) -> dict[str, Any]:
    """LFM2: gated short-convolution layers between GQA layers (per-head q/k norms); a final norm (called
    embedding_norm); the MLP width auto-adjusted from block_ff_dim as transformers does."""
    d = get(c, "hidden_size")
    n = get(c, "num_hidden_layers")
    heads = get(c, "num_attention_heads")
    ff = c.get("block_ff_dim", c.get("intermediate_size", 12288))
    if c.get("block_auto_adjust_ff_dim", True):
        ff = int(2 * ff / 3)
        multiplier = c.get("block_ffn_dim_multiplier", 1.0)
        if multiplier is not None:
            ff = int(multiplier * ff)
        multiple = c.get("block_multiple_of", 256)
        ff = multiple * ((ff + multiple - 1) // multiple)
    full = c.get("full_attn_idxs")
    if c.get("layer_types"):
        kinds = layer_types(c, n)
    elif full is not None:
        kinds = tuple("full" if i in set(full) else "linear" for i in range(n))
    else:
        raise ConfigError("config.json for model_type 'lfm2' gives neither layer_types nor full_attn_idxs")
    bias = bool(c.get("conv_bias", False))
    return dict(
        vocab_size=get(c, "vocab_size"),
        d_model=d,
        n_layers=n,
        n_heads=heads,
        n_kv_heads=c.get("num_key_value_heads") or heads,
        d_ff=ff,
        qk_norm="head",
        tie_embeddings=c.get("tie_word_embeddings", c.get("tie_embedding", True)),
        layer_types=kinds,
        mixer="short_conv",
        mixer_conv_kernel=c.get("conv_L_cache", 3),
        mixer_conv_bias=bias,
        mixer_bias=bias,
    )


#: Nemotron-H's pattern letters and block type names -> quizzer's layer kinds (an MLP-only block is 'mlp').
_NEMOTRON_BLOCKS = {
    "M": "linear",
    "*": "full",
    "-": "mlp",
    "E": "moe",
    "mamba": "linear",
    "linear_attention": "linear",
    "attention": "full",
    "full_attention": "full",
    "mlp": "mlp",
    "moe": "moe",
}


def _nemotron_h(c: Config) -> dict[str, Any]:
    """Nemotron-H: each block is one Mamba-2 mixer, attention, MLP (non-gated, relu²) or MoE, after one norm;
    the layers come from layers_block_type or hybrid_override_pattern ('M', '*', '-', 'E')."""
    blocks = c.get("layers_block_type") or c.get("layer_types")
    if not blocks:
        blocks = list(c.get("hybrid_override_pattern") or "") or ["mamba", "moe", "attention", "mlp"]
    try:
        kinds = [_NEMOTRON_BLOCKS[b] for b in blocks]
    except KeyError as exc:
        raise ConfigError(f"nemotron_h block type {exc.args[0]!r} is not known") from None
    heads = get(c, "num_attention_heads")
    spec: dict[str, Any] = dict(
        vocab_size=get(c, "vocab_size"),
        d_model=get(c, "hidden_size"),
        n_layers=len(kinds),
        n_heads=heads,
        n_kv_heads=c.get("num_key_value_heads") or heads,
        head_dim=c.get("head_dim") or c.get("attention_head_dim") or 128,
        d_ff=c.get("intermediate_size", 21504),
        mlp="gelu",  # relu² on up, then down: two matrices
        mlp_bias=bool(c.get("mlp_bias", False)),
        norms_per_layer=1,
        tie_embeddings=c.get("tie_word_embeddings", False),
        layer_types=tuple("mlp" if k == "moe" else k for k in kinds),
        no_mlp_layers=tuple(i for i, k in enumerate(kinds) if k in ("linear", "full")),
    )
    if "linear" in kinds:
        bias = bool(c.get("use_bias", False))
        spec.update(
            mixer="mamba2",
            mixer_heads=c.get("mamba_num_heads", 128),
            mixer_key_heads=c.get("n_groups", c.get("mamba_n_groups", 8)),
            mixer_key_dim=c.get("ssm_state_size", c.get("mamba_d_state", 128)),
            mixer_value_dim=c.get("mamba_head_dim", c.get("mamba_d_head", 64)),
            mixer_conv_kernel=c.get("conv_kernel", c.get("mamba_d_conv", 4)),
            mixer_conv_bias=bool(c.get("use_conv_bias", c.get("mamba_conv_bias", True))),
            mixer_bias=bias,
        )
    moe = tuple(i for i, k in enumerate(kinds) if k == "moe")
    if moe:
        if c.get("moe_latent_size"):
            raise ConfigError("nemotron_h with moe_latent_size (latent expert projections) is not supported")
        shared = c.get("n_shared_experts", 1)
        spec.update(
            n_experts=c.get("n_routed_experts", 8),
            experts_per_token=c.get("num_experts_per_tok", 2),
            d_ff_expert=c.get("moe_intermediate_size", 7688),
            moe_layers=moe,
        )
        if shared:
            spec.update(
                n_shared_experts=shared, d_ff_shared=c.get("moe_shared_expert_intermediate_size", 7688)
            )
    return spec


def _kimi_linear(c: Config) -> dict[str, Any]:
    """Kimi Linear: Kimi Delta Attention layers with MLA (no rotary) every few layers; routed + shared
    experts after the first dense layer(s). Layers from layer_types or linear_attn_config's 1-based
    full_attn_layers and kda_layers."""
    n = get(c, "num_hidden_layers")
    linear = c.get("linear_attn_config") or {}
    listed = c.get("layer_types")
    if listed:
        kinds = layer_types(c, n)
    elif "full_attn_layers" in linear and "kda_layers" in linear:
        full = {i - 1 for i in linear["full_attn_layers"]}
        kinds = tuple("full" if i in full else "linear" for i in range(n))
    else:
        kinds = tuple("full" if (i + 1) % 4 == 0 else "linear" for i in range(n))
    defaults = dict(
        kv_lora_rank=512,
        q_lora_rank=None,
        qk_nope_head_dim=128,
        qk_rope_head_dim=64,
        v_head_dim=128,
        n_routed_experts=0,
        n_shared_experts=0,
        moe_intermediate_size=1024,
        first_k_dense_replace=1,
    )
    renamed = dict(c)
    renamed.setdefault("n_routed_experts", c.get("num_experts", 256))
    renamed.setdefault("num_experts_per_tok", c.get("num_experts_per_token", 8))
    renamed.setdefault("n_shared_experts", c.get("num_shared_experts", 1))
    renamed.setdefault("q_lora_rank", None)
    spec = _deepseek(defaults)(renamed)
    mlp_kinds = c.get("mlp_layer_types")
    if mlp_kinds and spec.get("n_experts"):
        sparse = tuple(i for i, k in enumerate(mlp_kinds) if k == "sparse")
        first = n - len(sparse)
        if sparse == tuple(range(first, n)):  # the first_k_dense_replace rule: one spec for both spellings
            spec["first_dense_layers"] = first
        else:
            spec.pop("first_dense_layers", None)
            spec["moe_layers"] = sparse
    spec.update(
        layer_types=kinds,
        mixer="kda",
        mixer_heads=linear.get("num_heads", c.get("linear_num_heads", 32)),
        mixer_key_dim=linear.get("head_dim", c.get("linear_head_dim", 128)),
        mixer_conv_kernel=linear.get("short_conv_kernel_size", c.get("linear_conv_kernel_dim", 4)),
    )
    return spec


def _granitemoehybrid(c: Config) -> dict[str, Any]:
    """Granite 4.0-H: Mamba-2 or attention layers (layer_types / layers_block_type), each with a shared
    gated MLP (shared_intermediate_size) beside its routed experts (none when num_local_experts is 0)."""
    spec = _base(c)
    n = spec["n_layers"]
    blocks = c.get("layer_types") or c.get("layers_block_type") or ["mamba"] * n
    if len(blocks) != n:
        raise ConfigError(f"layer_types has {len(blocks)} entries for {n} layers")
    kinds = tuple("linear" if b in ("mamba", "linear_attention") else "full" for b in blocks)
    d, heads = spec["d_model"], c.get("mamba_n_heads", 128)
    head_dim = c.get("mamba_d_head", "auto")
    if head_dim == "auto":
        head_dim = c.get("mamba_expand", 2) * d // heads
    shared = c.get("shared_intermediate_size", 1024)
    experts = c.get("num_local_experts", 8)
    spec.update(layer_types=kinds, d_ff=shared)
    if "linear" in kinds:
        spec.update(
            mixer="mamba2",
            mixer_heads=heads,
            mixer_key_heads=c.get("mamba_n_groups", 1),
            mixer_key_dim=c.get("mamba_d_state", 256),
            mixer_value_dim=head_dim,
            mixer_conv_kernel=c.get("mamba_d_conv", 4),
            mixer_conv_bias=bool(c.get("mamba_conv_bias", True)),
            mixer_bias=bool(c.get("mamba_proj_bias", False)),
        )
    if experts:
        spec.update(
            n_experts=experts,
            experts_per_token=c.get("num_experts_per_tok", 2),
            d_ff_expert=get(c, "intermediate_size"),
            n_shared_experts=1,
            d_ff_shared=shared,
        )
    return spec


def _falcon_h1(c: Config) -> dict[str, Any]:
    """Falcon-H1: every layer runs full attention and a Mamba-2 mixer side by side on the same input
    ('parallel' layers), then a gated MLP; the mixer's gated norm only with mamba_rms_norm. Its muP
    multipliers scale activations and add no parameters."""
    spec = _base(c)
    d = spec["d_model"]
    heads = c.get("mamba_n_heads", 128)
    inner = c.get("mamba_d_ssm") or c.get("mamba_expand", 2) * d
    head_dim = c.get("mamba_d_head", "auto")
    if head_dim == "auto":
        head_dim = inner // heads
    if heads * head_dim != inner:
        raise ConfigError(
            f"mamba_n_heads × mamba_d_head ({heads} × {head_dim}) must be mamba_d_ssm ({inner})"
        )
    if bool(c.get("mamba_proj_bias", False)) != bool(c.get("projectors_bias", False)):
        raise ConfigError("falcon_h1 with a bias on only one of the mixer's projections is not supported")
    spec.update(
        layer_types=("parallel",) * spec["n_layers"],
        mixer="mamba2",
        mixer_heads=heads,
        mixer_key_heads=c.get("mamba_n_groups", 1),
        mixer_key_dim=c.get("mamba_d_state", 256),
        mixer_value_dim=head_dim,
        mixer_conv_kernel=c.get("mamba_d_conv", 4),
        mixer_conv_bias=bool(c.get("mamba_conv_bias", True)),
        mixer_bias=bool(c.get("mamba_proj_bias", False)),
        mixer_norm=bool(c.get("mamba_rms_norm", False)),
    )
    return spec


BUILDERS: dict[str, Builder] = {
    "qwen3_next": _qwen3_next,
    "deepseek_v32": _deepseek_v32,
    "glm4_moe": _glm4_moe,
    "minimax_m2": _minimax_m2,
    "smollm3": _smollm3,
    "olmo3": _olmo3,
    "ernie4_5_moe": _ernie4_5_moe,
    "seed_oss": _seed_oss,
    "exaone4": _exaone4,
    "apertus": _apertus,
    "lfm2": _lfm2,
    "nemotron_h": _nemotron_h,
    "kimi_linear": _kimi_linear,
    "granitemoehybrid": _granitemoehybrid,
    "falcon_h1": _falcon_h1,
}
