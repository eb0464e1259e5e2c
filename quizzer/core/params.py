"""Parameter counts of the parts of a transformer: embeddings, attention, MLP, experts, norms, head."""

from __future__ import annotations

from quizzer.core.checks import counts
from quizzer.core.errors import SpecError
from quizzer.core.kept import kept
from quizzer.core.trace import Result, Trace, num, tags
from quizzer.core.units import Unit

P = Unit.PARAMS


def embedding_params(vocab_size: int, d_model: int) -> Result:
    """Token embedding table: one row of width d_model per vocabulary entry, V·d.

    The table is a lookup (no matmul); a tied LM head reuses it at no extra cost (Press & Wolf 2017).

    Args:
        vocab_size: rows V.
        d_model: width d.

    Returns:
        params.

    >>> embedding_params(32000, 512).value
    16384000
    """
    vocab_size, d_model = counts(vocab_size=vocab_size, d_model=d_model)
    t = Trace()
    value = t.step(
        "Token embedding table",
        "vocab_size × d_model",
        f"{num(vocab_size)} × {num(d_model)}",
        vocab_size * d_model,
        P,
    )
    return t.done(value, P, "one [vocab_size, d_model] matrix; a tied head adds nothing")


def lm_head_params(vocab_size: int, d_model: int, tied: bool) -> Result:
    """Output (unembedding) head: 0 when tied to the embedding, else another V·d (no bias).

    >>> lm_head_params(50257, 768, True).value, lm_head_params(32000, 4096, False).value
    (0, 131072000)
    """
    vocab_size, d_model = counts(vocab_size=vocab_size, d_model=d_model)
    t = Trace()
    if tied:
        value = t.step("LM head (tied to the embedding: shares its matrix)", "0", "0", 0, P)
    else:
        value = t.step(
            "LM head (untied: its own [d_model, vocab_size] matrix)",
            "d_model × vocab_size",
            f"{num(d_model)} × {num(vocab_size)}",
            d_model * vocab_size,
            P,
        )
    return t.done(value, P, "tied weights are counted once")


def position_params(n_positions: int, d_model: int) -> Result:
    """Learned absolute position table, n_positions·d (rotary and ALiBi have no parameters).

    >>> position_params(1024, 768).value
    786432
    """
    n_positions, d_model = counts(n_positions=n_positions, d_model=d_model)
    t = Trace()
    value = t.step(
        "Learned position table",
        "n_positions × d_model",
        f"{num(n_positions)} × {num(d_model)}",
        n_positions * d_model,
        P,
    )
    return t.done(value, P, "learned absolute positions; rotary positions have no parameters")


@kept
def attention_params(
    d_model: int,
    n_heads: int,
    n_kv_heads: int,
    head_dim: int,
    qkv_bias: bool = False,
    out_bias: bool = False,
    *,
    v_head_dim: int | None = None,
    sinks: bool = False,
) -> Result:
    """One attention block: q and o are d·n_heads·head_dim, k and v are d·n_kv_heads·head_dim, plus biases.

    MHA has n_kv_heads = n_heads, MQA 1, GQA a divisor of n_heads (Ainslie et al. 2023). Using n_heads for
    k and v in a GQA model is the classic over-count (Llama-2-70B read as ~78B). Value heads of another width
    change W_v and W_o; attention sinks (gpt-oss) add one learned logit per head.

    Args:
        d_model: width d.
        n_heads: query heads.
        n_kv_heads: key/value heads.
        head_dim: width of a query/key head.
        qkv_bias: biases on q, k and v.
        out_bias: bias on the output projection.
        v_head_dim: width of a value head (default ``head_dim``).
        sinks: one learned sink logit per head.

    Returns:
        params (one layer).

    >>> attention_params(4096, 32, 8, 128).value
    41943040
    >>> attention_params(768, 12, 12, 64, True, True).value
    2362368
    >>> attention_params(2880, 64, 8, 64, True, True, sinks=True).value  # gpt-oss-20b
    26550144
    """
    d_model, n_heads, n_kv_heads, head_dim = counts(
        d_model=d_model, n_heads=n_heads, n_kv_heads=n_kv_heads, head_dim=head_dim
    )
    v_dim = head_dim if v_head_dim is None else counts(v_head_dim=v_head_dim)[0]
    if n_heads % n_kv_heads:
        raise SpecError(f"n_heads ({n_heads}) must be divisible by n_kv_heads ({n_kv_heads})")
    if v_dim != head_dim:
        return _attention_with_value_width(
            d_model, n_heads, n_kv_heads, head_dim, v_dim, qkv_bias, out_bias, sinks
        )
    t = Trace()
    q_width, kv_width = n_heads * head_dim, n_kv_heads * head_dim
    q = t.step(
        "Query projection W_q",
        "d_model × n_heads × head_dim",
        f"{num(d_model)} × {num(n_heads)} × {num(head_dim)}",
        d_model * q_width,
        P,
        tags(d_model=d_model, heads=n_heads, head_dim=head_dim),
    )
    kv_factors = tags(d_model=d_model, kv_heads=(n_kv_heads, n_heads), head_dim=head_dim)
    k = t.step(
        "Key projection W_k",
        "d_model × n_kv_heads × head_dim",
        f"{num(d_model)} × {num(n_kv_heads)} × {num(head_dim)}",
        d_model * kv_width,
        P,
        kv_factors,
    )
    v = t.step(
        "Value projection W_v",
        "d_model × n_kv_heads × head_dim",
        f"{num(d_model)} × {num(n_kv_heads)} × {num(head_dim)}",
        d_model * kv_width,
        P,
        kv_factors,
    )
    o = t.step(
        "Output projection W_o",
        "n_heads × head_dim × d_model",
        f"{num(n_heads)} × {num(head_dim)} × {num(d_model)}",
        q_width * d_model,
        P,
    )
    total = q + k + v + o
    if qkv_bias:
        total += t.step(
            "q, k, v biases",
            "(n_heads + 2 × n_kv_heads) × head_dim",
            f"({num(n_heads)} + 2 × {num(n_kv_heads)}) × {num(head_dim)}",
            q_width + 2 * kv_width,
            P,
        )
    if out_bias:
        total += t.step("Output bias", "d_model", num(d_model), d_model, P)
    if sinks:
        total += t.step("Attention sinks (one logit per head)", "n_heads", num(n_heads), n_heads, P)
    extras = " + biases" if qkv_bias or out_bias else ""
    value = t.step(
        "Attention block",
        "W_q + W_k + W_v + W_o" + extras + (" + sinks" if sinks else ""),
        " + ".join(num(s.value) for s in t.steps),
        total,
        P,
    )
    return t.done(value, P, "per layer")


def _attention_with_value_width(
    d: int, n_heads: int, n_kv: int, head_dim: int, v_dim: int, qkv_bias: bool, out_bias: bool, sinks: bool
) -> Result:
    """attention_params when value heads are v_dim wide: W_q, W_k use head_dim; W_v, W_o use v_dim."""
    t = Trace()
    parts = [
        t.step(
            "W_q",
            "d_model × n_heads × head_dim",
            f"{num(d)} × {n_heads} × {head_dim}",
            d * n_heads * head_dim,
            P,
        ),
        t.step(
            "W_k",
            "d_model × n_kv_heads × head_dim",
            f"{num(d)} × {n_kv} × {head_dim}",
            d * n_kv * head_dim,
            P,
        ),
        t.step(
            "W_v", "d_model × n_kv_heads × v_head_dim", f"{num(d)} × {n_kv} × {v_dim}", d * n_kv * v_dim, P
        ),
        t.step(
            "W_o", "n_heads × v_head_dim × d_model", f"{n_heads} × {v_dim} × {num(d)}", n_heads * v_dim * d, P
        ),
    ]
    if qkv_bias:
        width = n_heads * head_dim + n_kv * (head_dim + v_dim)
        parts.append(t.step("q, k, v biases", "H·head_dim + K·(head_dim + v_head_dim)", num(width), width, P))
    if out_bias:
        parts.append(t.step("Output bias", "d_model", num(d), d, P))
    if sinks:
        parts.append(t.step("Attention sinks (one logit per head)", "n_heads", num(n_heads), n_heads, P))
    value = t.step("Attention block", "sum of the parts", " + ".join(num(x) for x in parts), sum(parts), P)
    return t.done(value, P, "per layer; value heads v_head_dim wide")


@kept
def mlp_params(
    d_model: int, d_ff: int, gated: bool = True, bias: bool = False, *, width: str = "d_ff"
) -> Result:
    """One MLP: gated (SwiGLU/GeGLU: gate, up, down) 3·d·d_ff, plain (GELU/ReLU: up, down) 2·d·d_ff.

    Biases add d_ff per up-type matrix and d for the down projection. ``width`` names d_ff in the
    formulas (an expert's MLP is "expert width", not the model's d_ff).

    >>> mlp_params(4096, 11008).value
    135266304
    >>> mlp_params(768, 3072, gated=False, bias=True).value
    4722432
    """
    d_model, d_ff = counts(d_model=d_model, d_ff=d_ff)
    t = Trace()
    n_up = 2 if gated else 1
    names = "gate and up" if gated else "up"
    up = t.step(
        f"MLP {names} projection{'s' if gated else ''}",
        f"{n_up} × d_model × {width}",
        f"{n_up} × {num(d_model)} × {num(d_ff)}",
        n_up * d_model * d_ff,
        P,
    )
    down = t.step(
        "MLP down projection", f"{width} × d_model", f"{num(d_ff)} × {num(d_model)}", d_ff * d_model, P
    )
    total = up + down
    if bias:
        total += t.step(
            "MLP biases",
            f"{n_up} × {width} + d_model",
            f"{n_up} × {num(d_ff)} + {num(d_model)}",
            n_up * d_ff + d_model,
            P,
        )
    value = t.step(
        "MLP block",
        ("gate and up + down" if gated else "up + down") + (" + biases" if bias else ""),
        " + ".join(num(s.value) for s in t.steps),
        total,
        P,
    )
    return t.done(value, P, "per layer; gated = 3 matrices, gelu = 2 matrices")


@kept
def norm_params(d_model: int, norm: str = "rmsnorm") -> Result:
    """One normalisation layer: LayerNorm has a weight and a bias (2·d), RMSNorm a weight only (d), OLMo's
    non-parametric LayerNorm none (0).

    >>> norm_params(768, "layernorm").value, norm_params(4096).value, norm_params(4096, "nonparametric").value
    (1536, 4096, 0)
    """
    (d_model,) = counts(d_model=d_model)
    if norm not in ("layernorm", "rmsnorm", "nonparametric"):
        raise SpecError(f"norm ({norm!r}) must be one of layernorm, rmsnorm, nonparametric")
    t = Trace()
    if norm == "layernorm":
        value = t.step("LayerNorm (weight + bias)", "2 × d_model", f"2 × {num(d_model)}", 2 * d_model, P)
    elif norm == "rmsnorm":
        value = t.step("RMSNorm (weight only)", "d_model", num(d_model), d_model, P)
    else:
        value = t.step("Non-parametric LayerNorm (no weight, no bias)", "0", "0", 0, P)
    return t.done(value, P, "one norm")


@kept
def router_params(d_model: int, n_experts: int, bias: bool = False) -> Result:
    """MoE router: a d_model × n_experts linear layer (plus n_experts with a bias).

    >>> router_params(4096, 8).value
    32768
    """
    d_model, n_experts = counts(d_model=d_model, n_experts=n_experts)
    t = Trace()
    value = t.step(
        "Router",
        "d_model × n_experts" + (" + n_experts" if bias else ""),
        f"{num(d_model)} × {num(n_experts)}" + (f" + {num(n_experts)}" if bias else ""),
        d_model * n_experts + (n_experts if bias else 0),
        P,
    )
    return t.done(value, P, "per MoE layer")
