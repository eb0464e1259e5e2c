"""ViT patches, parameters and forward MACs/FLOPs: golden problems, torchvision anchors and properties."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quizzer.core.errors import SpecError
from quizzer.core.units import Unit
from quizzer.core.vit import vit_forward_flops, vit_forward_macs, vit_params, vit_patch_count, vit_tokens
from tests.golden import assert_golden

VIT_B_16 = (224, 16, 768, 12, 3072, 1000)

#: torchvision/models/vision_transformer.py weight metadata: (image, patch, d, layers, mlp), num_params,
#: _ops (G; MACs despite the "GFLOPS" label). 384/512/518 rows are the SWAG end-to-end fine-tunes.
TORCHVISION = [
    ("vit_b_16", (224, 16, 768, 12, 3072), 86_567_656, 17.564),
    ("vit_b_32", (224, 32, 768, 12, 3072), 88_224_232, 4.409),
    ("vit_l_16", (224, 16, 1024, 24, 4096), 304_326_632, 61.555),
    ("vit_l_32", (224, 32, 1024, 24, 4096), 306_535_400, 15.378),
    ("vit_h_14", (224, 14, 1280, 32, 5120), 632_045_800, 167.295),
    ("vit_b_16 swag 384", (384, 16, 768, 12, 3072), 86_859_496, 55.484),
    ("vit_l_16 swag 512", (512, 16, 1024, 24, 4096), 305_174_504, 361.986),
    ("vit_h_14 swag 518", (518, 14, 1280, 32, 5120), 633_470_440, 1016.717),
]


# --- golden problems -------------------------------------------------------------------------------------


def test_vit01_patches_of_224_over_16(problems: dict[str, dict[str, Any]]) -> None:
    result = vit_patch_count(224, 16)
    assert result.unit == Unit.PATCHES
    assert_golden(problems["VIT-01"], result.value)
    assert vit_tokens(224, 16).value == 197  # with the CLS token, as the problem's units say


def test_fl08_vit_b16_macs(problems: dict[str, dict[str, Any]]) -> None:
    result = vit_forward_macs(*VIT_B_16)
    assert result.unit == Unit.MACS
    assert_golden(problems["FL-08"], result.value / 1e9)
    # FL-08's own formula with T = 197, L = 12, d = 768, d_ff = 4d, evaluated term by term:
    t, layers, d = 197, 12, 768
    assert result.value == t * layers * 12 * d**2 + layers * 2 * t**2 * d + 196 * d * (16 * 16 * 3) + d * 1000


def test_fl08_torchvision_gflops_are_macs(problems: dict[str, dict[str, Any]]) -> None:
    # The problem is marked sources_disagree: torchvision's "17.6 GFLOPS" are MACs; at 2 FLOPs per MAC the
    # same forward pass is ~35.1 GFLOPs. The notes (§2.1) side with reading 17.6 as MACs.
    macs = vit_forward_macs(*VIT_B_16).value
    flops = vit_forward_flops(*VIT_B_16)
    assert flops.unit == Unit.FLOPS
    assert flops.value == 2 * macs
    assert flops.value / 1e9 == pytest.approx(35.1, rel=0.01)
    assert macs / 1e9 == pytest.approx(17.6, rel=0.01)
    assert problems["FL-08"]["sources_disagree"] is True


# --- torchvision and sizing-notes anchors ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "shape", "num_params", "gmacs"), TORCHVISION, ids=[r[0] for r in TORCHVISION]
)
def test_torchvision_models(name: str, shape: tuple[int, ...], num_params: int, gmacs: float) -> None:
    assert vit_params(*shape, 1000).value == num_params
    # torchvision rounds _ops to 3 decimals (in G): allow half a unit in the last place
    assert vit_forward_macs(*shape, 1000).value / 1e9 == pytest.approx(gmacs, abs=0.0005)


def test_vit_l14_at_336() -> None:
    # sizing-notes 4.11 and §5: ViT-L/14@336 has 576 patches and 577 tokens.
    assert vit_patch_count(336, 14).value == 576
    assert vit_tokens(336, 14).value == 577


def test_tokens_without_class_token() -> None:
    assert vit_tokens(224, 16, False).value == 196


def test_params_components_sum_to_total() -> None:
    # ViT-B/16 by hand: conv 590,592 + cls 768 + positions 151,296 + 12 layers × 7,087,872
    # + final norm 1,536 + head 769,000
    result = vit_params(*VIT_B_16)
    assert result.value == 590_592 + 768 + 151_296 + 12 * 7_087_872 + 1_536 + 769_000


# --- validation ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: vit_patch_count(225, 16), "divisible"),
        (lambda: vit_patch_count(224, 0), "patch_size"),
        (lambda: vit_tokens(224, 16, 1), "cls_token"),
        (lambda: vit_params(224, 16, 768, 0, 3072, 1000), "n_layers"),
        (lambda: vit_forward_macs(224, 16, 768, 12, 3072, 1000, 0), "channels"),
    ],
)
def test_bad_inputs_are_rejected(call: Any, message: str) -> None:
    with pytest.raises(SpecError, match=message):
        call()


# --- properties ------------------------------------------------------------------------------------------

patch_sizes = st.integers(min_value=1, max_value=32)
sides = st.integers(min_value=1, max_value=64)  # patches per side
widths = st.integers(min_value=1, max_value=32).map(lambda x: 32 * x)
depths = st.integers(min_value=1, max_value=48)


@given(patch_sizes, sides)
def test_patches_quadruple_when_image_doubles(p: int, side: int) -> None:
    assert vit_patch_count(2 * side * p, p).value == 4 * vit_patch_count(side * p, p).value


@given(patch_sizes, sides, widths, depths)
def test_params_linear_in_layers(p: int, side: int, d: int, layers: int) -> None:
    one, more = (vit_params(side * p, p, d, n, 4 * d, 1000).value for n in (layers, layers + 1))
    per_layer = 12 * d * d + 13 * d  # 4d² + 4d + 2·d·4d + 4d + d + 4d with d_ff = 4d
    assert more - one == per_layer


@given(patch_sizes, sides, widths, depths)
def test_image_size_changes_only_the_position_table(p: int, side: int, d: int, layers: int) -> None:
    small = vit_params(side * p, p, d, layers, 4 * d, 1000).value
    large = vit_params(2 * side * p, p, d, layers, 4 * d, 1000).value
    assert large - small == 3 * side * side * d  # 4·side² - side² more position rows


@given(patch_sizes, sides, widths, depths, st.integers(1, 4096))
def test_macs_match_the_fl08_formula_when_d_ff_is_4d(
    p: int, side: int, d: int, layers: int, classes: int
) -> None:
    patches = side * side
    t = patches + 1
    expected = t * layers * 12 * d * d + layers * 2 * t * t * d + patches * d * (p * p * 3) + d * classes
    assert vit_forward_macs(side * p, p, d, layers, 4 * d, classes).value == expected


@given(patch_sizes, sides, widths, depths)
def test_flops_are_twice_macs(p: int, side: int, d: int, layers: int) -> None:
    shape = (side * p, p, d, layers, 4 * d, 1000)
    assert vit_forward_flops(*shape).value == 2 * vit_forward_macs(*shape).value


@given(patch_sizes, sides, widths, depths, st.booleans())
def test_last_step_carries_the_value(p: int, side: int, d: int, layers: int, cls: bool) -> None:
    shape = (side * p, p, d, layers, 3 * d, 10)
    results = [
        vit_patch_count(side * p, p),
        vit_tokens(side * p, p, cls),
        vit_params(*shape),
        vit_forward_macs(*shape, 1),
        vit_forward_flops(*shape),
    ]
    for result in results:
        assert result.steps[-1].value == result.value
        assert result.steps[-1].unit == result.unit
        assert isinstance(result.value, int)
