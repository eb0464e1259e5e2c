"""FLOP counts: forward per token, training 6·N·D, inference 2·N·D, recompute 8·N·D, MACs."""

from __future__ import annotations

from quizzer.core.checks import count, counts, positive
from quizzer.core.errors import SpecError
from quizzer.core.spec import ModelSpec
from quizzer.core.trace import Result, Trace, num, tags
from quizzer.core.units import Unit

#: The convention every FLOP figure here uses.
FLOP_CONVENTION = "FLOP = 2 per multiply-add (a MAC is 2 FLOPs)"


def training_flops(n_params: int | float, n_tokens: int | float) -> Result:
    """Training compute C = 6·N·D: 2·N·D forward plus 4·N·D backward (Kaplan et al. 2020).

    Attention over the context is not included (it is small next to 6·N·D below a few thousand tokens).

    Args:
        n_params: parameters N (dense, or active for a mixture of experts).
        n_tokens: training tokens D.

    Returns:
        FLOPs.

    >>> training_flops(175_000_000_000, 300_000_000_000).value
    315000000000000000000000
    """
    positive("n_params", n_params)
    positive("n_tokens", n_tokens)
    t = Trace()
    value = t.step(
        "Training compute (forward 2ND + backward 4ND)",
        "6 × N × D",
        f"6 × {num(n_params)} × {num(n_tokens)}",
        6 * n_params * n_tokens,
        Unit.FLOPS,
        tags(flops_per_mac=2, passes=3, params=n_params, tokens=n_tokens),
    )
    return t.done(value, Unit.FLOPS, FLOP_CONVENTION + "; attention over the context ignored")


def recompute_training_flops(n_params: int | float, n_tokens: int | float) -> Result:
    """Training compute with full activation recomputation, 8·N·D (one extra forward pass).

    >>> recompute_training_flops(1000, 10).value
    80000
    """
    positive("n_params", n_params)
    positive("n_tokens", n_tokens)
    t = Trace()
    value = t.step(
        "Training compute with full recompute (forward 2ND + recompute 2ND + backward 4ND)",
        "8 × N × D",
        f"8 × {num(n_params)} × {num(n_tokens)}",
        8 * n_params * n_tokens,
        Unit.FLOPS,
        tags(flops_per_mac=2, passes=4, params=n_params, tokens=n_tokens),
    )
    return t.done(value, Unit.FLOPS, FLOP_CONVENTION + "; full activation recomputation")


def inference_flops(n_params: int | float, n_tokens: int | float) -> Result:
    """Inference (forward only) compute 2·N·D.

    >>> inference_flops(7_000_000_000, 1000).value
    14000000000000
    """
    positive("n_params", n_params)
    positive("n_tokens", n_tokens)
    t = Trace()
    value = t.step(
        "Forward compute (one multiply-add per parameter per token)",
        "2 × N × D",
        f"2 × {num(n_params)} × {num(n_tokens)}",
        2 * n_params * n_tokens,
        Unit.FLOPS,
        tags(flops_per_mac=2, params=n_params, tokens=n_tokens),
    )
    return t.done(value, Unit.FLOPS, FLOP_CONVENTION + "; attention over the context ignored")


def flops_to_macs(flops: int | float) -> Result:
    """Multiply-accumulates from FLOPs: MACs = FLOPs / 2 (what fvcore and ptflops call 'FLOPs').

    >>> flops_to_macs(35_000).value
    17500
    """
    positive("flops", flops)
    t = Trace()
    macs = flops // 2 if isinstance(flops, int) and flops % 2 == 0 else flops / 2
    value = t.step("Multiply-accumulates", "FLOPs / 2", f"{num(flops)} / 2", macs, Unit.MACS)
    return t.done(value, Unit.MACS, FLOP_CONVENTION)


#: Conventions for the FLOPs of one training token, by name (a template's ``flop_count``). Sources differ:
#: - "6N": 2·N forward + 4·N backward, attention over the context left out (Kaplan et al. 2020, §2.1:
#:   C ≈ 6N per token; Hoffmann et al. 2022; EleutherAI's Transformer Math 101).
#: - "8N": full activation recomputation runs the forward pass twice: 8·N executed (hardware FLOPs). It is
#:   what Narayanan et al. 2021 (Megatron-LM, arXiv 2104.04473) use for end-to-end time, eq. 4:
#:   8·T·P / (n·X), with X the achieved per-GPU rate counting the recomputation.
#: - "kaplan": Kaplan et al. 2020, Table 1: C_forward = 2N + 2·n_layer·n_ctx·d_attn (N non-embedding
#:   parameters), training 3× the forward: 6N + 6·n_layer·n_ctx·d_attn (d_attn = d_model in their models).
#:   Its attention term is half the full score matrix's (the causal average).
#: - "palm": Chowdhery et al. 2022 (PaLM, arXiv 2204.02311), Appendix B, for MFU: 6·N + 12·L·H·Q·T per
#:   token, L layers, H heads of width Q, T the sequence length (the full score matrix, 3 passes). PaLM 540B
#:   (L = 118, H = 48, Q = 256, T = 2048) at 238.3K tokens/s on 6,144 TPU v4 chips (275 TFLOP/s): 46.2% MFU,
#:   45.7% with 6·N alone.
#: - "deepseek-m": DeepSeek LLM (Bi et al. 2024, arXiv 2401.02954), eq. 2: the non-embedding FLOPs per token
#:   M = 72·n_layer·d_model² + 12·n_layer·d_model·l_seq (a 12·d² layer, full score matrix, 3 passes; the
#:   vocabulary left out), and C = M·D.
#: - "megatron": Narayanan et al. 2021, appendix, without recomputation: 72·B·s·l·h²·(1 + s/(6h) +
#:   V/(12·l·h)) per iteration of B sequences of s tokens, i.e. 72·l·h² + 12·l·h·s + 6·h·V per token: the
#:   same as "deepseek-m" plus the logit layer (2·h·V forward, 3 passes).
#: - "megatron-recompute": the paper's eq. 3, with full activation recomputation: 96·B·s·l·h²·(1 + s/(6h) +
#:   V/(16·l·h)) = 96·l·h² + 16·l·h·s + 6·h·V per token (4 passes of the layers, 3 of the logit layer).
#:   96 vs 72 is recomputation or not: quote the one you mean.
FLOP_COUNTS: dict[str, str] = {
    "6N": "6·N per token: 2 forward + 4 backward per parameter, attention over the context left out",
    "8N": "8·N per token: full activation recomputation runs the forward pass again (hardware FLOPs, "
    "Megatron-LM's 8·T·P)",
    "kaplan": "6·N + 6 × layers × context × attention width per token, N the non-embedding parameters "
    "(Kaplan et al. 2020, Table 1)",
    "palm": "6·N + 12 × layers × context × attention width per token (PaLM, Appendix B: 6N + 12LHQT)",
    "deepseek-m": "M = 72 × layers × d_model² + 12 × layers × d_model × context per token (DeepSeek LLM, "
    "eq. 2; non-embedding)",
    "megatron": "72·l·h²·(1 + s/(6h) + V/(12·l·h)) per token, with l layers, h = d_model, s the context and "
    "V the vocabulary (Megatron-LM, no recomputation)",
    "megatron-recompute": "96·l·h²·(1 + s/(6h) + V/(16·l·h)) per token, with l layers, h = d_model, s the "
    "context and V the vocabulary (Megatron-LM eq. 3, full recomputation)",
}
#: What each convention needs besides its name.
_FLOP_COUNT_NEEDS: dict[str, tuple[str, ...]] = {
    "6N": ("n_params",),
    "8N": ("n_params",),
    "kaplan": ("n_params", "n_layers", "d_model", "seq_len"),
    "palm": ("n_params", "n_layers", "d_model", "seq_len"),
    "deepseek-m": ("n_layers", "d_model", "seq_len"),
    "megatron": ("n_layers", "d_model", "seq_len", "vocab_size"),
    "megatron-recompute": ("n_layers", "d_model", "seq_len", "vocab_size"),
}


def flop_count_title(flop_count: str) -> str:
    """A training-FLOP convention in words, for a prompt.

    >>> flop_count_title("kaplan").startswith("6·N + 6 × layers × context × attention width per token")
    True
    """
    _check_flop_count(flop_count)
    return FLOP_COUNTS[flop_count]


def _check_flop_count(flop_count: str) -> None:
    if flop_count not in FLOP_COUNTS:
        from quizzer.core.errors import UnknownNameError
        from quizzer.core.units import unknown_name_message

        raise UnknownNameError(unknown_name_message("FLOP count", flop_count, FLOP_COUNTS))


def training_flops_per_token(
    flop_count: str,
    n_params: int | float = 0,
    n_layers: int = 0,
    d_model: int = 0,
    seq_len: int = 0,
    vocab_size: int = 0,
    d_attn: int = 0,
) -> Result:
    """Training FLOPs (forward and backward) of one token under a published convention (``FLOP_COUNTS``).

    6N: 6·N. 8N: 8·N (full recomputation). kaplan: 6·N + 6·n_layers·seq_len·d_attn (Kaplan et al.
    2020, Table 1). palm: 6·N + 12·n_layers·d_attn·seq_len (Chowdhery et al. 2022, Appendix B).
    deepseek-m: 72·n_layers·d_model² + 12·n_layers·d_model·seq_len (DeepSeek LLM eq. 2). megatron:
    72·l·h² + 12·l·h·s + 6·h·V; megatron-recompute: 96·l·h² + 16·l·h·s + 6·h·V (Narayanan et al. 2021 eq. 3,
    divided by the B·s tokens of an iteration), with h = d_model, s = seq_len, V = vocab_size.

    Args:
        flop_count: a key of ``FLOP_COUNTS``.
        n_params: parameters N (non-embedding for kaplan); 6N, 8N and kaplan need it.
        n_layers, d_model, seq_len, vocab_size: the shape, where the convention needs it.
        d_attn: the attention width n_heads × head_dim for kaplan and palm (0: d_model, as in Kaplan's
            models).

    Returns:
        FLOPs per token (an int for whole inputs).

    GPT-3 175B's shape (96 layers, width 12288, 2048 tokens, vocabulary 51200) under Megatron's eq. 3:

    >>> training_flops_per_token("megatron-recompute", 0, 96, 12288, 2048, 51200).value
    1433998983168
    """
    _check_flop_count(flop_count)
    given = {"n_params": n_params, "n_layers": n_layers, "d_model": d_model, "seq_len": seq_len}
    given["vocab_size"] = vocab_size
    for name in _FLOP_COUNT_NEEDS[flop_count]:
        if name == "n_params":
            positive(name, given[name])
        else:
            count(name, given[name])
    width = count("d_attn", d_attn) if d_attn else d_model
    t = Trace()
    if flop_count in ("6N", "8N"):
        k = 6 if flop_count == "6N" else 8
        label = (
            "Training FLOPs per token (forward 2N + backward 4N)"
            if k == 6
            else ("Training FLOPs per token with full recompute (forward 2N + recompute 2N + backward 4N)")
        )
        value = t.step(
            label,
            f"{k} × N",
            f"{k} × {num(n_params)}",
            k * n_params,
            Unit.FLOPS,
            tags(flops_per_mac=2, passes=k // 2, params=n_params),
        )
        return t.done(value, Unit.FLOPS, FLOP_CONVENTION + "; " + FLOP_COUNTS[flop_count])
    el, d, s = n_layers, d_model, seq_len
    if flop_count in ("kaplan", "palm"):
        k = 6 if flop_count == "kaplan" else 12
        weights = t.step("Weight FLOPs", "6 × N", f"6 × {num(n_params)}", 6 * n_params, Unit.FLOPS)
        attn = t.step(
            "Attention over the context (three passes of Kaplan's causal-average term)"
            if k == 6
            else "Attention over the context (PaLM: the full score matrix, 3 passes)",
            f"{k} × n_layers × seq_len × attention width",
            f"{k} × {el} × {num(s)} × {num(width)}",
            k * el * s * width,
            Unit.FLOPS,
        )
        value = t.step(
            "Training FLOPs per token (Kaplan et al.)" if k == 6 else "Training FLOPs per token (PaLM)",
            "weight FLOPs + attention",
            f"{num(weights)} + {num(attn)}",
            weights + attn,
            Unit.FLOPS,
            tags(flops_per_mac=2, passes=3),
        )
        return t.done(value, Unit.FLOPS, FLOP_CONVENTION + "; " + FLOP_COUNTS[flop_count])
    recompute = flop_count == "megatron-recompute"
    w, a = (96, 16) if recompute else (72, 12)
    weights = t.step(
        "Weight matmuls of the layers" + (" (4 passes: recomputation)" if recompute else " (3 passes)"),
        f"{w} × n_layers × d_model²",
        f"{w} × {el} × {num(d)}²",
        w * el * d * d,
        Unit.FLOPS,
    )
    attn = t.step(
        "Attention scores and weighted sum (full score matrix)",
        f"{a} × n_layers × d_model × seq_len",
        f"{a} × {el} × {num(d)} × {num(s)}",
        a * el * d * s,
        Unit.FLOPS,
    )
    if flop_count == "deepseek-m":
        value = t.step(
            "Non-embedding training FLOPs per token M (DeepSeek LLM)",
            "layer matmuls + attention",
            f"{num(weights)} + {num(attn)}",
            weights + attn,
            Unit.FLOPS,
            tags(flops_per_mac=2, passes=3),
        )
        return t.done(value, Unit.FLOPS, FLOP_CONVENTION + "; " + FLOP_COUNTS[flop_count])
    logits = t.step(
        "Logit layer (forward and backward, never recomputed)",
        "6 × d_model × vocab_size",
        f"6 × {num(d)} × {num(vocab_size)}",
        6 * d * vocab_size,
        Unit.FLOPS,
    )
    paper = f"{w}·l·h²·(1 + s/(6h) + V/({w // 6}·l·h))"
    value = t.step(
        "Training FLOPs per token (Megatron-LM" + (", eq. 3)" if recompute else ", no recomputation)"),
        paper,
        f"{num(weights)} + {num(attn)} + {num(logits)}",
        weights + attn + logits,
        Unit.FLOPS,
        tags(flops_per_mac=2) if recompute else tags(flops_per_mac=2, passes=3),
    )
    return t.done(value, Unit.FLOPS, FLOP_CONVENTION + "; " + FLOP_COUNTS[flop_count])


def training_flops_by(n_params: int | float, n_tokens: int | float, flop_count: str = "6N") -> Result:
    """Training compute of N parameters on D tokens under a convention that needs N alone: 6·N·D ("6N") or
    8·N·D with full recomputation ("8N"). The conventions that need the model's shape are per token
    (``training_flops_per_token``).

    >>> training_flops_by(1000, 10).value, training_flops_by(1000, 10, "8N").value
    (60000, 80000)
    """
    _check_flop_count(flop_count)
    if flop_count == "6N":
        return training_flops(n_params, n_tokens)
    if flop_count == "8N":
        return recompute_training_flops(n_params, n_tokens)
    raise SpecError(
        f"flop_count {flop_count!r} needs the model's shape (layers, width, sequence length): "
        "this question gives N and D only, so use 6N or 8N"
    )


def megatron_flops_per_iteration(
    batch: int, seq_len: int, n_layers: int, hidden: int, vocab_size: int, recompute: bool = True
) -> Result:
    """FLOPs of one training iteration of a GPT model (Narayanan et al. 2021, arXiv 2104.04473):
    96·B·s·l·h²·(1 + s/(6h) + V/(16·l·h)) with full activation recomputation (eq. 3), 72·B·s·l·h²·(1 + s/(6h)
    + V/(12·l·h)) without. Matmuls only: the paper calls it a lower bound.

    Args:
        batch: sequences per iteration B.
        seq_len: tokens per sequence s.
        n_layers: transformer layers l.
        hidden: hidden size h.
        vocab_size: vocabulary V.
        recompute: whether the forward pass is run again in the backward pass.

    Returns:
        FLOPs per iteration (int).

    >>> megatron_flops_per_iteration(1, 2048, 96, 12288, 51200).value == 2048 * 1433998983168
    True
    """
    b, s = counts(batch=batch, seq_len=seq_len)
    t = Trace()
    convention = "megatron-recompute" if recompute else "megatron"
    per_token = t.use(training_flops_per_token(convention, 0, n_layers, hidden, seq_len, vocab_size))
    value = t.step(
        "FLOPs per iteration",
        "per token × B × s",
        f"{num(per_token)} × {num(b)} × {num(s)}",
        per_token * b * s,
        Unit.FLOPS,
        tags(flops_per_mac=2, tokens=b * s),
    )
    return t.done(value, Unit.FLOPS, FLOP_CONVENTION + "; " + FLOP_COUNTS[convention])


def megatron_params(n_layers: int, hidden: int, vocab_size: int, seq_len: int) -> Result:
    """Parameters of a GPT model as Narayanan et al. 2021 count them (eq. 2):
    P = 12·l·h²·(1 + 13/(12h) + (V + s)/(12·l·h)) = 12·l·h² + 13·l·h + (V + s)·h (learned positions, tied
    head; the final norm's 2h left out, as in the paper).

    >>> megatron_params(96, 12288, 51200, 2048).value
    174615822336
    """
    el, h, v, s = counts(n_layers=n_layers, hidden=hidden, vocab_size=vocab_size, seq_len=seq_len)
    t = Trace()
    value = t.step(
        "Parameters (Megatron-LM eq. 2)",
        "12·l·h² + 13·l·h + (V + s)·h",
        f"12 × {el} × {num(h)}² + 13 × {el} × {num(h)} + ({num(v)} + {num(s)}) × {num(h)}",
        12 * el * h * h + 13 * el * h + (v + s) * h,
        Unit.PARAMS,
    )
    return t.done(value, Unit.PARAMS, "Narayanan et al. 2021 eq. 2: 12·l·h²(1 + 13/(12h) + (V + s)/(12lh))")


def _mlp_matmul(spec: ModelSpec, moe: bool) -> tuple[int, str, str]:
    """(weight-matrix params a token multiplies through in one MLP, formula, substituted)."""
    n_mats, d = (3 if spec.mlp == "gated" else 2), spec.d_model
    if not moe:
        return n_mats * d * spec.d_ff, f"{n_mats} × d_model × d_ff", f"{n_mats} × {num(d)} × {num(spec.d_ff)}"
    k, e, f, shared = spec.experts_per_token, spec.n_experts, spec.d_ff_expert, spec.n_shared_experts
    value = d * e + k * n_mats * d * f + shared * n_mats * d * spec.d_ff_shared
    formula = f"d_model × n_experts + k × {n_mats} × d_model × d_ff_expert"
    shown = f"{num(d)} × {e} + {k} × {n_mats} × {num(d)} × {num(f)}"
    if shared:
        formula += f" + shared × {n_mats} × d_model × d_ff_shared"
        shown += f" + {shared} × {n_mats} × {num(d)} × {num(spec.d_ff_shared)}"
    if spec.shared_expert_gate:  # Qwen3-Next: a d_model → 1 projection gates the shared expert
        value += d
        formula += " + d_model (shared-expert gate)"
        shown += f" + {num(d)}"
    return value, formula, shown


def matmul_params_per_token(spec: ModelSpec) -> Result:
    """Weight-matrix parameters one token multiplies through: layers (active experts only) and the LM head.

    Embedding lookups, biases, norms and attention sinks are not matmuls; a tied head still does its V·d
    matmul. MoE layers count the router, the top-k routed experts and the shared experts; dense first layers
    (DeepSeek) and dense interleaved layers (Llama 4) their dense MLP. An encoder-decoder counts every matrix
    of both stacks once (the 2·N rule).
    """
    from quizzer.core.attention import attention_matmul_params

    t = Trace()
    d, h = spec.d_model, spec.head_dim
    if spec.is_mla:
        attn = t.step(
            "Attention matrices per layer (MLA projections)",
            "q + kv down + kv up + o",
            "see the MLA block",
            attention_matmul_params(spec),
            Unit.PARAMS,
        )
    elif spec.v_head_dim == h:
        attn = t.step(
            "Attention matrices per layer",
            "d_model × (2 × n_heads + 2 × n_kv_heads) × head_dim",
            f"{num(d)} × (2 × {spec.n_heads} + 2 × {spec.n_kv_heads}) × {h}",
            attention_matmul_params(spec),
            Unit.PARAMS,
        )
    else:
        attn = t.step(
            "Attention matrices per layer",
            "d_model × (H·hd + K·hd + K·v + H·v)",
            f"{num(d)} × ({spec.n_heads}·{h} + {spec.n_kv_heads}·({h} + {spec.v_head_dim}) + "
            f"{spec.n_heads}·{spec.v_head_dim})",
            attention_matmul_params(spec),
            Unit.PARAMS,
        )
    if spec.has_mixer or spec.no_mlp_layers or len(spec.softmax_layers) < spec.n_layers:
        return _hybrid_matmul(spec, t, attn)
    flags = spec.moe_flags
    layer_terms, shown_terms = [], []
    for moe in (False, True):
        n = sum(1 for flag in flags if flag == moe)
        if not n:
            continue
        value, formula, shown = _mlp_matmul(spec, moe)
        label = "MLP matrices per layer (router + active experts)" if moe else "MLP matrices per layer"
        if spec.is_moe and not moe:
            label = "MLP matrices per dense layer"
        mlp = t.step(label, formula, shown, value, Unit.PARAMS)
        layer_terms.append(n * (attn + mlp))
        shown_terms.append(f"{n} × ({num(attn)} + {num(mlp)})")
    if spec.is_encoder_decoder:
        value, formula, shown = _mlp_matmul(spec, False)
        encoder = spec.n_encoder_layers * (attn + value)
        cross = spec.n_layers * attention_matmul_params(spec)
        layer_terms.append(
            t.step(
                "Encoder layers and the decoder's cross-attention",
                "L_enc × (attention + MLP) + L_dec × cross-attention",
                f"{spec.n_encoder_layers} × ({num(attn)} + {num(value)}) + {spec.n_layers} × {num(attn)}",
                encoder + cross,
                Unit.PARAMS,
            )
        )
        shown_terms.append(num(layer_terms[-1]))
    head = spec.vocab_size * d if spec.lm_head else 0
    value = t.step(
        "Matmul parameters per token",
        "n_layers × (attention + MLP) + vocab_size × d_model",
        f"{' + '.join(shown_terms)} + {num(head)}",
        sum(layer_terms) + head,
        Unit.PARAMS,
    )
    return t.done(value, Unit.PARAMS, "weight matrices only; biases, norms and embedding lookups excluded")


def _hybrid_matmul(spec: ModelSpec, t: Trace, attn: int | float) -> Result:
    """matmul_params_per_token of a hybrid: each layer multiplies through its attention or its mixer's
    projections (or neither) and its MLP (if it has one)."""
    from quizzer.core.groups import layer_token
    from quizzer.core.mixers import MIXER_NAMES, mixer_matmul_params

    mixer: int | float = 0
    if spec.has_mixer:
        mixer = t.step(
            f"{MIXER_NAMES[spec.mixer]} projections per layer",
            "the mixer's matrices",
            "see the mixer block",
            mixer_matmul_params(spec),
            Unit.PARAMS,
        )
    mlps: dict[str, int | float] = {}
    counts: dict[tuple[str, str], int] = {}
    no_mlp, flags = set(spec.no_mlp_layers), spec.moe_flags
    for i, kind in enumerate(spec.layer_kinds):
        mlp_kind = "none" if i in no_mlp else "moe" if flags[i] else "dense"
        if mlp_kind != "none" and mlp_kind not in mlps:
            width, formula, shown = _mlp_matmul(spec, mlp_kind == "moe")
            label = "MLP matrices per layer" + (" (router + active experts)" if mlp_kind == "moe" else "")
            mlps[mlp_kind] = t.step(label, formula, shown, width, Unit.PARAMS)
        key = (layer_token(spec, kind), mlp_kind)
        counts[key] = counts.get(key, 0) + 1
    terms, shown_terms = [], []
    for (token, mlp_kind), n in counts.items():
        one = {"attention": attn, "linear": mixer, "parallel": attn + mixer}.get(token, 0) + mlps.get(
            mlp_kind, 0
        )
        terms.append(n * one)
        shown_terms.append(f"{n} × {num(one)}")
    head = spec.vocab_size * spec.d_model if spec.lm_head else 0
    value = t.step(
        "Matmul parameters per token",
        "Σ layers × (attention or mixer + MLP) + vocab_size × d_model",
        f"{' + '.join(shown_terms)} + {num(head)}",
        sum(terms) + head,
        Unit.PARAMS,
    )
    return t.done(
        value, Unit.PARAMS, "weight matrices only; biases, norms, convolutions and embeddings excluded"
    )


def forward_flops_per_token(spec: ModelSpec, context: int = 0) -> Result:
    """Forward FLOPs for one token: 2 × matmul parameters, plus 2·n_layers·context·n_heads·(qk + v widths)
    for the attention scores (QKᵀ) and the weighted sum (AV) over ``context`` tokens: 4·L·context·H·head_dim
    when keys and values are head_dim wide, 2·L·context·H·(192 + 128) for DeepSeek-V3's MLA as transformers
    runs it (decompressed keys and values).

    The attention term counts the full context (no causal halving) in every softmax layer, sliding and chunked
    layers included, as torch's FlopCounterMode counts transformers' masked attention; DeepSeek-V3.2's indexer
    adds its scores over the context. A hybrid's mixer layers add their projections and no context term: the
    work inside a mixer (the delta rule's chunked matmuls, the short convolution) depends on the kernel and is
    left out.

    Args:
        spec: the model.
        context: tokens attended to; 0 leaves attention out (the 2·N rule).

    Returns:
        FLOPs per token.
    """
    if isinstance(context, bool) or not isinstance(context, int) or context < 0:
        raise SpecError(f"context ({context!r}) must be a non-negative integer")
    t = Trace()
    params = t.use(matmul_params_per_token(spec))
    factors = tags(flops_per_mac=2, params=params)
    matmul = t.step(
        "Weight matmuls", "2 × matmul parameters", f"2 × {num(params)}", 2 * params, Unit.FLOPS, factors
    )
    if not context:
        return t.done(matmul, Unit.FLOPS, FLOP_CONVENTION + "; attention over the context not included")
    layers = len(spec.softmax_layers)
    name = "n_layers" if layers == spec.n_layers else "softmax layers"
    attn: int | float
    if spec.v_head_dim == spec.head_dim:
        attn = t.step(
            "Attention scores and weighted sum (QKᵀ, AV)",
            f"4 × {name} × context × n_heads × head_dim",
            f"4 × {layers} × {num(context)} × {spec.n_heads} × {spec.head_dim}",
            4 * layers * context * spec.n_heads * spec.head_dim,
            Unit.FLOPS,
        )
    else:
        attn = t.step(
            "Attention scores and weighted sum (QKᵀ, AV)",
            f"2 × {name} × context × n_heads × (qk head_dim + v_head_dim)",
            f"2 × {layers} × {num(context)} × {spec.n_heads} × ({spec.head_dim} + {spec.v_head_dim})",
            2 * layers * context * spec.n_heads * (spec.head_dim + spec.v_head_dim),
            Unit.FLOPS,
        )
    if spec.index_n_heads:
        n, w = spec.index_n_heads, spec.index_head_dim
        attn += t.step(
            "Indexer scores (every index head against every cached index key, then the heads' weighted sum)",
            "2 × softmax layers × context × index heads × (index key width + 1)",
            f"2 × {layers} × {num(context)} × {n} × ({w} + 1)",
            2 * layers * context * n * (w + 1),
            Unit.FLOPS,
        )
    value = t.step(
        "Forward FLOPs per token",
        "weight matmuls + attention",
        f"{num(matmul)} + {num(attn)}",
        matmul + attn,
        Unit.FLOPS,
    )
    return t.done(value, Unit.FLOPS, FLOP_CONVENTION + "; full (non-causal) attention over the context")
