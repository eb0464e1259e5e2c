"""The CALCULATORS registry templates call by name."""

from __future__ import annotations

import pytest

import quizzer.core as core
from quizzer.core.trace import Result


def test_every_calculator_is_registered_under_its_own_name_and_documented() -> None:
    assert len(core.CALCULATORS) >= 60
    for name, fn in core.CALCULATORS.items():
        assert fn.__name__ == name
        doc = fn.__doc__ or ""
        assert ">>>" in doc, f"{name} has no doctest"


def test_examples_return_traced_results() -> None:
    calls = {
        "embedding_params": (32000, 512),
        "kv_cache_bytes": (32, 8, 128, 8192, 1, "bf16"),
        "training_time": (7e9, 2e12, 1024, 312e12, 0.4),
        "vit_patch_count": (224, 16),
        "model_params_of": ("llama-2-7b",),
        "peak_flops": ("h100-sxm", "bf16"),
    }
    for name, args in calls.items():
        result = core.CALCULATORS[name](*args)
        assert isinstance(result, Result)
        assert result.steps[-1].value == result.value
        assert result.steps[-1].unit == result.unit


def test_unknown_attribute() -> None:
    with pytest.raises(AttributeError, match="no_such_thing"):
        _ = core.no_such_thing  # type: ignore[attr-defined]


def test_calculators_remember_results_by_argument_type_and_value() -> None:
    """A calculator answers a call it has answered from memory; 2 and 2.0 are two calls; an error is
    never kept; forget() makes them compute again."""
    from quizzer.core import CALCULATORS, forget
    from quizzer.core.errors import QuizzerError

    embedding = CALCULATORS["embedding_params"]
    first = embedding(32_000, 512)
    assert embedding(32_000, 512) is first
    assert first.value == 32_000 * 512  # 16,384,000, by hand
    assert embedding(32_000.0, 512) is not first
    with pytest.raises(QuizzerError):
        embedding(-1, 512)
    with pytest.raises(QuizzerError):
        embedding(-1, 512)  # raised again: not kept
    forget()
    again = embedding(32_000, 512)
    assert again is not first
    assert again == first
