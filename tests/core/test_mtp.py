"""Multi-token-prediction modules: left out by default, as transformers builds none; counted on request
(`from_hf_config(..., mtp=True)`, `quizzer count --mtp`) where the config gives them."""

from __future__ import annotations

import json
import subprocess
import sys

from quizzer.core.hf import from_hf_config
from quizzer.core.model import param_breakdown
from quizzer.core.presets import preset

# DeepSeek-V3's MTP module (arXiv 2412.19437 §2.2), worked by hand from the published shapes:
D, V = 7168, 129280
MLA = D * 1536 + 1536 * 128 * 192 + D * (512 + 64) + 512 * 128 * (128 + 128) + 128 * 128 * D
NORMS_IN_LAYER = 2 * D + 1536 + 512  # input and post-attention norms, the two latent norms
MOE = D * 256 + (256 + 1) * 3 * D * 2048  # router, 256 routed experts and 1 shared, SwiGLU 2,048 wide
MODULE = MLA + NORMS_IN_LAYER + MOE + 2 * D * D + 3 * D  # the layer, eh_proj, enorm + hnorm + final norm
ACTIVE_MODULE = MLA + NORMS_IN_LAYER + D * 256 + (8 + 1) * 3 * D * 2048 + 2 * D * D + 3 * D


def test_deepseek_v3s_module_as_worked_by_hand() -> None:
    config = preset("deepseek-v3").config
    plain, with_mtp = (
        param_breakdown(from_hf_config(config)),
        param_breakdown(from_hf_config(config, mtp=True)),
    )
    assert MODULE == 11_610_067_968
    assert plain.mtp == 0
    assert with_mtp.mtp == MODULE
    assert with_mtp.total - plain.total == MODULE
    assert with_mtp.active - plain.active == ACTIVE_MODULE
    # The card's "685B = 671B + 14B MTP": the checkpoint's layer 61 also stores copies of the embedding and
    # the head (2 × V × D), which a count of distinct parameters leaves out.
    assert round((plain.total + MODULE + 2 * V * D) / 1e9, 1) == 684.5


def test_qwen3_next_module_is_a_gated_attention_layer_with_its_experts() -> None:
    d = 2048
    attention = d * 2 * 16 * 256 + 2 * d * 2 * 256 + 16 * 256 * d  # q doubled by the output gate, k, v, o
    norms = 2 * d + 2 * 256  # input and post-attention norms, per-head q/k norms
    moe = d * 512 + 512 * 3 * d * 512 + 3 * d * 512 + d  # router, experts, shared expert and its gate
    spec = from_hf_config(preset("qwen3-next-80b-a3b").config, mtp=True)
    assert spec.mtp_layers == 1
    assert param_breakdown(spec).mtp == attention + norms + moe + 2 * d * d + 3 * d


def test_a_config_without_mtp_counts_none() -> None:
    spec = from_hf_config(preset("llama-3-8b").config, mtp=True)
    assert spec.mtp_layers == 0


def test_count_mtp_keeps_json_clean_and_says_when_there_is_none() -> None:
    run = [sys.executable, "-m", "quizzer", "count", "--json", "--mtp"]
    out = subprocess.run([*run, "deepseek-v3.2-exp"], capture_output=True, text=True, check=True)
    report = json.loads(out.stdout)
    assert report["params"]["mtp"] > 11e9
    assert report["params"]["total"] == sum(
        v for k, v in report["params"].items() if k not in ("total", "active")
    )
    none = subprocess.run([*run, "llama-3-8b"], capture_output=True, text=True, check=True)
    assert json.loads(none.stdout)["params"]["mtp"] == 0
    assert "no multi-token-prediction modules" in none.stderr
