"""Efficiency: how close a kernel comes to the roof that bounds it, how far a number format shrinks the
weights, and the token counts at which prefill and decode turn compute-bound.

Every ratio here is computed exactly (``Fraction``) from the numbers given and returned as a float.
"""

from __future__ import annotations

from fractions import Fraction

from quizzer.core.blockscaled import BLOCK_FORMATS, block_scaled_bits_per_value
from quizzer.core.checks import count, counts, positive
from quizzer.core.errors import SpecError
from quizzer.core.memory import dtype_factor, weights_bytes
from quizzer.core.quant import quant_bits_per_param
from quizzer.core.trace import Result, Trace, num, tags
from quizzer.core.units import Unit, check_dtype, dtype_bits, dtype_bytes_text, elements_bytes

_ROOFLINE = "roofline: perfect overlap of math and HBM traffic, dense peak FLOP/s, decimal bytes/s"


def _ratio(top: int | float | Fraction, bottom: int | float | Fraction) -> Fraction:
    """top / bottom, exactly (floats are binary fractions, so Fraction(float) is exact)."""
    return Fraction(top) / Fraction(bottom)


def flops_utilisation(flops: float, seconds: float, peak_flops: float) -> Result:
    """Share of the compute roof a kernel reached: (FLOPs / time) / peak FLOP/s (MFU for a whole model).

    Args:
        flops: FLOPs the kernel does (2 per multiply-add).
        seconds: measured time.
        peak_flops: dense peak FLOP/s of the chip in the kernel's dtype.

    Returns:
        ratio (0.75 = 75%).

    >>> round(flops_utilisation(2 * 8192**3, 0.0016, 989.4e12).value, 4)
    0.6946
    """
    work, secs = positive("flops", flops), positive("seconds", seconds)
    peak = positive("peak_flops", peak_flops)
    t = Trace()
    achieved = t.step(
        "Achieved FLOP/s",
        "FLOPs / time",
        f"{num(work)} / {num(secs)}",
        float(_ratio(work, secs)),
        Unit.FLOP_PER_S,
    )
    value = t.step(
        "Share of the compute roof",
        "achieved FLOP/s / peak FLOP/s",
        f"{num(achieved)} / {num(peak)}",
        float(_ratio(work, secs) / Fraction(peak)),
        Unit.RATIO,
        tags(flops_per_mac=2),
    )
    return t.done(value, Unit.RATIO, "dense peak (not 2:4 sparse); FLOPs count 2 per multiply-add")


def bandwidth_utilisation(bytes_moved: float, seconds: float, bandwidth: float) -> Result:
    """Share of the memory roof a kernel reached: (bytes moved / time) / peak bandwidth (MBU for decode).

    Args:
        bytes_moved: bytes the kernel reads from and writes to HBM.
        seconds: measured time.
        bandwidth: peak HBM bandwidth, bytes/s.

    Returns:
        ratio.

    >>> round(bandwidth_utilisation(2.68e9, 0.001, 3.35e12).value, 6)
    0.8
    """
    moved, secs = positive("bytes_moved", bytes_moved), positive("seconds", seconds)
    bw = positive("bandwidth", bandwidth)
    t = Trace()
    achieved = t.step(
        "Achieved bandwidth",
        "bytes / time",
        f"{num(moved)} / {num(secs)}",
        float(_ratio(moved, secs)),
        Unit.BYTES_PER_S,
    )
    value = t.step(
        "Share of the memory roof",
        "achieved bytes/s / peak bytes/s",
        f"{num(achieved)} / {num(bw)}",
        float(_ratio(moved, secs) / Fraction(bw)),
        Unit.RATIO,
    )
    return t.done(value, Unit.RATIO, "peak HBM bandwidth from the spec sheet, decimal bytes/s")


def matmul_roofline_utilisation(
    m: int, k: int, n: int, dtype: str, seconds: float, peak_flops: float, bandwidth: float
) -> Result:
    """Share of the roof that bounds a measured [M, K] × [K, N] matmul: the compute roof (FLOP/s ÷ peak) when
    its intensity 2MKN / ((MK + KN + MN) × bytes) is at or above the chip's ridge (peak ÷ bandwidth), the
    memory roof (bytes/s ÷ bandwidth) below it. Either way it is the roofline time ÷ the measured time.

    Args:
        m: rows of X (tokens).
        k: inner dimension.
        n: columns of W.
        dtype: dtype of X, W and Y (each read or written once).
        seconds: measured time.
        peak_flops: dense peak FLOP/s of the chip in ``dtype``.
        bandwidth: HBM bandwidth, bytes/s.

    Returns:
        ratio.

    >>> round(matmul_roofline_utilisation(8192, 8192, 8192, "bf16", 0.0016, 989.4e12, 3.35e12).value, 4)
    0.6946
    >>> round(matmul_roofline_utilisation(16, 8192, 8192, "bf16", 5e-05, 989.4e12, 3.35e12).value, 4)
    0.8044
    """
    m, k, n = counts(m=m, k=k, n=n)
    secs, peak, bw = (
        positive("seconds", seconds),
        positive("peak_flops", peak_flops),
        positive("bandwidth", bandwidth),
    )
    t = Trace()
    flops = t.step(
        "Matmul FLOPs",
        "2 × M × K × N",
        f"2 × {num(m)} × {num(k)} × {num(n)}",
        2 * m * k * n,
        Unit.FLOPS,
    )
    elements = m * k + k * n + m * n
    moved = t.step(
        "HBM bytes (X and W read, Y written)",
        "(M·K + K·N + M·N) × bytes per element",
        f"({num(m * k)} + {num(k * n)} + {num(m * n)}) × {dtype_bytes_text(dtype)}",
        elements_bytes(elements, dtype),
        Unit.BYTES,
    )
    intensity = _ratio(flops, moved)
    t.step(
        "Arithmetic intensity", "FLOPs / bytes", f"{num(flops)} / {num(moved)}", float(intensity), Unit.RATIO
    )
    ridge = _ratio(peak, bw)
    t.step(
        "Ridge point of the chip",
        "peak FLOP/s / bandwidth",
        f"{num(peak)} / {num(bw)}",
        float(ridge),
        Unit.RATIO,
    )
    if intensity >= ridge:
        rate = _ratio(flops, secs)
        t.step(
            "Achieved FLOP/s (intensity ≥ ridge: compute-bound)",
            "FLOPs / time",
            f"{num(flops)} / {num(secs)}",
            float(rate),
            Unit.FLOP_PER_S,
        )
        value = t.step(
            "Share of the compute roof",
            "achieved FLOP/s / peak FLOP/s",
            f"{num(float(rate))} / {num(peak)}",
            float(rate / Fraction(peak)),
            Unit.RATIO,
            tags(flops_per_mac=2),
        )
    else:
        rate = _ratio(moved, secs)
        t.step(
            "Achieved bandwidth (intensity < ridge: memory-bound)",
            "bytes / time",
            f"{num(moved)} / {num(secs)}",
            float(rate),
            Unit.BYTES_PER_S,
        )
        value = t.step(
            "Share of the memory roof",
            "achieved bytes/s / peak bytes/s",
            f"{num(float(rate))} / {num(bw)}",
            float(rate / Fraction(bw)),
            Unit.RATIO,
            (dtype_factor(dtype),),
        )
    return t.done(value, Unit.RATIO, _ROOFLINE + "; each operand crosses HBM once (no tile re-reads)")


def compression_ratio(
    source: str,
    target: str,
    group_size: int = 0,
    scale_bits: int = 16,
    zero_point_bits: int = 0,
    tensor_values: int = 0,
) -> Result:
    """How many times smaller ``target`` stores a value than ``source``: source bits ÷ target bits per value,
    the target's scales included.

    A block-scaled target (mxfp4, nvfp4, mxfp6, mxfp8, mxint8) brings its own scales (OCP MX v1.0: an E8M0
    per 32; NVFP4: an E4M3 per 16, and one fp32 per tensor, counted when ``tensor_values`` gives the tensor's
    size). A plain target (int4, int8, fp8, nf4...) takes a scale of ``scale_bits`` and a zero point of
    ``zero_point_bits`` per ``group_size`` values (0: per-tensor constants, counted as 0). bf16 → MXFP4 is
    16 / (4 + 8/32) = 3.76; bf16 → NVFP4 16 / (4 + 8/16) = 3.56; bf16 → int4 with an fp16 scale and a 4-bit
    zero point per 128 (GPTQ, AWQ) 16 / (4 + 20/128) = 3.85.

    Args:
        source: the dtype the values come from (bf16, fp16, fp32, fp8...).
        target: the format they are stored in.
        group_size: values per scale of a plain target; 0 for none.
        scale_bits: bits of each group scale (16 for an fp16 scale).
        zero_point_bits: bits of each group zero point (0 for symmetric quantization).
        tensor_values: values in one tensor, to count NVFP4's fp32 per-tensor scale; 0 leaves it out.

    Returns:
        ratio.

    >>> [round(compression_ratio("bf16", fmt).value, 4) for fmt in ("mxfp4", "nvfp4")]
    [3.7647, 3.5556]
    >>> round(compression_ratio("bf16", "int4", 128, 16, 4).value, 4)
    3.8496
    """
    src = dtype_bits(check_dtype(source))
    check_dtype(target)
    t = Trace()
    t.step(f"Bits per {source} value", "the source format", f"{num(src)}", src, Unit.BITS_PER_PARAM)
    if target in BLOCK_FORMATS:
        if group_size or zero_point_bits:
            raise SpecError(f"{target} fixes its own block scales: give no group_size or zero_point_bits")
        fmt = BLOCK_FORMATS[target]
        t.use(block_scaled_bits_per_value(target))
        bits = Fraction(fmt.element_bits) + Fraction(fmt.scale_bits, fmt.block_size)
        if tensor_values and fmt.tensor_scale_bits:
            values = count("tensor_values", tensor_values)
            share = Fraction(fmt.tensor_scale_bits, values)
            t.step(
                f"Per-tensor scale ({fmt.tensor_scale_bits} bits over {num(values)} values)",
                "tensor scale bits / values in the tensor",
                f"{fmt.tensor_scale_bits} / {num(values)}",
                float(share),
                Unit.BITS_PER_PARAM,
            )
            before = bits
            bits += share
            t.step(
                f"Bits per {target} value, both scales counted",
                "block bits + tensor share",
                f"{num(float(before))} + {num(float(share))}",
                float(bits),
                Unit.BITS_PER_PARAM,
            )
    else:
        plain = dtype_bits(target)
        if not isinstance(plain, int):
            raise SpecError(f"{target} is not a plain dtype")
        group = count("group_size", group_size, 0)
        t.use(quant_bits_per_param(plain, group, scale_bits, zero_point_bits))
        bits = Fraction(plain) + (Fraction(scale_bits + zero_point_bits, group) if group else 0)
    value = t.step(
        f"Compression ratio, {source} → {target}",
        "source bits / target bits per value",
        f"{num(src)} / {num(float(bits))}",
        float(Fraction(src) / bits),
        Unit.RATIO,
    )
    return t.done(value, Unit.RATIO, "scales counted in the target's bits per value; packing exact")


def prefill_compute_bound_tokens(
    n_params: int, n_active: int, weight_dtype: str, peak_flops: float, bandwidth: float
) -> Result:
    """Tokens per forward step at which the weight matmuls' math time equals the weight-read time:
    T = (peak ÷ bandwidth) × weight bytes ÷ (2 × active parameters).

    A step over T tokens does 2·N_active·T FLOPs and reads every weight once (N_total × bytes); with bf16
    weights and a dense model this is T = peak ÷ bandwidth, the ridge point (scaling book: 240 on a TPU v5e).
    The same count is the decode batch at which the weight matmuls turn compute-bound. Activation and KV
    traffic are left out (weights dominate it at this T), and every expert of a mixture is read once.

    Args:
        n_params: parameters read per step (all of them; a mixture of experts' total).
        n_active: parameters each token is multiplied by (the active ones).
        weight_dtype: dtype the weights are stored in.
        peak_flops: dense peak FLOP/s of the matmul dtype.
        bandwidth: HBM bandwidth, bytes/s.

    Returns:
        tokens.

    >>> round(prefill_compute_bound_tokens(8_000_000_000, 8_000_000_000, "bf16", 1.97e14, 8.2e11).value, 2)
    240.24
    """
    total, active = counts(n_params=n_params, n_active=n_active)
    if active > total:
        raise SpecError(f"n_active ({active}) must be at most n_params ({total})")
    peak, bw = positive("peak_flops", peak_flops), positive("bandwidth", bandwidth)
    t = Trace()
    weights = t.use(weights_bytes(total, weight_dtype))
    ridge = _ratio(peak, bw)
    t.step(
        "Ridge point of the chip",
        "peak FLOP/s / bandwidth",
        f"{num(peak)} / {num(bw)}",
        float(ridge),
        Unit.RATIO,
    )
    per_token = t.step(
        "FLOPs per token",
        "2 × active parameters",
        f"2 × {num(active)}",
        2 * active,
        Unit.FLOPS,
    )
    value = t.step(
        "Tokens per step where math time = weight-read time",
        "ridge × weight bytes / FLOPs per token",
        f"{num(float(ridge))} × {num(weights)} / {num(per_token)}",
        float(ridge * weights / per_token),
        Unit.TOKENS,
        (dtype_factor(weight_dtype),),
    )
    return t.done(value, Unit.TOKENS, _ROOFLINE + "; weight bytes only (activations and KV left out)")


def decode_compute_bound_context(
    n_active: int, kv_bytes_per_token: float, peak_flops: float, bandwidth: float
) -> Result:
    """The cached context above which no batch makes a decode step compute-bound: S = 2·N_active ÷ (ridge ×
    KV bytes per token).

    Batching shares the weight read among sequences, but each sequence reads its own cache: per sequence a
    step does 2·N_active FLOPs and reads S × KV bytes, so even an infinite batch has intensity 2·N_active ÷
    (S × KV), below the ridge once S passes this context. Attention's own FLOPs are left out.

    Args:
        n_active: parameters each token is multiplied by.
        kv_bytes_per_token: KV-cache bytes of one cached token (all layers).
        peak_flops: dense peak FLOP/s of the matmul dtype.
        bandwidth: HBM bandwidth, bytes/s.

    Returns:
        tokens.

    >>> round(decode_compute_bound_context(8_030_261_248, 131_072, 989.4e12, 3.35e12).value, 1)
    414.9
    """
    active = count("n_active", n_active)
    kv, peak, bw = (
        positive("kv_bytes_per_token", kv_bytes_per_token),
        positive("peak_flops", peak_flops),
        positive("bandwidth", bandwidth),
    )
    t = Trace()
    ridge = _ratio(peak, bw)
    t.step(
        "Ridge point of the chip",
        "peak FLOP/s / bandwidth",
        f"{num(peak)} / {num(bw)}",
        float(ridge),
        Unit.RATIO,
    )
    per_sequence = t.step(
        "FLOPs per sequence per step",
        "2 × active parameters",
        f"2 × {num(active)}",
        2 * active,
        Unit.FLOPS,
    )
    value = t.step(
        "Context above which no batch is compute-bound",
        "FLOPs per sequence / (ridge × KV bytes per token)",
        f"{num(per_sequence)} / ({num(float(ridge))} × {num(kv)})",
        float(Fraction(per_sequence) / (ridge * Fraction(kv))),
        Unit.TOKENS,
        tags(flops_per_mac=2),
    )
    return t.done(value, Unit.TOKENS, _ROOFLINE + "; attention FLOPs left out, one cache read per sequence")


def decode_compute_bound_batch(
    n_params: int,
    n_active: int,
    weight_dtype: str,
    context: float,
    max_context: float,
    peak_flops: float,
    bandwidth: float,
) -> Result:
    """Batch at which a decode step turns compute-bound with every sequence reading ``context`` cached tokens:
    B = T ÷ (1 − S ÷ S_max), T the weights-only crossover (``prefill_compute_bound_tokens``) and S_max the
    context at which no batch suffices (``decode_compute_bound_context``).

    From 2·N_active·B ÷ peak = (weight bytes + B·S·KV) ÷ bandwidth: the cache reads grow with the batch as
    the math does, so they eat a share S ÷ S_max of each sequence's math budget.

    Args:
        n_params: parameters read per step.
        n_active: parameters each token is multiplied by.
        weight_dtype: dtype the weights are stored in.
        context: cached tokens per sequence S.
        max_context: S_max, above which no batch is compute-bound.
        peak_flops: dense peak FLOP/s of the matmul dtype.
        bandwidth: HBM bandwidth, bytes/s.

    Returns:
        tokens (sequences, one token each per step).

    >>> round(decode_compute_bound_batch(8e9, 8e9, "bf16", 200, 400, 1.97e14, 8.2e11).value, 1)
    480.5
    """
    s = positive("context", context, allow_zero=True)
    s_max = positive("max_context", max_context)
    if s >= s_max:
        raise SpecError(
            f"context ({num(s)}) must be below max_context ({num(s_max)}): no batch is compute-bound"
        )
    t = Trace()
    crossover = t.use(prefill_compute_bound_tokens(n_params, n_active, weight_dtype, peak_flops, bandwidth))
    share = _ratio(s, s_max)
    t.step(
        "Share of each sequence's math spent on its cache",
        "S / S_max",
        f"{num(s)} / {num(s_max)}",
        float(share),
        Unit.RATIO,
    )
    value = t.step(
        "Batch at which the decode step turns compute-bound",
        "weights-only crossover / (1 − S / S_max)",
        f"{num(crossover)} / (1 − {num(float(share))})",
        float(Fraction(crossover) / (1 - share)),
        Unit.TOKENS,
        (dtype_factor(weight_dtype),),
    )
    return t.done(
        value, Unit.TOKENS, _ROOFLINE + "; every weight read once per step, attention FLOPs left out"
    )


__all__ = [
    "bandwidth_utilisation",
    "compression_ratio",
    "decode_compute_bound_batch",
    "decode_compute_bound_context",
    "flops_utilisation",
    "matmul_roofline_utilisation",
    "prefill_compute_bound_tokens",
]
