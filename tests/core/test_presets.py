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


# Issue 13's presets: (what is compared, published value, tolerance, source). Active counts follow each
# source's convention: OpenAI's gpt-oss "active" leaves out the input embedding (it counts the unembedding).
PUBLISHED_2025: dict[str, tuple[str, int, int, str]] = {
    "deepseek-v3": (
        "total",
        671_000_000_000,
        1_000_000_000,
        "model card / arXiv 2412.19437: 671B (685B with MTP)",
    ),
    "kimi-k2": ("total", 1_000_000_000_000, 50_000_000_000, "model card: 1 trillion total parameters"),
    "qwen3-0.6b": ("non_embedding", 440_000_000, 5_000_000, "model card: 0.6B, non-embedding 0.44B"),
    "qwen3-8b": ("non_embedding", 6_950_000_000, 5_000_000, "model card: 8.2B, non-embedding 6.95B"),
    "qwen3-30b-a3b": ("non_embedding", 29_900_000_000, 50_000_000, "model card: 30.5B, non-embedding 29.9B"),
    "gemma-3-1b": ("non_embedding", 698_000_000, 500_000, "Gemma 3 report, Table 1: 302M embedding + 698M"),
    "gemma-3-4b": ("non_embedding", 3_209_000_000, 500_000, "Gemma 3 report, Table 1: 3,209M non-embedding"),
    "gpt-oss-20b": ("total", 20_910_000_000, 5_000_000, "gpt-oss model card, Table 1: 20.91B"),
    "gpt-oss-120b": ("total", 116_830_000_000, 5_000_000, "gpt-oss model card, Table 1: 116.83B"),
    "llama-3.1-8b": ("total", 8_030_000_000, 5_000_000, "Hugging Face safetensors metadata: 8.03B"),
    "llama-3.2-3b": ("total", 3_210_000_000, 5_000_000, "Hugging Face safetensors metadata: 3.21B"),
    "llama-4-scout": ("active", 17_000_000_000, 500_000_000, "model card: 17B active (109B with vision)"),
    "mistral-small-24b": ("total", 23_600_000_000, 50_000_000, "Hugging Face safetensors metadata: 23.6B"),
    "mistral-nemo-12b": ("total", 12_200_000_000, 50_000_000, "Hugging Face safetensors metadata: 12.2B"),
    "olmo-2-7b": ("total", 7_300_000_000, 50_000_000, "Hugging Face safetensors metadata: 7.3B"),
    "phi-4": ("total", 14_700_000_000, 50_000_000, "Hugging Face safetensors metadata: 14.7B"),
    "smollm2-1.7b": ("total", 1_710_000_000, 5_000_000, "Hugging Face safetensors metadata: 1.71B"),
}
#: Second published figures for the same presets (active counts, non-embedding).
PUBLISHED_2025_MORE: list[tuple[str, str, int, int]] = [
    ("deepseek-v3", "active", 37_000_000_000, 1_000_000_000),  # "37B activated"
    ("kimi-k2", "active", 32_000_000_000, 1_000_000_000),  # "32 billion activated"
    ("qwen3-0.6b", "total", 600_000_000, 50_000_000),
    ("qwen3-8b", "total", 8_200_000_000, 50_000_000),
    ("qwen3-30b-a3b", "total", 30_500_000_000, 50_000_000),
    ("qwen3-30b-a3b", "active", 3_300_000_000, 100_000_000),  # "3.3B activated": 3.353B, truncated
    ("gemma-3-1b", "total", 1_000_000_000, 5_000_000),
    ("gpt-oss-20b", "active_minus_embedding", 3_610_000_000, 5_000_000),
    ("gpt-oss-120b", "active_minus_embedding", 5_130_000_000, 5_000_000),
]


def _figure(name: str, what: str) -> int:
    from quizzer.core.model import non_embedding_params

    parts = param_breakdown(preset_spec(name))
    return {
        "total": parts.total,
        "active": parts.active,
        "non_embedding": non_embedding_params(preset_spec(name)).value,
        "active_minus_embedding": parts.active - parts.token_embedding,
    }[what]


@pytest.mark.parametrize("name", sorted(PUBLISHED_2025))
def test_published_figures_2025(name: str) -> None:
    what, published, tolerance, _source = PUBLISHED_2025[name]
    assert abs(_figure(name, what) - published) <= tolerance


@pytest.mark.parametrize(("name", "what", "published", "tolerance"), PUBLISHED_2025_MORE)
def test_more_published_figures_2025(name: str, what: str, published: int, tolerance: int) -> None:
    assert abs(_figure(name, what) - published) <= tolerance


def test_llama_4_scout_text_is_below_the_published_total_with_vision() -> None:
    assert 107e9 < param_breakdown(preset_spec("llama-4-scout")).total < 109e9


# The old presets as the code before issue 13 (commit a24db65) counted them with `quizzer count NAME --seq-len
# 4096 --json`: params total, active, embedding, position, attention, mlp, norm, lm_head, other; KV bytes per
# token; forward FLOPs per token at 4096; KV cache bytes at 4096 tokens. They must not move.
OLD_PRESETS = {
    "gpt2": (
        124_439_808,
        124_439_808,
        38_597_376,
        786_432,
        28_348_416,
        56_669_184,
        38_400,
        0,
        0,
        36_864,
        398_059_008,
        150_994_944,
    ),
    "gpt2-medium": (
        354_823_168,
        354_823_168,
        51_463_168,
        1_048_576,
        100_761_600,
        201_449_472,
        100_352,
        0,
        0,
        98_304,
        1_109_559_296,
        402_653_184,
    ),
    "gpt2-large": (
        774_030_080,
        774_030_080,
        64_328_960,
        1_310_720,
        236_113_920,
        472_089_600,
        186_880,
        0,
        0,
        184_320,
        2_299_210_240,
        754_974_720,
    ),
    "gpt2-xl": (
        1_557_611_200,
        1_557_611_200,
        80_411_200,
        1_638_400,
        491_827_200,
        983_424_000,
        310_400,
        0,
        0,
        307_200,
        4_368_233_600,
        1_258_291_200,
    ),
    "llama-2-7b": (
        6_738_415_616,
        6_738_415_616,
        131_072_000,
        0,
        2_147_483_648,
        4_328_521_728,
        266_240,
        131_072_000,
        0,
        524_288,
        15_361_638_400,
        2_147_483_648,
    ),
    "llama-2-13b": (
        13_015_864_320,
        13_015_864_320,
        163_840_000,
        0,
        4_194_304_000,
        8_493_465_600,
        414_720,
        163_840_000,
        0,
        819_200,
        29_058_662_400,
        3_355_443_200,
    ),
    "llama-2-70b": (
        68_976_648_192,
        68_976_648_192,
        262_144_000,
        0,
        12_079_595_520,
        56_371_445_760,
        1_318_912,
        262_144_000,
        0,
        327_680,
        148_163_788_800,
        1_342_177_280,
    ),
    "llama-3-8b": (
        8_030_261_248,
        8_030_261_248,
        525_336_576,
        0,
        1_342_177_280,
        5_637_144_576,
        266_240,
        525_336_576,
        0,
        131_072,
        17_156_800_512,
        536_870_912,
    ),
    "llama-3-70b": (
        70_553_706_496,
        70_553_706_496,
        1_050_673_152,
        0,
        12_079_595_520,
        56_371_445_760,
        1_318_912,
        1_050_673_152,
        0,
        327_680,
        149_740_847_104,
        1_342_177_280,
    ),
    "mistral-7b": (
        7_241_732_096,
        7_241_732_096,
        131_072_000,
        0,
        1_342_177_280,
        5_637_144_576,
        266_240,
        131_072_000,
        0,
        131_072,
        16_368_271_360,
        536_870_912,
    ),
    "mixtral-8x7b": (
        46_702_792_704,
        12_879_925_248,
        131_072_000,
        0,
        1_342_177_280,
        45_098_205_184,
        266_240,
        131_072_000,
        0,
        131_072,
        27_644_657_664,
        536_870_912,
    ),
    "qwen2.5-0.5b": (
        494_032_768,
        494_032_768,
        136_134_656,
        0,
        44_067_840,
        313_786_368,
        43_904,
        0,
        0,
        12_288,
        1_340_243_968,
        50_331_648,
    ),
    "gemma-2b": (
        2_506_172_416,
        2_506_172_416,
        524_288_000,
        0,
        169_869_312,
        1_811_939_328,
        75_776,
        0,
        0,
        18_432,
        5_616_173_056,
        75_497_472,
    ),
    "gemma-7b": (
        8_537_680_896,
        8_537_680_896,
        786_432_000,
        0,
        1_409_286_144,
        6_341_787_648,
        175_104,
        0,
        0,
        458_752,
        18_954_059_776,
        1_879_048_192,
    ),
    "phi-3-mini": (
        3_821_079_552,
        3_821_079_552,
        98_500_608,
        0,
        1_207_959_552,
        2_415_919_104,
        199_680,
        98_500_608,
        0,
        393_216,
        9_055_371_264,
        804_913_152,
    ),
    "pythia-160m": (
        162_322_944,
        162_322_944,
        38_633_472,
        0,
        28_348_416,
        56_669_184,
        38_400,
        38_633_472,
        0,
        36_864,
        398_131_200,
        150_994_944,
    ),
    "pythia-1.4b": (
        1_414_647_808,
        1_414_647_808,
        103_022_592,
        0,
        402_849_792,
        805_552_128,
        200_704,
        103_022_592,
        0,
        196_608,
        3_427_270_656,
        805_306_368,
    ),
    "opt-125m": (
        125_239_296,
        125_239_296,
        38_608_896,
        1_574_400,
        28_348_416,
        56_669_184,
        38_400,
        0,
        0,
        36_864,
        398_082_048,
        150_994_944,
    ),
    "opt-1.3b": (
        1_315_758_080,
        1_315_758_080,
        102_957_056,
        4_198_400,
        402_849_792,
        805_552_128,
        200_704,
        0,
        0,
        196_608,
        3_427_139_584,
        805_306_368,
    ),
    "bert-base": (
        109_482_240,
        109_482_240,
        23_442_432,
        393_216,
        28_348_416,
        56_669_184,
        38_400,
        0,
        590_592,
        0,
        320_864_256,
        0,
    ),
    "bert-large": (
        335_141_888,
        335_141_888,
        31_256_576,
        524_288,
        100_761_600,
        201_449_472,
        100_352,
        0,
        1_049_600,
        0,
        1_006_632_960,
        0,
    ),
}


@pytest.mark.parametrize("name", sorted(OLD_PRESETS))
def test_old_presets_are_unchanged(name: str) -> None:
    from quizzer.commands.count import count_report

    report = count_report(name, preset_spec(name), "bf16", 4096, 1)
    p = report["params"]
    got = (
        p["total"],
        p["active"],
        p["embedding"],
        p["position"],
        p["attention"],
        p["mlp"],
        p["norm"],
        p["lm_head"],
        p["other"],
        report["kv_cache_bytes_per_token"],
        report["flops_per_token"]["forward"],
        report.get("kv_cache", {}).get("bytes", 0),
    )
    assert got == OLD_PRESETS[name]


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


def test_the_issue_13_presets_ship() -> None:
    assert set(PUBLISHED_2025) <= set(preset_names())
    assert set(OLD_PRESETS) == set(PUBLISHED_TOTALS)


#: Presets checked part by part against real_models_2026.json (tests/core/test_real_models_2026.py).
PUBLISHED_2026 = (
    "qwen3-next-80b-a3b",
    "deepseek-v3.2-exp",
    "glm-4.5-air",
    "smollm3-3b",
    "olmo-3-7b",
    "ernie-4.5-21b-a3b",
    "lfm2-1.2b",
    # the kept-aside types, checked against our own measurement (tests/core/test_real_models_2026_extra.py)
    "kimi-linear-48b-a3b",
    "nemotron-nano-9b-v2",
    "minimax-m2",
    "glm-4.6",
    "seed-oss-36b",
    "apertus-8b",
    "granite-4.0-h-tiny",
)


def test_every_preset_is_checked_and_cites_a_source() -> None:
    from tests.core.test_presets_27 import PRESETS_27

    checked = set(PUBLISHED_TOTALS) | set(PUBLISHED_2025) | set(PUBLISHED_2026) | set(PRESETS_27)
    assert set(preset_names()) == checked
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
