"""Inference latency bounds: memory-bound decode, compute-bound steps, prefill, critical batch size."""

from __future__ import annotations

from fractions import Fraction

from quizzer.core.checks import count, counts, fraction, positive
from quizzer.core.errors import SpecError
from quizzer.core.flops import inference_flops
from quizzer.core.memory import weights_bytes
from quizzer.core.trace import Result, Trace, num
from quizzer.core.units import Unit, dtype_bytes

#: Unit of ``decode_throughput`` (not yet a member of ``Unit``).

_ROOFLINE = "roofline lower bound: perfect overlap, peak rates, weights sharded evenly over the GPUs"


def decode_step_time(
    n_params: int, dtype: str, n_gpus: int, bandwidth: float, kv_cache_bytes: float = 0
) -> Result:
    """Memory-bound lower bound on one decode step: (weight bytes + KV bytes) / (n_gpus × bandwidth).

    Every weight (and the KV cache) is read from HBM once per step; at small batch this dominates
    (kipply, "Transformer Inference Arithmetic"; scaling book, "All About Transformer Inference").

    Args:
        n_params: parameters N.
        dtype: weight dtype.
        n_gpus: GPUs the weights and cache are sharded over (tensor parallel).
        bandwidth: HBM bandwidth per GPU, bytes/s.
        kv_cache_bytes: KV-cache bytes read per step (all sequences), 0 to ignore it.

    Returns:
        seconds.

    >>> round(decode_step_time(52_000_000_000, "bf16", 4, 1.5e12).value, 4)
    0.0173
    """
    gpus, bw = count("n_gpus", n_gpus), positive("bandwidth", bandwidth)
    kv = positive("kv_cache_bytes", kv_cache_bytes, allow_zero=True)
    t = Trace()
    read = t.use(weights_bytes(n_params, dtype))
    factors = () if kv else t.steps[-1].factors  # the weights alone: the time is proportional to theirs
    if kv:
        read = t.step(
            "Bytes read per step",
            "weight bytes + KV-cache bytes",
            f"{num(read)} + {num(kv)}",
            read + kv,
            Unit.BYTES,
        )
    aggregate = t.step(
        "Aggregate HBM bandwidth", "GPUs × bandwidth", f"{gpus} × {num(bw)}", gpus * bw, Unit.BYTES_PER_S
    )
    shown = f"{num(read)} / {num(aggregate)}"
    label = "Memory-bound step time"
    value = t.step(label, "bytes read / aggregate bandwidth", shown, read / aggregate, Unit.SECONDS, factors)
    return t.done(value, Unit.SECONDS, "memory-bound " + _ROOFLINE + "; compute and communication ignored")


def compute_step_time(n_params: int, batch: int, n_gpus: int, peak_flops: float) -> Result:
    """Compute-bound lower bound on one decode step: batch × 2 × N / (n_gpus × peak FLOP/s) (kipply).

    Args:
        n_params: parameters N (active parameters for a mixture of experts).
        batch: sequences decoded together (one token each).
        n_gpus: GPUs sharing the work.
        peak_flops: peak FLOP/s per GPU (dense).

    Returns:
        seconds.

    >>> round(compute_step_time(260_000_000_000, 512, 16, 312e12).value, 4)
    0.0533
    """
    n, b, gpus = count("n_params", n_params), count("batch", batch), count("n_gpus", n_gpus)
    peak = positive("peak_flops", peak_flops)
    t = Trace()
    flops = t.use(inference_flops(n, b))
    shown, label = f"{num(flops)} / ({gpus} × {num(peak)})", "Compute-bound step time"
    value = t.step(
        label, "FLOPs / (GPUs × peak)", shown, flops / (gpus * peak), Unit.SECONDS, t.steps[-1].factors
    )
    return t.done(value, Unit.SECONDS, "compute-bound " + _ROOFLINE + "; FLOP = 2 per multiply-add")


def generate_step_time(
    n_params: int,
    dtype: str,
    batch: int,
    kv_bytes_per_sequence: float,
    n_gpus: int,
    bandwidth: float,
    peak_flops: float,
) -> Result:
    """One generate step: B·KV/BW + max(2·B·N/FLOP/s, weight bytes/BW), all over n_gpus (scaling book).

    The KV cache cannot be amortised over the batch, so its read time adds; weight loading and the
    matmuls overlap, so the larger of the two counts ("All About Transformer Inference").

    Args:
        n_params: parameters N.
        dtype: weight dtype.
        batch: sequences B.
        kv_bytes_per_sequence: KV-cache bytes of one sequence at its current length.
        n_gpus: chips the model and cache are sharded over.
        bandwidth: HBM bandwidth per chip, bytes/s.
        peak_flops: peak FLOP/s per chip for the matmul dtype.

    Returns:
        seconds.

    >>> round(generate_step_time(30_000_000_000, "int8", 4, 819_200_000, 16, 8.1e11, 1.97e14).value, 4)
    0.0026
    """
    n, b, gpus = count("n_params", n_params), count("batch", batch), count("n_gpus", n_gpus)
    kv, bw = (
        positive("kv_bytes_per_sequence", kv_bytes_per_sequence, allow_zero=True),
        positive("bandwidth", bandwidth),
    )
    peak = positive("peak_flops", peak_flops)
    t = Trace()
    weights = t.use(weights_bytes(n, dtype))
    shown = f"{b} × {num(kv)} / ({gpus} × {num(bw)})"
    kv_time = t.step("KV-cache read time", "B × KV / (GPUs × BW)", shown, b * kv / (gpus * bw), Unit.SECONDS)
    shown, formula = f"2 × {b} × {num(n)} / ({gpus} × {num(peak)})", "2 × B × N / (GPUs × FLOP/s)"
    math_time = t.step("Matmul time", formula, shown, 2 * b * n / (gpus * peak), Unit.SECONDS)
    shown = f"{num(weights)} / ({gpus} × {num(bw)})"
    load_time = t.step(
        "Weight load time", "weight bytes / (GPUs × BW)", shown, weights / (gpus * bw), Unit.SECONDS
    )
    shown = f"{num(kv_time)} + max({num(math_time)}, {num(load_time)})"
    formula = "KV time + max(matmul time, weight load time)"
    value = t.step("Generate step time", formula, shown, kv_time + max(math_time, load_time), Unit.SECONDS)
    return t.done(value, Unit.SECONDS, _ROOFLINE + "; attention FLOPs and communication ignored")


def prefill_time(n_params: int, n_tokens: int, n_gpus: int, peak_flops: float, mfu: float) -> Result:
    """Prefill time: 2·N·T / (n_gpus × peak × MFU) (scaling book, "Serving LLaMA 3-70B").

    Args:
        n_params: parameters N.
        n_tokens: prompt tokens T (summed over the batch).
        n_gpus: chips.
        peak_flops: peak FLOP/s per chip.
        mfu: model FLOPs utilisation, in (0, 1].

    Returns:
        seconds.

    >>> round(prefill_time(70_000_000_000, 8192, 16, 1.97e14, 0.4).value, 2)
    0.91
    """
    n, tokens, gpus = count("n_params", n_params), count("n_tokens", n_tokens), count("n_gpus", n_gpus)
    peak = positive("peak_flops", peak_flops)
    fraction("mfu", mfu)
    t = Trace()
    flops, factors = t.use(inference_flops(n, tokens)), t.steps[-1].factors
    shown = f"{gpus} × {num(peak)} × {num(mfu)}"
    achieved = t.step("Achieved throughput", "GPUs × peak × MFU", shown, gpus * peak * mfu, Unit.FLOP_PER_S)
    shown = f"{num(flops)} / {num(achieved)}"
    value = t.step("Prefill time", "FLOPs / achieved FLOP/s", shown, flops / achieved, Unit.SECONDS, factors)
    return t.done(value, Unit.SECONDS, f"compute-bound at MFU {num(mfu)}; attention FLOPs ignored")


def critical_batch_size(peak_flops: float, bandwidth: float, weight_dtype: str = "bf16") -> Result:
    """Batch above which a weight matmul is compute-bound: (peak / bandwidth) × (bytes per weight / 2).

    bf16 activations; int8 weights with bf16 FLOPs halve it (kipply: A100 312e12 / 1.5e12 = 208;
    scaling book: TPU v5e ≈ 240).

    Args:
        peak_flops: peak FLOP/s of the matmul dtype.
        bandwidth: HBM bandwidth, bytes/s.
        weight_dtype: dtype the weights are stored in.

    Returns:
        tokens (a float).

    >>> critical_batch_size(312e12, 1.5e12).value, critical_batch_size(312e12, 1.5e12, "int8").value
    (208.0, 104.0)
    """
    peak, bw, size = (
        positive("peak_flops", peak_flops),
        positive("bandwidth", bandwidth),
        dtype_bytes(weight_dtype),
    )
    ratio = Fraction(peak) / Fraction(bw)
    t = Trace()
    t.step(
        "Ops per byte of the hardware",
        "peak FLOP/s / HBM bytes/s",
        f"{num(peak)} / {num(bw)}",
        float(ratio),
        Unit.RATIO,
    )
    shown = f"{num(float(ratio))} × {num(size)} / 2"
    value = t.step(
        "Critical batch", "(peak / BW) × bytes per weight / 2", shown, float(ratio * size / 2), Unit.TOKENS
    )
    return t.done(value, Unit.TOKENS, f"{weight_dtype} weights, bf16 activations; dense peak")


def moe_critical_batch_size(
    peak_flops: float, bandwidth: float, weight_dtype: str, n_experts: int, experts_per_token: int
) -> Result:
    """Token batch a mixture-of-experts layer needs to be compute-bound: critical batch × E / k.

    Each expert sees only k/E of the tokens (scaling book, "All the Transformer Math", question 8).

    Args:
        peak_flops: peak FLOP/s of the matmul dtype.
        bandwidth: HBM bandwidth, bytes/s.
        weight_dtype: dtype the expert weights are stored in.
        n_experts: routed experts E.
        experts_per_token: k (top-k).

    Returns:
        tokens (a float).

    >>> round(moe_critical_batch_size(1.97e14, 8.2e11, "int8", 256, 8).value)
    3844
    """
    e, k = count("n_experts", n_experts), count("experts_per_token", experts_per_token)
    if k > e:
        raise SpecError(f"experts_per_token ({k}) must be at most n_experts ({e})")
    t = Trace()
    dense = t.use(critical_batch_size(peak_flops, bandwidth, weight_dtype))
    value = t.step(
        "MoE critical batch",
        "critical batch × E / k",
        f"{num(dense)} × {e} / {k}",
        dense * e / k,
        Unit.TOKENS,
    )
    return t.done(
        value, Unit.TOKENS, f"{weight_dtype} expert weights, bf16 activations; tokens spread evenly"
    )


def decode_throughput(batch: int, step_time: float) -> Result:
    """Decode throughput: batch / step time, one token per sequence per step.

    Args:
        batch: sequences decoded together.
        step_time: seconds per decode step.

    Returns:
        tokens/s.

    >>> round(decode_throughput(32, 0.017).value)
    1882
    """
    b, seconds = count("batch", batch), positive("step_time", step_time)
    t = Trace()
    value = t.step(
        "Decode throughput", "batch / step time", f"{b} / {num(seconds)}", b / seconds, Unit.TOKENS_PER_S
    )
    return t.done(value, Unit.TOKENS_PER_S, "one token per sequence per step")


def kv_tokens_freed_per_step(batch: int, prefill_len: int, decode_len: int) -> Result:
    """Average KV-cache tokens freed per decode step in steady-state serving: batch × (P + G) / G.

    Each sequence lives G decode steps, so batch / G sequences finish per step, each freeing its P + G cached
    tokens (and as many arrive to take their place). Source: JAX scaling book, "applied-inference".

    Args:
        batch: sequences decoded together.
        prefill_len: prompt tokens per sequence P.
        decode_len: generated tokens per sequence G.

    Returns:
        tokens per step.

    >>> kv_tokens_freed_per_step(32, 8192, 4096).value
    96
    """
    b, p, g = counts(batch=batch, prefill_len=prefill_len, decode_len=decode_len)
    from fractions import Fraction

    t = Trace()
    value = t.step(
        "KV tokens freed per decode step",
        "batch × (prefill_len + decode_len) / decode_len",
        f"{b} × ({num(p)} + {num(g)}) / {num(g)}",
        Fraction(b * (p + g), g),
        Unit.TOKENS,
    )
    return t.done(value, Unit.TOKENS, "steady state: sequences finish at an even rate")
