"""The words an answer may use: units, scales and what each stands for, read by quizzer.grading.parse."""

from __future__ import annotations

import functools
import re
from fractions import Fraction

Entry = tuple[str, Fraction, str | None]  # (kind, factor to the kind's base unit, note for the reading)

COUNT_LIKE = frozenset({"params", "tokens", "FLOPs", "MACs", "count", "patches", "GPU-hours", "USD"})
BYTE_LIKE = frozenset({"bytes", "bits", "bytes/s"})
SI = {"k": 3, "K": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
WORD_SCALES = {"thousand": 3, "million": 6, "billion": 9, "trillion": 12, "quadrillion": 15, "bn": 9}
#: Units written right after the number, with no space ("47.6%", "1.316B"); others take one ("41.4 GB").
CLOSE_UNITS = frozenset({"%", "k", "K", "M", "B", "T", "G", "P", "E"})
SCALE_NAMES = sorted([*SI, "B", "m", "b", "t", *WORD_SCALES], key=len, reverse=True)

_FOLD = re.compile(r"[\s-]+")


def fold(token: str) -> str:
    """``token`` for a loose match: lower case, each run of spaces and hyphens one hyphen ("gpu-hours")."""
    return _FOLD.sub("-", token.lower())


@functools.cache  # built on first use, not at import: keeps the import cheap
def tables() -> tuple[dict[str, Entry], dict[str, Entry]]:
    """The unit tokens, exact and folded ("gpu-hours", "gb"), each to (kind, factor, note)."""
    units: dict[str, Entry] = {}
    folded: dict[str, Entry] = {}

    def add(kind: str, factor: int | Fraction, *names: str) -> None:
        for name in names:
            units[name] = (kind, Fraction(factor), None)

    add("bytes", 1, "B", "byte", "bytes")
    add("bits", 1, "b", "bit", "bits")
    for prefix, power in SI.items():
        add("bytes", 10**power, prefix + "B")
        add("bits", 10**power, prefix + "b", prefix + "bit", prefix + "bits")
        if prefix not in "kK":  # "gb": people mean GB far more often than gigabits ("kb" is proper SI)
            low = prefix.lower() + "b"
            folded[low] = ("bytes", Fraction(10**power), f"{low!r} read as {prefix}B")
    for power, prefix in enumerate("KMGTPE", 1):
        add("bytes", 2 ** (10 * power), prefix + "iB")
        add("bits", 2 ** (10 * power), prefix + "ib", prefix + "ibit")
    for name, (kind, factor, _) in list(units.items()):
        per_s = "bytes/s" if kind == "bytes" else "bits/s"
        add(per_s, factor, name + "/s", name + "/sec", *([name + "ps"] if name[-1] in "Bb" else []))
    for names, seconds in (
        ("ns nsec nanosecond nanoseconds", Fraction(1, 10**9)),
        ("µs μs us usec microsecond microseconds", Fraction(1, 10**6)),
        ("ms msec millisecond milliseconds", Fraction(1, 1000)),
        ("s sec secs second seconds", 1),
        ("min mins minute minutes", 60),
        ("h hr hrs hour hours", 3600),
        ("d day days", 86400),
        ("wk wks week weeks", 7 * 86400),
        ("yr yrs year years", 365 * 86400),
    ):
        add("s", seconds, *names.split())
    add("params", 1, "params", "param", "parameters", "parameter", "weights")
    add("tokens", 1, "tokens", "token", "tok", "toks")
    add("patches", 1, "patches", "patch")
    add("count", 1, "count")
    add("GPU-hours", 1, "GPU-hours", "GPU-hour", "GPU-h", "GPUh", "GPU-hrs", "GPU-hr")
    add("GPU-hours", 24, "GPU-days", "GPU-day")
    add("USD", 1, "$", "USD", "US$", "dollars", "dollar")
    add("ratio", Fraction(1, 100), "%", "percent", "pct")
    add("ratio", 1, "x", "X")
    # arithmetic intensity, a ratio of FLOPs to bytes moved: "250 FLOPs/byte" means 250
    add("FLOPs/byte", 1, "FLOPs/byte", "FLOP/byte", "FLOPs/B", "FLOP/B", "FLOPs/bytes", "FLOPs-per-byte")
    add("bits/param", 1, "bits/param", "bit/param", "bits/parameter", "bits/weight", "b/param", "bpw")
    add("bits/param", 1, "bits-per-param", "bits-per-parameter", "bits-per-weight")
    add("bytes/param", 1, "bytes/param", "B/param", "bytes/parameter", "bytes-per-param")
    add("tokens/s", 1, "tokens/s", "token/s", "tok/s", "tokens/sec", "tok/sec", "tokens-per-second", "tps")
    for name, entry in units.items():
        folded.setdefault(fold(name), entry)
    return units, folded


FLOP = r"(?ai)([kmgtpezy]?)(flops?)(/s|/sec)?"  # (?a): "\u212a" (Kelvin) is no "k"
#: The prefixes of a FLOP count, to yotta: training compute reaches 1e24 and beyond ("3.8 YFLOPs").
FLOP_SI = {**SI, "Z": 21, "Y": 24}
MAC = r"(?ai)([kmgtpe]?)(macs?)"
CONVERT: dict[tuple[str, str], tuple[Fraction, str | None]] = {
    ("bits", "bytes"): (Fraction(1, 8), "8 bits = 1 byte"),
    ("bytes", "bits"): (Fraction(8), None),
    ("bits/s", "bytes/s"): (Fraction(1, 8), "8 bits = 1 byte"),
    ("MACs", "FLOPs"): (Fraction(2), "1 MAC = 2 FLOPs"),
    ("FLOPs", "MACs"): (Fraction(1, 2), "1 MAC = 2 FLOPs"),
    ("bytes/param", "bits/param"): (Fraction(8), None),
    ("bits", "bits/param"): (Fraction(1), None),
    ("tokens", "patches"): (Fraction(1), "a ViT's patches are its tokens"),
    ("FLOPs/byte", "ratio"): (Fraction(1), None),
}
READ_AS = {"params": "parameters", "count": "a count", "USD": "dollars", "s": "a time", "ratio": "a ratio"}
READ_AS |= {"FLOP/s": "a compute rate (FLOP/s)", "bytes/s": "a bandwidth (bytes/s)"}
READ_AS |= {"bits/s": "a bandwidth (bits/s)", "bits/param": "bits per parameter"}
READ_AS |= {"bytes/param": "bytes per parameter", "tokens/s": "a throughput (tokens/s)"}
READ_AS |= {"FLOPs/byte": "an arithmetic intensity (FLOPs per byte)"}
ANSWER_IS = {
    "params": ("a number of parameters", "7B or 6.7e9 params"),
    "tokens": ("a number of tokens", "2T tokens"),
    "FLOPs": ("a number of FLOPs", "3.15e23 FLOPs or 6 GFLOPs"),
    "MACs": ("a number of MACs (multiply-adds)", "5 GMACs"),
    "bytes": ("a size in bytes", "16 GiB, 17.2 GB or 1.7e10 bytes"),
    "bits": ("a size in bits", "128 Gb or 16 GB"),
    "s": ("a time", "2.1 ms, 30 s or 3 days"),
    "FLOP/s": ("a compute rate in FLOP/s", "312 TFLOP/s"),
    "bytes/s": ("a bandwidth in bytes/s", "2 TB/s or 900 GB/s"),
    "ratio": ("a ratio, typed as a plain number", "3.6, 1.5x or, for a share, 40%"),
    "USD": ("a cost in dollars", "$1.2M"),
    "GPU-hours": ("a number of GPU-hours (GPUs × hours)", "2,048 GPU-hours"),
    "patches": ("a number of patches", "196 patches"),
    "count": ("a plain count", "8"),
    "bits/param": ("a number of bits per parameter", "4.13 bits/param"),
    "tokens/s": ("a throughput in tokens/s", "1.2k tokens/s"),
}
