"""Properties of hybrids (Hypothesis): fixed-state mixers beside softmax attention, MLP-only layers, gated
attention, the DSA indexer and shared-expert gates, checked against the dense model they reduce to and against
shapes restated here from the mixers' definitions."""

from __future__ import annotations

from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st

from quizzer.core.attention import attention_matmul_params, indexer_params, layer_attention, layer_norms
from quizzer.core.flops import forward_flops_per_token, matmul_params_per_token
from quizzer.core.groups import group_mlp
from quizzer.core.hybrid import (
    gated_deltanet_params,
    hybrid_cache_bytes,
    linear_state_bytes,
    mamba2_params,
    short_conv_params,
    state_crossover_tokens,
)
from quizzer.core.kv_model import (
    kv_kinds,
    model_kv_bytes_per_token,
    model_kv_cache_bytes,
    model_kv_growth_bytes_per_token,
)
from quizzer.core.mixers import mixer_matmul_params, mixer_params, mixer_state, mixer_state_bytes
from quizzer.core.model import ParamBreakdown, model_active_params, model_params, param_breakdown
from quizzer.core.spec import MIXER_FIELDS, ModelSpec

MIXERS = ("gated_deltanet", "kda", "mamba2", "short_conv")
#: Whole bytes per element, so that a cache is exactly linear in its tokens (no rounding of packed dtypes).
BYTES = {"fp32": 4, "bf16": 2, "fp16": 2, "fp8": 1, "int8": 1}
DTYPES = st.sampled_from(sorted(BYTES))
CONVENTIONS = st.sampled_from(["paper", "hf"])
WIDTHS = st.sampled_from([1, 3, 16, 64, 128])
NO_MIXER: dict[str, Any] = {
    "mixer": "none",
    **{name: 0 for name in MIXER_FIELDS["gated_deltanet"]},
    "mixer_conv_bias": False,
    "mixer_bias": False,
}


@st.composite
def mixer_kwargs(draw: st.DrawFn, mixer: str | None = None) -> dict[str, Any]:
    """A mixer and exactly the shape fields it needs (MIXER_FIELDS), heads a multiple of the key heads."""
    kind = mixer or draw(st.sampled_from(MIXERS))
    kwargs: dict[str, Any] = dict(
        mixer=kind,
        mixer_conv_kernel=draw(st.integers(1, 5)),
        mixer_conv_bias=draw(st.booleans()),
        # only Mamba-2 and the short convolution have projection biases (ModelSpec refuses the others)
        mixer_bias=kind in ("mamba2", "short_conv") and draw(st.booleans()),
    )
    if kind in ("gated_deltanet", "mamba2"):
        key_heads = draw(st.sampled_from([1, 2, 3, 8]))
        kwargs.update(
            mixer_key_heads=key_heads,
            mixer_heads=key_heads * draw(st.sampled_from([1, 2, 4])),
            mixer_key_dim=draw(WIDTHS),
            mixer_value_dim=draw(WIDTHS),
        )
    elif kind == "kda":
        kwargs.update(mixer_heads=draw(st.integers(1, 32)), mixer_key_dim=draw(WIDTHS))
    return kwargs


@st.composite
def hybrid_kwargs(
    draw: st.DrawFn,
    windows: bool = True,
    mla: bool | None = None,
    moe: bool | None = None,
    min_softmax: int = 1,
    mixer: str | None = None,
) -> dict[str, Any]:
    """Keyword arguments of a valid hybrid: one kind per layer ('linear' at least once, ``min_softmax``
    softmax layers), a mixer with its fields, MHA/GQA or MLA (with or without the indexer), dense or MoE
    MLPs, MLP-less layers."""
    n_layers = draw(st.integers(1 + min_softmax, 12))
    softmax = ["full", "sliding", "chunked"] if windows else ["full"]
    kinds = draw(st.lists(st.sampled_from([*softmax, "linear", "mlp"]), min_size=n_layers, max_size=n_layers))
    order = draw(st.permutations(range(n_layers)))
    kinds[order[0]] = "linear"
    for i in order[1 : 1 + min_softmax]:
        kinds[i] = draw(st.sampled_from(softmax))
    d_model = draw(st.integers(8, 1024))
    kwargs: dict[str, Any] = dict(
        vocab_size=draw(st.integers(1, 50_000)),
        d_model=d_model,
        n_layers=n_layers,
        d_ff=draw(st.integers(1, 2048)),
        mlp=draw(st.sampled_from(["gelu", "gated"])),
        norm=draw(st.sampled_from(["layernorm", "rmsnorm", "nonparametric"])),
        norm_placement=draw(st.sampled_from(["pre", "post", "sandwich"])),
        qkv_bias=draw(st.booleans()),
        out_bias=draw(st.booleans()),
        mlp_bias=draw(st.booleans()),
        tie_embeddings=draw(st.booleans()),
        final_norm=draw(st.booleans()),
        layer_types=tuple(kinds),
        no_mlp_layers=tuple(draw(st.sets(st.integers(0, n_layers - 1), max_size=n_layers))),
        **draw(mixer_kwargs(mixer)),
    )
    if "sliding" in kinds:
        kwargs["sliding_window"] = draw(st.integers(1, 4096))
    if "chunked" in kinds:
        kwargs["attention_chunk_size"] = draw(st.integers(1, 4096))
    if mla is None:
        mla = draw(st.booleans())
    n_heads = draw(st.sampled_from([1, 2, 4, 8]))
    if mla:
        indexer = draw(st.booleans())
        kwargs.update(
            n_heads=n_heads,
            kv_lora_rank=draw(st.integers(1, 512)),
            q_lora_rank=draw(st.sampled_from([0, 0, 16, 96])),
            qk_rope_head_dim=draw(st.sampled_from([8, 64])),
            qk_nope_head_dim=draw(st.sampled_from([16, 128])),
            v_head_dim=draw(st.sampled_from([16, 128])),
            index_n_heads=draw(st.integers(1, 16)) if indexer else 0,
            index_head_dim=draw(st.sampled_from([8, 64, 128])) if indexer else 0,
            index_topk=draw(st.integers(0, 2048)) if indexer else 0,
        )
    else:
        n_kv_heads = draw(st.sampled_from([1, 2, 4]))
        kwargs.update(
            n_heads=n_kv_heads * n_heads,
            n_kv_heads=n_kv_heads,
            head_dim=draw(st.sampled_from([16, 64, 128])),
            v_head_dim=draw(st.sampled_from([None, 16, 128])),
            attention_output_gate=draw(st.booleans()),
            attention_sinks=draw(st.booleans()),
            qk_norm=draw(st.sampled_from(["none", "head", "projection", "l2"])),
        )
    if moe is None:
        moe = draw(st.booleans())
    if moe:
        n_experts = draw(st.integers(1, 16))
        shared = draw(st.sampled_from([0, 1, 2]))
        kwargs.update(
            n_experts=n_experts,
            experts_per_token=draw(st.integers(1, n_experts)),
            n_shared_experts=shared,
            shared_expert_gate=bool(shared) and draw(st.booleans()),
            router_bias=draw(st.booleans()),
            d_ff_expert=draw(st.integers(1, 1024)),
            moe_layers=tuple(draw(st.sets(st.integers(0, n_layers - 1), min_size=1))),
        )
    return kwargs


def hybrids(**options: Any) -> st.SearchStrategy[ModelSpec]:
    return hybrid_kwargs(**options).map(lambda kw: ModelSpec(**kw))


# ---- shapes restated from the mixers' definitions (transformers 5.23), independent of quizzer.core.mixers


def one_norm(spec: ModelSpec) -> int:
    return {"layernorm": 2, "rmsnorm": 1, "nonparametric": 0}[spec.norm] * spec.d_model


def conv_channels(spec: ModelSpec) -> int:
    h, kh, kd, vd = spec.mixer_heads, spec.mixer_key_heads, spec.mixer_key_dim, spec.mixer_value_dim
    return {
        "gated_deltanet": 2 * kh * kd + h * vd,  # q, k and v
        "kda": 3 * h * kd,
        "mamba2": h * vd + 2 * kh * kd,  # x, B and C
        "short_conv": spec.d_model,
    }[spec.mixer]


def recurrent_elements(spec: ModelSpec) -> int:
    h, kd, vd = spec.mixer_heads, spec.mixer_key_dim, spec.mixer_value_dim
    return {"gated_deltanet": h * kd * vd, "kda": h * kd * kd, "mamba2": h * vd * kd, "short_conv": 0}[
        spec.mixer
    ]


def mixer_layer_norms(spec: ModelSpec) -> int:
    """The norms of one mixer layer: its d_model-wide norms and the mixer's gated RMSNorm."""
    gated = {
        "gated_deltanet": spec.mixer_value_dim,
        "kda": spec.mixer_key_dim,
        "mamba2": spec.mixer_heads * spec.mixer_value_dim,
        "short_conv": 0,
    }[spec.mixer]
    return spec.norms_per_layer * one_norm(spec) + gated


def softmax_block(spec: ModelSpec) -> int:
    """One ordinary (not MLA) attention block: q, k, v, o with their biases, the sinks and the output gate of
    gated attention (projected like the queries, with the queries' bias)."""
    d, h, k, hd, vd = spec.d_model, spec.n_heads, spec.n_kv_heads, spec.head_dim, spec.v_head_dim
    q_width, kv_width = h * hd, k * (hd + vd)
    block = d * (q_width + kv_width) + h * vd * d
    block += (q_width + kv_width if spec.qkv_bias else 0) + (d if spec.out_bias else 0)
    block += h if spec.attention_sinks else 0
    if spec.attention_output_gate:
        block += d * q_width + (q_width if spec.qkv_bias else 0)
    return block


def kv_elements_per_layer(spec: ModelSpec) -> int:
    """One softmax layer's cache per token: K and V (MLA: the latent and the rotary key), the index key."""
    if spec.is_mla:
        return spec.kv_lora_rank + spec.qk_rope_head_dim + spec.index_head_dim
    return spec.n_kv_heads * (spec.head_dim + spec.v_head_dim) + spec.index_head_dim


def layer_mlp(spec: ModelSpec, layer: int) -> tuple[int, int]:
    """(all, active) MLP parameters of one layer."""
    if layer in spec.no_mlp_layers:
        return 0, 0
    total, active = group_mlp(spec, spec.moe_flags[layer])
    return int(total.value), int(active.value)


def by_layer(parts: ParamBreakdown) -> dict[int, tuple[int, int, int, int, int]]:
    """Each layer's (attention, mixer, mlp, active mlp, norm), from the groups."""
    return {i: (g.attention, g.mixer, g.mlp, g.mlp_active, g.norm) for g in parts.groups for i in g.layers}


def dense_of(spec: ModelSpec, kinds: tuple[str, ...]) -> ModelSpec:
    """``spec`` with these layer kinds and no mixer."""
    windows = dict(
        sliding_window=spec.sliding_window if "sliding" in kinds else None,
        attention_chunk_size=spec.attention_chunk_size if "chunked" in kinds else None,
    )
    return spec.replace(layer_types=kinds, **NO_MIXER, **windows)


# ---- the sums


@given(hybrids(min_softmax=0))
def test_total_is_the_sum_of_parts_and_the_mixer_part_is_mixer_layers_times_one(spec: ModelSpec) -> None:
    parts = param_breakdown(spec)
    assert parts.total == sum(parts.parts().values()) == model_params(spec).value
    assert parts.active == model_active_params(spec).value <= parts.total
    assert parts.total == sum(g.total * g.count for g in parts.groups) + (
        parts.embedding
        + parts.position
        + parts.embedding_norm
        + parts.final_norm
        + parts.lm_head
        + parts.other
    )
    one = mixer_params(spec).value
    assert parts.mixer == len(spec.mixer_layers) * one > 0
    if not spec.is_mla:
        assert parts.attention == len(spec.softmax_layers) * softmax_block(spec)
    assert sorted(i for g in parts.groups for i in g.layers) == list(range(spec.n_layers))
    for g in parts.groups:
        assert (g.mixer == one) == (g.token == "linear")
        assert (g.attention > 0) == (g.token == "attention")
        assert g.mlp_active <= g.mlp
        assert (g.mlp == 0) == (g.mlp_kind == "none")
        expected_norm = mixer_layer_norms(spec) if g.token == "linear" else None
        if g.token == "mlp":
            expected_norm = spec.norms_per_layer * one_norm(spec)
        if expected_norm is not None:
            assert g.norm == expected_norm


@given(hybrids(min_softmax=0))
def test_a_mixer_is_its_projections_plus_convolution_per_head_vectors_and_biases(spec: ModelSpec) -> None:
    """mixer_params − mixer_matmul_params is exactly what a token does not multiply through."""
    d, h, ch = spec.d_model, spec.mixer_heads, conv_channels(spec)
    conv = ch * spec.mixer_conv_kernel + (ch if spec.mixer_conv_bias else 0)
    key = spec.mixer_key_heads * spec.mixer_key_dim
    value = h * spec.mixer_value_dim
    vectors = {"gated_deltanet": 2 * h, "kda": h * spec.mixer_key_dim + h, "mamba2": 3 * h, "short_conv": 0}
    biases = {"mamba2": 2 * value + 2 * key + h + d, "short_conv": 3 * d + d}.get(spec.mixer, 0)
    extra = conv + vectors[spec.mixer] + (biases if spec.mixer_bias else 0)
    assert mixer_params(spec).value - mixer_matmul_params(spec) == extra
    # the matmuls: every projection reads d_model or writes it
    matmul = {
        "gated_deltanet": d * (2 * key + 2 * value) + 2 * d * h + value * d,
        "kda": 3 * d * h * spec.mixer_key_dim
        + 2 * (d + h * spec.mixer_key_dim) * spec.mixer_key_dim
        + d * h
        + h * spec.mixer_key_dim * d,
        "mamba2": d * (2 * value + 2 * key + h) + value * d,
        "short_conv": 4 * d * d,
    }
    assert mixer_matmul_params(spec) == matmul[spec.mixer]


# ---- 1. every layer softmax: the dense spec


@given(hybrids(min_softmax=0))
def test_linear_layers_made_softmax_trade_the_mixer_for_attention_layer_by_layer(spec: ModelSpec) -> None:
    linear = set(spec.mixer_layers)
    kinds = tuple("full" if i in linear else kind for i, kind in enumerate(spec.layer_kinds))
    dense = dense_of(spec, kinds)
    hybrid_parts, dense_parts = param_breakdown(spec), param_breakdown(dense)
    attention, attention_norms = layer_attention(dense).value, layer_norms(dense).value
    assert layer_attention(spec).value == attention  # the attention block does not depend on the layer kinds
    assert dense_parts.mixer == 0
    assert hybrid_parts.attention == len(spec.softmax_layers) * attention
    assert dense_parts.attention - hybrid_parts.attention == len(linear) * attention
    assert dense_parts.mlp == hybrid_parts.mlp
    assert dense_parts.active - dense_parts.total == hybrid_parts.active - hybrid_parts.total
    assert dense_parts.norm - hybrid_parts.norm == len(linear) * (attention_norms - mixer_layer_norms(spec))
    for name in ("embedding", "position", "lm_head", "other"):
        assert dense_parts.parts()[name] == hybrid_parts.parts()[name]
    mixer = mixer_params(spec).value
    assert hybrid_parts.total - dense_parts.total == len(linear) * (
        mixer + mixer_layer_norms(spec) - attention - attention_norms
    )
    # group by group: each layer keeps its MLP; only a linear layer's token mixer and norms change
    hybrid_layers, dense_layers = by_layer(hybrid_parts), by_layer(dense_parts)
    for i in range(spec.n_layers):
        a, m, mlp, active, norm = hybrid_layers[i]
        assert dense_layers[i][2:4] == (mlp, active) == layer_mlp(spec, i)
        if i in linear:
            assert (a, m, norm) == (0, mixer, mixer_layer_norms(spec))
            assert dense_layers[i][:2] == (attention, 0)
            assert dense_layers[i][4] == attention_norms
        else:
            assert dense_layers[i] == hybrid_layers[i]


@given(hybrid_kwargs(min_softmax=0), st.integers(1, 50_000), DTYPES)
def test_every_layer_full_is_the_spec_without_layer_types(
    kwargs: dict[str, Any], seq_len: int, dtype: str
) -> None:
    n = kwargs["n_layers"]
    base = {**kwargs, **NO_MIXER, "sliding_window": None, "attention_chunk_size": None}
    listed = ModelSpec(**{**base, "layer_types": ("full",) * n})
    pattern = ModelSpec(**{**base, "layer_types": ("full",)})
    plain = ModelSpec(**{**base, "layer_types": ()})
    for spec in (listed, pattern):
        assert param_breakdown(spec) == param_breakdown(plain)
        assert model_params(spec).value == model_params(plain).value
        assert model_active_params(spec).value == model_active_params(plain).value
        assert matmul_params_per_token(spec).value == matmul_params_per_token(plain).value
        assert forward_flops_per_token(spec, seq_len).value == forward_flops_per_token(plain, seq_len).value
        for kv in (model_kv_bytes_per_token, model_kv_growth_bytes_per_token):
            assert kv(spec, dtype).value == kv(plain, dtype).value
        assert model_kv_cache_bytes(spec, seq_len, dtype=dtype).value == (
            model_kv_cache_bytes(plain, seq_len, dtype=dtype).value
        )
    assert mixer_state(plain).total_bytes == 0


# ---- 2. the fixed state does not grow; 3. beyond every window the cache is linear


@given(hybrids(windows=False), st.integers(1, 100_000), st.integers(1, 100_000), DTYPES, st.integers(1, 4))
def test_without_windows_cache_plus_state_grows_by_the_growth_per_token(
    spec: ModelSpec, t1: int, t2: int, dtype: str, batch: int
) -> None:
    growth = int(model_kv_growth_bytes_per_token(spec, dtype).value)
    assert growth == model_kv_bytes_per_token(spec, dtype).value
    assert growth == len(spec.softmax_layers) * kv_elements_per_layer(spec) * BYTES[dtype]
    state = int(mixer_state_bytes(spec, dtype).value)

    def at(tokens: int) -> int:
        return int(model_kv_cache_bytes(spec, tokens, dtype=dtype).value) + state

    assert at(t2) - at(t1) == (t2 - t1) * growth
    assert at(t1) == t1 * growth + state
    batched = model_kv_cache_bytes(spec, t1, batch, dtype).value
    assert batched == batch * model_kv_cache_bytes(spec, t1, dtype=dtype).value
    # the crossover: the first context whose KV cache reaches the fixed state
    if state:
        crossover = int(state_crossover_tokens(state, growth).value)
        assert model_kv_cache_bytes(spec, crossover, dtype=dtype).value >= state
        if crossover > 1:
            assert model_kv_cache_bytes(spec, crossover - 1, dtype=dtype).value < state


@given(hybrids(min_softmax=0), DTYPES, st.sampled_from(["fp32", "model"]))
def test_the_fixed_state_is_conv_inputs_in_the_dtype_and_recurrent_matrices(
    spec: ModelSpec, dtype: str, state_dtype: str
) -> None:
    state = mixer_state(spec, dtype, state_dtype)
    n = len(spec.mixer_layers)
    assert state.layers == n
    assert state.conv_elements_per_layer == conv_channels(spec) * spec.mixer_conv_kernel
    assert state.recurrent_elements_per_layer == recurrent_elements(spec)
    assert state.conv_bytes == n * state.conv_elements_per_layer * BYTES[dtype]
    recurrent_bytes = BYTES[dtype] if state_dtype == "model" else 4
    assert state.recurrent_bytes == n * state.recurrent_elements_per_layer * recurrent_bytes
    assert mixer_state_bytes(spec, dtype, state_dtype).value == state.total_bytes
    # no context in it: the same call gives the same state, the conv part scales with the dtype's bytes and
    # the recurrent part is fp32 whatever the model's dtype unless state_dtype is 'model'
    assert mixer_state(spec, dtype, state_dtype) == state
    for other in BYTES:
        again = mixer_state(spec, other, state_dtype)
        assert again.conv_bytes * BYTES[dtype] == state.conv_bytes * BYTES[other]
        if state_dtype == "fp32":
            assert again.recurrent_bytes == state.recurrent_bytes
        else:
            assert again.recurrent_bytes * BYTES[dtype] == state.recurrent_bytes * BYTES[other]
    # the state does not see the softmax layers: their shape and windows change nothing
    softer = spec.replace(
        layer_types=tuple("full" if k in ("sliding", "chunked") else k for k in spec.layer_kinds),
        sliding_window=None,
        attention_chunk_size=None,
    )
    assert mixer_state(softer, dtype, state_dtype) == state


@given(
    hybrids(),
    st.integers(0, 20_000),
    st.integers(0, 20_000),
    DTYPES,
    CONVENTIONS,
    st.integers(1, 3),
)
def test_beyond_every_window_the_cache_grows_by_the_growth_per_token(
    spec: ModelSpec, extra: int, k: int, dtype: str, convention: str, batch: int
) -> None:
    windows = [w for kind in kv_kinds(spec) if (w := kind.window) is not None]
    t = max(windows, default=1) + extra
    growth = model_kv_growth_bytes_per_token(spec, dtype).value
    full = sum(1 for kind in spec.layer_kinds if kind == "full")
    assert growth == full * kv_elements_per_layer(spec) * BYTES[dtype]

    def cache(tokens: int) -> int:
        return int(model_kv_cache_bytes(spec, tokens, batch, dtype, convention).value)

    assert cache(t + k) - cache(t) == k * batch * growth
    state = mixer_state_bytes(spec, dtype).value
    assert (cache(t + k) + state) - (cache(t) + state) == k * batch * growth


@given(hybrids(), st.integers(1, 50_000), DTYPES, CONVENTIONS)
def test_the_mixer_and_mlp_layers_cache_nothing(
    spec: ModelSpec, seq_len: int, dtype: str, convention: str
) -> None:
    """The KV cache of a hybrid is that of its softmax layers alone (the same spec without the others)."""
    softmax = [kind for kind in spec.layer_kinds if kind in ("full", "sliding", "chunked")]
    alone = reduced(spec, keep=set(spec.softmax_layers))
    for kv in (model_kv_bytes_per_token, model_kv_growth_bytes_per_token):
        assert kv(spec, dtype).value == kv(alone, dtype).value
    assert model_kv_cache_bytes(spec, seq_len, dtype=dtype, convention=convention).value == (
        model_kv_cache_bytes(alone, seq_len, dtype=dtype, convention=convention).value
    )
    assert (
        model_kv_bytes_per_token(spec, dtype).value
        == len(softmax) * kv_elements_per_layer(spec) * BYTES[dtype]
    )


# ---- 4. the indexer


@given(hybrids(mla=True), st.integers(1, 32), st.sampled_from([8, 64, 128]), st.integers(0, 4096))
def test_the_indexer_adds_exactly_its_parameters_and_one_key_per_softmax_layer(
    spec: ModelSpec, heads: int, width: int, context: int
) -> None:
    without = spec.replace(index_n_heads=0, index_head_dim=0, index_topk=0)
    spec = without.replace(index_n_heads=heads, index_head_dim=width, index_topk=spec.index_topk)
    d, q_in = spec.d_model, spec.q_lora_rank or spec.d_model
    one = q_in * heads * width + d * width + d * heads
    assert indexer_params(spec).value == one
    layers = len(spec.softmax_layers)
    with_parts, without_parts = param_breakdown(spec), param_breakdown(without)
    assert with_parts.total - without_parts.total == layers * (one + 2 * width)
    assert with_parts.attention - without_parts.attention == layers * one
    assert with_parts.norm - without_parts.norm == layers * 2 * width
    assert with_parts.active - without_parts.active == layers * (one + 2 * width)
    assert with_parts.mixer == without_parts.mixer
    assert with_parts.mlp == without_parts.mlp
    for dtype, size in BYTES.items():
        per_token = (
            model_kv_bytes_per_token(spec, dtype).value - model_kv_bytes_per_token(without, dtype).value
        )
        assert per_token == layers * width * size
        assert mixer_state(spec, dtype) == mixer_state(without, dtype)
    assert matmul_params_per_token(spec).value - matmul_params_per_token(without).value == layers * one
    flops = forward_flops_per_token(spec, context).value - forward_flops_per_token(without, context).value
    # each index head scores every cached index key, then the heads' scores are summed with their weights
    assert flops == 2 * layers * one + 2 * layers * context * heads * (width + 1)
    # the top-k sets what attention reads, not what is stored
    topk = spec.replace(index_topk=spec.index_topk + 1)
    assert param_breakdown(topk) == with_parts
    assert model_kv_bytes_per_token(topk).value == model_kv_bytes_per_token(spec).value


# ---- 5. removing the mixer layers


def reduced(spec: ModelSpec, keep: set[int]) -> ModelSpec:
    """``spec`` with only the layers ``keep`` (no mixer left if no linear layer is kept): the layer lists
    re-indexed, the experts dropped if no MoE layer is left."""
    kept = sorted(keep)
    new = {old: i for i, old in enumerate(kept)}
    kinds = tuple(spec.layer_kinds[i] for i in kept)
    changes: dict[str, Any] = dict(
        n_layers=len(kept),
        layer_types=kinds,
        no_mlp_layers=tuple(new[i] for i in spec.no_mlp_layers if i in new),
        sliding_window=spec.sliding_window if "sliding" in kinds else None,
        attention_chunk_size=spec.attention_chunk_size if "chunked" in kinds else None,
    )
    if "linear" not in kinds:
        changes.update(NO_MIXER)
    if spec.is_moe:
        moe = tuple(new[i] for i, flag in enumerate(spec.moe_flags) if flag and i in new)
        changes.update(moe_layers=moe, first_dense_layers=0, moe_layer_step=1)
        if not moe:
            changes.update(
                n_experts=0,
                experts_per_token=0,
                n_shared_experts=0,
                shared_expert_gate=False,
                router_bias=False,
                expert_bias=False,
            )
    return spec.replace(**changes)


@given(hybrids())
def test_removing_the_mixer_layers_leaves_the_softmax_only_count(spec: ModelSpec) -> None:
    linear = spec.mixer_layers
    rest = reduced(spec, keep=set(range(spec.n_layers)) - set(linear))
    assert not rest.has_mixer
    assert len(rest.softmax_layers) == len(spec.softmax_layers)
    mixer = mixer_params(spec).value + mixer_layer_norms(spec)
    mlps = [layer_mlp(spec, i) for i in linear]
    hybrid_parts, rest_parts = param_breakdown(spec), param_breakdown(rest)
    assert hybrid_parts.total - len(linear) * mixer - sum(m for m, _ in mlps) == rest_parts.total
    assert hybrid_parts.active - len(linear) * mixer - sum(a for _, a in mlps) == rest_parts.active
    assert hybrid_parts.attention == rest_parts.attention
    assert hybrid_parts.mlp - sum(m for m, _ in mlps) == rest_parts.mlp


# ---- the matmuls a token multiplies through, layer by layer


def mlp_matmul(spec: ModelSpec, layer: int) -> int:
    """The weight matrices one token multiplies through in ``layer``'s MLP: the router, the top-k routed and
    the shared experts, or the dense MLP."""
    if layer in spec.no_mlp_layers:
        return 0
    mats, d = 3 if spec.mlp == "gated" else 2, spec.d_model
    if not spec.moe_flags[layer]:
        return mats * d * spec.d_ff
    experts = spec.experts_per_token * mats * d * spec.d_ff_expert
    gate = d if spec.shared_expert_gate else 0  # Qwen3-Next: a d_model → 1 projection gates the shared expert
    return d * spec.n_experts + experts + spec.n_shared_experts * mats * d * spec.d_ff_shared + gate


def expected_matmuls(spec: ModelSpec) -> int:
    token = {"full": attention_matmul_params(spec), "sliding": attention_matmul_params(spec), "mlp": 0}
    token["chunked"] = token["full"]
    if spec.has_mixer:
        token["linear"] = mixer_matmul_params(spec)
    layers = sum(token[kind] + mlp_matmul(spec, i) for i, kind in enumerate(spec.layer_kinds))
    return layers + (spec.vocab_size * spec.d_model if spec.lm_head else 0)


@given(hybrids(min_softmax=0))
def test_a_hybrids_matmuls_are_its_layers_attention_mixer_and_mlp(spec: ModelSpec) -> None:
    assert matmul_params_per_token(spec).value == expected_matmuls(spec)
    assert forward_flops_per_token(spec).value == 2 * expected_matmuls(spec)


#: Found by the property below: a spec with an 'mlp' layer, no mixer and no ``no_mlp_layers``.
MLP_LAYER_WITHOUT_MIXER = ModelSpec(
    vocab_size=1, d_model=8, n_layers=2, n_heads=1, n_kv_heads=1, head_dim=16, d_ff=1, mlp="gelu",
    layer_types=("mlp", "full"),
)  # fmt: skip


@example(MLP_LAYER_WITHOUT_MIXER)
@given(hybrids(min_softmax=0))
def test_the_softmax_only_and_mixer_free_specs_matmuls_are_their_layers(spec: ModelSpec) -> None:
    """The same count for the specs a hybrid reduces to: its linear layers made full, or removed."""
    if spec.has_mixer:
        linear = set(spec.mixer_layers)
        dense = dense_of(spec, tuple("full" if i in linear else k for i, k in enumerate(spec.layer_kinds)))
        # the linear layers' mixers for attention, or gone with their MLPs
        assert matmul_params_per_token(dense).value - matmul_params_per_token(spec).value == len(linear) * (
            attention_matmul_params(dense) - mixer_matmul_params(spec)
        )
        if len(linear) == spec.n_layers:  # nothing is left once they are removed
            rest = dense
        else:
            rest = reduced(spec, keep=set(range(spec.n_layers)) - linear)
            assert matmul_params_per_token(spec).value - matmul_params_per_token(rest).value == sum(
                mixer_matmul_params(spec) + mlp_matmul(spec, i) for i in linear
            )
    else:
        dense = rest = spec
    for other in (dense, rest):
        assert matmul_params_per_token(other).value == expected_matmuls(other)


@given(hybrids(windows=False), st.integers(0, 4096))
def test_attention_over_the_context_is_in_the_softmax_layers_only(spec: ModelSpec, context: int) -> None:
    attention = forward_flops_per_token(spec, context).value - forward_flops_per_token(spec).value
    layers = len(spec.softmax_layers)
    expected = 2 * layers * context * spec.n_heads * (spec.head_dim + spec.v_head_dim)
    expected += 2 * layers * context * spec.index_n_heads * (spec.index_head_dim + 1)
    assert attention == expected
    assert forward_flops_per_token(spec).value == 2 * matmul_params_per_token(spec).value


# ---- the template calculators of quizzer.core.hybrid agree with the model's


@given(hybrids(windows=False, mla=False), st.integers(1, 100_000), st.integers(1, 4), DTYPES)
def test_hybrid_cache_bytes_is_the_models_cache_plus_its_state(
    spec: ModelSpec, seq_len: int, batch: int, dtype: str
) -> None:
    spec = spec.replace(v_head_dim=spec.head_dim)
    state = int(mixer_state_bytes(spec, dtype).value)
    cache = hybrid_cache_bytes(
        len(spec.softmax_layers), spec.n_kv_heads, spec.head_dim, seq_len, state, batch, dtype
    ).value
    assert cache == model_kv_cache_bytes(spec, seq_len, batch, dtype).value + batch * state


@given(hybrids(mixer="gated_deltanet"), DTYPES, st.sampled_from(["fp32", "model"]))
def test_the_deltanet_calculators_are_the_models(spec: ModelSpec, dtype: str, state_dtype: str) -> None:
    h, kh, kd, vd = spec.mixer_heads, spec.mixer_key_heads, spec.mixer_key_dim, spec.mixer_value_dim
    k = spec.mixer_conv_kernel
    spec = spec.replace(mixer_conv_bias=False)
    assert gated_deltanet_params(spec.d_model, h, kh, kd, vd, k).value == mixer_params(spec).value
    state = linear_state_bytes(len(spec.mixer_layers), h, kd, vd, conv_channels(spec), k, dtype, state_dtype)
    assert state.value == mixer_state_bytes(spec, dtype, state_dtype).value


@given(hybrids(mixer="mamba2"))
def test_the_mamba2_calculator_is_the_models(spec: ModelSpec) -> None:
    value = mamba2_params(
        spec.d_model,
        spec.mixer_heads,
        spec.mixer_value_dim,
        spec.mixer_key_heads,
        spec.mixer_key_dim,
        spec.mixer_conv_kernel,
        spec.mixer_conv_bias,
        spec.mixer_bias,
    ).value
    assert value == mixer_params(spec).value


@given(hybrids(mixer="short_conv"))
def test_the_short_conv_calculator_is_the_models(spec: ModelSpec) -> None:
    spec = spec.replace(mixer_conv_bias=spec.mixer_bias)
    assert (
        short_conv_params(spec.d_model, spec.mixer_conv_kernel, spec.mixer_bias).value
        == mixer_params(spec).value
    )


# ---- a model of mixers alone


#: A Mamba-2 model without attention (valid: ModelSpec accepts it, param_breakdown counts it).
PURE_MAMBA2 = ModelSpec(
    vocab_size=8, d_model=64, n_layers=2, n_heads=1, d_ff=8, layer_types=("linear",), mixer="mamba2",
    mixer_heads=2, mixer_key_heads=1, mixer_key_dim=16, mixer_value_dim=32, mixer_conv_kernel=4,
)  # fmt: skip


@example(PURE_MAMBA2, 1)
@given(hybrids(min_softmax=0), st.integers(1, 10_000))
def test_a_model_without_softmax_layers_caches_nothing(spec: ModelSpec, seq_len: int) -> None:
    spec = spec.replace(
        layer_types=tuple("linear" if i == spec.mixer_layers[0] else "mlp" if k != "linear" else k
                          for i, k in enumerate(spec.layer_kinds)),
        sliding_window=None,
        attention_chunk_size=None,
    )  # fmt: skip
    assert not spec.softmax_layers
    assert model_kv_growth_bytes_per_token(spec).value == 0
    assert model_kv_bytes_per_token(spec).value == 0
    assert model_kv_cache_bytes(spec, seq_len).value == 0


@given(
    st.integers(1, 6),
    st.sampled_from([64, 128]),
    st.sampled_from([(8, 16, 2, 8), (16, 8, 4, 16)]),
    st.booleans(),
    st.integers(1, 70_000),
)
def test_a_parallel_layer_is_its_attention_layer_plus_the_mixer_and_keeps_both_caches(
    n_layers: int, d_model: int, mamba: tuple[int, int, int, int], norm: bool, seq_len: int
) -> None:
    """Falcon-H1's layers run full attention and Mamba-2 side by side: each is an attention layer plus one
    mixer (and its norm when built), grows K and V like a full layer and keeps the mixer's state."""
    heads, head_dim, groups, state = mamba
    attention = ModelSpec(vocab_size=64, d_model=d_model, n_layers=n_layers, n_heads=4, n_kv_heads=2, d_ff=96)
    parallel = attention.replace(
        layer_types=("parallel",) * n_layers,
        mixer="mamba2",
        mixer_heads=heads,
        mixer_key_heads=groups,
        mixer_key_dim=state,
        mixer_value_dim=head_dim,
        mixer_conv_kernel=4,
        mixer_norm=norm,
    )
    inner, bc = heads * head_dim, groups * state
    mixer = d_model * (2 * inner + 2 * bc + heads) + (inner + 2 * bc) * 4 + 3 * heads + inner * d_model
    per_layer = mixer + (inner if norm else 0)
    assert param_breakdown(parallel).total - param_breakdown(attention).total == n_layers * per_layer
    assert model_kv_cache_bytes(parallel, seq_len).value == model_kv_cache_bytes(attention, seq_len).value
    recurrent = n_layers * heads * head_dim * state * 4
    assert mixer_state(parallel, "bf16").total_bytes == n_layers * (inner + 2 * bc) * 4 * 2 + recurrent
