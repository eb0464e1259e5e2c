"""Attention beyond MHA/GQA: multi-head latent attention (MLA), q/k norms, and a spec's per-layer parts."""

from __future__ import annotations

from typing import TYPE_CHECKING

from quizzer.core.checks import count, counts
from quizzer.core.errors import SpecError
from quizzer.core.mixers import mixer_norm_width
from quizzer.core.params import attention_params, norm_params
from quizzer.core.trace import Result, Trace, num
from quizzer.core.units import Unit

if TYPE_CHECKING:
    from quizzer.core.spec import ModelSpec

P = Unit.PARAMS


def mla_attention_params(
    d_model: int,
    n_heads: int,
    kv_lora_rank: int,
    qk_nope_head_dim: int,
    qk_rope_head_dim: int,
    v_head_dim: int,
    q_lora_rank: int = 0,
    qkv_bias: bool = False,
    out_bias: bool = False,
) -> Result:
    """Multi-head latent attention (DeepSeek-V2 §2.1): the projections of one layer.

    Queries: d × q_lora_rank then q_lora_rank × H·(nope + rope), or d × H·(nope + rope) directly when
    q_lora_rank is 0. Keys and values: d × (kv_lora_rank + rope) down to the latent and the shared rotary key,
    then kv_lora_rank × H·(nope + v) back up. Output: H·v × d. Biases (``attention_bias``) sit on the two
    down-projections and the output, as in transformers; the two latent RMSNorms are counted as norms.

    Args:
        d_model: width d.
        n_heads: heads H.
        kv_lora_rank: width of the compressed key/value latent.
        qk_nope_head_dim: per-head q/k width without rotary positions.
        qk_rope_head_dim: rotary q/k width (one shared rotary key per token).
        v_head_dim: per-head value width.
        q_lora_rank: rank of the query compression (0: none).
        qkv_bias: biases on the down-projections.
        out_bias: bias on the output projection.

    Returns:
        params (one layer).

    >>> mla_attention_params(7168, 128, 512, 128, 64, 128, q_lora_rank=1536).value  # DeepSeek-V3
    187105280
    """
    d, h, r, nope, rope, v = counts(
        d_model=d_model,
        n_heads=n_heads,
        kv_lora_rank=kv_lora_rank,
        qk_nope_head_dim=qk_nope_head_dim,
        qk_rope_head_dim=qk_rope_head_dim,
        v_head_dim=v_head_dim,
    )
    q_rank = count("q_lora_rank", q_lora_rank, 0)
    t, qk = Trace(), nope + rope
    parts: list[int | float] = []
    if q_rank:
        parts.append(
            t.step(
                "Query down-projection", "d_model × query rank", f"{num(d)} × {num(q_rank)}", d * q_rank, P
            )
        )
        shown = f"{num(q_rank)} × {h} × ({nope} + {rope})"
        parts.append(
            t.step("Query up-projection", "query rank × H × (nope + rope)", shown, q_rank * h * qk, P)
        )
    else:
        shown = f"{num(d)} × {h} × ({nope} + {rope})"
        parts.append(t.step("Query projection", "d_model × H × (nope + rope)", shown, d * h * qk, P))
    shown = f"{num(d)} × ({r} + {rope})"
    parts.append(
        t.step(
            "Key/value down-projection (latent + rotary key)",
            "d_model × (KV rank + rope)",
            shown,
            d * (r + rope),
            P,
        )
    )
    shown = f"{r} × {h} × ({nope} + {v})"
    parts.append(t.step("Key/value up-projection", "KV rank × H × (nope + v)", shown, r * h * (nope + v), P))
    parts.append(t.step("Output projection", "H × v × d_model", f"{h} × {v} × {num(d)}", h * v * d, P))
    if qkv_bias:
        width = q_rank + r + rope
        parts.append(t.step("Down-projection biases", "query rank + KV rank + rope", num(width), width, P))
    if out_bias:
        parts.append(t.step("Output bias", "d_model", num(d), d, P))
    value = t.step("MLA block", "sum of the projections", " + ".join(num(x) for x in parts), sum(parts), P)
    return t.done(value, P, "per layer; the latent norms are counted with the norms")


def qk_norm_params(
    n_heads: int, n_kv_heads: int, head_dim: int, kind: str = "head", bias: bool = False
) -> Result:
    """Norms on queries and keys, per layer.

    'head': one head_dim-wide weight for q and one for k, shared by the heads (Qwen3, Gemma 3): 2·head_dim.
    'projection': over the whole projection (OLMo 2): (n_heads + n_kv_heads)·head_dim. 'l2' (Llama 4) and
    'none' have no weights. A bias doubles the count (a LayerNorm, as Phi's qk_layernorm option adds).

    >>> qk_norm_params(32, 8, 128).value, qk_norm_params(32, 32, 128, "projection").value
    (256, 8192)
    """
    h, k, hd = counts(n_heads=n_heads, n_kv_heads=n_kv_heads, head_dim=head_dim)
    t = Trace()
    per = 2 if bias else 1
    what = "weight and bias" if bias else "weight"
    if kind == "head":
        value = t.step(
            f"q and k norms (one head_dim-wide {what} each)",
            f"{per} × 2 × head_dim" if bias else "2 × head_dim",
            f"{per} × 2 × {hd}" if bias else f"2 × {hd}",
            per * 2 * hd,
            P,
        )
    elif kind == "projection":
        shown = f"{per} × ({h} + {k}) × {hd}"
        value = t.step(
            f"q and k norms over the projections ({what})",
            f"{per} × (H + K) × head_dim",
            shown,
            per * (h + k) * hd,
            P,
        )
    elif kind in ("l2", "none"):
        value = t.step("q and k norms without weights" if kind == "l2" else "No q/k norms", "0", "0", 0, P)
    else:
        raise SpecError(f"qk_norm ({kind!r}) must be one of none, head, projection, l2")
    return t.done(value, P, "per layer")


def _softmax_attention(spec: ModelSpec) -> Result:
    """The projections of one softmax attention block: MLA or ordinary, with biases and sinks."""
    if spec.is_mla:
        return mla_attention_params(
            spec.d_model,
            spec.n_heads,
            spec.kv_lora_rank,
            spec.qk_nope_head_dim,
            spec.qk_rope_head_dim,
            spec.v_head_dim,
            spec.q_lora_rank,
            spec.qkv_bias,
            spec.out_bias,
        )
    return attention_params(
        spec.d_model,
        spec.n_heads,
        spec.n_kv_heads,
        spec.head_dim,
        spec.qkv_bias,
        spec.out_bias,
        v_head_dim=spec.v_head_dim,
        sinks=spec.attention_sinks,
    )


def indexer_params(spec: ModelSpec) -> Result:
    """DeepSeek Sparse Attention's lightning indexer in one layer (V3.2): its queries from the query latent,
    one shared key, a weight per head; its key LayerNorm (2 × index_head_dim) is counted with the norms.

    >>> from quizzer.core.spec import ModelSpec
    >>> spec = ModelSpec(vocab_size=8, d_model=7168, n_layers=1, n_heads=128, d_ff=8, kv_lora_rank=512,
    ...     q_lora_rank=1536, qk_rope_head_dim=64, qk_nope_head_dim=128, v_head_dim=128, index_n_heads=64,
    ...     index_head_dim=128)
    >>> indexer_params(spec).value  # DeepSeek-V3.2-Exp
    13959168
    """
    d, h, w = spec.d_model, spec.index_n_heads, spec.index_head_dim
    q_in = spec.q_lora_rank or d
    t = Trace()
    q_name = "query rank" if spec.q_lora_rank else "d_model"
    parts = [
        t.step(
            "Indexer queries",
            f"{q_name} × index heads × index key width",
            f"{num(q_in)} × {h} × {w}",
            q_in * h * w,
            P,
        ),
        t.step(
            "Indexer key (one, shared by its heads)", "d_model × index key width", f"{num(d)} × {w}", d * w, P
        ),
        t.step("Indexer head weights", "d_model × index heads", f"{num(d)} × {h}", d * h, P),
    ]
    value = t.step(
        "Lightning indexer", "queries + key + weights", " + ".join(num(x) for x in parts), sum(parts), P
    )
    return t.done(value, P, "per layer; its key LayerNorm is counted with the norms")


def layer_attention(spec: ModelSpec) -> Result:
    """The self-attention parameters of one softmax layer of ``spec``: MLA or ordinary, with biases and sinks,
    the output gate of gated attention and the DSA indexer."""
    base = _softmax_attention(spec)
    if not spec.attention_output_gate and not spec.index_n_heads:
        return base
    t = Trace()
    terms = [t.use(base)]
    names = ["attention"]
    if spec.attention_output_gate:
        width = spec.n_heads * spec.head_dim
        bias = width if spec.qkv_bias else 0
        shown = f"{num(spec.d_model)} × {spec.n_heads} × {spec.head_dim}" + (
            f" + {num(width)}" if bias else ""
        )
        terms.append(
            t.step(
                "Output gate (projected like the queries)",
                "d_model × n_heads × head_dim",
                shown,
                spec.d_model * width + bias,
                P,
            )
        )
        names.append("output gate")
    if spec.index_n_heads:
        terms.append(t.use(indexer_params(spec)))
        names.append("indexer")
    value = t.step("Attention block", " + ".join(names), " + ".join(num(x) for x in terms), sum(terms), P)
    return t.done(value, P, "per softmax-attention layer")


def cross_attention(spec: ModelSpec) -> Result:
    """A decoder layer's cross-attention over the encoder output (T5): an attention block of one shape."""
    return attention_params(
        spec.d_model,
        spec.n_heads,
        spec.n_kv_heads,
        spec.head_dim,
        spec.qkv_bias,
        spec.out_bias,
        v_head_dim=spec.v_head_dim,
    )


def attention_matmul_params(spec: ModelSpec) -> int:
    """Weight-matrix parameters of one layer's self-attention (no biases, sinks or norms): what a token
    multiplies through.

    >>> from quizzer.core.spec import ModelSpec
    >>> spec = ModelSpec(vocab_size=8, d_model=4096, n_layers=1, n_heads=32, n_kv_heads=8, d_ff=8)
    >>> attention_matmul_params(spec)
    41943040
    """
    d, h = spec.d_model, spec.n_heads
    if spec.is_mla:
        qk, rope, r, v = spec.head_dim, spec.qk_rope_head_dim, spec.kv_lora_rank, spec.v_head_dim
        q = spec.q_lora_rank * (d + h * qk) if spec.q_lora_rank else d * h * qk
        indexer = 0
        if spec.index_n_heads:
            n, w = spec.index_n_heads, spec.index_head_dim
            indexer = (spec.q_lora_rank or d) * n * w + d * w + d * n
        return q + d * (r + rope) + r * h * (spec.qk_nope_head_dim + v) + h * v * d + indexer
    k = spec.n_kv_heads
    gate = d * h * spec.head_dim if spec.attention_output_gate else 0
    return d * (h * spec.head_dim + k * (spec.head_dim + spec.v_head_dim)) + h * spec.v_head_dim * d + gate


def layer_norms(spec: ModelSpec, cross: bool = False, token: str = "attention") -> Result:
    """The norm parameters inside one layer: its d_model-wide norms, the q/k norms, MLA's latent norms, the
    indexer's key norm and, in a decoder layer with cross-attention, the norm before it. ``token`` is the
    layer's token mixer: 'attention', 'linear' (the mixer's gated norm instead) or 'mlp' (none)."""
    t = Trace()
    one = t.use(norm_params(spec.d_model, spec.norm))
    n = spec.norms_per_layer + (1 if cross else 0)
    terms = [t.step("Layer norms", "norms × one norm", f"{n} × {num(one)}", n * one, P)]
    if token in ("linear", "parallel"):
        width = mixer_norm_width(spec)
        if width:
            terms.append(t.step("The mixer's gated RMSNorm", "its width", num(width), width, P))
    if token not in ("attention", "parallel"):
        if len(terms) == 1:
            return t.done(terms[0], P, "per layer")
        value = t.step("Norms in one layer", "sum", " + ".join(num(x) for x in terms), sum(terms), P)
        return t.done(value, P, "per layer")
    if spec.qk_norm != "none":
        terms.append(
            t.use(
                qk_norm_params(spec.n_heads, spec.n_kv_heads, spec.head_dim, spec.qk_norm, spec.qk_norm_bias)
            )
        )
    if spec.is_mla:
        latent = [x for x in (spec.q_lora_rank, spec.kv_lora_rank) if x]
        widths = " + ".join(num(x) for x in latent)
        per = norm_params(spec.kv_lora_rank, spec.norm).value // spec.kv_lora_rank
        terms.append(
            t.step(
                "MLA latent norms (query and key/value latents)",
                "norms of the latent widths",
                f"{per} × ({widths})",
                per * sum(latent),
                P,
            )
        )
    if spec.index_n_heads:
        w = spec.index_head_dim
        terms.append(
            t.step("Indexer key LayerNorm (weight + bias)", "2 × index key width", f"2 × {w}", 2 * w, P)
        )
    if len(terms) == 1:  # the layer's norms alone: no second row restating them as a sum of one
        return t.done(terms[0], P, "per layer")
    value = t.step("Norms in one layer", "sum", " + ".join(num(x) for x in terms), sum(terms), P)
    return t.done(value, P, "per layer")
