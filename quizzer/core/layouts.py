"""Parallel layouts: 4D (TP × CP × PP × DP) sizes, memory and traffic per GPU; scaling efficiency; the
communication roofline of a matmul split along its contracting dimension."""

from __future__ import annotations

from fractions import Fraction

from quizzer.core.checks import count, counts, positive
from quizzer.core.errors import SpecError, UnknownNameError
from quizzer.core.memory import dtype_factor, training_recipe
from quizzer.core.parallel import allreduce_bytes_per_gpu, ring_collective_time
from quizzer.core.trace import Result, Trace, num, tags
from quizzer.core.units import Unit, dtype_bytes, dtype_bytes_text

#: What the 4D layouts here assume.
LAYOUT_CONVENTION = (
    "4D layout: GPUs = TP × CP × PP × DP; weights split evenly over TP × PP, replicated over CP and DP; "
    "the DP × CP ranks that hold a shard reduce its gradients together (Megatron-Core, TorchTitan)"
)
#: Collectives these calculators time, and the bytes each GPU sends as multiples of (n-1)/n × buffer.
_REDUCES = {"all-reduce": 2, "reduce-scatter": 1}


def _exact_split(name: str, total: int, parts: int, parts_name: str) -> int:
    """``total / parts`` when it is whole, else a SpecError that names both."""
    if total % parts:
        raise SpecError(f"{name} ({total}) must be divisible by {parts_name} ({parts})")
    return total // parts


def layout_gpus(tp: int, cp: int, pp: int, dp: int) -> Result:
    """GPUs of a 4D layout: tensor × context × pipeline × data parallel degrees.

    Every GPU holds one (TP rank, CP rank, PP stage, DP replica) position, so the degrees multiply. Source:
    Llama 3 (arXiv 2407.21783) §3.3.2, "4D parallelism" ordered [TP, CP, PP, DP].

    Args:
        tp, cp, pp, dp: the four degrees (1 for a dimension not used).

    Returns:
        Count; Llama 3 405B's 8 × 16 × 16 × 8 layout for 128K-token training is 16,384 GPUs:

    >>> layout_gpus(8, 16, 16, 8).value
    16384
    """
    t, c, p, d = counts(tp=tp, cp=cp, pp=pp, dp=dp)
    t_ = Trace()
    shown = f"{t} × {c} × {p} × {d}"
    gpus = t_.step("GPUs in the layout", "TP × CP × PP × DP", shown, t * c * p * d, Unit.COUNT)
    return t_.done(gpus, Unit.COUNT, "one GPU per (TP, CP, PP, DP) position")


def _shard(t: Trace, n_params: int | float, tp: int, pp: int) -> int:
    n = count("n_params", n_params)
    shown = f"⌈{num(n)} / ({tp} × {pp})⌉"
    label = "Parameters in one GPU's model shard"
    value = -(-n // (tp * pp))
    return int(t.step(label, "⌈N / (TP × PP)⌉", shown, value, Unit.PARAMS, tags(params=value)))


def layout_state_bytes_per_gpu(
    n_params: int | float,
    tp: int,
    pp: int,
    dp: int,
    cp: int = 1,
    zero_stage: int = 0,
    recipe: str = "mixed-adam",
) -> Result:
    """Weights, gradients and optimizer states per GPU of a 4D layout, with ZeRO over the DP × CP ranks.

    TP and PP split the model: a GPU holds Ψ = ⌈N / (TP · PP)⌉ parameters (an even split: embeddings and
    norms counted as if divisible). CP and DP replicate that shard; ZeRO stage k partitions the last k of
    (weights, gradients, optimizer states) over the DP · CP ranks that hold it, as Megatron-Core's
    distributed optimizer and TorchTitan's FSDP fold the CP ranks into the data-parallel group.

    Args:
        n_params: parameters N of the whole model.
        tp, pp, dp, cp: the layout's degrees.
        zero_stage: 0 (replicated), 1 (optimizer states), 2 (+ gradients) or 3 (+ weights).
        recipe: bytes per parameter, a key of ``quizzer.core.memory.RECIPES`` (default 2 + 2 + 12 = 16).

    Returns:
        Bytes per GPU; 70e9 parameters at TP 8 × PP 4, ZeRO-1 over 4 × 2 ranks: Ψ = 2,187,500,000,
        2Ψ + 2Ψ + 12Ψ/8 = 12,031,250,000 bytes:

    >>> layout_state_bytes_per_gpu(70_000_000_000, 8, 4, 4, 2, 1).value
    12031250000
    """
    t_, p, d, c = counts(tp=tp, pp=pp, dp=dp, cp=cp)
    stage = count("zero_stage", zero_stage, 0)
    if stage > 3:
        raise SpecError(f"zero_stage ({zero_stage!r}) must be 0, 1, 2 or 3")
    r, t = training_recipe(recipe), Trace()
    psi = _shard(t, n_params, t_, p)
    group, part = d * c, psi
    if stage > 0:
        t.step("ZeRO group: ranks holding the same shard", "DP × CP", f"{d} × {c}", group, Unit.COUNT)
        shown = f"⌈{num(psi)} / {group}⌉"
        part = int(
            t.step("ZeRO partition of the shard", "⌈Ψ / (DP × CP)⌉", shown, -(-psi // group), Unit.PARAMS)
        )
    values = []
    for label, per_param, from_stage in (
        ("Weights", r.weight_bytes, 3),
        ("Gradients", r.grad_bytes, 2),
        ("Optimizer states", r.optimizer_bytes, 1),
    ):
        split = stage >= from_stage
        n, symbol = (part, "⌈Ψ / (DP × CP)⌉") if split else (psi, "Ψ")
        where = "partitioned" if split else "whole shard"
        values.append(
            t.step(
                f"{label} ({where})",
                f"{symbol} × {per_param}",
                f"{num(n)} × {per_param}",
                n * per_param,
                Unit.BYTES,
            )
        )
    total = t.step(
        "Model states per GPU",
        "weights + gradients + optimizer states",
        " + ".join(num(v) for v in values),
        sum(values),
        Unit.BYTES,
    )
    why = (
        f"{LAYOUT_CONVENTION}; ZeRO stage {stage}; recipe {r.name}: {r.total_bytes} bytes/param ({r.source})"
    )
    return t.done(total, Unit.BYTES, why)


def _local_tokens(t: Trace, seq_len: int, cp: int) -> int:
    tokens = _exact_split("seq_len", seq_len, cp, "cp")
    if cp > 1:
        t.step("Tokens per CP rank", "s / CP", f"{num(seq_len)} / {cp}", tokens, Unit.TOKENS)
    return tokens


def layout_activation_bytes_per_gpu(
    seq_len: int,
    micro_batch: int,
    d_model: int,
    n_layers: int,
    tp: int,
    cp: int,
    pp: int,
    dtype: str = "bf16",
) -> Result:
    """Saved activations on the first pipeline stage's GPU under full recomputation, 1F1B, SP and CP.

    Full recomputation keeps each layer's input, b · s · h values per micro-batch; context parallelism gives
    a GPU s / CP of the tokens and sequence parallelism a 1/TP share of them. The first stage holds L / PP
    layers and, under the 1F1B schedule, PP micro-batches in flight (at least PP micro-batches per step), so
    the pipeline degree cancels: b · (s / CP) · h · L / TP values (Korthikanti et al. 2022, arXiv 2205.05198,
    §4.2.3). The working set of the layer being recomputed comes on top.

    Args:
        seq_len, micro_batch, d_model, n_layers: s, b, h, L.
        tp, cp, pp: the layout's tensor, context and pipeline degrees (s divisible by CP, L by PP).
        dtype: activation dtype.

    Returns:
        Bytes; 8,192 tokens, h = 8,192, 80 layers at TP 8, CP 2, PP 4 in bf16:
        4,096 × 8,192 × 2 / 8 = 8 MiB a layer, × 20 layers × 4 in flight:

    >>> layout_activation_bytes_per_gpu(8192, 1, 8192, 80, 8, 2, 4).value
    671088640
    """
    s, b, h, layers, tp_, cp_, pp_ = counts(
        seq_len=seq_len, micro_batch=micro_batch, d_model=d_model, n_layers=n_layers, tp=tp, cp=cp, pp=pp
    )
    t = Trace()
    tokens = _local_tokens(t, s, cp_)
    size = dtype_bytes(dtype)
    per_layer = Fraction(b * tokens * h) * size / tp_
    s_sym = "s / CP" if cp_ > 1 else "s"
    t.step(
        "Saved layer input per micro-batch (SP splits it over TP)",
        f"b × {s_sym} × h × bytes / TP",
        f"{b} × {num(tokens)} × {num(h)} × {dtype_bytes_text(dtype)} / {tp_}",
        per_layer,
        Unit.BYTES,
        (*tags(batch=b, tokens=tokens, d_model=h), dtype_factor(dtype)),
    )
    stage_layers = _exact_split("n_layers", layers, pp_, "pp")
    t.step("Layers on a pipeline stage", "L / PP", f"{layers} / {pp_}", stage_layers, Unit.COUNT)
    total = t.step(
        "Saved activations on the first stage (PP micro-batches in flight)",
        "per layer × L / PP × PP",
        f"{num(per_layer)} × {stage_layers} × {pp_}",
        per_layer * stage_layers * pp_,
        Unit.BYTES,
        (*tags(batch=b, tokens=tokens, d_model=h, layers=layers), dtype_factor(dtype)),
    )
    why = (
        f"full recomputation (each layer's {dtype} input kept), sequence parallelism, 1F1B with at least PP "
        "micro-batches: the first stage holds PP in flight (Korthikanti et al. 2022 §4.2.3)"
    )
    return t.done(total, Unit.BYTES, why)


def _activation(t: Trace, b: int, tokens: int, h: int, dtype: str, cp: int) -> int | float:
    s_sym = "s / CP" if cp > 1 else "s"
    value = Fraction(b * tokens * h) * dtype_bytes(dtype)
    return t.step(
        "One activation b × s × h of the micro-batch",
        f"b × {s_sym} × h × bytes",
        f"{b} × {num(tokens)} × {num(h)} × {dtype_bytes_text(dtype)}",
        value,
        Unit.BYTES,
        (*tags(batch=b, tokens=tokens, d_model=h), dtype_factor(dtype)),
    )


def layout_tp_bytes_per_gpu(
    micro_batch: int,
    seq_len: int,
    d_model: int,
    n_layers: int,
    tp: int,
    cp: int,
    pp: int,
    n_microbatches: int,
    dtype: str = "bf16",
) -> Result:
    """Tensor-parallel bytes one GPU sends in a training step of a 4D layout.

    Megatron TP all-reduces one b × (s / CP) × h activation twice per layer in the forward pass and twice in
    the backward (the g and f operators; with sequence parallelism each is a reduce-scatter plus an
    all-gather, the same bytes). A ring all-reduce sends 2(TP − 1)/TP of the buffer per GPU. A GPU runs the
    L / PP layers of its stage for each of the step's m micro-batches. Sources: Shoeybi et al. 2019 §3;
    Narayanan et al. 2021 (arXiv 2104.04473) §3.2: 8·b·s·h·(t − 1)/t values per layer per micro-batch.

    Args:
        micro_batch, seq_len, d_model, n_layers: b, s, h, L.
        tp, cp, pp: degrees (TP at least 2; s divisible by CP, L by PP).
        n_microbatches: m, micro-batches per step per data-parallel replica.
        dtype: activation dtype.

    Returns:
        Bytes; b = 1, s = 4,096, h = 4,096, 32 layers at TP 4, CP 1, PP 2, 8 micro-batches:
        32 MiB × 4 × 3/2 × 16 layers × 8 = 24 GiB:

    >>> layout_tp_bytes_per_gpu(1, 4096, 4096, 32, 4, 1, 2, 8).value
    25769803776
    """
    b, s, h, layers, tp_, cp_, pp_, m = counts(
        micro_batch=micro_batch,
        seq_len=seq_len,
        d_model=d_model,
        n_layers=n_layers,
        tp=tp,
        cp=cp,
        pp=pp,
        n_microbatches=n_microbatches,
    )
    if tp_ < 2:
        raise SpecError(f"tp ({tp}) must be at least 2 for tensor-parallel traffic")
    t = Trace()
    tokens = _local_tokens(t, s, cp_)
    buffer = _activation(t, b, tokens, h, dtype, cp_)
    sent = Fraction(2 * (tp_ - 1), tp_) * Fraction(buffer)
    t.step(
        "Bytes sent per all-reduce (ring)",
        "2 × (TP − 1) / TP × activation",
        f"2 × ({tp_} − 1) / {tp_} × {num(buffer)}",
        sent,
        Unit.BYTES,
    )
    layer = t.step(
        "Per layer and micro-batch (2 forward + 2 backward all-reduces)",
        "4 × per all-reduce",
        f"4 × {num(sent)}",
        4 * sent,
        Unit.BYTES,
    )
    stage_layers = _exact_split("n_layers", layers, pp_, "pp")
    t.step("Layers on a pipeline stage", "L / PP", f"{layers} / {pp_}", stage_layers, Unit.COUNT)
    total = t.step(
        "TP bytes sent per GPU per step",
        "per layer × L / PP × m",
        f"{num(layer)} × {stage_layers} × {m}",
        4 * sent * stage_layers * m,
        Unit.BYTES,
        (*tags(batch=b, tokens=tokens, d_model=h), dtype_factor(dtype)),
    )
    why = (
        "ring all-reduces, bytes sent per GPU; transformer layers only (no embedding, loss or recomputation)"
    )
    return t.done(total, Unit.BYTES, why)


def layout_cp_bytes_per_gpu(
    micro_batch: int,
    seq_len: int,
    n_kv_heads: int,
    head_dim: int,
    n_layers: int,
    tp: int,
    cp: int,
    pp: int,
    n_microbatches: int,
    dtype: str = "bf16",
) -> Result:
    """Context-parallel (ring attention) bytes one GPU sends in a training step of a 4D layout.

    Each GPU holds the K and V of its s / CP tokens for its KV heads / TP heads. In the forward pass of each
    layer the blocks travel CP − 1 hops around the ring; in the backward pass K and V travel round again and
    their gradients dK, dV the same CP − 1 hops: 3 (CP − 1) blocks per layer and micro-batch, as Transformer
    Engine's point-to-point context parallelism sends them (Liu et al. 2023, arXiv 2310.01889).

    Args:
        micro_batch, seq_len: b, s.
        n_kv_heads, head_dim: the model's KV heads (divisible by TP) and head width.
        n_layers: L (divisible by PP).
        tp, cp, pp: degrees (CP at least 2).
        n_microbatches: m per step.
        dtype: K and V dtype.

    Returns:
        Bytes; b = 1, s = 32,768 over CP 4, 8 KV heads of 128 over TP 8, 80 layers over PP 4, 8 micro-batches:
        one K+V block 2 × 8,192 × 1 × 128 × 2 = 4 MiB, × 9 × 20 × 8:

    >>> layout_cp_bytes_per_gpu(1, 32768, 8, 128, 80, 8, 4, 4, 8).value
    6039797760
    """
    b, s, kv, hd, layers, tp_, cp_, pp_, m = counts(
        micro_batch=micro_batch,
        seq_len=seq_len,
        n_kv_heads=n_kv_heads,
        head_dim=head_dim,
        n_layers=n_layers,
        tp=tp,
        cp=cp,
        pp=pp,
        n_microbatches=n_microbatches,
    )
    if cp_ < 2:
        raise SpecError(f"cp ({cp}) must be at least 2 for a ring of K and V")
    t = Trace()
    tokens = _local_tokens(t, s, cp_)
    heads = _exact_split("n_kv_heads", kv, tp_, "tp")
    block = t.step(
        "K and V block of one GPU (its tokens, its KV heads)",
        "2 × b × s / CP × KV heads / TP × head_dim × bytes",
        f"2 × {b} × {num(tokens)} × {heads} × {hd} × {dtype_bytes_text(dtype)}",
        Fraction(2 * b * tokens * heads * hd) * dtype_bytes(dtype),
        Unit.BYTES,
        (*tags(kv=2, batch=b, tokens=tokens, kv_heads=heads, head_dim=hd), dtype_factor(dtype)),
    )
    hops = 3 * (cp_ - 1)
    t.step(
        "Blocks sent per layer and micro-batch",
        "(CP − 1) forward + 2 × (CP − 1) backward (K, V and dK, dV)",
        f"3 × ({cp_} − 1)",
        hops,
        Unit.COUNT,
    )
    stage_layers = _exact_split("n_layers", layers, pp_, "pp")
    t.step("Layers on a pipeline stage", "L / PP", f"{layers} / {pp_}", stage_layers, Unit.COUNT)
    total = t.step(
        "CP bytes sent per GPU per step",
        "block × 3 (CP − 1) × L / PP × m",
        f"{num(block)} × {hops} × {stage_layers} × {m}",
        Fraction(block) * hops * stage_layers * m,
        Unit.BYTES,
        (*tags(kv=2, batch=b, tokens=tokens, kv_heads=heads, head_dim=hd), dtype_factor(dtype)),
    )
    why = "ring (point-to-point) context parallelism: K and V forward; K, V, dK and dV backward"
    return t.done(total, Unit.BYTES, why)


def layout_pp_bytes_per_gpu(
    micro_batch: int,
    seq_len: int,
    d_model: int,
    tp: int,
    cp: int,
    n_microbatches: int,
    dtype: str = "bf16",
) -> Result:
    """Pipeline-parallel bytes one GPU of a middle stage sends in a training step.

    Per micro-batch a middle stage sends its output activation to the next stage and the gradient of its
    input back to the previous one, each b × (s / CP) × h values; with sequence parallelism (or Megatron's
    scatter/gather optimisation) each of the TP GPUs sends only its 1/TP share (Narayanan et al. 2021 §4.1).

    Args:
        micro_batch, seq_len, d_model: b, s, h.
        tp, cp: degrees (s divisible by CP).
        n_microbatches: m per step.
        dtype: activation dtype.

    Returns:
        Bytes; b = 1, s = 8,192, h = 8,192 at TP 8, CP 1, 16 micro-batches: 16 MiB a tensor, × 2 × 16:

    >>> layout_pp_bytes_per_gpu(1, 8192, 8192, 8, 1, 16).value
    536870912
    """
    b, s, h, tp_, cp_, m = counts(
        micro_batch=micro_batch, seq_len=seq_len, d_model=d_model, tp=tp, cp=cp, n_microbatches=n_microbatches
    )
    t = Trace()
    tokens = _local_tokens(t, s, cp_)
    s_sym = "s / CP" if cp_ > 1 else "s"
    share = t.step(
        "One boundary tensor, this GPU's 1/TP share",
        f"b × {s_sym} × h × bytes / TP",
        f"{b} × {num(tokens)} × {num(h)} × {dtype_bytes_text(dtype)} / {tp_}",
        Fraction(b * tokens * h) * dtype_bytes(dtype) / tp_,
        Unit.BYTES,
        (*tags(batch=b, tokens=tokens, d_model=h), dtype_factor(dtype)),
    )
    total = t.step(
        "PP bytes sent per GPU per step (middle stage)",
        "2 (activation forward, gradient backward) × share × m",
        f"2 × {num(share)} × {m}",
        2 * Fraction(share) * m,
        Unit.BYTES,
        (*tags(batch=b, tokens=tokens, d_model=h), dtype_factor(dtype)),
    )
    why = (
        "point-to-point sends of a middle stage; 1F1B without interleaving; each TP rank sends its 1/TP share"
    )
    return t.done(total, Unit.BYTES, why)


def layout_dp_bytes_per_gpu(
    n_params: int | float, tp: int, pp: int, dp: int, cp: int = 1, dtype: str = "bf16"
) -> Result:
    """Data-parallel gradient bytes one GPU sends per step: a ring all-reduce of its shard's gradients.

    A GPU holds Ψ = ⌈N / (TP · PP)⌉ parameters (an even split); the DP · CP ranks that hold the same shard
    all-reduce its gradients, 2 (g − 1)/g × Ψ × bytes with g = DP · CP (Megatron-Core reduces gradients over
    the data-parallel group with the context-parallel ranks in it).

    Args:
        n_params: parameters N of the whole model.
        tp, pp, dp, cp: degrees (DP · CP at least 2).
        dtype: gradient dtype of the reduction (Megatron-LM reduces bf16 training's gradients in fp32).

    Returns:
        Bytes; 70e9 parameters at TP 8, PP 4, DP 4, CP 2, fp32 gradients: Ψ = 2,187,500,000,
        2 × 7/8 × 8.75e9:

    >>> layout_dp_bytes_per_gpu(70_000_000_000, 8, 4, 4, 2, "fp32").value
    15312500000
    """
    tp_, pp_, dp_, cp_ = counts(tp=tp, pp=pp, dp=dp, cp=cp)
    group = dp_ * cp_
    if group < 2:
        raise SpecError(f"dp × cp ({dp_} × {cp_}) must be at least 2 for a gradient all-reduce")
    t = Trace()
    psi = _shard(t, n_params, tp_, pp_)
    if cp_ > 1:
        t.step("Ranks holding the same shard", "DP × CP", f"{dp_} × {cp_}", group, Unit.COUNT)
    sent = t.use(allreduce_bytes_per_gpu(psi, dtype, group))
    return t.done(
        sent, Unit.BYTES, f"{LAYOUT_CONVENTION}; one ring all-reduce of the {dtype} gradients per step"
    )


def _time(name: str, value: object) -> float:
    return float(positive(name, value))


def strong_scaling_efficiency(time_base: float, n_base: int, time_n: float, n: int) -> Result:
    """Strong-scaling efficiency: the speedup over the ideal one, with the whole problem fixed.

    E = (T₀ / T_N) / (N / N₀) = N₀ · T₀ / (N · T_N), for a base run of N₀ GPUs in T₀; with a one-GPU base,
    T₁ / (N · T_N). It is 1 for linear scaling and below 1 whenever T_N > T₀ · N₀ / N (Amdahl: any serial
    part or communication that does not shrink with N).

    Args:
        time_base: time of the fixed problem (a step, an epoch) on n_base GPUs.
        n_base: GPUs of the base measurement (1 for a single GPU).
        time_n: time of the same problem on n GPUs.
        n: GPUs of the scaled run.

    Returns:
        Ratio; 1 GPU in 64 s, 8 GPUs in 10 s: 64 / (8 × 10) = 0.8:

    >>> strong_scaling_efficiency(64.0, 1, 10.0, 8).value
    0.8
    """
    tb, tn = _time("time_base", time_base), _time("time_n", time_n)
    nb, nn = counts(n_base=n_base, n=n)
    t = Trace()
    speedup = t.step("Speedup", "T₀ / T_N", f"{num(tb)} / {num(tn)}", tb / tn, Unit.RATIO)
    ideal = t.step("Ideal (linear) speedup", "N / N₀", f"{nn} / {nb}", Fraction(nn, nb), Unit.RATIO)
    value = t.step(
        "Strong-scaling efficiency",
        "speedup / ideal speedup = N₀ × T₀ / (N × T_N)",
        f"{num(speedup)} / {num(ideal)}",
        nb * tb / (nn * tn),
        Unit.RATIO,
    )
    return t.done(
        value, Unit.RATIO, "strong scaling: the whole problem (global batch) fixed as GPUs are added"
    )


def weak_scaling_efficiency(time_base: float, time_n: float) -> Result:
    """Weak-scaling efficiency: T₀ / T_N with the problem per GPU fixed (the whole grows with the GPUs).

    Each GPU does the same work at every size, so a perfect system keeps the time flat: E = T₀ / T_N,
    1 for perfect scaling and below 1 as communication grows with the system.

    Args:
        time_base: time of one step on the base system (often one GPU).
        time_n: time of one step on n GPUs, each with the same per-GPU work.

    Returns:
        Ratio; 1,288 ms on one GPU, 1,610 ms at scale: 0.8:

    >>> weak_scaling_efficiency(1288.0, 1610.0).value
    0.8
    """
    tb, tn = _time("time_base", time_base), _time("time_n", time_n)
    t = Trace()
    value = t.step("Weak-scaling efficiency", "T₀ / T_N", f"{num(tb)} / {num(tn)}", tb / tn, Unit.RATIO)
    return t.done(value, Unit.RATIO, "weak scaling: the work per GPU (per-GPU batch) fixed as GPUs are added")


def throughput_scaling_efficiency(rate_base: float, n_base: int, rate_n: float, n: int) -> Result:
    """Scaling efficiency from throughputs: the per-GPU rate at n GPUs over the per-GPU rate at the base.

    E = (R_N / N) / (R₀ / N₀). It is the strong-scaling efficiency when R is the rate of a fixed
    problem and the weak-scaling one when each GPU's share is fixed, which is how Megatron-LM reports it:
    15.1 PFLOP/s on 512 GPUs against 39 TFLOP/s on one, 76% (Shoeybi et al. 2019, arXiv 1909.08053).

    Args:
        rate_base: aggregate throughput (FLOP/s, tokens/s) on n_base GPUs.
        n_base: GPUs of the base measurement.
        rate_n: aggregate throughput on n GPUs.
        n: GPUs of the scaled run.

    Returns:
        Ratio.

    >>> round(throughput_scaling_efficiency(39e12, 1, 15.1e15, 512).value, 4)
    0.7562
    """
    rb, rn = _time("rate_base", rate_base), _time("rate_n", rate_n)
    nb, nn = counts(n_base=n_base, n=n)
    t = Trace()
    per_base = t.step("Per-GPU rate at the base", "R₀ / N₀", f"{num(rb)} / {nb}", rb / nb, "")
    per_n = t.step("Per-GPU rate at N GPUs", "R_N / N", f"{num(rn)} / {nn}", rn / nn, "")
    value = t.step(
        "Scaling efficiency",
        "(R_N / N) / (R₀ / N₀)",
        f"{num(per_n)} / {num(per_base)}",
        rn * nb / (rb * nn),
        Unit.RATIO,
    )
    return t.done(value, Unit.RATIO, "aggregate throughputs, same units at both sizes")


def sharded_matmul_time(batch: int, d_contract: int, d_out: int, n_shards: int, peak_flops: float) -> Result:
    """Compute time of X[B, D] · W[D, F] on one chip when D (or any one dimension) is split over N chips.

    Each chip multiplies its B × D/N by D/N × F block: 2 · B · D · F / N FLOPs at the chip's peak.

    Args:
        batch, d_contract, d_out: B, D, F.
        n_shards: N, the chips the work is split over.
        peak_flops: C, one chip's FLOP/s.

    Returns:
        Seconds; 8,192 × 8,192 × 32,768 over 8 chips at 1e15 FLOP/s: 2 × 2.2e12 / 8 / 1e15:

    >>> round(sharded_matmul_time(8192, 8192, 32768, 8, 1e15).value, 9)
    0.000549756
    """
    b, d, f, n = counts(batch=batch, d_contract=d_contract, d_out=d_out, n_shards=n_shards)
    peak = float(positive("peak_flops", peak_flops))
    t = Trace()
    flops = t.step(
        "FLOPs on one chip",
        "2 × B × D × F / N",
        f"2 × {num(b)} × {num(d)} × {num(f)} / {n}",
        Fraction(2 * b * d * f, n),
        Unit.FLOPS,
        tags(flops_per_mac=2),
    )
    seconds = t.step("Compute time", "FLOPs / C", f"{num(flops)} / {num(peak)}", flops / peak, Unit.SECONDS)
    return t.done(seconds, Unit.SECONDS, "at the dense peak; 2 FLOPs per multiply-add")


def _collective(collective: str) -> str:
    key = collective.lower().replace("_", "-").replace(" ", "-")
    if key not in _REDUCES:
        raise UnknownNameError(f"unknown collective {collective!r}; known: {', '.join(_REDUCES)}")
    return key


def partial_sum_reduce_time(
    batch: int,
    d_out: int,
    n_shards: int,
    bandwidth: float,
    dtype: str = "bf16",
    collective: str = "all-reduce",
) -> Result:
    """Time to sum the partial products Y[B, F] of a contracting-dimension split over N chips, on a ring.

    Every chip holds a full B × F partial sum; an all-reduce sends 2 (N − 1)/N of it per chip, a
    reduce-scatter (the sum left sharded) (N − 1)/N; at one-way bandwidth W per chip. Source: JAX scaling
    book, "Sharded Matrices", case 3 (both operands sharded along the contracting dimension).

    Args:
        batch, d_out: B, F.
        n_shards: N (at least 2).
        bandwidth: W, one-way bytes/s per chip.
        dtype: dtype of the partial sums.
        collective: "all-reduce" or "reduce-scatter".

    Returns:
        Seconds; 8,192 × 32,768 bf16 all-reduced over 8 chips at 4.5e11 B/s: 2 × 7/8 × 536,870,912 / 4.5e11:

    >>> round(partial_sum_reduce_time(8192, 32768, 8, 4.5e11).value, 9)
    0.002087831
    """
    key = _collective(collective)
    b, f, n = counts(batch=batch, d_out=d_out, n_shards=n_shards)
    t = Trace()
    value = Fraction(b * f) * dtype_bytes(dtype)
    buffer = t.step(
        "Partial sums Y[B, F] on each chip",
        "B × F × bytes",
        f"{num(b)} × {num(f)} × {dtype_bytes_text(dtype)}",
        value,
        Unit.BYTES,
        (dtype_factor(dtype),),
    )
    seconds = t.use(ring_collective_time(key, buffer, n, bandwidth))
    return t.done(seconds, Unit.SECONDS, f"ring {key}; one-way bandwidth per chip; latency ignored")


def contracting_split_crossover(
    n_shards: int, peak_flops: float, bandwidth: float, dtype: str = "bf16", collective: str = "all-reduce"
) -> Result:
    """The contracting width D at which a D-sharded matmul's compute time equals its ring reduce time.

    2·B·D·F / (N·C) = k (N − 1)/N · B·F·bytes / W, with k = 2 for an all-reduce and 1 for a reduce-scatter:
    B and F cancel, leaving D* = k (N − 1) · bytes · C / (2 W). Wider D is compute-bound. The JAX scaling book
    (Sharded Matrices, Question 4) writes the all-reduce case as D / N > 2 C / W in bf16, dropping (N − 1)/N.

    Args:
        n_shards: N (at least 2).
        peak_flops: C, one chip's FLOP/s.
        bandwidth: W, one-way bytes/s per chip.
        dtype: dtype of the partial sums.
        collective: "all-reduce" or "reduce-scatter".

    Returns:
        Ratio (a width, real-valued); 8 chips at C / W = 2,000 all-reducing bf16: 7 × 2 × 2,000:

    >>> contracting_split_crossover(8, 9e14, 4.5e11).value
    28000.0
    """
    key = _collective(collective)
    n = count("n_shards", n_shards)
    if n < 2:
        raise SpecError(f"n_shards ({n_shards!r}) must be at least 2 for a reduction")
    peak, w = float(positive("peak_flops", peak_flops)), float(positive("bandwidth", bandwidth))
    size, k = dtype_bytes(dtype), _REDUCES[key]
    t = Trace()
    intensity = t.step("Critical intensity C / W", "C / W", f"{num(peak)} / {num(w)}", peak / w, Unit.RATIO)
    scale = "" if k == 2 else " / 2"
    value = t.step(
        f"Contracting width where compute time = {key} time",
        f"(N − 1) × bytes × C / W{scale}",
        f"({n} − 1) × {dtype_bytes_text(dtype)} × {num(intensity)}{scale}",
        float(k * (n - 1) * size) * intensity / 2,
        Unit.RATIO,
    )
    return t.done(
        value, Unit.RATIO, f"ring {key} of {dtype} partial sums at one-way W; compute at the dense peak"
    )
