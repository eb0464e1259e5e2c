"""ModelSpec validation: every rule names the field and the value."""

from __future__ import annotations

from typing import Any

import pytest

from quizzer.core.errors import SpecError
from quizzer.core.spec import ModelSpec

BASE: dict[str, Any] = dict(vocab_size=100, d_model=64, n_layers=2, n_heads=4, d_ff=256)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"n_heads": 32, "n_kv_heads": 6, "d_model": 64 * 32},
            r"n_heads \(32\) must be divisible by n_kv_heads \(6\)",
        ),
        ({"d_model": 65}, r"d_model \(65\) must be divisible by n_heads \(4\) when head_dim is not given"),
        ({"vocab_size": 0}, r"vocab_size \(0\) must be a positive integer"),
        ({"d_ff": 2.5}, r"d_ff \(2.5\) must be a positive integer"),
        ({"n_layers": True}, r"n_layers \(True\) must be a positive integer"),
        ({"mlp": "swiglu"}, r"mlp \('swiglu'\) must be one of gelu, gated"),
        ({"norm": "batchnorm"}, r"norm \('batchnorm'\) must be one of layernorm, rmsnorm"),
        ({"positions": "learned"}, r"n_positions \(0\) must be positive when positions is 'learned'"),
        ({"n_positions": 512}, r"n_positions \(512\) must be 0 when positions is 'rotary'"),
        ({"lm_head": False, "tie_embeddings": True}, r"tie_embeddings \(true\) needs lm_head \(false\)"),
        (
            {"n_experts": 8, "experts_per_token": 9},
            r"experts_per_token \(9\) must be between 1 and n_experts \(8\)",
        ),
        ({"experts_per_token": 2}, r"need n_experts > 0"),
        ({"qkv_bias": 1}, r"qkv_bias \(1\) must be true or false"),
        ({"sliding_window": 0}, r"sliding_window \(0\) must be a positive integer"),
    ],
)
def test_invalid_specs_name_field_and_rule(change: dict[str, Any], message: str) -> None:
    with pytest.raises(SpecError, match=message):
        ModelSpec(**{**BASE, **change})


def test_defaults_resolve() -> None:
    spec = ModelSpec(**BASE)
    assert (spec.n_kv_heads, spec.head_dim, spec.d_ff_expert) == (4, 16, 256)
    assert not spec.is_moe


def test_explicit_head_dim_need_not_divide() -> None:
    """Gemma-7B: head_dim 256 with d_model 3072 and 16 heads (3072 / 16 = 192)."""
    spec = ModelSpec(vocab_size=10, d_model=3072, n_layers=1, n_heads=16, head_dim=256, d_ff=10)
    assert spec.head_dim == 256


def test_spec_is_frozen() -> None:
    spec = ModelSpec(**BASE)
    with pytest.raises(AttributeError):
        spec.d_model = 128  # type: ignore[misc]
