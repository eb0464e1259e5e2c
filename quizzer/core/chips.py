"""A chip with its own numbers: a table accelerator (or ``custom``) with some spec-sheet fields replaced.

A chip is named by text, so that templates keep passing one string to ``peak_flops``, ``hbm_bandwidth``...:
``"tpu-v5e"`` is the table's, ``"tpu-v5e{bf16=3.94e14,hbm_bandwidth=8.1e11}"`` the same chip with a book's
figures, ``"custom{bf16=1e15,hbm_bandwidth=2e12}"`` a chip known only by the numbers given. The text is
canonical (fields sorted, numbers written exactly), so an instance posed with it can be replayed.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from types import MappingProxyType

from quizzer.core.accelerators import ACCELERATORS, RATE_OF_DTYPE, Accelerator
from quizzer.core.errors import SpecError, UnknownNameError
from quizzer.core.units import check_dtype

#: The base of a chip known only by its own numbers.
CUSTOM = "custom"
#: The matmul rates a chip's own numbers may set, FLOP/s (OP/s for int8), dense.
RATE_FIELDS = ("fp32", "tf32", "bf16", "fp16", "fp8", "fp6", "int8", "fp4")
#: Every field a chip's own numbers may set: what it is, and its unit.
CHIP_FIELDS: Mapping[str, tuple[str, str]] = MappingProxyType(
    {
        **{rate: (f"dense {rate} peak", "FLOP/s") for rate in RATE_FIELDS},
        "hbm_bytes": ("device memory (HBM)", "bytes"),
        "hbm_bandwidth": ("device-memory bandwidth", "bytes/s"),
        "interconnect_bandwidth": ("one-way scale-up bandwidth out of one chip, all links", "bytes/s"),
        "interconnect_links": ("scale-up links per chip", "count"),
    }
)
#: Fields whose value is a whole number.
_WHOLE = frozenset({"hbm_bytes", "interconnect_links"})
#: Table chips whose vendor sheets headline 2:4-sparse tensor figures (twice the dense peak).
_SPARSE_SHEETS = frozenset({"a100-40gb", "a100-80gb", "h100-sxm", "h200", "b200", "mi300x", "l4"})


def chip_spec(base: str, fields: Mapping[str, float | int]) -> str:
    """The canonical text of chip ``base`` with ``fields`` replaced (``base`` alone without fields).

    >>> chip_spec("tpu-v5e", {"hbm_bandwidth": 8.1e11, "bf16": 3.94e14})
    'tpu-v5e{bf16=394000000000000.0,hbm_bandwidth=810000000000.0}'
    """
    base_name, own = split_chip(base)
    merged = {**own, **{name: field_value(name, value) for name, value in fields.items()}}
    if not merged:
        return base_name
    inner = ",".join(f"{name}={merged[name]!r}" for name in sorted(merged))
    return f"{base_name}{{{inner}}}"


def split_chip(text: str) -> tuple[str, dict[str, float | int]]:
    """(base name, own fields) of a chip's text; a SpecError for a field or number that is not one.

    >>> split_chip("h100-sxm{hbm_bandwidth=2e12}")
    ('h100-sxm', {'hbm_bandwidth': 2000000000000.0})
    """
    text = text.strip().lower()
    base, brace, rest = text.partition("{")
    if not brace:
        return base, {}
    if not rest.endswith("}"):
        raise SpecError(f"chip {text!r}: own numbers go in braces, base{{field=value,...}}")
    fields: dict[str, float | int] = {}
    for item in filter(None, rest[:-1].split(",")):
        name, eq, value = item.partition("=")
        if not eq:
            raise SpecError(f"chip {text!r}: write field=value, not {item!r}")
        fields[name.strip()] = field_value(name.strip(), value.strip())
    return base.strip(), fields


def field_value(name: str, value: object) -> float | int:
    """A field's number, checked: a known field, a finite positive number, whole where it must be."""
    if name not in CHIP_FIELDS:
        from quizzer.core.checks import did_you_mean

        raise SpecError(
            f"a chip has no field {name!r}{did_you_mean(name, CHIP_FIELDS)}; "
            f"its fields: {', '.join(CHIP_FIELDS)}"
        )
    try:
        number = float(str(value).replace("_", "")) if not isinstance(value, int | float) else value
    except ValueError:
        raise SpecError(f"chip field {name}: {value!r} is not a number") from None
    if isinstance(number, bool) or not 0 < number < float("inf"):
        raise SpecError(f"chip field {name}: {value!r} must be a positive finite number")
    if name in _WHOLE:
        if not float(number).is_integer():
            raise SpecError(f"chip field {name}: {value!r} must be a whole number")
        return int(number)
    return float(number)


@cache
def own_chip(text: str) -> Accelerator:
    """The Accelerator a chip's text names: the table's, or a copy with its own numbers."""
    base, fields = split_chip(text)
    if base == CUSTOM:
        acc = Accelerator(
            CUSTOM, "a custom accelerator", MappingProxyType({}), 0, 0.0, None, "own figures", ""
        )
    elif base in ACCELERATORS:
        acc = ACCELERATORS[base]
    else:
        from quizzer.core.units import unknown_name_message

        raise UnknownNameError(unknown_name_message("accelerator", base, {**ACCELERATORS, CUSTOM: None}))
    if not fields:
        return acc
    rates = dict(acc.dense_flops)
    rates.update({k: float(v) for k, v in fields.items() if k in RATE_FIELDS})
    said = ", ".join(_said(k, v) for k, v in sorted(fields.items()))
    links = int(fields.get("interconnect_links", acc.interconnect_links))
    one_way = fields.get("interconnect_bandwidth", acc.interconnect_bandwidth)
    return Accelerator(
        chip_spec(base, fields),
        f"{acc.full_name} with own figures ({said})" if base != CUSTOM else f"an accelerator with {said}",
        MappingProxyType(rates),
        int(fields.get("hbm_bytes", acc.hbm_bytes)),
        float(fields.get("hbm_bandwidth", acc.hbm_bandwidth)),
        None if one_way is None else float(one_way),
        acc.source + ("; " if acc.source else "") + "own numbers given for " + ", ".join(sorted(fields)),
        acc.note,
        acc.interconnect or ("scale-up link" if "interconnect_bandwidth" in fields else ""),
        links or (1 if "interconnect_bandwidth" in fields else 0),
    )


def _said(field: str, value: float | int) -> str:
    """One own figure in words: "bf16 394 TFLOP/s", "HBM 810 GB/s", "HBM 16 GiB", "4 links"."""
    if field in RATE_FIELDS:
        return f"{field} {value / 1e12:g} TFLOP/s"
    if field == "hbm_bytes":
        return f"HBM {value / 2**30:g} GiB"
    if field == "hbm_bandwidth":
        return f"HBM {value / 1e9:g} GB/s"
    if field == "interconnect_bandwidth":
        return f"interconnect {value / 1e9:g} GB/s one way"
    return f"{value:g} links"


def chip_title(hardware: str) -> str:
    """The chip's name in words, its own figures said.

    >>> chip_title("h100-sxm"), chip_title("tpu-v5e{hbm_bandwidth=8.1e11}")
    ('NVIDIA H100 SXM5 80GB', 'Google Cloud TPU v5e with own figures (HBM 810 GB/s)')
    """
    return str(own_chip(hardware).full_name)


def chip_base(hardware: str) -> str:
    """The table chip a chip's text starts from ("custom" for one known only by its own numbers).

    >>> chip_base("h100-sxm{bf16=1e15}"), chip_base("custom{bf16=1e15}")
    ('h100-sxm', 'custom')
    """
    return split_chip(hardware)[0]


def chip_has_rate(hardware: str, dtype: str) -> bool:
    """Whether the chip runs matmuls at ``dtype``'s rate.

    >>> chip_has_rate("a100-80gb", "fp8"), chip_has_rate("a100-80gb{fp8=6e14}", "fp8_e4m3")
    (False, True)
    """
    rate = RATE_OF_DTYPE.get(check_dtype(dtype), dtype)
    return rate in own_chip(hardware).dense_flops


def chip_sheet_sparse(hardware: str) -> bool:
    """Whether the chip's vendor sheet headlines 2:4-sparse tensor figures (twice the dense peak); a chip
    given its own rates takes them as dense.

    >>> chip_sheet_sparse("h100-sxm"), chip_sheet_sparse("tpu-v5e"), chip_sheet_sparse("h100-sxm{bf16=9e14}")
    (True, False, False)
    """
    base, fields = split_chip(hardware)
    return base in _SPARSE_SHEETS and not any(k in RATE_FIELDS for k in fields)


def chip_is_tpu(hardware: str) -> bool:
    """Whether the chip is a Google TPU (an ICI torus rather than an NVLink switch).

    >>> chip_is_tpu("tpu-v5p{hbm_bytes=100e9}"), chip_is_tpu("mi300x")
    (True, False)
    """
    return chip_base(hardware).startswith("tpu")


__all__ = [
    "CHIP_FIELDS",
    "CUSTOM",
    "RATE_FIELDS",
    "chip_base",
    "chip_has_rate",
    "chip_is_tpu",
    "chip_sheet_sparse",
    "chip_spec",
    "chip_title",
    "field_value",
    "own_chip",
    "split_chip",
]
