"""Parallelism: ring collective volumes and times, ZeRO traffic, pipeline bubbles, DP rooflines, sharding."""

from __future__ import annotations

import math
from fractions import Fraction

from quizzer.core.checks import count, did_you_mean, positive
from quizzer.core.errors import SpecError, UnknownNameError
from quizzer.core.trace import Number, Result, Trace, num
from quizzer.core.units import Unit, dtype_bytes

#: What every byte count here means.
RING_CONVENTION = "ring algorithm: bytes sent (and received) per GPU; no in-network reduction"
#: What every collective time here means.
TIME_CONVENTION = "bandwidth = one-way (egress) bytes/s per GPU; latency ignored"
#: Ring collectives and the bytes each GPU sends, as multiples of (n-1)/n × buffer bytes.
COLLECTIVES: dict[str, int] = {"all-gather": 1, "reduce-scatter": 1, "all-reduce": 2}


def _ring(t: Trace, label: str, factor: int, buffer_bytes: int, n_gpus: int) -> Number:
    """Record one ring collective: factor × (n-1)/n × buffer bytes, exact."""
    k = f"{factor} × " if factor != 1 else ""
    subst = f"{k}({num(n_gpus)} - 1) / {num(n_gpus)} × {num(buffer_bytes)}"
    value = Fraction(factor * (n_gpus - 1), n_gpus) * buffer_bytes
    return t.step(label, f"{k}(n - 1) / n × bytes", subst, value, Unit.BYTES)


def _ring_result(label: str, total_bytes: int | float, n_gpus: int) -> Result:
    t = Trace()
    sent = _ring(t, label, 1, count("total_bytes", total_bytes), count("n_gpus", n_gpus))
    return t.done(sent, Unit.BYTES, RING_CONVENTION)


def _buffer(t: Trace, label: str, n_params: int | float, dtype: str) -> int:
    n, size = count("n_params", n_params), dtype_bytes(dtype)
    value = math.ceil(n * size)
    return int(t.step(label, "parameters × bytes(dtype)", f"{num(n)} × {num(size)}", value, Unit.BYTES))


def _one_step(label: str, formula: str, subst: str, value: Number | Fraction, unit: str, why: str) -> Result:
    t = Trace()
    return t.done(t.step(label, formula, subst, value, unit), unit, why)


def allreduce_bytes_per_gpu(n_params: int | float, dtype: str, n_gpus: int) -> Result:
    """Bytes each GPU sends in a ring all-reduce of the gradients: 2(n-1)/n × n_params × bytes(dtype).

    A ring all-reduce is a reduce-scatter then an all-gather, each moving (n-1)/n of the buffer.
    Source: JAX scaling book, "Sharded matrices" (AllReduce = 2 × AllGather); ZeRO, arXiv 1910.02054, §7.

    Args:
        n_params: number of gradient elements (parameters).
        dtype: gradient dtype ("bf16", "fp32", ...).
        n_gpus: data-parallel group size.

    Returns:
        Bytes (an int where exact); 1e9 bf16 gradients over 8 GPUs send 2 × 7/8 × 2e9 = 3.5e9 bytes:

    >>> allreduce_bytes_per_gpu(1_000_000_000, "bf16", 8).value
    3500000000
    """
    n_gpus = count("n_gpus", n_gpus)
    t = Trace()
    grads = _buffer(t, "Gradient buffer", n_params, dtype)
    sent = _ring(t, "All-reduce bytes sent per GPU (reduce-scatter + all-gather)", 2, grads, n_gpus)
    return t.done(sent, Unit.BYTES, RING_CONVENTION + "; sub-byte buffers round up to whole bytes")


def allgather_bytes_per_gpu(total_bytes: int | float, n_gpus: int) -> Result:
    """Bytes each GPU sends in a ring all-gather of a buffer of total_bytes: (n-1)/n × total.

    Source: JAX scaling book, "Sharded matrices" (AllGather ≈ V / W) and "GPUs" (× (N-1)/N on a ring).

    Args:
        total_bytes: size of the gathered (full) buffer.
        n_gpus: number of GPUs in the ring.

    Returns:
        Bytes (an int where exact).

    >>> allgather_bytes_per_gpu(8_000, 8).value
    7000
    """
    return _ring_result("All-gather bytes sent per GPU", total_bytes, n_gpus)


def reduce_scatter_bytes_per_gpu(total_bytes: int | float, n_gpus: int) -> Result:
    """Bytes each GPU sends in a ring reduce-scatter of a buffer of total_bytes: (n-1)/n × total.

    Source: JAX scaling book, "Sharded matrices" (ReduceScatter costs the same as AllGather).

    Args:
        total_bytes: size of the full (unreduced) buffer on each GPU.
        n_gpus: number of GPUs in the ring.

    Returns:
        Bytes (an int where exact).

    >>> reduce_scatter_bytes_per_gpu(4_000, 4).value
    3000
    """
    return _ring_result("Reduce-scatter bytes sent per GPU", total_bytes, n_gpus)


def collective_time(bytes_per_gpu: int | float, bandwidth: float) -> Result:
    """Bandwidth-bound time of a collective: bytes sent per GPU / per-GPU bandwidth.

    Args:
        bytes_per_gpu: bytes each GPU sends (from the *_bytes_per_gpu calculators).
        bandwidth: one-way bytes/s per GPU (e.g. H100 NVLink egress 450e9).

    Returns:
        Seconds (float).

    >>> collective_time(9e9, 450e9).value
    0.02
    """
    positive("bytes_per_gpu", bytes_per_gpu)
    positive("bandwidth", bandwidth)
    subst, seconds = f"{num(bytes_per_gpu)} / {num(bandwidth)}", bytes_per_gpu / bandwidth
    return _one_step("Collective time", "bytes / bandwidth", subst, seconds, Unit.SECONDS, TIME_CONVENTION)


def ring_collective_time(collective: str, total_bytes: int | float, n_gpus: int, bandwidth: float) -> Result:
    """Time of a ring all-gather or reduce-scatter, (n-1)/n × bytes / W, or all-reduce (2× that).

    Source: JAX scaling book, "GPUs", Pop Quiz 1 (bf16[1024, 16384] all-gathered over 8 H100s: ≈ 65 µs).

    Args:
        collective: "all-gather", "reduce-scatter" or "all-reduce".
        total_bytes: size of the full buffer.
        n_gpus: number of GPUs in the ring (at least 2).
        bandwidth: one-way bytes/s per GPU.

    Returns:
        Seconds (float).

    >>> ring_collective_time("all-reduce", 4_000_000_000, 4, 1e11).value
    0.06
    """
    key = collective.lower().replace("_", "-").replace(" ", "-")
    if key not in COLLECTIVES:
        close = did_you_mean(key, COLLECTIVES)
        raise UnknownNameError(f"unknown collective {collective!r}{close}; known: {', '.join(COLLECTIVES)}")
    total_bytes, n_gpus = count("total_bytes", total_bytes), count("n_gpus", n_gpus)
    if n_gpus < 2:
        raise SpecError(f"n_gpus ({n_gpus!r}) must be at least 2 for a collective")
    t = Trace()
    sent = _ring(t, f"{key.capitalize()} bytes sent per GPU", COLLECTIVES[key], total_bytes, n_gpus)
    seconds = t.use(collective_time(sent, bandwidth))
    return t.done(seconds, Unit.SECONDS, RING_CONVENTION + "; " + TIME_CONVENTION)


def zero_comm_bytes_per_gpu(n_params: int | float, dtype: str, n_gpus: int, zero_stage: int) -> Result:
    """Per-step data-parallel traffic per GPU under ZeRO: 2Ψ(n-1)/n for stages 0-2, 3Ψ(n-1)/n for stage 3.

    Stage 0 (DP) all-reduces gradients; stages 1-2 reduce-scatter gradients and all-gather parameters (same
    volume); stage 3 all-gathers parameters again in the backward (1.5×). Source: ZeRO, arXiv 1910.02054 §7.

    Args:
        n_params: parameters Ψ.
        dtype: dtype of the communicated gradients and parameters ("fp16" in the paper).
        n_gpus: data-parallel group size.
        zero_stage: 0 (plain data parallel), 1, 2 or 3.

    Returns:
        Bytes (an int where exact); 1e9 fp16 parameters over 4 GPUs at stage 3 send 3 × 3/4 × 2e9 = 4.5e9:

    >>> zero_comm_bytes_per_gpu(1_000_000_000, "fp16", 4, 3).value
    4500000000
    """
    if isinstance(zero_stage, bool) or zero_stage not in (0, 1, 2, 3):
        raise SpecError(f"zero_stage ({zero_stage!r}) must be 0, 1, 2 or 3")
    n_gpus = count("n_gpus", n_gpus)
    t = Trace()
    if zero_stage == 0:
        sent = t.use(allreduce_bytes_per_gpu(n_params, dtype, n_gpus))
        return t.done(sent, Unit.BYTES, RING_CONVENTION + "; plain data parallelism (ZeRO §7)")
    model = _buffer(t, "Model (parameter or gradient) buffer Ψ", n_params, dtype)
    gathers = ("forward", "backward") if zero_stage == 3 else ("after the optimizer step",)
    labels = ["Reduce-scatter of gradients", *(f"All-gather of parameters ({when})" for when in gathers)]
    parts = [_ring(t, label, 1, model, n_gpus) for label in labels]
    formula, subst = " + ".join(["(n - 1) / n × Ψ"] * len(parts)), " + ".join(map(num, parts))
    value = Fraction(len(parts) * (n_gpus - 1), n_gpus) * model
    sent = t.step(f"ZeRO-{zero_stage} bytes sent per GPU", formula, subst, value, Unit.BYTES)
    return t.done(sent, Unit.BYTES, RING_CONVENTION + "; ZeRO §7 volumes (stage 3 = 1.5 × DP)")


def _pipeline(*counts: int) -> tuple[int, ...]:
    return tuple(
        count(n, x) for n, x in zip(("n_stages", "n_microbatches", "n_virtual_stages"), counts, strict=True)
    )


def pipeline_bubble_fraction(n_stages: int, n_microbatches: int, n_virtual_stages: int = 1) -> Result:
    """Pipeline bubble relative to ideal compute time: (p - 1) / (v · m).

    Source: GPipe (Huang et al. 2019) and 1F1B give (p-1)/m; interleaved 1F1B with v model chunks per GPU
    divides it by v (Narayanan et al. 2021, arXiv 2104.04473, §2.2). Equal stage times, communication ignored.

    Args:
        n_stages: pipeline stages p (GPUs in the pipeline).
        n_microbatches: microbatches per step m.
        n_virtual_stages: model chunks per GPU v (1 without interleaving).

    Returns:
        Ratio (float): bubble time ÷ ideal time.

    >>> pipeline_bubble_fraction(4, 8).value, pipeline_bubble_fraction(4, 8, 2).value
    (0.375, 0.1875)
    """
    p, m, v = _pipeline(n_stages, n_microbatches, n_virtual_stages)
    subst, value = f"({num(p)} - 1) / ({num(v)} × {num(m)})", float(Fraction(p - 1, v * m))
    why = "relative to the ideal (bubble-free) time, not a share of the step"
    return _one_step("Bubble ÷ ideal compute time", "(p - 1) / (v × m)", subst, value, Unit.RATIO, why)


def pipeline_bubble_share(n_stages: int, n_microbatches: int, n_virtual_stages: int = 1) -> Result:
    """Share of the pipelined step spent in the bubble: (p - 1) / (v · m + p - 1).

    This is bubble / (ideal + bubble); sizing-notes §6 lists it beside (p-1)/m as a source of disagreement.

    Args:
        n_stages: pipeline stages p.
        n_microbatches: microbatches per step m.
        n_virtual_stages: model chunks per GPU v (1 without interleaving).

    Returns:
        Ratio (float) in [0, 1).

    >>> pipeline_bubble_share(4, 9).value
    0.25
    """
    p, m, v = _pipeline(n_stages, n_microbatches, n_virtual_stages)
    subst = f"({num(p)} - 1) / ({num(v)} × {num(m)} + {num(p)} - 1)"
    value, why = float(Fraction(p - 1, v * m + p - 1)), "share of the whole step (bubble ÷ (ideal + bubble))"
    return _one_step("Bubble share of the step", "(p - 1) / (v × m + p - 1)", subst, value, Unit.RATIO, why)


def dp_critical_batch_per_gpu(peak_flops: float, network_bandwidth: float) -> Result:
    """Per-GPU token batch above which data-parallel training is compute-bound: B > C / W.

    Backward compute 4·B·P / C equals the bf16 gradient all-reduce 2 × 2·P / W at B = C / W. Source: JAX
    scaling book, "GPUs", Quiz 5 Q1 (B200: 2.25e15 / 400e9 = 5,625 tokens; H100: 990e12 / 400e9 ≈ 2,475).

    Args:
        peak_flops: peak FLOP/s of one GPU (dense bf16).
        network_bandwidth: bytes/s of scale-out bandwidth per GPU (node egress share).

    Returns:
        Tokens per GPU (float).

    >>> dp_critical_batch_per_gpu(1e15, 4e11).value
    2500.0
    """
    positive("peak_flops", peak_flops)
    positive("network_bandwidth", network_bandwidth)
    label = "Per-GPU batch where backward compute time equals gradient all-reduce time"
    subst, value = f"{num(peak_flops)} / {num(network_bandwidth)}", peak_flops / network_bandwidth
    why = "bf16 gradients, all-reduce ≈ 2 × gradient bytes, overlapped with the backward pass"
    return _one_step(label, "peak FLOP/s / network bytes/s", subst, value, Unit.TOKENS, why)


def sharded_bytes_per_device(total_bytes: int | float, n_shards: int) -> Result:
    """Bytes each device holds when an array is split n_shards ways (replicated axes do not divide it).

    Source: JAX scaling book, "Sharded matrices", Pop Quiz (int8[128, 2048] as A[I_XY, J]: 16,384 bytes).

    Args:
        total_bytes: size of the whole (unsharded) array.
        n_shards: product of the mesh axes the array is sharded over.

    Returns:
        Bytes (int); an uneven split reports the largest shard, rounded up.

    >>> sharded_bytes_per_device(262_144, 16).value
    16384
    """
    total_bytes, n_shards = count("total_bytes", total_bytes), count("n_shards", n_shards)
    subst, value = f"⌈{num(total_bytes)} / {num(n_shards)}⌉", math.ceil(Fraction(total_bytes, n_shards))
    why = "uneven splits round up to the largest shard (padding)"
    return _one_step("Bytes per device", "⌈total bytes / shards⌉", subst, value, Unit.BYTES, why)
