"""Block-scaled storage in exact bytes: MXFP4, NVFP4, the other MX formats, FP8 blocks, mixed checkpoints."""

from __future__ import annotations

import math

from quizzer.core.checks import count
from quizzer.core.errors import SpecError, UnknownNameError
from quizzer.core.record import Record
from quizzer.core.trace import Result, Trace, num
from quizzer.core.units import (
    BLOCK_SCALED,
    Unit,
    check_dtype,
    dtype_bytes_text,
    elements_bytes,
    unknown_name_message,
)

_OCP_MX = "OCP Microscaling Formats (MX) Specification v1.0 (2023): a shared E8M0 scale per block of 32"
_NVFP4 = (
    "NVIDIA, Introducing NVFP4 for Efficient and Accurate Low-Precision Inference (developer blog, June "
    "2025): E2M1 values, an FP8 E4M3 scale per 16, an FP32 scale per tensor"
)
_DEEPSEEK = (
    "DeepSeek-V3 Technical Report (arXiv 2412.19437) §3.3.2: 128×128 weight blocks, 1×128 activation tiles; "
    "the checkpoint stores float8_e4m3fn weights and a float32 weight_scale_inv per 128×128 block"
)


class BlockFormat(Record):
    """A block-scaled format: low-bit elements sharing a scale per block (NVFP4: and one per tensor)."""

    name: str
    element: str
    """What each value is stored as ("fp4_e2m1")."""
    scale: str
    """What each block scale is stored as ("e8m0", "fp8_e4m3")."""
    element_bits: int
    scale_bits: int
    block_size: int
    tensor_scale_bits: int
    """Bits of the per-tensor scale (32 for NVFP4's fp32 second level, 0 when there is none)."""
    source: str


_META = {
    "mxfp4": ("fp4_e2m1", "e8m0", 0, _OCP_MX),
    "mxfp6": ("fp6_e2m3 or fp6_e3m2", "e8m0", 0, _OCP_MX),
    "mxfp8": ("fp8_e4m3 or fp8_e5m2", "e8m0", 0, _OCP_MX),
    "mxint8": ("int8", "e8m0", 0, _OCP_MX),
    "nvfp4": ("fp4_e2m1", "fp8_e4m3", 32, _NVFP4),
}

#: The block-scaled formats, by dtype name (their sizes come from ``quizzer.core.units.BLOCK_SCALED``).
BLOCK_FORMATS: dict[str, BlockFormat] = {
    name: BlockFormat(name, element, scale, *BLOCK_SCALED[name], tensor_bits, source)
    for name, (element, scale, tensor_bits, source) in _META.items()
}

CONVENTION = (
    "values packed (two 4-bit values per byte), one scale per block of a row, the last block of a row "
    "scaled even if short; NVFP4 adds its fp32 per-tensor scale; decimal bytes"
)


def spoken(name: str) -> str:
    """A format's name as the specifications write it, not as code: "fp4_e2m1" is "FP4 E2M1".

    >>> spoken("fp4_e2m1"), spoken("e8m0"), spoken("fp8_e4m3 or fp8_e5m2")
    ('FP4 E2M1', 'E8M0', 'FP8 E4M3 or FP8 E5M2')
    """
    return " or ".join(part.replace("_", " ").upper() for part in name.split(" or "))


def block_format(dtype: str) -> BlockFormat:
    """The block-scaled format called ``dtype``.

    >>> block_format("nvfp4").block_size, block_format("mxfp4").scale
    (16, 'e8m0')
    """
    if check_dtype(dtype) not in BLOCK_FORMATS:
        raise UnknownNameError(unknown_name_message("block-scaled format", dtype, BLOCK_FORMATS))
    return BLOCK_FORMATS[dtype]


def block_scaled_bits_per_value(dtype: str) -> Result:
    """Storage bits per value of a block-scaled format: element bits + scale bits / block size.

    MXFP4 (OCP MX v1.0): 4 + 8/32 = 4.25; NVFP4 (NVIDIA 2025): 4 + 8/16 = 4.5, its fp32 per-tensor scale
    left out (it is per tensor: see ``block_scaled_bytes``); MXFP6 6.25, MXFP8 and MXINT8 8.25.

    Args:
        dtype: mxfp4, mxfp6, mxfp8, mxint8 or nvfp4.

    Returns:
        Bits per value (exact in binary).

    >>> block_scaled_bits_per_value("mxfp4").value, block_scaled_bits_per_value("nvfp4").value
    (4.25, 4.5)
    """
    f = block_format(dtype)
    t = Trace()
    t.step(
        f"Scale bits per value ({spoken(f.scale)} per {f.block_size})",
        "scale bits / block",
        f"{f.scale_bits} / {f.block_size}",
        f.scale_bits / f.block_size,
        Unit.BITS_PER_PARAM,
    )
    bits = t.step(
        f"Bits per {f.name} value ({spoken(f.element)} + its share of the scale)",
        "element bits + scale bits / block",
        f"{f.element_bits} + {f.scale_bits} / {f.block_size}",
        f.element_bits + f.scale_bits / f.block_size,
        Unit.BITS_PER_PARAM,
    )
    tensor = f"; plus {f.tensor_scale_bits} bits per tensor, not per value" if f.tensor_scale_bits else ""
    return t.done(bits, Unit.BITS_PER_PARAM, f"block scales counted in{tensor}; {f.source}")


def _scaled_parts(t: Trace, f: BlockFormat, rows: int, cols: int, n_tensors: int) -> int:
    """Record the value, block-scale and tensor-scale bytes of rows × cols values (rows = 1: a flat count)."""
    lead, size = ("rows × ", f"{num(rows)} × ") if rows > 1 else ("", "")
    axis = "cols" if rows > 1 else "n"
    values = t.step(
        f"{spoken(f.element)} values, packed",
        f"{lead}⌈{axis} × element bits / 8⌉",
        f"{size}⌈{num(cols)} × {f.element_bits} / 8⌉",
        rows * -(-cols * f.element_bits // 8),
        Unit.BYTES,
    )
    scales = t.step(
        f"{spoken(f.scale)} block scales, one per {f.block_size} values" + (" of a row" if rows > 1 else ""),
        f"{lead}⌈{axis} / block⌉ × scale bits / 8",
        f"{size}⌈{num(cols)} / {f.block_size}⌉ × {f.scale_bits} / 8",
        rows * -(-cols // f.block_size) * f.scale_bits // 8,
        Unit.BYTES,
    )
    parts = [values, scales]
    if f.tensor_scale_bits:
        parts.append(
            t.step(
                "fp32 per-tensor scales",
                "tensors × 32 / 8",
                f"{num(n_tensors)} × 4",
                n_tensors * f.tensor_scale_bits // 8,
                Unit.BYTES,
            )
        )
    label = "values + block scales" + (" + tensor scales" if f.tensor_scale_bits else "")
    total = t.step(f"{f.name} bytes", label, " + ".join(num(p) for p in parts), sum(parts), Unit.BYTES)
    return int(total)


def block_scaled_bytes(n_values: int, dtype: str, n_tensors: int = 1) -> Result:
    """Bytes of ``n_values`` stored in a block-scaled format: ⌈n × e / 8⌉ + ⌈n / B⌉ × s / 8 (+ n_tensors × 4).

    When every row is a whole number of blocks (as in released checkpoints: gpt-oss's 2,880-wide experts are
    90 blocks of 32) this is exactly n × bits_per_value / 8 plus, for NVFP4, 4 bytes per tensor. A shape whose
    rows end in a partial block needs ``block_scaled_tensor_bytes``.

    Args:
        n_values: values stored (the quantized parameters).
        dtype: mxfp4, mxfp6, mxfp8, mxint8 or nvfp4.
        n_tensors: how many tensors they form (each NVFP4 tensor carries one fp32 scale); at most n_values.

    Returns:
        Bytes (int).

    >>> block_scaled_bytes(1024, "mxfp4").value, block_scaled_bytes(1024, "nvfp4", 2).value
    (544, 584)
    """
    n, f = count("n_values", n_values), block_format(dtype)
    tensors = count("n_tensors", n_tensors)
    if tensors > n:
        raise SpecError(
            f"n_tensors ({tensors:,}) cannot exceed n_values ({n:,}): a tensor holds at least one value"
        )
    t = Trace()
    total = _scaled_parts(t, f, 1, n, tensors)
    return t.done(total, Unit.BYTES, f"{CONVENTION}; {f.source}")


def block_scaled_tensor_bytes(rows: int, cols: int, dtype: str) -> Result:
    """Bytes of one rows × cols tensor in a block-scaled format, blocked along its rows (the reduction axis).

    rows × (⌈cols × e / 8⌉ + ⌈cols / B⌉ × s / 8), plus 4 bytes for NVFP4's per-tensor scale. This is the
    layout of gpt-oss's MXFP4 experts (``*_blocks`` uint8 [.., cols / 32, 16] and ``*_scales`` uint8
    [.., cols / 32]) and of NVFP4 checkpoints (uint8 [rows, cols / 2], float8_e4m3fn [rows, cols / 16]).

    Args:
        rows: output rows of the weight matrix.
        cols: values per row (the input features, the axis a block runs along).
        dtype: mxfp4, mxfp6, mxfp8, mxint8 or nvfp4.

    Returns:
        Bytes (int).

    >>> [block_scaled_tensor_bytes(n, n, dtype).value for n, dtype in ((2880, "mxfp4"), (8192, "nvfp4"))]
    [4406400, 37748740]
    """
    r, c, f = count("rows", rows), count("cols", cols), block_format(dtype)
    t = Trace()
    total = _scaled_parts(t, f, r, c, 1)
    return t.done(total, Unit.BYTES, f"{CONVENTION}; {f.source}")


def fp8_block_scaled_bytes(
    rows: int, cols: int, block_rows: int = 128, block_cols: int = 128, scale_bits: int = 32
) -> Result:
    """Bytes of a rows × cols FP8 tensor, a scale per block: rows × cols + ⌈rows/br⌉ × ⌈cols/bc⌉ × s / 8.

    DeepSeek-V3 (arXiv 2412.19437 §3.3.2) scales weights per 128 × 128 block and activations per 1 × 128 tile
    (one token, 128 channels), with fp32 scales; its checkpoint stores them as ``weight_scale_inv`` float32
    [⌈rows/128⌉, ⌈cols/128⌉]. Per-tensor scaling is the block rows × cols (one scale); E4M3 and E5M2 are
    both 1 byte a value.

    Args:
        rows, cols: the tensor's shape (weights: out × in features; activations: tokens × channels).
        block_rows, block_cols: values of each block along each axis (128 × 128 for weights, 1 × 128 for
            activations).
        scale_bits: bits of each scale (32 for fp32, a multiple of 8).

    Returns:
        Bytes (int).

    >>> fp8_block_scaled_bytes(7168, 18432).value, fp8_block_scaled_bytes(4096, 7168, 1, 128).value
    (132152832, 30277632)
    """
    r, c = count("rows", rows), count("cols", cols)
    br, bc, s = (
        count("block_rows", block_rows),
        count("block_cols", block_cols),
        count("scale_bits", scale_bits),
    )
    if s % 8:
        raise SpecError(f"scale_bits ({s}) must be a whole number of bytes (8, 16 or 32)")
    t = Trace()
    values = t.step("FP8 values (1 byte each)", "rows × cols", f"{num(r)} × {num(c)}", r * c, Unit.BYTES)
    n_scales = math.ceil(r / br) * math.ceil(c / bc)
    scales = t.step(
        f"Scales, one per {num(br)} × {num(bc)} block",
        "⌈rows / br⌉ × ⌈cols / bc⌉ × scale bits / 8",
        f"⌈{num(r)} / {num(br)}⌉ × ⌈{num(c)} / {num(bc)}⌉ × {s} / 8",
        n_scales * s // 8,
        Unit.BYTES,
    )
    total = t.step(
        "FP8 tensor bytes", "values + scales", f"{num(values)} + {num(scales)}", values + scales, Unit.BYTES
    )
    return t.done(total, Unit.BYTES, f"a partial block at an edge still has its scale; {_DEEPSEEK}")


def mixed_weights_bytes(
    n_params: int, n_quantized: int, quant_dtype: str, rest_dtype: str = "bf16", n_quantized_tensors: int = 1
) -> Result:
    """Bytes of a checkpoint with n_quantized parameters in one dtype and the rest in another.

    gpt-oss (OpenAI model card, arXiv 2508.10925) stores its MoE expert weight matrices in MXFP4, "4.25 bits
    per parameter", and everything else (attention, router, expert biases, embeddings, norms, sinks) in bf16:
    gpt-oss-20b is 19,110,297,600 MXFP4 values of 20,914,757,184 parameters, 13,761,264,768 bytes
    = 12.8 GiB, the card's checkpoint size.

    Args:
        n_params: all parameters.
        n_quantized: those stored in ``quant_dtype`` (at most n_params; 0 for none).
        quant_dtype: any dtype name (mxfp4, nvfp4, fp8, int4...).
        rest_dtype: the dtype of the others (bf16 by default).
        n_quantized_tensors: tensors the quantized values form (NVFP4 adds 4 bytes each).

    Returns:
        Bytes (int).

    >>> mixed_weights_bytes(20_914_757_184, 19_110_297_600, "mxfp4").value
    13761264768
    """
    n, nq = count("n_params", n_params), count("n_quantized", n_quantized, 0)
    if nq > n:
        raise SpecError(f"n_quantized ({nq:,}) cannot exceed n_params ({n:,})")
    check_dtype(quant_dtype)
    check_dtype(rest_dtype)
    t = Trace()
    tensors = count("n_quantized_tensors", n_quantized_tensors)
    quantized = 0
    if nq and quant_dtype in BLOCK_FORMATS:
        quantized = int(t.use(block_scaled_bytes(nq, quant_dtype, tensors)))
    elif nq:
        quantized = t.step(
            f"Quantized parameters in {quant_dtype}",
            "⌈quantized parameters × bytes(dtype)⌉",
            f"{num(nq)} × {dtype_bytes_text(quant_dtype)}",
            elements_bytes(nq, quant_dtype),
            Unit.BYTES,
        )
    rest = t.step(
        f"The other parameters in {rest_dtype}",
        "(parameters − quantized parameters) × bytes(dtype)",
        f"({num(n)} − {num(nq)}) × {dtype_bytes_text(rest_dtype)}",
        elements_bytes(n - nq, rest_dtype),
        Unit.BYTES,
    )
    total = t.step(
        "Checkpoint bytes",
        "quantized + the rest",
        f"{num(quantized)} + {num(rest)}",
        quantized + rest,
        Unit.BYTES,
    )
    return t.done(total, Unit.BYTES, f"each part rounded up to whole bytes; {CONVENTION}")
