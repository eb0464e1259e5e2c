"""Training time, GPU-hours, cost and model FLOPs utilization (MFU) from 6·N·D."""

from __future__ import annotations

from quizzer.core.checks import count, counts, fraction, positive
from quizzer.core.errors import SpecError
from quizzer.core.flops import training_flops, training_flops_by
from quizzer.core.trace import Result, Trace, num
from quizzer.core.units import Unit

#: What every MFU figure here means.
MFU_CONVENTION = (
    "MFU = model FLOPs (6·N·D, no recompute) ÷ peak; peak FLOP/s as given (dense, not 2:4 sparse)"
)

SECONDS_PER_HOUR = 3600


def training_time_from_flops(
    compute_flops: int | float, n_gpus: int, peak_flops: float, mfu: float, utilization: str = "MFU"
) -> Result:
    """Wall-clock training time t = C / (n_gpus × peak × MFU).

    Source: EleutherAI "Transformer Math 101"; JAX scaling book, applied-training (6.3e24 FLOPs on a full
    TPU v5p pod of 8,960 chips at 4.59e14 FLOP/s and 40% MFU takes about 44 days).

    Args:
        compute_flops: total training compute C in FLOPs.
        n_gpus: number of accelerators working in parallel.
        peak_flops: peak FLOP/s of one accelerator (dense).
        mfu: model FLOPs utilization, in (0, 1].
        utilization: what ``mfu`` is, for the derivation: "MFU", or "HFU" when the compute counts
            recomputation.

    Returns:
        Seconds (float).

    1e21 FLOPs at 1,000 × 1e15 × 0.5 = 5e17 FLOP/s is 2,000 s:

    >>> training_time_from_flops(1e21, 1000, 1e15, 0.5).value
    2000.0
    """
    positive("compute_flops", compute_flops)
    count("n_gpus", n_gpus)
    positive("peak_flops", peak_flops)
    fraction("mfu", mfu)
    t = Trace()
    throughput = t.step(
        "Achieved cluster throughput",
        f"GPUs × peak × {utilization}",
        f"{num(n_gpus)} × {num(peak_flops)} × {num(mfu)}",
        float(n_gpus * peak_flops * mfu),
        Unit.FLOP_PER_S,
    )
    seconds = t.step(
        "Training time",
        "C / throughput",
        f"{num(compute_flops)} / {num(throughput)}",
        compute_flops / throughput,
        Unit.SECONDS,
    )
    return t.done(seconds, Unit.SECONDS, MFU_CONVENTION)


def training_time(
    n_params: int | float,
    n_tokens: int | float,
    n_gpus: int,
    peak_flops: float,
    mfu: float,
    flop_count: str = "6N",
) -> Result:
    """Wall-clock training time t = 6·N·D / (n_gpus × peak × MFU).

    Source: EleutherAI "Transformer Math 101" (C = 6PD, time = C / throughput). With ``flop_count="8N"`` the
    compute is 8·N·D (full activation recomputation), the work the GPUs execute, and ``mfu`` is then the
    hardware FLOPs utilization: Narayanan et al. 2021 (Megatron-LM, arXiv 2104.04473), eq. 4,
    time ≈ 8·T·P / (n·X) with X = peak × HFU the achieved per-GPU rate.

    Args:
        n_params: parameters N (active parameters for a mixture of experts).
        n_tokens: training tokens D.
        n_gpus: number of accelerators.
        peak_flops: peak FLOP/s of one accelerator (dense).
        mfu: model FLOPs utilization, in (0, 1] (hardware FLOPs utilization under "8N").
        flop_count: "6N" (model FLOPs) or "8N" (with full recomputation).

    Returns:
        Seconds (float).

    6 × 1e9 × 1e10 = 6e19 FLOPs at 10 × 1e14 × 0.5 = 5e14 FLOP/s is 120,000 s:

    >>> training_time(1_000_000_000, 10_000_000_000, 10, 1e14, 0.5).value
    120000.0

    Megatron-LM's GPT-3 estimate: 8 × 300e9 tokens × 175e9 / (1024 × 140e12 FLOP/s) is 33.9 days (the
    paper: "34 days"):

    >>> round(training_time(175e9, 300e9, 1024, 140e12, 1, "8N").value / 86400, 1)
    33.9
    """
    t = Trace()
    compute = t.use(training_flops_by(n_params, n_tokens, flop_count))
    utilization = "HFU" if flop_count == "8N" else "MFU"
    seconds = t.use(
        training_time_from_flops(compute, n_gpus, peak_flops, mfu, utilization), t.steps[-1].factors
    )
    if flop_count == "8N":
        convention = (
            "utilization of the FLOPs executed (HFU: full recomputation counted, 8·N·D); "
            "peak FLOP/s as given (dense, not 2:4 sparse)"
        )
        return t.done(seconds, Unit.SECONDS, convention)
    return t.done(seconds, Unit.SECONDS, MFU_CONVENTION + "; attention FLOPs ignored (6·N·D)")


def gpu_hours(n_params: int | float, n_tokens: int | float, peak_flops: float, mfu: float) -> Result:
    """GPU-hours to train: 6·N·D / (peak × MFU × 3600), independent of how many GPUs share the work.

    Args:
        n_params: parameters N.
        n_tokens: training tokens D.
        peak_flops: peak FLOP/s of one accelerator (dense).
        mfu: model FLOPs utilization, in (0, 1].

    Returns:
        GPU-hours (float).

    6 × 1e9 × 1.8e10 = 1.08e20 FLOPs at 1e14 × 0.5 FLOP/s per GPU is 2.16e6 GPU-seconds = 600 GPU-hours:

    >>> gpu_hours(1_000_000_000, 18_000_000_000, 1e14, 0.5).value
    600.0
    """
    positive("peak_flops", peak_flops)
    fraction("mfu", mfu)
    t = Trace()
    compute = t.use(training_flops(n_params, n_tokens))
    per_gpu = t.step(
        "Achieved throughput per GPU",
        "peak × MFU",
        f"{num(peak_flops)} × {num(mfu)}",
        float(peak_flops * mfu),
        Unit.FLOP_PER_S,
    )
    hours = t.step(
        "GPU-hours",
        "C / (throughput per GPU × 3600)",
        f"{num(compute)} / ({num(per_gpu)} × 3,600)",
        compute / (per_gpu * SECONDS_PER_HOUR),
        Unit.GPU_HOURS,
        t.steps[0].factors,  # proportional to the compute's factors
    )
    return t.done(hours, Unit.GPU_HOURS, MFU_CONVENTION)


def training_cost(gpu_hours: int | float, usd_per_gpu_hour: int | float) -> Result:
    """Compute cost = GPU-hours × price per GPU-hour.

    Source: DeepSeek-V3 technical report, arXiv 2412.19437, Table 1 (2.788M H800 GPU-hours at $2 = $5.576M).

    Args:
        gpu_hours: GPU-hours used.
        usd_per_gpu_hour: rental price of one GPU for one hour, in USD.

    Returns:
        USD (float).

    >>> training_cost(1_000, 2.5).value
    2500.0
    """
    positive("gpu_hours", gpu_hours)
    positive("usd_per_gpu_hour", usd_per_gpu_hour)
    t = Trace()
    cost = t.step(
        "Compute cost",
        "GPU-hours × price per GPU-hour",
        f"{num(gpu_hours)} × {num(usd_per_gpu_hour)}",
        float(gpu_hours * usd_per_gpu_hour),
        Unit.USD,
    )
    return t.done(cost, Unit.USD, "GPU rental only: no ablations, data, staff or hardware capex")


def _checked_mfu(value: float, hint: str) -> float:
    if value > 1 + 1e-9:  # allow float rounding of an exact 1
        raise SpecError(f"implied MFU ({value:.4g}) exceeds 1: {hint}")
    return value


def mfu_from_gpu_hours(
    n_params: int | float, n_tokens: int | float, gpu_hours: int | float, peak_flops: float
) -> Result:
    """MFU implied by a reported GPU-hour budget: 6·N·D / (GPU-hours × 3600 × peak).

    Source: sizing-notes 4.6 (Llama-2-7B: 184,320 A100-hours for 2T tokens, about 39% of 312 TFLOP/s).

    Args:
        n_params: parameters N.
        n_tokens: training tokens D.
        gpu_hours: GPU-hours the run used.
        peak_flops: peak FLOP/s of one GPU (dense).

    Returns:
        Ratio in (0, 1] (float).

    6 × 1e9 × 6e9 = 3.6e19 FLOPs over 100 GPU-hours (3.6e5 GPU-seconds) at 2e14 peak is 0.5:

    >>> mfu_from_gpu_hours(1_000_000_000, 6_000_000_000, 100, 2e14).value
    0.5
    """
    positive("gpu_hours", gpu_hours)
    positive("peak_flops", peak_flops)
    t = Trace()
    compute = t.use(training_flops(n_params, n_tokens))
    available = t.step(
        "Peak compute of the GPU-hours",
        "GPU-hours × 3600 × peak",
        f"{num(gpu_hours)} × 3,600 × {num(peak_flops)}",
        float(gpu_hours * SECONDS_PER_HOUR * peak_flops),
        Unit.FLOPS,
    )
    shown, factors = f"{num(compute)} / {num(available)}", t.steps[0].factors  # proportional to the compute's
    mfu = t.step("MFU", "C / peak compute", shown, compute / available, Unit.RATIO, factors)
    _checked_mfu(mfu, "gpu_hours is too small for 6·N·D at this peak")
    return t.done(mfu, Unit.RATIO, MFU_CONVENTION)


def mfu_from_throughput(achieved_flops_per_s: int | float, n_gpus: int, peak_flops: float) -> Result:
    """Utilization from an aggregate throughput: achieved FLOP/s / (n_gpus × peak).

    Source: Narayanan et al. 2021, arXiv 2104.04473 (502 PFLOP/s on 3,072 A100s is 52% of peak). Megatron
    counts recompute FLOPs, so its figure is hardware FLOPs utilization (HFU) rather than MFU.

    Args:
        achieved_flops_per_s: aggregate achieved FLOP/s of the whole cluster.
        n_gpus: number of GPUs.
        peak_flops: peak FLOP/s of one GPU (dense).

    Returns:
        Ratio in (0, 1] (float).

    >>> mfu_from_throughput(4e17, 2_000, 4e14).value
    0.5
    """
    positive("achieved_flops_per_s", achieved_flops_per_s)
    count("n_gpus", n_gpus)
    positive("peak_flops", peak_flops)
    t = Trace()
    per_gpu = t.step(
        "Achieved throughput per GPU",
        "achieved / GPUs",
        f"{num(achieved_flops_per_s)} / {num(n_gpus)}",
        achieved_flops_per_s / n_gpus,
        Unit.FLOP_PER_S,
    )
    mfu = t.step(
        "Utilization",
        "per-GPU throughput / peak",
        f"{num(per_gpu)} / {num(peak_flops)}",
        per_gpu / peak_flops,
        Unit.RATIO,
    )
    _checked_mfu(mfu, "achieved_flops_per_s exceeds n_gpus × peak_flops")
    return t.done(mfu, Unit.RATIO, "achieved ÷ peak; HFU if the achieved FLOPs include recompute, MFU if not")


def batch_tokens(n_sequences: int, seq_len: int) -> Result:
    """Tokens in one training batch: sequences × sequence length.

    >>> batch_tokens(4096, 15360).value
    62914560
    """
    n, s = counts(n_sequences=n_sequences, seq_len=seq_len)
    t = Trace()
    value = t.step("Tokens per batch", "n_sequences × seq_len", f"{num(n)} × {num(s)}", n * s, Unit.TOKENS)
    return t.done(value, Unit.TOKENS, "every sequence packed to seq_len tokens")
