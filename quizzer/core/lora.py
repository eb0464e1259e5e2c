"""LoRA adapter parameter counts and the trainable share PEFT prints."""

from __future__ import annotations

from quizzer.core.checks import count
from quizzer.core.trace import Result, Trace, num
from quizzer.core.units import Unit

#: What every count here assumes.
LORA_CONVENTION = "A is r × d_in, B is d_out × r, no LoRA bias (Hu et al. 2021; PEFT defaults)"


def lora_params(rank: int, d_in: int, d_out: int, n_matrices: int = 1, n_layers: int = 1) -> Result:
    """LoRA parameters r·(d_in + d_out) per adapted matrix, times matrices per layer and layers.

    The update ΔW = B·A has A of shape r × d_in and B of shape d_out × r. Source: Hu et al. 2021, LoRA,
    arXiv 2106.09685; Hugging Face PEFT ``LoraLayer``.

    Args:
        rank: LoRA rank r.
        d_in: input features of the adapted matrix.
        d_out: output features of the adapted matrix.
        n_matrices: adapted matrices of this shape per layer.
        n_layers: layers that carry the adapters.

    Returns:
        Parameters (int).

    Rank 8 on a 4096 × 4096 projection: 8 × 8,192 = 65,536.

    >>> lora_params(8, 4096, 4096).value
    65536
    """
    rank, d_in, d_out = count("rank", rank), count("d_in", d_in), count("d_out", d_out)
    n_matrices, n_layers = count("n_matrices", n_matrices), count("n_layers", n_layers)
    t = Trace()
    per_matrix = t.step(
        "Adapter parameters per matrix (A and B)",
        "r × (d_in + d_out)",
        f"{num(rank)} × ({num(d_in)} + {num(d_out)})",
        rank * (d_in + d_out),
        Unit.PARAMS,
    )
    if n_matrices == 1 and n_layers == 1:
        return t.done(per_matrix, Unit.PARAMS, LORA_CONVENTION)
    total = t.step(
        "Adapter parameters in all layers",
        "per matrix × matrices × layers",
        f"{num(per_matrix)} × {num(n_matrices)} × {num(n_layers)}",
        per_matrix * n_matrices * n_layers,
        Unit.PARAMS,
    )
    return t.done(total, Unit.PARAMS, LORA_CONVENTION)


def lora_qv_params(d_model: int, n_layers: int, rank: int) -> Result:
    """LoRA on the query and value projections of a multi-head attention model: 2·L·r·(d + d).

    This is PEFT's default target set for Llama-style models (q_proj, v_proj). Source: PEFT
    print_trainable_parameters example for Llama-2-7B at r = 8: 4,194,304 trainable parameters.

    Args:
        d_model: model width d (q and v are d × d: multi-head attention, not GQA for v).
        n_layers: transformer layers L.
        rank: LoRA rank r.

    Returns:
        Parameters (int).

    >>> lora_qv_params(4096, 32, 8).value
    4194304
    """
    t = Trace()
    total = t.use(lora_params(rank, d_model, d_model, 2, n_layers))
    return t.done(total, Unit.PARAMS, LORA_CONVENTION + "; q and v are d_model × d_model (MHA)")


def lora_all_linear_params(
    d_model: int, n_layers: int, rank: int, d_ff: int, n_heads: int, n_kv_heads: int, head_dim: int
) -> Result:
    """LoRA on every linear layer of a gated-MLP (Llama-style) decoder: q, k, v, o, gate, up and down.

    Shapes: q d→N·H, k and v d→K·H, o N·H→d, gate and up d→F, down F→d; the LM head is not adapted
    (PEFT ``target_modules="all-linear"``). Source: sizing-notes 4.10 (Llama-2-7B at r = 16: 39,976,960;
    Mistral-7B: 41,943,040, because of GQA k, v and F = 14,336).

    Args:
        d_model: model width d.
        n_layers: transformer layers L.
        rank: LoRA rank r.
        d_ff: MLP width F.
        n_heads: query heads N.
        n_kv_heads: key/value heads K (K = N for MHA).
        head_dim: head dimension H.

    Returns:
        Parameters (int).

    Llama-2-7B per layer: 4 × 16 × 8,192 + 3 × 16 × 15,104 = 1,249,280; × 32 layers:

    >>> lora_all_linear_params(4096, 32, 16, 11008, 32, 32, 128).value
    39976960
    """
    d, n_layers, rank = count("d_model", d_model), count("n_layers", n_layers), count("rank", rank)
    f, head_dim = count("d_ff", d_ff), count("head_dim", head_dim)
    q_dim, kv_dim = count("n_heads", n_heads) * head_dim, count("n_kv_heads", n_kv_heads) * head_dim
    shapes = [
        ("`q_proj`", d, q_dim, 1),
        ("`k_proj` and `v_proj`", d, kv_dim, 2),
        ("`o_proj`", q_dim, d, 1),
        ("`gate_proj` and `up_proj`", d, f, 2),
        ("`down_proj`", f, d, 1),
    ]
    t = Trace()
    parts = []
    for name, d_in, d_out, n_matrices in shapes:
        value = rank * (d_in + d_out) * n_matrices
        prefix = f"{n_matrices} × " if n_matrices > 1 else ""
        subst = f"{prefix}{num(rank)} × ({num(d_in)} + {num(d_out)})"
        parts.append(
            t.step(f"{name} adapters per layer", f"{prefix}r × (d_in + d_out)", subst, value, Unit.PARAMS)
        )
    per_layer = t.step(
        "Adapters per layer", "sum of the projections", " + ".join(map(num, parts)), sum(parts), Unit.PARAMS
    )
    total = t.step(
        "Adapters in all layers",
        "per layer × L",
        f"{num(per_layer)} × {num(n_layers)}",
        per_layer * n_layers,
        Unit.PARAMS,
    )
    return t.done(total, Unit.PARAMS, LORA_CONVENTION + "; LM head and embeddings not adapted")


def trainable_percent(trainable_params: int, base_params: int) -> Result:
    """Trainable share as PEFT prints it: 100 × trainable / (base + trainable).

    PEFT's ``print_trainable_parameters`` counts "all params" after the adapters are added, so the
    denominator includes them. Source: PEFT docs ("trainable params: 4,194,304 || all params: 6,742,609,920
    || trainable%: 0.0622" for Llama-2-7B, q and v at r = 8).

    Args:
        trainable_params: adapter (trainable) parameters.
        base_params: frozen base-model parameters.

    Returns:
        A ratio expressed in percent (float): 0.0622 means 0.0622 %.

    >>> trainable_percent(1_000, 99_000).value
    1.0
    """
    trainable_params = count("trainable_params", trainable_params)
    base_params = count("base_params", base_params)
    t = Trace()
    total = t.step(
        "All parameters (base + adapters)",
        "base + trainable",
        f"{num(base_params)} + {num(trainable_params)}",
        base_params + trainable_params,
        Unit.PARAMS,
    )
    percent = t.step(
        "Trainable percent",
        "100 × trainable / all",
        f"100 × {num(trainable_params)} / {num(total)}",
        100 * trainable_params / total,
        Unit.RATIO,
    )
    return t.done(
        percent, Unit.RATIO, "percent (ratio × 100); denominator includes the adapters, as PEFT prints"
    )
