"""The dtype table (units.py): the old names unchanged, the new formats usable wherever a dtype is taken."""

from __future__ import annotations

import subprocess
import sys
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quizzer.core.errors import UnknownNameError
from quizzer.core.memory import kv_cache_bytes_per_token, weights_bytes
from quizzer.core.units import (
    BLOCK_SCALED,
    DTYPE_BITS,
    check_dtype,
    dtype_bits,
    dtype_bits_ratio,
    dtype_bytes,
    dtype_bytes_text,
    dtype_names,
    elements_bytes,
)

#: The table before issue #13, typed in: none of these may change.
OLD_TABLE = {"fp32": 32, "tf32": 32, "fp16": 16, "bf16": 16, "fp8": 8, "int8": 8, "int4": 4, "nf4": 4}
#: What the new names cost, from their specifications (OCP OFP8, OCP MX v1.0, NVIDIA NVFP4).
NEW_BITS = {
    "fp8_e4m3": Fraction(8),
    "fp8_e5m2": Fraction(8),
    "fp6": Fraction(6),
    "fp6_e2m3": Fraction(6),
    "fp6_e3m2": Fraction(6),
    "fp4": Fraction(4),
    "fp4_e2m1": Fraction(4),
    "mxfp4": Fraction(17, 4),
    "mxfp6": Fraction(25, 4),
    "mxfp8": Fraction(33, 4),
    "mxint8": Fraction(33, 4),
    "nvfp4": Fraction(9, 2),
}


def test_old_names_keep_their_values_and_types() -> None:
    for name, bits in OLD_TABLE.items():
        assert DTYPE_BITS[name] == bits
        assert type(dtype_bits(name)) is int
        assert dtype_bytes(name) == Fraction(bits, 8)
    assert elements_bytes(7, "int4") == 4  # two per byte, rounded up
    assert elements_bytes(3, "bf16") == 6
    assert dtype_bytes_text("int4") == "0.5"
    assert dtype_bytes_text("fp32") == "4"


def test_every_name_has_its_published_bits() -> None:
    assert set(dtype_names()) == set(OLD_TABLE) | set(NEW_BITS)
    for name, bits in NEW_BITS.items():
        assert dtype_bits(name) == bits
        assert Fraction(*dtype_bits_ratio(name)) == bits
        assert dtype_bytes(name) == bits / 8
        assert check_dtype(name) == name
    assert set(BLOCK_SCALED) == {n for n, b in NEW_BITS.items() if b.denominator > 1}


def test_bytes_texts_for_derivations() -> None:
    assert [dtype_bytes_text(d) for d in ("fp8_e4m3", "fp6", "fp4", "mxfp4", "nvfp4")] == [
        "1",
        "0.75",
        "0.5",
        "0.53125",
        "0.5625",
    ]


def test_unknown_names_list_the_new_formats() -> None:
    with pytest.raises(UnknownNameError, match=r"did you mean 'nvfp4'.*mxfp4"):
        dtype_bits("nvfp8")
    with pytest.raises(UnknownNameError, match="fp8_e4m3"):
        weights_bytes(10, "fp8_e4m2")


def test_block_scaled_sizes_avoid_importing_fractions() -> None:
    # `quizzer count --dtype mxfp4` goes through elements_bytes: integer arithmetic, no `fractions` (~4 ms).
    code = (
        "import sys\nfrom quizzer.core.units import elements_bytes, dtype_bytes_text, check_dtype\n"
        "assert elements_bytes(64, 'mxfp4') == 34 and dtype_bytes_text('nvfp4') == '0.5625'\n"
        "check_dtype('nvfp4')\nassert 'fractions' not in sys.modules, 'fractions was imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


# --- properties ------------------------------------------------------------------------------------------

counts = st.integers(min_value=1, max_value=10**12)
eight_bit = st.sampled_from(["fp8", "fp8_e4m3", "fp8_e5m2", "int8"])


@given(counts, eight_bit)
def test_fp8_is_half_of_bf16(n: int, dtype: str) -> None:
    assert 2 * weights_bytes(n, dtype).value == weights_bytes(n, "bf16").value
    assert 2 * elements_bytes(n, dtype) == elements_bytes(n, "fp16")


@given(
    st.integers(1, 128),
    st.integers(1, 64),
    st.sampled_from([64, 128, 256]),
    st.sampled_from(["fp8_e4m3", "fp8_e5m2"]),
)
def test_an_fp8_kv_cache_is_half_of_bf16(layers: int, kv_heads: int, head_dim: int, dtype: str) -> None:
    fp8 = kv_cache_bytes_per_token(layers, kv_heads, head_dim, dtype).value
    assert 2 * fp8 == kv_cache_bytes_per_token(layers, kv_heads, head_dim, "bf16").value


@given(counts)
def test_four_bit_formats_order_by_their_scales(n: int) -> None:
    # Bare E2M1 < MXFP4 (a byte per 32) <= NVFP4 (a byte per 16) < fp8, all at least half of fp8 (rounded up).
    fp4, mx, nv, fp8 = (elements_bytes(n, d) for d in ("fp4", "mxfp4", "nvfp4", "fp8"))
    assert fp4 <= mx <= nv <= fp8
    assert 2 * fp4 >= fp8
    assert elements_bytes(2 * n, "fp4") == elements_bytes(n, "fp8")


@given(counts, st.sampled_from(dtype_names()))
def test_bytes_round_the_exact_size_up(n: int, dtype: str) -> None:
    stored = elements_bytes(n, dtype)
    exact = n * Fraction(dtype_bits(dtype)) / 8
    assert stored - 1 < exact <= stored
    assert weights_bytes(n, dtype).value == stored
