"""FLOP counts: forward per token, training 6·N·D, inference 2·N·D, recompute 8·N·D, MACs."""

from __future__ import annotations

from quizzer.core.checks import positive
from quizzer.core.errors import SpecError
from quizzer.core.spec import ModelSpec
from quizzer.core.trace import Result, Trace, num
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


def matmul_params_per_token(spec: ModelSpec) -> Result:
    """Weight-matrix parameters one token multiplies through: layers (active experts only) and the LM head.

    Embedding lookups, biases and norms are not matmuls; a tied head still does its V·d matmul.
    """
    t = Trace()
    d, h = spec.d_model, spec.head_dim
    attn = t.step(
        "Attention matrices per layer",
        "d_model × (2 × n_heads + 2 × n_kv_heads) × head_dim",
        f"{num(d)} × (2 × {spec.n_heads} + 2 × {spec.n_kv_heads}) × {h}",
        d * (2 * spec.n_heads + 2 * spec.n_kv_heads) * h,
        Unit.PARAMS,
    )
    n_mats = 3 if spec.mlp == "gated" else 2
    if spec.is_moe:
        k = spec.experts_per_token + spec.n_shared_experts
        mlp = t.step(
            "MLP matrices per layer (router + active experts)",
            f"d_model × n_experts + k × {n_mats} × d_model × d_ff_expert",
            f"{num(d)} × {spec.n_experts} + {k} × {n_mats} × {num(d)} × {num(spec.d_ff_expert)}",
            d * spec.n_experts + k * n_mats * d * spec.d_ff_expert,
            Unit.PARAMS,
        )
    else:
        mlp = t.step(
            "MLP matrices per layer",
            f"{n_mats} × d_model × d_ff",
            f"{n_mats} × {num(d)} × {num(spec.d_ff)}",
            n_mats * d * spec.d_ff,
            Unit.PARAMS,
        )
    head = spec.vocab_size * d if spec.lm_head else 0
    value = t.step(
        "Matmul parameters per token",
        "n_layers × (attention + MLP) + vocab_size × d_model",
        f"{spec.n_layers} × ({num(attn)} + {num(mlp)}) + {num(head)}",
        spec.n_layers * (attn + mlp) + head,
        Unit.PARAMS,
    )
    return t.done(value, Unit.PARAMS, "weight matrices only; biases, norms and embedding lookups excluded")


def forward_flops_per_token(spec: ModelSpec, context: int = 0) -> Result:
    """Forward FLOPs for one token: 2 × matmul parameters, plus 4·n_layers·context·n_heads·head_dim
    for the attention scores (QKᵀ) and the weighted sum (AV) over ``context`` tokens.

    The attention term counts the full context (no causal halving), as torch's FlopCounterMode does.

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
    matmul = t.step("Weight matmuls", "2 × matmul parameters", f"2 × {num(params)}", 2 * params, Unit.FLOPS)
    if not context:
        return t.done(matmul, Unit.FLOPS, FLOP_CONVENTION + "; attention over the context not included")
    attn = t.step(
        "Attention scores and weighted sum (QKᵀ, AV)",
        "4 × n_layers × context × n_heads × head_dim",
        f"4 × {spec.n_layers} × {num(context)} × {spec.n_heads} × {spec.head_dim}",
        4 * spec.n_layers * context * spec.n_heads * spec.head_dim,
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
