"""Activation memory in bytes: Korthikanti et al.'s per-layer formula, recomputation, checkpoints."""

from __future__ import annotations

from quizzer.core.checks import counts
from quizzer.core.errors import SpecError, UnknownNameError
from quizzer.core.trace import Result, Trace, num
from quizzer.core.units import Unit, dtype_bytes_text, elements_bytes, unknown_name_message

_RECOMPUTE = {"none": "s·b·h·(10 + 24/t + 5·a·s/(h·t))", "selective": "s·b·h·(10 + 24/t)", "full": "2·s·b·h"}
#: The same on one GPU (t = 1), as the paper writes it.
_ONE_GPU = {"none": "s·b·h·(34 + 5·a·s/h)", "selective": "s·b·h·34", "full": "2·s·b·h"}


def activation_bytes(
    seq_len: int,
    batch: int,
    d_model: int,
    n_layers: int,
    n_heads: int,
    recompute: str = "none",
    tensor_parallel: int = 1,
) -> Result:
    """Activation memory of a transformer with 16-bit activations (Korthikanti et al. 2022, arXiv 2205.05198).

    Per layer: s·b·h·(10 + 24/t + 5·a·s/(h·t)) bytes with no recomputation, s·b·h·(10 + 24/t) with
    selective recomputation (attention scores recomputed), 2·s·b·h with full recomputation (only each
    layer's input kept); times L. No sequence parallelism; embeddings and the output layer are ignored.

    Args:
        seq_len, batch, d_model, n_layers: s (tokens per sequence), b (micro-batch), h, L.
        n_heads: a, attention heads (divisible by ``tensor_parallel``).
        recompute: "none", "selective" or "full".
        tensor_parallel: t, tensor-parallel degree.

    Returns:
        bytes (per GPU when t > 1).

    >>> activation_bytes(2048, 1, 4096, 32, 32).value
    30601641984
    """
    s, b, h, layers, a, tp = counts(
        seq_len=seq_len,
        batch=batch,
        d_model=d_model,
        n_layers=n_layers,
        n_heads=n_heads,
        tensor_parallel=tensor_parallel,
    )
    if recompute not in _RECOMPUTE:
        raise UnknownNameError(unknown_name_message("recompute mode", recompute, _RECOMPUTE))
    if a % tp:
        raise SpecError(f"n_heads ({a}) must be divisible by tensor_parallel ({tp})")
    from fractions import Fraction  # lazily: keeps `fractions` out of the cold start of `quizzer count`

    if recompute == "full":
        per_layer, substituted = Fraction(2 * s * b * h), f"2·{num(s)}·{num(b)}·{num(h)}"
    else:
        scores = Fraction(5 * a * s, h * tp) if recompute == "none" else 0
        per_layer = s * b * h * (10 + Fraction(24, tp) + scores)
        if tp == 1:  # one GPU: the paper's 34 (and 5·a·s/h), no t to leave undefined
            shown = f" + 5·{a}·{num(s)}/{num(h)}" if recompute == "none" else ""
            substituted = f"{num(s)}·{num(b)}·{num(h)}·(34{shown})"
        else:
            shown = f" + 5·{a}·{num(s)}/({num(h)}·{tp})" if recompute == "none" else ""
            substituted = f"{num(s)}·{num(b)}·{num(h)}·(10 + 24/{tp}{shown})"
    t = Trace()
    label = f"Activations per layer ({'no' if recompute == 'none' else recompute} recompute)"
    formula = _ONE_GPU[recompute] if tp == 1 else _RECOMPUTE[recompute]
    t.step(label, formula, substituted, per_layer, Unit.BYTES)
    shown = f"{num(per_layer)} × {layers}"
    total = t.step("Activations, all layers", "per layer × L", shown, per_layer * layers, Unit.BYTES)
    return t.done(total, Unit.BYTES, "16-bit activations (Korthikanti et al. 2022); no sequence parallelism")


def activation_bytes_full_recompute(seq_len: int, batch: int, d_model: int, n_layers: int) -> Result:
    """Activations with full recomputation: each layer keeps only its 16-bit input, 2·s·b·h·L bytes.

    Source: Korthikanti et al. 2022; EleutherAI, Transformer Math 101. Arguments as in ``activation_bytes``.

    Returns:
        bytes.

    >>> activation_bytes_full_recompute(2048, 1, 4096, 32).value
    536870912
    """
    return activation_bytes(seq_len, batch, d_model, n_layers, 1, "full")


def activation_checkpoint_bytes(
    n_tokens: int, n_layers: int, checkpoint_width: int, dtype: str = "bf16"
) -> Result:
    """Saved activation checkpoints for a whole batch: n_tokens × n_layers × checkpoint_width × bytes(dtype).

    The scaling book's shortcut: each layer saves a few activations of known width per token (for example
    the layer input, width d_model, or the MLP's three matmul outputs, widths d_ff, d_ff and d_model), and
    ``checkpoint_width`` is their sum. Source: JAX scaling book, "training" (Question 2) and
    "applied-training".

    Args:
        n_tokens: tokens in the batch (all sequences).
        n_layers: L.
        checkpoint_width: summed width of the activations saved per layer and token.
        dtype: activation dtype.

    Returns:
        bytes.

    >>> activation_checkpoint_bytes(4_000_000, 80, 3 * 8192).value
    15728640000000
    """
    tokens, layers, width = counts(n_tokens=n_tokens, n_layers=n_layers, checkpoint_width=checkpoint_width)
    t = Trace()
    value = t.step(
        "Saved checkpoints",
        "tokens × n_layers × checkpoint width × bytes(dtype)",
        f"{num(tokens)} × {layers} × {num(width)} × {dtype_bytes_text(dtype)}",
        elements_bytes(tokens * layers * width, dtype),
        Unit.BYTES,
    )
    return t.done(value, Unit.BYTES, f"{dtype} activations; only the checkpoints, no transient buffers")
