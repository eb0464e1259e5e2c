"""Memory in bytes: weights, training state, ZeRO sharding, KV cache, inference rule of thumb."""

from __future__ import annotations

import math

from quizzer.core.checks import count, counts
from quizzer.core.errors import SpecError, UnknownNameError
from quizzer.core.record import Record
from quizzer.core.trace import Factor, Result, Trace, num, tags
from quizzer.core.units import (
    Unit,
    dtype_bits_ratio,
    dtype_bytes_text,
    elements_bytes,
    unknown_name_message,
)


def dtype_factor(dtype: str) -> Factor:
    """The ``bytes_per_value`` factor of a step that stores values of ``dtype``: its bytes per value (an int
    when whole, else a float), labelled with the dtype.

    >>> [(f.value, f.label) for f in (dtype_factor("bf16"), dtype_factor("int4"), dtype_factor("mxfp4"))]
    [(2, 'bf16'), (0.5, 'int4'), (0.53125, 'mxfp4')]
    """
    numerator, denominator = dtype_bits_ratio(dtype)
    whole, rest = divmod(numerator, 8 * denominator)
    return Factor("bytes_per_value", numerator / (8 * denominator) if rest else whole, None, dtype)


def weights_bytes(n_params: int, dtype: str) -> Result:
    """Weight memory: N × bytes(dtype); int4/nf4 pack two weights per byte, rounded up to a whole byte.

    Args:
        n_params: parameters N.
        dtype: fp32, tf32, fp16, bf16, fp8, int8, int4 or nf4 (4, 4, 2, 2, 1, 1, 1/2, 1/2 bytes).

    Returns:
        bytes.

    >>> weights_bytes(7_000_000_000, "bf16").value, weights_bytes(7, "int4").value
    (14000000000, 4)
    """
    n = count("n_params", n_params)
    t = Trace()
    shown = f"{num(n)} × {dtype_bytes_text(dtype)}"
    factors = (*tags(params=n), dtype_factor(dtype))
    value = t.step(
        f"Weights in {dtype}", "N × bytes(dtype)", shown, elements_bytes(n, dtype), Unit.BYTES, factors
    )
    return t.done(value, Unit.BYTES, "sub-byte dtypes packed (int4: 2 per byte), rounded up to whole bytes")


class TrainingRecipe(Record):
    """Bytes per parameter that training keeps for weights, gradients and optimizer states; ``master_bytes``
    is the part of the optimizer states that is an fp32 master copy of the weights (0 without one)."""

    name: str
    weight_bytes: int
    grad_bytes: int
    optimizer_bytes: int
    description: str
    source: str
    master_bytes: int = 0

    @property
    def total_bytes(self) -> int:
        """Bytes per parameter of all model states."""
        return self.weight_bytes + self.grad_bytes + self.optimizer_bytes


#: Training-state accountings; they differ by source (sizing-notes §2.8), so questions must name one.
RECIPES: dict[str, TrainingRecipe] = {
    row[0]: TrainingRecipe(*row)
    for row in (
        ("mixed-adam", 2, 2, 12, "fp16/bf16 weights and grads; fp32 master weights, momentum and variance",
         "Rajbhandari et al. 2019, ZeRO (arXiv 1910.02054) §3.1: 2Ψ + 2Ψ + KΨ with K = 12"),
        ("mixed-adam-fp32-grads", 2, 4, 12, "mixed-adam with fp32 grads (HF: 6 weights + 4 grads + 8 Adam)",
         "HF transformers docs, model_memory_anatomy; EleutherAI cookbook calc_transformer_mem default"),
        ("fp32-adam", 4, 4, 8, "fp32 weights, grads, Adam momentum and variance",
         "derived from Transformer Math 101 per-tensor sizes (fp32 4 B each: weights, grads, m, v)"),
        ("bf16-adam", 2, 2, 4, "everything bf16: weights, grads, momentum, variance; no fp32 master copy",
         "derived: 2 bytes for each of the four tensors"),
        ("sgd-momentum", 4, 4, 4, "fp32 SGD with momentum: weights, grads, one momentum buffer",
         "derived: 4 bytes for each of the three tensors"),
        ("mixed-adam-8bit", 2, 2, 6, "16-bit weights and grads; 8-bit Adam: fp32 master 4 + m 1 + v 1",
         "EleutherAI, Transformer Math 101 (8-bit optimizers such as bitsandbytes: 6 bytes/param)"),
        ("bf16-adam-fp32-moments", 2, 2, 8,
         "bf16 weights and grads, fp32 Adam momentum and variance; no fp32 master copy",
         "derived: 2 + 2 + 4 + 4 (the JAX scaling book's bf16 parameters with fp32 Adam states, "
         "gradients held)"),
        ("fp32-adam-fused", 4, 0, 8,
         "fp32 weights, Adam momentum and variance; the step fused into backward, so no gradient buffer",
         "PyTorch tutorial, How to save memory by fusing the optimizer step into the backward pass "
         "(register_post_accumulate_grad_hook)"),
    )
}  # fmt: skip
#: The fp32 master copy each recipe files under its optimizer states (bytes per parameter).
_MASTER_BYTES = {"mixed-adam": 4, "mixed-adam-fp32-grads": 4, "mixed-adam-8bit": 4}
RECIPES = {name: r.replace(master_bytes=_MASTER_BYTES.get(name, 0)) for name, r in RECIPES.items()}


def training_recipe(name: str) -> TrainingRecipe:
    """The training recipe called ``name``.

    >>> training_recipe("mixed-adam").total_bytes
    16
    """
    try:
        return RECIPES[name]
    except KeyError:
        raise UnknownNameError(unknown_name_message("recipe", name, RECIPES)) from None


#: Each recipe in words, for a prompt: the tensors it keeps per parameter and their precision.
_RECIPE_WORDS = {
    "mixed-adam": "mixed-precision Adam as the ZeRO paper counts it: 16-bit weights and gradients, an fp32 "
    "master copy of the weights, and fp32 Adam momentum and variance",
    "mixed-adam-fp32-grads": "mixed-precision AdamW as Hugging Face's memory anatomy counts it: fp32 weights "
    "plus a 16-bit copy, fp32 gradients, and fp32 AdamW momentum and variance",
    "fp32-adam": "plain fp32 Adam: fp32 weights (they are the master: no separate copy), fp32 gradients, and "
    "fp32 momentum and variance",
    "bf16-adam": "Adam entirely in bf16: bf16 weights, gradients, momentum and variance, and no fp32 master "
    "copy",
    "sgd-momentum": "fp32 SGD with momentum: fp32 weights, fp32 gradients and one fp32 momentum buffer",
    "mixed-adam-8bit": "16-bit weights and gradients, an fp32 master copy of the weights, and 8-bit Adam "
    "(momentum and variance one byte each)",
    "bf16-adam-fp32-moments": "bf16 weights and gradients, fp32 Adam momentum and variance, and no fp32 "
    "master copy",
    "fp32-adam-fused": "fp32 Adam with the step fused into the backward pass: fp32 weights, momentum and "
    "variance, each gradient applied and freed as soon as it is ready (no gradient buffer is held)",
}


def training_recipe_text(recipe: str) -> str:
    """What a training recipe keeps per parameter, in words, for a prompt.

    >>> training_recipe_text("bf16-adam-fp32-moments")
    'bf16 weights and gradients, fp32 Adam momentum and variance, and no fp32 master copy'
    """
    return _RECIPE_WORDS[training_recipe(recipe).name]


def training_recipe_convention(recipe: str) -> str:
    """A recipe's bytes per parameter, part by part, for a question's conventions.

    >>> training_recipe_convention("mixed-adam-8bit").split(" + ")[2]
    '6 (optimizer states, an fp32 master copy of 4 included) = 10 bytes per parameter.'
    """
    r = training_recipe(recipe)
    master = f", an fp32 master copy of {r.master_bytes} included" if r.master_bytes else ""
    return (
        f"Accounting: {r.weight_bytes} bytes (weights) + {r.grad_bytes} (gradients) + {r.optimizer_bytes} "
        f"(optimizer states{master}) = {r.total_bytes} bytes per parameter."
    )


def recipe_bytes_per_param(recipe: str, part: str = "total") -> int:
    """Bytes per parameter of one part of a recipe's model states: "weights", "gradients", "optimizer" (the
    optimizer states, an fp32 master copy included), "master" (that copy alone) or "total".

    >>> parts = ("weights", "gradients", "optimizer", "master", "total")
    >>> [recipe_bytes_per_param("mixed-adam", p) for p in parts]
    [2, 2, 12, 4, 16]
    """
    r = training_recipe(recipe)
    parts = {
        "weights": r.weight_bytes,
        "gradients": r.grad_bytes,
        "optimizer": r.optimizer_bytes,
        "master": r.master_bytes,
        "total": r.total_bytes,
    }
    if part not in parts:
        raise UnknownNameError(unknown_name_message("part of the model states", part, parts))
    return parts[part]


def _model_states(t: Trace, r: TrainingRecipe, n: int, shard: int, stage: int, where: str) -> Result:
    """Steps for weights, gradients and optimizer states; ZeRO stage k shards the last k of the three."""
    w, g, o, values = r.weight_bytes, r.grad_bytes, r.optimizer_bytes, []
    for label, per_param, from_stage in (("Weights", w, 3), ("Gradients", g, 2), ("Optimizer states", o, 1)):
        partitioned = stage >= from_stage
        count, symbol = (shard, "⌈N / N_d⌉") if partitioned else (n, "N")
        label += (" (partitioned)" if partitioned else " (replicated)") if where else ""
        shown = f"{num(count)} × {per_param}"
        values.append(t.step(label, f"{symbol} × {per_param}", shown, count * per_param, Unit.BYTES))
    added, formula = " + ".join(num(v) for v in values), "weights + gradients + optimizer states"
    total = t.step(f"Model states{where}", formula, added, sum(values), Unit.BYTES)
    convention = f"recipe {r.name}: {w}+{g}+{o} = {r.total_bytes} bytes/param ({r.source}); model states only"
    return t.done(total, Unit.BYTES, f"ZeRO stage {stage}; {convention}" if where else convention)


def training_state_bytes(n_params: int, recipe: str = "mixed-adam") -> Result:
    """Model-state memory for training: N × (weight + gradient + optimizer bytes per parameter).

    Default: ZeRO's mixed-precision Adam, 2 + 2 + 12 = 16 bytes/param (Rajbhandari et al. 2019). Activations,
    buffers and fragmentation are not included.

    Args:
        n_params: parameters N.
        recipe: a key of ``RECIPES``.

    Returns:
        bytes.

    >>> training_state_bytes(7_500_000_000).value
    120000000000
    """
    n = count("n_params", n_params)
    return _model_states(Trace(), training_recipe(recipe), n, n, 0, "")


def zero_bytes_per_gpu(n_params: int, n_gpus: int, zero_stage: int, recipe: str = "mixed-adam") -> Result:
    """Model-state bytes per GPU under ZeRO data parallelism (Rajbhandari et al. 2019, Figure 1).

    Stage 0 (plain data parallel) replicates everything; stage 1 partitions the optimizer states, stage 2
    also the gradients, stage 3 also the weights. A partitioned tensor holds ⌈N / N_d⌉ elements per GPU
    (DeepSpeed pads the flat buffer so the partitions are equal).

    Args:
        n_params: parameters N (Ψ in the paper).
        n_gpus: data-parallel degree N_d.
        zero_stage: 0, 1, 2 or 3.
        recipe: a key of ``RECIPES``.

    Returns:
        bytes per GPU.

    >>> zero_bytes_per_gpu(7_500_000_000, 64, 1).value
    31406250000
    """
    n, gpus = counts(n_params=n_params, n_gpus=n_gpus)
    stage = count("zero_stage", zero_stage, 0)
    if stage > 3:
        raise SpecError(f"zero_stage ({zero_stage!r}) must be 0, 1, 2 or 3")
    r, t, shard = training_recipe(recipe), Trace(), n
    if stage > 0:
        divided = f"⌈{num(n)} / {num(gpus)}⌉"
        shard = t.step("Partition per GPU (padded)", "⌈N / N_d⌉", divided, -(-n // gpus), Unit.PARAMS)
    return _model_states(t, r, n, shard, stage, f" per GPU ({gpus} GPUs)")


def kv_cache_bytes_per_token(n_layers: int, n_kv_heads: int, head_dim: int, dtype: str = "bf16") -> Result:
    """KV-cache bytes per token: 2 (K and V) × L × n_kv_heads × head_dim × bytes(dtype).

    Uses the KV heads (GQA/MQA), not the query heads (kipply, "Transformer Inference Arithmetic"; scaling
    book, "Transformers"). An int4 cache packs two values per byte.

    Args:
        n_layers: L.
        n_kv_heads: key/value heads K (``num_key_value_heads``).
        head_dim: H (the config's ``head_dim``, not always d_model / n_heads).
        dtype: cache dtype.

    Returns:
        bytes per token.

    >>> kv_cache_bytes_per_token(32, 8, 128).value
    131072
    """
    layers, k, hd = counts(n_layers=n_layers, n_kv_heads=n_kv_heads, head_dim=head_dim)
    formula = "2 (K and V) × L × n_kv_heads × head_dim × bytes(dtype)"
    substituted = f"2 × {layers} × {k} × {hd} × {dtype_bytes_text(dtype)}"
    product = elements_bytes(2 * layers * k * hd, dtype)
    factors = (*tags(kv=2, layers=layers, kv_heads=k, head_dim=hd), dtype_factor(dtype))
    t = Trace()
    label = "KV cache per token (K and V, every layer)"
    value = t.step(label, formula, substituted, product, Unit.BYTES, factors)
    return t.done(value, Unit.BYTES, f"{dtype} cache; n_kv_heads, not query heads")


def kv_cache_bytes(
    n_layers: int, n_kv_heads: int, head_dim: int, seq_len: int, batch: int, dtype: str = "bf16"
) -> Result:
    """KV-cache bytes: 2 (K and V) × L × n_kv_heads × head_dim × bytes(dtype) × seq_len × batch.

    Args:
        n_layers, n_kv_heads, head_dim, dtype: as in ``kv_cache_bytes_per_token``.
        seq_len: cached tokens per sequence (prompt plus generated).
        batch: sequences.

    Returns:
        bytes.

    >>> kv_cache_bytes(32, 32, 128, 4096, 1).value
    2147483648
    """
    s, b = counts(seq_len=seq_len, batch=batch)
    t = Trace()
    per_token = t.use(kv_cache_bytes_per_token(n_layers, n_kv_heads, head_dim, dtype))
    shown, formula = f"{num(per_token)} × {num(s)} × {num(b)}", "per token × seq_len × batch"
    factors = (*t.steps[-1].factors, *tags(tokens=s, batch=b))
    value = t.step(
        "KV cache, all tokens and sequences", formula, shown, per_token * s * b, Unit.BYTES, factors
    )
    return t.done(value, Unit.BYTES, f"{dtype} cache; n_kv_heads, not query heads")


def inference_memory_bytes(n_params: int, dtype: str, overhead: float = 1.2) -> Result:
    """Inference memory rule of thumb: 1.2 × weight bytes (EleutherAI, Transformer Math 101).

    The 20% covers small-batch extras; it does not grow with long contexts (add the KV cache then).

    Args:
        n_params: parameters N.
        dtype: weight dtype.
        overhead: multiplier on the weight bytes (>= 1).

    Returns:
        bytes, rounded up.

    >>> inference_memory_bytes(70_000_000_000, "bf16").value
    168000000000
    """
    if isinstance(overhead, bool) or not isinstance(overhead, int | float) or not 1 <= overhead < math.inf:
        raise SpecError(f"overhead ({overhead!r}) must be a finite number >= 1")
    from fractions import Fraction

    t = Trace()
    weights = t.use(weights_bytes(n_params, dtype))
    product, substituted = math.ceil(Fraction(repr(overhead)) * weights), f"{num(overhead)} × {num(weights)}"
    label, factors = (
        "Inference memory (rule of thumb)",
        t.steps[-1].factors,
    )  # rounded up: proportional to them
    value = t.step(label, "overhead × weights", substituted, product, Unit.BYTES, factors)
    return t.done(value, Unit.BYTES, f"TM101 rule of thumb ×{num(overhead)}, rounded up to whole bytes")
