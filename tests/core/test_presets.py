"""Presets: published totals, sources, lookups."""

from __future__ import annotations

import pytest

from quizzer.core.errors import UnknownNameError
from quizzer.core.model import param_breakdown
from quizzer.core.presets import preset, preset_names, preset_spec

# Totals as published (model cards, papers, `sum(p.numel())` dumps), typed in by hand.
PUBLISHED_TOTALS = {
    "gpt2": 124_439_808,
    "gpt2-medium": 354_823_168,
    "gpt2-large": 774_030_080,
    "gpt2-xl": 1_557_611_200,
    "llama-2-7b": 6_738_415_616,
    "llama-2-13b": 13_015_864_320,
    "llama-2-70b": 68_976_648_192,
    "llama-3-8b": 8_030_261_248,
    "llama-3-70b": 70_553_706_496,
    "mistral-7b": 7_241_732_096,
    "mixtral-8x7b": 46_702_792_704,
    "qwen2.5-0.5b": 494_032_768,
    "gemma-2b": 2_506_172_416,
    "gemma-7b": 8_537_680_896,
    "phi-3-mini": 3_821_079_552,
    "pythia-160m": 162_322_944,
    "pythia-1.4b": 1_414_647_808,
    "opt-125m": 125_239_296,
    "opt-1.3b": 1_315_758_080,
    "bert-base": 109_482_240,
    "bert-large": 335_141_888,
}


def test_at_least_the_required_presets_ship() -> None:
    required = {
        "gpt2",
        "gpt2-medium",
        "gpt2-large",
        "gpt2-xl",
        "llama-2-7b",
        "llama-2-13b",
        "llama-2-70b",
        "llama-3-8b",
        "llama-3-70b",
        "mistral-7b",
        "mixtral-8x7b",
        "qwen2.5-0.5b",
        "gemma-2b",
        "phi-3-mini",
        "pythia-1.4b",
        "opt-1.3b",
        "bert-base",
    }
    assert required <= set(preset_names())
    assert len(preset_names()) >= 15


@pytest.mark.parametrize(("name", "total"), sorted(PUBLISHED_TOTALS.items()))
def test_published_totals(name: str, total: int) -> None:
    assert param_breakdown(preset_spec(name)).total == total


def test_every_preset_is_checked_and_cites_a_source() -> None:
    assert set(preset_names()) == set(PUBLISHED_TOTALS)
    for name in preset_names():
        assert preset(name).source.startswith("https://"), name
        assert preset(name).title


def test_llama_2_70b_counts_gqa_not_78b() -> None:
    """meta-llama/llama #1111: 4·d² attention gives ~78B; grouped-query k and v are d × 1024."""
    assert param_breakdown(preset_spec("llama-2-70b")).total < 70e9


def test_mixtral_active_is_about_12_9b() -> None:
    assert round(param_breakdown(preset_spec("mixtral-8x7b")).active / 1e9, 1) == 12.9


def test_aliases_and_case() -> None:
    assert preset("GPT2-Small") is preset("gpt2")
    assert preset("bert-base-uncased").name == "bert-base"


def test_unknown_preset_suggests() -> None:
    with pytest.raises(UnknownNameError, match="did you mean 'mistral-7b'"):
        preset("mistral7b")
