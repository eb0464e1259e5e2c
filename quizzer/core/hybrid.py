"""Hybrid models for templates: mixer parameters, the fixed state, the crossover context, the cache of a
hybrid at a context, sequences that fit, and DeepSeek-V3.2's indexer, from plain arguments.

Each calculator builds the smallest ModelSpec with the shapes given and reuses the code ``quizzer count``
uses (``quizzer.core.mixers``, ``quizzer.core.attention``), so a template's derivation is the model's.
"""

from __future__ import annotations

from quizzer.core.attention import indexer_params
from quizzer.core.checks import count, counts, positive
from quizzer.core.errors import SpecError
from quizzer.core.kv_model import model_kv_cache_bytes, model_kv_growth_bytes_per_token
from quizzer.core.mixers import mixer_params, mixer_state_bytes
from quizzer.core.spec import ModelSpec
from quizzer.core.trace import Result, Trace, num, tags
from quizzer.core.units import Unit, dtype_bytes_text, elements_bytes

B = Unit.BYTES


def _mixer_spec(d_model: int, mixer: str, mixer_layers: int = 1, **shape: object) -> ModelSpec:
    """A one-attention-layer model with ``mixer_layers`` mixer layers of the given shape."""
    n = count("mixer_layers", mixer_layers)
    return ModelSpec(
        vocab_size=1,
        d_model=d_model,
        n_layers=n + 1,
        n_heads=1,
        head_dim=1,
        d_ff=1,
        layer_types=("linear",) * n + ("full",),
        mixer=mixer,
        **shape,  # type: ignore[arg-type]  # the mixer_* fields, checked by ModelSpec
    )


def gated_deltanet_params(
    d_model: int, heads: int, key_heads: int, key_dim: int, value_dim: int, conv_kernel: int = 4
) -> Result:
    """One gated DeltaNet layer (Qwen3-Next): q, k, v and the output gate z projected together, β and the
    decay per value head, a depthwise short convolution over q, k and v, dt bias and A per head, the output
    projection. Its gated RMSNorm (value_dim) is counted with the norms.

    >>> gated_deltanet_params(2048, 32, 16, 128, 128).value  # Qwen3-Next-80B-A3B
    33718336
    """
    spec = _mixer_spec(
        d_model,
        "gated_deltanet",
        mixer_heads=heads,
        mixer_key_heads=key_heads,
        mixer_key_dim=key_dim,
        mixer_value_dim=value_dim,
        mixer_conv_kernel=conv_kernel,
    )
    return mixer_params(spec)


def mamba2_params(
    d_model: int,
    heads: int,
    head_dim: int,
    groups: int,
    state_size: int,
    conv_kernel: int = 4,
    conv_bias: bool = True,
    bias: bool = False,
) -> Result:
    """One Mamba-2 mixer (Nemotron-H): the input projection to x, z, B, C and dt, a depthwise convolution
    over x, B and C, dt bias, A and D per head, the output projection. Its gated RMSNorm (heads × head_dim) is
    counted with the norms.

    >>> mamba2_params(4096, 128, 64, 8, 128).value  # Nemotron-H-8B
    109627776
    """
    spec = _mixer_spec(
        d_model,
        "mamba2",
        mixer_heads=heads,
        mixer_key_heads=groups,
        mixer_key_dim=state_size,
        mixer_value_dim=head_dim,
        mixer_conv_kernel=conv_kernel,
        mixer_conv_bias=conv_bias,
        mixer_bias=bias,
    )
    return mixer_params(spec)


def short_conv_params(d_model: int, conv_kernel: int = 3, bias: bool = False) -> Result:
    """One gated short-convolution layer (LFM2): in (B, C, x) 3·d², a depthwise convolution d × kernel,
    out d².

    >>> short_conv_params(2048).value  # LFM2-1.2B
    16783360
    """
    spec = _mixer_spec(
        d_model, "short_conv", mixer_conv_kernel=conv_kernel, mixer_conv_bias=bias, mixer_bias=bias
    )
    return mixer_params(spec)


def linear_state_bytes(
    mixer_layers: int,
    heads: int,
    key_dim: int,
    value_dim: int,
    conv_channels: int,
    conv_kernel: int = 4,
    dtype: str = "bf16",
    state_dtype: str = "fp32",
) -> Result:
    """The fixed state one sequence keeps in a model's linear-attention (gated DeltaNet) layers: the
    convolution's last ``conv_kernel`` inputs of every channel (in ``dtype``) and one key_dim × value_dim
    matrix per head (in fp32, as Hugging Face keeps it, or ``state_dtype="model"``: in ``dtype``).

    >>> linear_state_bytes(36, 32, 128, 128, 8192).value  # Qwen3-Next: 36 layers, q+k+v 8,192 channels
    77856768
    """
    h, k, v, ch = counts(heads=heads, key_dim=key_dim, value_dim=value_dim, conv_channels=conv_channels)
    key_width = (ch - h * v) // 2
    if key_width <= 0 or (ch - h * v) % 2 or key_width % k:
        raise SpecError(
            f"conv_channels ({ch}) must be 2 × key width + heads × value_dim ({h} × {v}), the key width a "
            f"multiple of key_dim ({k})"
        )
    key_heads = key_width // k
    if h % key_heads:
        raise SpecError(f"heads ({h}) must be a multiple of the key heads ({key_heads})")
    spec = _mixer_spec(
        key_heads * k,
        "gated_deltanet",
        mixer_layers,
        mixer_heads=h,
        mixer_key_heads=key_heads,
        mixer_key_dim=k,
        mixer_value_dim=v,
        mixer_conv_kernel=conv_kernel,
    )
    return mixer_state_bytes(spec, dtype, state_dtype)


def state_crossover_tokens(fixed_state_bytes: int, kv_bytes_per_token: int) -> Result:
    """The context at which a hybrid's growing KV cache reaches its fixed state: state ÷ growth per token,
    rounded up to a whole token (from there on the KV cache is the larger part).

    >>> state_crossover_tokens(77856768, 24576).value  # Qwen3-Next-80B-A3B
    3168
    """
    state, growth = counts(fixed_state_bytes=fixed_state_bytes, kv_bytes_per_token=kv_bytes_per_token)
    t = Trace()
    value = t.step(
        "Context where the KV cache reaches the fixed state",
        "⌈fixed state ÷ KV bytes per token⌉",
        f"⌈{num(state)} ÷ {num(growth)}⌉",
        -(-state // growth),
        Unit.TOKENS,
    )
    return t.done(value, Unit.TOKENS, "batch 1; both in the same dtypes as given")


def hybrid_cache_bytes(
    softmax_layers: int,
    kv_heads: int,
    head_dim: int,
    seq_len: int,
    fixed_state_bytes: int = 0,
    batch: int = 1,
    dtype: str = "bf16",
) -> Result:
    """A hybrid's cache at ``seq_len`` tokens: K and V grow in the softmax layers only, the mixers' fixed
    state does not grow; × batch sequences.

    >>> hybrid_cache_bytes(12, 2, 256, 32768, 77856768).value  # Qwen3-Next-80B-A3B at 32k
    883163136
    """
    layers, k, hd, s, b = counts(softmax_layers=softmax_layers, kv_heads=kv_heads, head_dim=head_dim,
                                 seq_len=seq_len, batch=batch)  # fmt: skip
    fixed = count("fixed_state_bytes", fixed_state_bytes, 0)
    t = Trace()
    per_token = t.step(
        "KV bytes per token (softmax layers only)",
        "2 × softmax layers × kv_heads × head_dim × bytes",
        f"2 × {layers} × {k} × {hd} × {dtype_bytes_text(dtype)}",
        elements_bytes(2 * layers * k * hd, dtype),
        B,
        tags(kv=2, layers=layers, kv_heads=k, head_dim=hd),
    )
    kv = t.step("KV cache of one sequence", "per token × seq_len", f"{num(per_token)} × {num(s)}",
                per_token * s, B)  # fmt: skip
    one = t.step("One sequence", "KV cache + fixed state", f"{num(kv)} + {num(fixed)}", kv + fixed, B)
    value = t.step("Cache of the batch", "one sequence × batch", f"{num(one)} × {b}", one * b, B)
    return t.done(
        value, B, f"{dtype} K and V; the fixed state as given (Hugging Face: recurrent state in fp32)"
    )


def sequences_that_fit(memory_bytes: int, weights_bytes: int, bytes_per_sequence: int) -> Result:
    """Whole sequences whose cache fits beside the weights: ⌊(memory − weights) ÷ cache per sequence⌋.

    >>> sequences_that_fit(80 * 10**9, 16 * 10**9, 4 * 10**9).value
    16
    """
    memory = positive("memory_bytes", memory_bytes)
    weights = positive("weights_bytes", weights_bytes, allow_zero=True)
    per = positive("bytes_per_sequence", bytes_per_sequence)
    if weights >= memory:
        raise SpecError(f"the weights ({weights} bytes) do not fit in memory_bytes ({memory})")
    t = Trace()
    free = t.step(
        "Memory left for caches", "memory − weights", f"{num(memory)} − {num(weights)}", memory - weights, B
    )
    value = t.step(
        "Sequences that fit",
        "⌊free ÷ cache per sequence⌋",
        f"⌊{num(free)} ÷ {num(per)}⌋",
        int(free // per),
        Unit.COUNT,
    )
    return t.done(value, Unit.COUNT, "whole sequences; activations and fragmentation ignored")


def dsa_indexer_params(
    d_model: int, q_lora_rank: int, index_n_heads: int = 64, index_head_dim: int = 128
) -> Result:
    """DeepSeek Sparse Attention's lightning indexer in one layer: queries from the query latent
    (q_lora_rank × heads × head_dim), one key (d_model × head_dim), a weight per head (d_model × heads); its
    key LayerNorm is counted with the norms.

    >>> dsa_indexer_params(7168, 1536).value  # DeepSeek-V3.2-Exp
    13959168
    """
    d, r, h, w = counts(d_model=d_model, q_lora_rank=q_lora_rank, index_n_heads=index_n_heads,
                        index_head_dim=index_head_dim)  # fmt: skip
    spec = ModelSpec(
        vocab_size=1,
        d_model=d,
        n_layers=1,
        n_heads=1,
        d_ff=1,
        kv_lora_rank=1,
        q_lora_rank=r,
        qk_rope_head_dim=1,
        qk_nope_head_dim=1,
        v_head_dim=1,
        index_n_heads=h,
        index_head_dim=w,
    )
    return indexer_params(spec)


def indexer_key_bytes_per_token(n_layers: int, index_head_dim: int = 128, dtype: str = "bf16") -> Result:
    """The indexer's cache per token: one index_head_dim-wide key per layer (no ×2: no values).

    >>> indexer_key_bytes_per_token(61).value  # DeepSeek-V3.2-Exp, bf16
    15616
    """
    layers, w = counts(n_layers=n_layers, index_head_dim=index_head_dim)
    t = Trace()
    value = t.step(
        "Indexer keys per token",
        "layers × index key width × bytes",
        f"{layers} × {w} × {dtype_bytes_text(dtype)}",
        elements_bytes(layers * w, dtype),
        B,
        tags(layers=layers, head_dim=w),
    )
    return t.done(value, B, f"{dtype} keys; one key per token and layer, no values")


def _hybrid(spec: ModelSpec, what: str) -> ModelSpec:
    if not spec.has_mixer:
        raise SpecError(f"this model has no fixed-state mixer: {what}")
    return spec


def model_mixer_params(spec: ModelSpec) -> Result:
    """One mixer layer of a hybrid (see ``mixer_params``); a model without a mixer is refused."""
    return mixer_params(_hybrid(spec, "every layer is softmax attention"))


def model_state_bytes(spec: ModelSpec, dtype: str = "bf16", state_dtype: str = "fp32") -> Result:
    """The fixed state one sequence keeps in a hybrid's mixer layers (see ``mixer_state_bytes``)."""
    return mixer_state_bytes(_hybrid(spec, "its cache is all KV"), dtype, state_dtype)


def model_cache_bytes(
    spec: ModelSpec,
    seq_len: int,
    batch: int = 1,
    dtype: str = "bf16",
    state_dtype: str = "fp32",
    convention: str = "paper",
    mla_cache: str = "latent",
) -> Result:
    """Everything a model caches for ``batch`` sequences of ``seq_len`` tokens: the KV cache of its softmax
    layers plus, in a hybrid, the mixers' fixed state × batch."""
    kv = model_kv_cache_bytes(spec, seq_len, batch, dtype, convention, mla_cache)
    if not spec.has_mixer:
        return kv
    t = Trace()
    k = t.use(kv)
    state = t.use(mixer_state_bytes(spec, dtype, state_dtype))
    shown = f"{num(state)} × {batch}"
    fixed = t.step("Fixed state of the batch", "state per sequence × batch", shown, state * batch, B)
    value = t.step(
        "Cache at this context", "KV cache + fixed state", f"{num(k)} + {num(fixed)}", k + fixed, B
    )
    return t.done(value, B, "KV grows in the softmax layers only; the mixers' state is fixed")


def model_state_crossover(spec: ModelSpec, dtype: str = "bf16", state_dtype: str = "fp32") -> Result:
    """The context at which a hybrid's growing KV cache reaches its fixed state (batch 1)."""
    t = Trace()
    state = t.use(model_state_bytes(spec, dtype, state_dtype))
    growth = t.use(model_kv_growth_bytes_per_token(spec, dtype))
    value = t.use(state_crossover_tokens(int(state), int(growth)))
    recurrent = dtype if state_dtype == "model" else "fp32"
    return t.done(value, Unit.TOKENS, f"batch 1; KV in {dtype}, the recurrent state in {recurrent}")
